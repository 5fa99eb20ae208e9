"""EfaDevicePlugin (EKS): the AWS EFA Kubernetes device plugin on the pools whose nodes carry EFA interfaces, so pods
can request `vpc.amazonaws.com/efa` (dra_gpu_platform/plans/eks.py `efa_plugin_plan`)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.gpu_software import ReleasePlan
from dra_gpu_platform.resources.software.helm_release import pinned_release


@dataclass(frozen=True)
class EfaDevicePluginArgs:
    plan: ReleasePlan
    provider: k8s.Provider
    protect: bool = False


class EfaDevicePlugin(pulumi.ComponentResource):
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: EfaDevicePluginArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EFA_DEVICE_PLUGIN, name, None, opts)
        plan = args.plan
        self.release = pinned_release(
            child(name, "release"),
            plan,
            namespace=plan.namespace,
            opts=pulumi.ResourceOptions(parent=self, provider=args.provider, protect=args.protect),
        )
        self.register_outputs({"release": plan.release, "chart": plan.chart, "version": plan.version})
