"""The stack file's sections after `cluster` (dra_gpu_platform/config/cluster.py), one module per section as the
rules are (dra_gpu_platform/config/rules/): node pools, GPU software, DeviceClasses, namespaces, maintenance, the
autoscaler, monitoring. StackSections, the whole stack with what derives from it, is in
dra_gpu_platform/config/derived.py; import the models from dra_gpu_platform.config.models. Pure: no Pulumi imports.
"""

__all__ = [
    "autoscaler",
    "device_classes",
    "maintenance",
    "monitoring",
    "namespaces",
    "node_pools",
    "software",
]  # the public modules of this package
