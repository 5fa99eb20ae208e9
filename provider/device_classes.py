"""DeviceClasses as the component package hosts it: the library's DeviceClasses itself (the same type token and
children), built from the inputs the engine sends through DeviceClassesArgs.from_sections, on the Kubernetes provider
of its resource options. The analyzer reads this class's own annotations (provider/package.py)."""

import pulumi

from dra_gpu_platform.resources.dra.device_classes import DeviceClasses as LibraryDeviceClasses
from dra_gpu_platform.resources.dra.device_classes import DeviceClassesArgs
from provider.arguments import BY_COMPONENT
from provider.inputs import DeviceClassesInputs
from provider.wire import hosted_args


class DeviceClasses(LibraryDeviceClasses):
    """The resource.k8s.io/v1 DeviceClasses of dra-gpu-platform's deviceClasses section on an existing cluster, built from each class's GPU, memory, MIG and compute-capability sugar or raw CEL selectors, with their sharing configs. Takes the cluster's Kubernetes provider from the resource options (`providers`)."""

    names: list[str]
    """The DeviceClasses it creates."""

    def __init__(self, name: str, args: DeviceClassesInputs, opts: pulumi.ResourceOptions | None = None):
        component = f"DeviceClasses {name}"
        super().__init__(name, hosted_args(component, BY_COMPONENT["DeviceClasses"], args, _build, opts), opts)
        self.names = sorted(self.classes)


def _build(sections: dict, arguments: dict) -> DeviceClassesArgs:
    return DeviceClassesArgs.from_sections(sections, **arguments)
