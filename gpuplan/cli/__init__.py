"""The command line: the typer app, shared options, output and exit codes.

Who may import: gpuplan commands, `gpuplan/__main__.py`, the `gpuplan` entry point.
"""
