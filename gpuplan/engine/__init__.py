"""The offline engine: the program under Pulumi's mock runtime, a recording monitor, plan.json and manifests.

Who may import: gpuplan commands and library folders.
"""

__all__ = ["mock_outputs", "outputs", "preview", "runtime", "tree"]  # the public modules of this package
