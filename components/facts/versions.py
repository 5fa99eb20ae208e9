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

# kindest/node images per Kubernetes minor (kind release notes); users may pin their own.
KIND_NODE_IMAGES = {"1.34": "kindest/node:v1.34.0", "1.35": "kindest/node:v1.35.0", "1.36": "kindest/node:v1.36.0"}

# Kubernetes minors this package renders for: DRA resource.k8s.io/v1 is GA from 1.34.
SUPPORTED_KUBERNETES = ("1.34", "1.35", "1.36")
MIN_KUBERNETES = (1, 34)
