"""Clusters and their GPU node pools: EKS, AKS, kind, existing. Each yields an explicit Kubernetes provider.

Who may import: dra_gpu_platform.resources.platform, gpuplan, tests.
"""

__all__ = [
    "aks",
    "aks_nap",
    "aks_node_pool",
    "eks",
    "eks_addons",
    "eks_auto_mode",
    "eks_autoscaler",
    "eks_efa",
    "eks_network",
    "eks_node_pool",
    "existing",
    "karpenter",
    "kind",
    "provisioned_nodes",
]  # the public modules of this package
