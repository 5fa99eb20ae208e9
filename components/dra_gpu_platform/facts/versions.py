"""Pinned chart and image versions: the one place defaults live. Pure data.

Sources: docs/references.md#gpu-operator-chart and docs/references.md#gpu-operator-cdi-default (gpu-operator),
docs/references.md#kind-node-images (kind node images). The DRA driver and dra-example-driver charts (versions,
names, what each creates) are in dra_gpu_platform/facts/driver_charts.py.
"""

from __future__ import annotations

from dra_gpu_platform.facts import kubernetes

# The newest listed release NVIDIA supports on every minor this package models (what a stack gets without a pin;
# config/validation.py with_gpu_operator_default picks per minor from facts/gpu_software_support.py).
GPU_OPERATOR_DEFAULT = "v26.7.0"
# v25.10.0 is the first GPU Operator with CDI on by default, which the DRA driver needs.
GPU_OPERATOR_MIN_FOR_DRA = "25.10.0"
GPU_OPERATOR_REPO = "https://helm.ngc.nvidia.com/nvidia"

# kindest/node images per Kubernetes minor, pinned by digest: the images kind v0.33.0 was released with (its
# default, v1.37.0, and the pre-built ones its release notes list; docs/references.md#kind-node-images). kind
# images are built per kind release, so all four come from the same one. Users may pin their own.
KIND_RELEASE = "v0.33.0"
KIND_NODE_IMAGES = {
    "1.34": "kindest/node:v1.34.11@sha256:44e222ee2132dab25ff87301682f89eb82c7880ea3a1bf543bfe9708fd08d67d",
    "1.35": "kindest/node:v1.35.8@sha256:07b2536e30b803ed61d1677a79df6115f798ce64c80f9e22f6ed45afd09323c0",
    "1.36": "kindest/node:v1.36.4@sha256:099e049362a1526b2db71494e1947aae99bd16290d7c895f2b7ea312e3cbfaed",
    "1.37": "kindest/node:v1.37.0@sha256:a1ed56cfb0e7b93589bdf97c8cd566405a265939e3620fc4f5de89adff580ae5",
}

# Kubernetes minors this package renders for (dra_gpu_platform/facts/kubernetes.py MINORS): DRA resource.k8s.io/v1 is
# GA from 1.34.
SUPPORTED_KUBERNETES = tuple(kubernetes.MINORS)
MIN_KUBERNETES = (1, 34)
