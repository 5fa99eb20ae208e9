"""Clusters and their GPU node pools: EKS, AKS, kind, existing. Each yields an explicit Kubernetes provider.

Who may import: components.resources.platform, gpuplan, tests.
"""
