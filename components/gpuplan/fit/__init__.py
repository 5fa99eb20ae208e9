"""`gpuplan fit` inputs: claim files, cluster dumps and the stack's own objects.

Who may import: gpuplan commands.
"""

__all__ = [
    "admission",
    "fixes",
    "inputs",
    "pod_notes",
    "provisioning",
    "report",
    "stack",
    "text",
    "workloads",
]  # the public modules of this package
