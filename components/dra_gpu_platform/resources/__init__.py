"""Pulumi ComponentResources, one per file, each taking a plan (plain data), never the whole StackConfig.

Who may import: `program`, gpuplan and tests; never `policies` or `recorded` (the pack runs without the resource SDKs).
"""

__all__ = [
    "clusters",
    "dra",
    "monitoring",
    "platform",
    "software",
    "tenancy",
]  # the public modules of this package
