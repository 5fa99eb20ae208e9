"""gpuplan's exit codes (architecture.md, "The gpuplan contract"): one meaning each, for scripts and CI."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # a mandatory policy violation, an unsatisfiable claim, a failed preflight, a refused change, ...
    INVALID_INPUT = 2  # the stack file, a claim file, an inventory or the command line is wrong
    INTERNAL_ERROR = 3  # a bug in gpuplan: one line on stderr, the traceback in a file
    INTERRUPTED = 130  # SIGINT (128 + 2), as shells report it
