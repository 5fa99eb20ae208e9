"""The command line: the typer app, shared options, output (and its layout for terminals and pipes) and exit codes.

Who may import: gpuplan commands, `gpuplan/__main__.py`, the `gpuplan` entry point.
"""

__all__ = [
    "app",
    "atomic_out",
    "exit_codes",
    "layout",
    "main",
    "options",
    "output",
    "runner",
    "signals",
]  # the public modules of this package
