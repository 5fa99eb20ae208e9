"""DraDriver: the NVIDIA DRA driver chart (nvidia-dra-driver-gpu for 25.x, dra-driver-nvidia-gpu for 0.4+), its
kubelet plugin pinned to DRA pools (dra_gpu_platform/plans/gpu_software.py `dra_driver_plan`). It waits for the GPU
Operator (ReleaseArgs.after) only when the operator installs the driver; otherwise both install side by side."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import parts
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease, ReleaseArgs


@dataclass(frozen=True)
class DraDriverArgs(ReleaseArgs):
    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> DraDriverArgs:
        """The NVIDIA DRA driver of a stack file's sections (every section but `cluster`, keys without the prefix)
        on an existing `platform` cluster (eks, aks or existing) of `kubernetes_version`, reached by `provider`.
        `gpu_operator`: the GpuOperator component, which the driver waits for when the operator installs the NVIDIA
        driver (as in GpuPlatform). Validated as a stack file is (one ConfigError listing every problem). The
        arguments and their docs: dra_gpu_platform/config/descriptors.py DRA_DRIVER (docs/library.md)."""
        part = parts.plan_part(parts.DRA_DRIVER, sections, arguments, stack=pulumi.get_stack())
        operator: GpuSoftwareRelease | None = part.arguments["gpu_operator"]
        after = [operator.release] if part.waits and operator is not None else []
        return cls(part.plan, **part.kept(parts.DRA_DRIVER), after=after)


class DraDriver(GpuSoftwareRelease):
    TYPE = Component.DRA_DRIVER
