"""Maintenance: DeviceTaintRules (resource.k8s.io/v1alpha3, alpha) that keep new claims off degraded
devices. Config rules allow them only on kind, where this package turns the alpha gate on."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.resource import v1alpha3 as resource_v1alpha3

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.maintenance import DeviceTaintRulePlan


@dataclass(frozen=True)
class MaintenanceArgs:
    taints: tuple[DeviceTaintRulePlan, ...]  # components/plans/maintenance.py plan_device_taints
    provider: k8s.Provider


class Maintenance(pulumi.ComponentResource):
    def __init__(self, name: str, args: MaintenanceArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.MAINTENANCE, name, None, opts)
        for taint in args.taints:
            resource_v1alpha3.DeviceTaintRule(
                child(name, taint.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=taint.name, labels=labels()),
                spec=resource_v1alpha3.DeviceTaintRuleSpecArgs(
                    device_selector=resource_v1alpha3.DeviceTaintSelectorArgs(
                        driver=taint.driver, pool=taint.pool, device=taint.device
                    ),
                    taint=resource_v1alpha3.DeviceTaintArgs(key=taint.key, value=taint.value, effect=taint.effect),
                ),
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
            )
        self.register_outputs({"taints": sorted(t.name for t in args.taints)})
