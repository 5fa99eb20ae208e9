"""SIGINT and SIGTERM as exceptions, so that a stopped gpuplan cleans up like any other early exit: `finally`
blocks remove temporary folders, gpuplan/cli/atomic_out.py keeps earlier outputs whole, and the runner exits
130/143 with one line. Imports nothing heavy: a signal can arrive before Pulumi is loaded."""

from __future__ import annotations

import signal
import sys
from typing import NoReturn


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised where the program was. A KeyboardInterrupt, so asyncio (the mock runtime's loop)
    re-raises it at once instead of storing it in a task, and code that already handles Ctrl-C handles both."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _raise_interrupted(signum, _frame) -> None:
    raise Interrupted(signum)


def install_handlers() -> None:
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, _raise_interrupted)
        except ValueError:  # not the main thread (an embedding program): leave its handlers alone
            return


def signal_number(error: BaseException) -> int:
    """The signal behind an interrupt: SIGINT for a plain KeyboardInterrupt."""
    return getattr(error, "signum", signal.SIGINT)


def exit_while_starting(error: BaseException) -> NoReturn:
    """Stopped while the CLI loads (before any command runs): one line, the signal's exit status."""
    signum = signal_number(error)
    print(f"gpuplan: stopped by {signal.Signals(signum).name} while starting; nothing was written", file=sys.stderr)
    sys.exit(128 + signum)
