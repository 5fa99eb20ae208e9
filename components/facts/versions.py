"""Pinned chart and image versions: the one place defaults live. Pure data.

Sources: docs/references.md#gpu-operator-chart and docs/references.md#gpu-operator-cdi-default (gpu-operator),
docs/references.md#kind-node-images (kind node images). The DRA driver and dra-example-driver charts (versions,
names, what each creates) are in components/facts/driver_charts.py.
"""

from __future__ import annotations

GPU_OPERATOR_DEFAULT = "v25.10.1"
# v25.10.0 is the first GPU Operator with CDI on by default, which the DRA driver needs.
GPU_OPERATOR_MIN_FOR_DRA = "25.10.0"
GPU_OPERATOR_REPO = "https://helm.ngc.nvidia.com/nvidia"

# kindest/node images per Kubernetes minor, pinned by digest: the default image of the kind release that
# built it (kubernetes-sigs/kind pkg/apis/config/defaults/image.go at v0.30.0, v0.31.0, v0.32.0). kind never
# released a kindest/node:v1.36.0 (only a staging image), so 1.36 is v1.36.1. Users may pin their own.
KIND_NODE_IMAGES = {
    "1.34": "kindest/node:v1.34.0@sha256:7416a61b42b1662ca6ca89f02028ac133a309a2a30ba309614e8ec94d976dc5a",
    "1.35": "kindest/node:v1.35.0@sha256:452d707d4862f52530247495d180205e029056831160e22870e37e3f6c1ac31f",
    "1.36": "kindest/node:v1.36.1@sha256:3489c7674813ba5d8b1a9977baea8a6e553784dab7b84759d1014dbd78f7ebd5",
}

# Kubernetes minors this package renders for: DRA resource.k8s.io/v1 is GA from 1.34.
SUPPORTED_KUBERNETES = ("1.34", "1.35", "1.36")
MIN_KUBERNETES = (1, 34)
