"""Tenancy: namespaces with migration state, Pod Security, closed quotas, NetworkPolicies and claim templates; the
GPU guard and the guards of tenant labels and platform NetworkPolicies.

Who may import: dra_gpu_platform.resources.platform, gpuplan, tests.
"""

__all__ = [
    "dra_only_guard",
    "gpu_toleration",
    "tenancy_guards",
    "tenant_namespace",
    "typed_args",
]  # the public modules of this package
