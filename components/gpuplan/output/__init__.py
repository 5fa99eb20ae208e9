"""How gpuplan shows and writes: the console and JSON documents (emit), text that fits the terminal (layout),
outputs that are never half-written (atomic_out), exit codes, and SIGINT/SIGTERM handling (signals). The bottom of
gpuplan: it imports no other gpuplan package.

Who may import: every gpuplan package.
"""

__all__ = ["atomic_out", "emit", "exit_codes", "layout", "signals"]  # the public modules of this package
