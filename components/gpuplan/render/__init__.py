"""`gpuplan render`: every Helm release of a stack rendered with a real helm, written with a kustomization, and
the placement of every DaemonSet (charts and GPU Operator operands) on every node pool.

Who may import: gpuplan commands and tests.
"""

__all__ = [
    "charts",
    "files",
    "helm",
    "placement",
    "report",
    "stack",
    "values_check",
]  # the public modules of this package
