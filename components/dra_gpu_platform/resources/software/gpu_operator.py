"""GpuOperator: the NVIDIA GPU Operator release, values derived from the platform and the node pools
(dra_gpu_platform/plans/gpu_software.py `gpu_operator_plan`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import parts
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease, ReleaseArgs


@dataclass(frozen=True)
class GpuOperatorArgs(ReleaseArgs):
    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> GpuOperatorArgs:
        """The GPU Operator of a stack file's sections (every section but `cluster`, keys without the prefix: the
        node pools it serves, gpuOperator, draDriver, deviceClasses, monitoring) on an existing `platform` cluster
        (eks, aks or existing) of `kubernetes_version`, reached by `provider`. Validated as a stack file is (one
        ConfigError listing every problem). The arguments and their docs: dra_gpu_platform/config/descriptors.py
        GPU_OPERATOR (docs/library.md)."""
        part = parts.plan_part(parts.GPU_OPERATOR, sections, arguments, stack=pulumi.get_stack())
        return cls(part.plan, **part.kept(parts.GPU_OPERATOR))


class GpuOperator(GpuSoftwareRelease):
    TYPE = Component.GPU_OPERATOR
