"""DeviceClasses: one resource.k8s.io/v1 DeviceClass per class of the stack, built from the class sugar
(dra_gpu_platform/plans/device_classes.py) or raw selectors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.resource import v1 as resource_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import parts
from dra_gpu_platform.plans.device_classes import DeviceClassPlan


@dataclass(frozen=True)
class DeviceClassesArgs:
    plans: tuple[DeviceClassPlan, ...]  # dra_gpu_platform/plans/device_classes.py plan_device_classes
    provider: k8s.Provider

    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> DeviceClassesArgs:
        """Every class of the sections' deviceClasses (a stack file's sections but `cluster`, keys without the
        prefix) on an existing `platform` cluster (eks, aks or existing) of `kubernetes_version`, reached by
        `provider`. Validated as a stack file is (one ConfigError listing every problem). The arguments and their
        docs: dra_gpu_platform/config/descriptors.py DEVICE_CLASSES (docs/library.md)."""
        part = parts.plan_part(parts.DEVICE_CLASSES, sections, arguments, stack=pulumi.get_stack())
        return cls(part.plan, **part.kept(parts.DEVICE_CLASSES))


class DeviceClasses(pulumi.ComponentResource):
    plans: list[DeviceClassPlan]
    classes: dict[str, resource_v1.DeviceClass]

    def __init__(self, name: str, args: DeviceClassesArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.DEVICE_CLASSES, name, None, opts)
        self.plans = list(args.plans)
        self.classes = {}
        for plan in sorted(self.plans, key=lambda p: p.name):
            for note in plan.notes:
                pulumi.log.info(note, resource=self)
            self.classes[plan.name] = resource_v1.DeviceClass(
                child(name, plan.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
                spec=resource_v1.DeviceClassSpecArgs(
                    selectors=[
                        resource_v1.DeviceSelectorArgs(cel=resource_v1.CELDeviceSelectorArgs(expression=expression))
                        for expression in plan.selectors
                    ],
                    config=[
                        resource_v1.DeviceClassConfigurationArgs(
                            opaque=resource_v1.OpaqueDeviceConfigurationArgs(driver=driver, parameters=parameters)
                        )
                        for driver, parameters in plan.configs
                    ]
                    or None,
                ),
                opts=pulumi.ResourceOptions(parent=self, provider=args.provider),
            )
        self.register_outputs({"names": sorted(self.classes)})
