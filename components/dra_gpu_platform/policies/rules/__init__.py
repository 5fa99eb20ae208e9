"""Policy rules, one module per area; each rule is a plain function plus its pulumi_policy Policy object.

Who may import: policies.pack, gpuplan.checks, tests.
"""

__all__ = [
    "access",
    "cloud",
    "common",
    "cost",
    "dra",
    "elastic",
    "fit",
    "gpu_isolation",
    "helm",
    "migration",
    "tenancy",
]  # the public modules of this package
