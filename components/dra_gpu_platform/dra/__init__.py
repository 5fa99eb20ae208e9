"""DRA semantics with no stack knowledge: MIG layouts, published device documents, inventories (catalog, NVML
snapshots), the cluster-dump reader, the claim parser, the allocator, scheduler filters, admission (Pod Security
included) and quota charges.

Who may import: plans and above, gpuplan. Imports only the ground: facts, inputs and cel.
"""

__all__ = [
    "admission",
    "allocator",
    "apiserver",
    "capacity",
    "claims",
    "cluster",
    "constraints",
    "devices",
    "dump",
    "explain",
    "gates",
    "inventory",
    "mig",
    "model",
    "node_selectors",
    "nodefilters",
    "nvml",
    "partitions",
    "pod_resources",
    "pod_security",
    "pod_security_checks",
    "quota",
    "scheduler",
    "shapes",
    "tolerations",
]  # the public modules of this package
