"""DraDriver as the component package hosts it: the library's DraDriver itself (the same type token and children),
built from the inputs the engine sends, on the Kubernetes provider of its resource options. The analyzer reads this
class's own annotations (provider/package.py).

A program in another language cannot hand over the GpuOperator object that DraDriverArgs.from_sections takes to
order the releases; it lists the GpuOperator in the resource options' `dependsOn`. When the operator installs the
NVIDIA driver (gpuOperator.driver: operator), the release depends on those resources, as GpuPlatform's depends on the
operator's release; a missing one is a property error at `dependsOn`. The GpuOperator's URN reaches the program only
once its provider answered Construct, which it does after its children's registrations
(docs/references.md#pulumi-component-provider-modules)."""

import dataclasses
from typing import Any

import pulumi

from dra_gpu_platform.inputs.problems import ConfigError, Problem
from dra_gpu_platform.plans import parts
from dra_gpu_platform.resources.software.dra_driver import DraDriver as LibraryDraDriver
from dra_gpu_platform.resources.software.dra_driver import DraDriverArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import DraDriverInputs
from provider.wire import hosted_args

DEPENDS_ON = "dependsOn"


class DraDriver(LibraryDraDriver):
    """The NVIDIA DRA driver of dra-gpu-platform on an existing cluster: its privileged namespace and the pinned Helm release, its kubelet plugin on the DRA pools of the sections. Takes the cluster's Kubernetes provider from the resource options (`providers`); list the GpuOperator in `dependsOn` when the operator installs the NVIDIA driver."""

    release_name: str
    """The Helm release's name."""
    release_namespace: str
    """The namespace it is installed in."""
    chart_version: str
    """The pinned chart version."""

    def __init__(self, name: str, args: DraDriverInputs, opts: pulumi.ResourceOptions | None = None):
        after = list((opts.depends_on if opts is not None else None) or [])

        def build(sections: dict[str, Any], arguments: dict[str, Any]) -> DraDriverArgs:
            # the library's gpu_operator argument: what the resource options' dependsOn lists, if anything
            given = {**arguments, "gpu_operator": after or None}
            try:
                part = parts.plan_part(parts.DRA_DRIVER, sections, given, stack=pulumi.get_stack())
            except ConfigError as error:
                raise ConfigError(
                    [_as_depends_on(problem) for problem in error.problems], "the sections of DraDriver"
                ) from None
            return DraDriverArgs(part.plan, arguments["provider"], after if part.waits else [])

        component = f"DraDriver {name}"
        super().__init__(name, hosted_args(component, BY_COMPONENT["DraDriver"], args, build, opts), opts)
        self.release_name, self.release_namespace = self.plan.release, self.plan.namespace
        self.chart_version = self.plan.version


def _as_depends_on(problem: Problem) -> Problem:
    """The library's `gpu_operator` argument is the resource options' dependsOn here."""
    if problem.path != "gpu_operator":
        return problem
    fix = "list the GpuOperator component in this component's resource options: `dependsOn: [<the GpuOperator>]`"
    return dataclasses.replace(problem, path=DEPENDS_ON, fix=fix)
