"""Plans: StackConfig -> StackPlan, plain frozen data (cluster plans per platform, one PoolPlan per pool, Helm
values, DeviceClasses, namespaces with their quota and claim templates, admission policy, maintenance, the
simulated inventory, monitoring, capacity and cost). `stack.plan_stack` is the one derivation; no Pulumi imports.

Who may import: resources, recorded, policies, gpuplan. Imports facts, inputs, cel, config and dra.
"""

__all__ = [
    "admission_policy",
    "aks",
    "capacity",
    "claim_templates",
    "cluster_nodes",
    "device_classes",
    "driver_ownership",
    "eks",
    "existing",
    "gpu_software",
    "gpu_toleration",
    "image_digests",
    "kind",
    "maintenance",
    "migration",
    "monitoring",
    "namespaces",
    "network_policy",
    "node_hardening",
    "node_pools",
    "parts",
    "provisioning",
    "quota",
    "stack",
    "stack_inventory",
    "tenancy_notes",
    "upgrade",
    "upgrade_steps",
]  # the public modules of this package
