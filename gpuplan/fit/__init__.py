"""`gpuplan fit` inputs: claim files, cluster dumps and the stack's own objects.

Who may import: gpuplan commands.
"""

__all__ = ["inputs", "pod_notes", "report", "stack", "text"]  # the public modules of this package
