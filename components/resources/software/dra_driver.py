"""DraDriver: the NVIDIA DRA driver chart (nvidia-dra-driver-gpu for 25.x, dra-driver-nvidia-gpu for 0.4+),
its kubelet plugin pinned to DRA pools. Waits for the GPU Operator only when the operator installs the
driver; otherwise both install side by side."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Sequence

import pulumi
import pulumi_kubernetes as k8s

from components.config.models import StackConfig
from components.resources.software.helm_release import install_release
from components.plans.gpu_software import ReleasePlan, dra_driver_plan
from components.facts.type_tokens import Component


@dataclass(frozen=True)
class DraDriverArgs:
    config: StackConfig
    provider: k8s.Provider
    # resources that must be ready first: the GPU Operator's release when its driver container
    # provides the driver files under /run/nvidia/driver
    after: Sequence[pulumi.Resource] = field(default=())


class DraDriver(pulumi.ComponentResource):
    plan: ReleasePlan
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: DraDriverArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.DRA_DRIVER, name, None, opts)
        plan = dra_driver_plan(args.config)
        if plan is None:
            raise pulumi.RunError("DraDriver was created for a stack without the NVIDIA DRA driver")
        self.plan = plan
        self.namespace, self.release = install_release(name, plan, args.provider, self, depends_on=args.after)
        self.register_outputs({"release": plan.release, "namespace": plan.namespace, "chart": plan.chart, "version": plan.version})
