"""The offline engine: the stack a command works on (sources), the program under Pulumi's mock runtime with a
recording monitor (runtime, user_program, project, mock_outputs), plan.json and manifests (outputs).

Who may import: gpuplan commands and feature folders.
"""

__all__ = [
    "mock_outputs",
    "outputs",
    "project",
    "runtime",
    "sources",
    "user_program",
]  # the public modules of this package
