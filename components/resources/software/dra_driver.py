"""DraDriver: the NVIDIA DRA driver chart (nvidia-dra-driver-gpu for 25.x, dra-driver-nvidia-gpu for 0.4+), its
kubelet plugin pinned to DRA pools (components/plans/gpu_software.py `dra_driver_plan`). It waits for the GPU
Operator (ReleaseArgs.after) only when the operator installs the driver; otherwise both install side by side."""

from __future__ import annotations

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease


class DraDriver(GpuSoftwareRelease):
    TYPE = Component.DRA_DRIVER
