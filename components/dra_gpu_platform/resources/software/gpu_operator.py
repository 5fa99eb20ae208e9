"""GpuOperator: the NVIDIA GPU Operator release, values derived from the platform and the node pools
(dra_gpu_platform/plans/gpu_software.py `gpu_operator_plan`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import parts
from dra_gpu_platform.resources.software.helm_release import GpuSoftwareRelease, ReleaseArgs


@dataclass(frozen=True)
class GpuOperatorArgs(ReleaseArgs):
    @classmethod
    def from_sections(
        cls,
        sections: Mapping[str, Any],
        *,
        platform: str,
        kubernetes_version: str,
        provider: k8s.Provider,
        region: str | None = None,
    ) -> GpuOperatorArgs:
        """The GPU Operator of a stack file's sections (every section but `cluster`, keys without the prefix: the
        node pools it serves, gpuOperator, draDriver, deviceClasses, monitoring) on an existing `platform` cluster
        (eks, aks or existing) of `kubernetes_version`, reached by `provider`. Validated as a stack file is (one
        ConfigError listing every problem); docs/library.md."""
        plan = parts.gpu_operator_release(
            sections,
            platform=platform,
            kubernetes_version=kubernetes_version,
            region=region,
            stack=pulumi.get_stack(),
        )
        return cls(plan, provider)


class GpuOperator(GpuSoftwareRelease):
    TYPE = Component.GPU_OPERATOR
