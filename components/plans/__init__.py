"""Plans: StackConfig -> plain data (cloud plans, Helm values, DeviceClasses, claim templates, migration,
admission policy, the stack's simulated inventory, monitoring). No Pulumi imports.

Who may import: resources, policies, gpuplan. Imports facts, config and dra.
"""

__all__ = [
    "admission_policy",
    "aks",
    "claim_templates",
    "device_classes",
    "driver_ownership",
    "eks",
    "gpu_software",
    "kind",
    "migration",
    "monitoring",
    "node_pools",
    "quota",
    "stack_inventory",
]  # the public modules of this package
