"""GpuPlatform as the component package hosts it: the library's GpuPlatform itself (the same type token,
dra-gpu-platform:index:GpuPlatform, so the same children and URNs as the stack program), built from the inputs the
engine sends. The analyzer reads this class: its `args` annotation gives the schema's inputs, its class annotations
the outputs."""

import pulumi

from dra_gpu_platform.resources.platform import GpuPlatform as LibraryGpuPlatform
from provider.inputs import GpuPlatformInputs
from provider.wire import platform_args


class GpuPlatform(LibraryGpuPlatform):
    """A GPU Kubernetes cluster scheduled with Dynamic Resource Allocation (DRA), from the sections of a dra-gpu-platform stack file: the cluster and its GPU node pools, the NVIDIA GPU Operator and DRA driver, DeviceClasses, tenant namespaces with quotas and claim templates, maintenance taints and monitoring."""

    kubeconfig: pulumi.Output[str]
    """The cluster's kubeconfig (a secret)."""
    device_class_names: list[str]
    """The DeviceClasses this platform creates."""
    namespace_names: list[str]
    """The tenant namespaces this platform creates."""

    def __init__(self, name: str, args: GpuPlatformInputs, opts: pulumi.ResourceOptions | None = None):
        # Validated before anything registers: a bad input raises pulumi.InputPropertiesError naming every problem.
        super().__init__(name, platform_args(f"GpuPlatform {name}", args), opts)
        self.device_class_names = sorted(self.device_classes.classes)
        self.namespace_names = sorted(self.namespaces)
