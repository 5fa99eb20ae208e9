"""Pinned chart and image versions: the one place defaults live. Pure data.

Sources: clouds.md section 4 (gpu-operator tags), dra.md section 4.1 (DRA driver tags and chart names),
dra.md section 5 (dra-example-driver chart), clouds.md section 3 (kind node images).
"""

from __future__ import annotations

import re

GPU_OPERATOR_DEFAULT = "v25.10.1"
# v25.10.0 is the first GPU Operator with CDI on by default, which the DRA driver needs.
GPU_OPERATOR_MIN_FOR_DRA = (25, 10, 0)
GPU_OPERATOR_REPO = "https://helm.ngc.nvidia.com/nvidia"

DRA_DRIVER_DEFAULT = "0.4.1"
# Every released NVIDIA DRA driver chart (NVIDIA/k8s-dra-driver-gpu CalVer, then kubernetes-sigs SemVer).
DRA_DRIVER_RELEASES = ("25.3.0", "25.3.1", "25.3.2", "25.8.0", "25.8.1", "25.12.0", "0.4.0", "0.4.1")
DRA_DRIVER_NGC_REPO = "https://helm.ngc.nvidia.com/nvidia"
DRA_DRIVER_OCI_REPO = "oci://registry.k8s.io/dra-driver-nvidia/charts"

EXAMPLE_DRIVER_DEFAULT = "0.2.1"
EXAMPLE_DRIVER_RELEASES = ("0.2.0", "0.2.1", "0.3.0", "0.4.0")
EXAMPLE_DRIVER_REPO = "oci://registry.k8s.io/dra-example-driver/charts"

# kindest/node images per Kubernetes minor (kind release notes); users may pin their own.
KIND_NODE_IMAGES = {"1.34": "kindest/node:v1.34.0", "1.35": "kindest/node:v1.35.0", "1.36": "kindest/node:v1.36.0"}

# Kubernetes minors this package renders for: DRA resource.k8s.io/v1 is GA from 1.34.
SUPPORTED_KUBERNETES = ("1.34", "1.35", "1.36")
MIN_KUBERNETES = (1, 34)

_SEMVER = re.compile(r"^v?(\d+)\.(\d+)\.(\d+)$")


def version_tuple(text: str) -> tuple[int, int, int] | None:
    match = _SEMVER.match(text)
    return (int(match[1]), int(match[2]), int(match[3])) if match else None


def dra_driver_chart(version: str) -> tuple[str, str]:
    """(chart name, repository) for a DRA driver version: 25.x is NVIDIA's CalVer chart on NGC,
    0.4+ is the kubernetes-sigs chart on registry.k8s.io."""
    if version.startswith("25."):
        return "nvidia-dra-driver-gpu", DRA_DRIVER_NGC_REPO
    return "dra-driver-nvidia-gpu", DRA_DRIVER_OCI_REPO
