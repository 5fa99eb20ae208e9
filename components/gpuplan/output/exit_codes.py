"""gpuplan's exit codes (architecture.md, "The gpuplan contract"): one meaning each, for scripts and CI."""

from __future__ import annotations

import signal
from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    FINDINGS = 1  # a mandatory policy violation, an unsatisfiable claim, a failed preflight, a refused change, ...
    INVALID_INPUT = (
        2  # the stack file, a claim file, an inventory, the command line or the environment (--out) is wrong
    )
    INTERNAL_ERROR = 3  # a bug in gpuplan: one line on stderr, the traceback in a file
    INTERRUPTED = 128 + signal.SIGINT  # 130, as shells report a SIGINT
    TERMINATED = 128 + signal.SIGTERM  # 143, as shells report a SIGTERM
