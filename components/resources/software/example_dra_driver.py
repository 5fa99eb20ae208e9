"""ExampleDraDriver: kubernetes-sigs/dra-example-driver on kind (driver gpu.example.com, fake GPUs), its
kubelet plugin limited to DRA pools like the NVIDIA one."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.config.models import StackConfig
from components.resources.software.helm_release import install_release
from components.plans.gpu_software import ReleasePlan, example_driver_plan
from components.facts.type_tokens import Component


@dataclass(frozen=True)
class ExampleDraDriverArgs:
    config: StackConfig
    provider: k8s.Provider


class ExampleDraDriver(pulumi.ComponentResource):
    plan: ReleasePlan
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: ExampleDraDriverArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EXAMPLE_DRA_DRIVER, name, None, opts)
        plan = example_driver_plan(args.config)
        if plan is None:
            raise pulumi.RunError("ExampleDraDriver was created for a stack that is not kind with gpuDriver: example")
        self.plan = plan
        self.namespace, self.release = install_release(name, plan, args.provider, self)
        self.register_outputs({"release": plan.release, "namespace": plan.namespace, "version": plan.version})
