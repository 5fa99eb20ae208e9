"""Maintenance: DeviceTaintRules that keep new claims off degraded devices, or evict their pods, in the
resource.k8s.io version the stack's minor serves them (dra_gpu_platform/plans/maintenance.py): v1 on 1.37, v1beta2 on
1.36, v1alpha3 before. Each version is its own typed SDK class; the SDK aliases the three types to each other, so a
rule keeps its identity when the stack moves to another minor."""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.resource import v1 as resource_v1
from pulumi_kubernetes.resource import v1alpha3 as resource_v1alpha3
from pulumi_kubernetes.resource import v1beta2 as resource_v1beta2

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.maintenance import DeviceTaintRulePlan

_SDK: dict[str, ModuleType] = {
    "resource.k8s.io/v1": resource_v1,
    "resource.k8s.io/v1beta2": resource_v1beta2,
    "resource.k8s.io/v1alpha3": resource_v1alpha3,
}


@dataclass(frozen=True)
class MaintenanceArgs:
    taints: tuple[DeviceTaintRulePlan, ...]  # dra_gpu_platform/plans/maintenance.py plan_device_taints
    provider: k8s.Provider


class Maintenance(pulumi.ComponentResource):
    def __init__(self, name: str, args: MaintenanceArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.MAINTENANCE, name, None, opts)
        for taint in args.taints:
            sdk = _SDK[taint.api_version]
            sdk.DeviceTaintRule(
                child(name, taint.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=taint.name, labels=labels()),
                spec=sdk.DeviceTaintRuleSpecArgs(
                    device_selector=sdk.DeviceTaintSelectorArgs(
                        driver=taint.driver, pool=taint.pool, device=taint.device
                    ),
                    taint=sdk.DeviceTaintArgs(key=taint.key, value=taint.value, effect=taint.effect),
                ),
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
            )
        self.register_outputs({"taints": sorted(t.name for t in args.taints)})
