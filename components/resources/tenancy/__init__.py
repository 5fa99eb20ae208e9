"""Tenancy: namespaces with migration state, quota and claim templates; the dra-only admission guard.

Who may import: components.resources.platform, gpuplan, tests.
"""

__all__ = ["dra_only_guard", "gpu_toleration", "tenant_namespace"]  # the public modules of this package
