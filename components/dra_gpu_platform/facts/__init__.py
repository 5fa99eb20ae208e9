"""Facts: pure data with their sources; imports nothing in the repository outside dra_gpu_platform.facts.

Who may import: everyone (config, dra, plans, resources, policies, gpuplan, bench, tests).
"""

__all__ = [
    "admission_plugins",
    "aks",
    "autoscaler",
    "catalog",
    "chart_releases",
    "cluster_access",
    "compute_domains",
    "driver_charts",
    "driver_features",
    "efa",
    "eks_addons",
    "eks_amis",
    "gpu_models",
    "gpu_operator",
    "gpu_software_support",
    "image_digests",
    "instance_types",
    "ip_ranges",
    "kubernetes",
    "naming",
    "network",
    "node_allocatable",
    "node_labels",
    "pod_security",
    "prices",
    "project",
    "quantity",
    "quota_charge",
    "regions",
    "replacements",
    "type_tokens",
    "versions",
]  # the public modules of this package
