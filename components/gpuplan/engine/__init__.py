"""The offline engine: the program under Pulumi's mock runtime, a recording monitor, plan.json and manifests.

Who may import: gpuplan commands and library folders.
"""

__all__ = [
    "capacity_table",
    "mock_outputs",
    "outputs",
    "preview",
    "project",
    "runtime",
    "sources",
    "tree",
    "user_program",
]  # the public modules of this package
