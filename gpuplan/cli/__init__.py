"""The command line: the typer app, shared options, output and exit codes.

Who may import: gpuplan commands, `gpuplan/__main__.py`, the `gpuplan` entry point.
"""

__all__ = [
    "app",
    "atomic_out",
    "exit_codes",
    "main",
    "options",
    "output",
    "runner",
    "signals",
]  # the public modules of this package
