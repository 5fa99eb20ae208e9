"""Facts: pure data with their sources; imports nothing in the repository outside components.facts.

Who may import: everyone (config, dra, plans, resources, policies, gpuplan, bench, tests).
"""

__all__ = [
    "aks",
    "autoscaler",
    "catalog",
    "chart_releases",
    "cluster_access",
    "driver_charts",
    "efa",
    "eks_addons",
    "eks_amis",
    "gpu_models",
    "gpu_operator",
    "image_digests",
    "instance_types",
    "ip_ranges",
    "kubernetes",
    "naming",
    "network",
    "node_labels",
    "pod_security",
    "prices",
    "project",
    "quantity",
    "regions",
    "replacements",
    "type_tokens",
    "versions",
]  # the public modules of this package
