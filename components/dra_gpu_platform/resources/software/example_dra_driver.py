"""ExampleDraDriver: kubernetes-sigs/dra-example-driver on kind (driver gpu.example.com, fake GPUs), its kubelet
plugin limited to DRA pools like the NVIDIA one (dra_gpu_platform/plans/gpu_software.py `example_driver_plan`)."""

from __future__ import annotations

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease


class ExampleDraDriver(GpuSoftwareRelease):
    TYPE = Component.EXAMPLE_DRA_DRIVER
