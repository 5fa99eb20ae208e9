"""GpuOperator: the NVIDIA GPU Operator, with values derived from the platform and the node pools
(components/plans/gpu_software.py). Skipped by GpuPlatform when gpuOperator is disabled."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.config.models import StackConfig
from components.resources.software.helm_release import install_release
from components.plans.gpu_software import ReleasePlan, gpu_operator_plan
from components.facts.type_tokens import Component


@dataclass(frozen=True)
class GpuOperatorArgs:
    config: StackConfig
    provider: k8s.Provider


class GpuOperator(pulumi.ComponentResource):
    plan: ReleasePlan
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: GpuOperatorArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.GPU_OPERATOR, name, None, opts)
        plan = gpu_operator_plan(args.config)
        if plan is None:
            raise pulumi.RunError("GpuOperator was created for a stack with gpuOperator.enabled: false")
        self.plan = plan
        self.namespace, self.release = install_release(name, plan, args.provider, self)
        self.register_outputs({"release": plan.release, "namespace": plan.namespace, "version": plan.version})
