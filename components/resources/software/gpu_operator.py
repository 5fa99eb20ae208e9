"""GpuOperator: the NVIDIA GPU Operator release, values derived from the platform and the node pools
(components/plans/gpu_software.py `gpu_operator_plan`)."""

from __future__ import annotations

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease


class GpuOperator(GpuSoftwareRelease):
    TYPE = Component.GPU_OPERATOR
