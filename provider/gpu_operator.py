"""GpuOperator as the component package hosts it: the library's GpuOperator itself (the same type token and
children), built from the inputs the engine sends through GpuOperatorArgs.from_sections, on the Kubernetes provider
of its resource options. The analyzer reads this class's own annotations (provider/package.py)."""

import pulumi

from dra_gpu_platform.resources.software.gpu_operator import GpuOperator as LibraryGpuOperator
from dra_gpu_platform.resources.software.gpu_operator import GpuOperatorArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import GpuOperatorInputs
from provider.wire import hosted_args


class GpuOperator(LibraryGpuOperator):
    """The NVIDIA GPU Operator of dra-gpu-platform on an existing cluster: its privileged namespace and the pinned Helm release, with values derived from the sections' node pools, gpuOperator, draDriver and monitoring. Takes the cluster's Kubernetes provider from the resource options (`providers`)."""

    release_name: str
    """The Helm release's name."""
    release_namespace: str
    """The namespace it is installed in."""
    chart_version: str
    """The pinned chart version."""

    def __init__(self, name: str, args: GpuOperatorInputs, opts: pulumi.ResourceOptions | None = None):
        component = f"GpuOperator {name}"
        super().__init__(name, hosted_args(component, BY_COMPONENT["GpuOperator"], args, _build, opts), opts)
        self.release_name, self.release_namespace = self.plan.release, self.plan.namespace
        self.chart_version = self.plan.version


def _build(sections: dict, arguments: dict) -> GpuOperatorArgs:
    return GpuOperatorArgs.from_sections(sections, **arguments)
