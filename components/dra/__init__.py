"""DRA semantics with no stack knowledge: the CEL adapter, ResourceSlice documents and NVML snapshots, the claim
parser, the allocator and quota charges.

Who may import: plans, resources, policies, gpuplan. Imports only `components.facts` and `components.config`.
"""

__all__ = [
    "admission",
    "allocator",
    "apiserver",
    "capacity",
    "cel",
    "claims",
    "cluster",
    "explain",
    "gates",
    "model",
    "node_selectors",
    "nodefilters",
    "nvml",
    "partitions",
    "pod_resources",
    "quota",
    "scheduler",
    "slices",
    "tolerations",
]  # the public modules of this package
