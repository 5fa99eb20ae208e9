"""SIGINT and SIGTERM stop gpuplan cleanly: exit 130/143, one line (one JSON document with --format json), no
temporary folder left, earlier outputs whole. Imports nothing heavy: a signal can arrive before Pulumi is loaded.

Two cases:
- No event loop running (loading, rendering, validating, writing): the handler raises Interrupted where the
  program is, and `finally` blocks clean up (gpuplan/output/atomic_out.py removes its temporary folder and keeps
  the previous outputs).
- The Pulumi mock runtime's event loop is running (the program run): an exception raised there can land inside
  asyncio's bookkeeping, which the SDK's `_sync_await` juggles by hand (`_leave_task`, a nested `_run_once`); the
  loop then breaks ("Leaving task ... does not match the current task") and the process waits forever (seen: a
  SIGINT 2.8 s into a prod preview). Nothing is written while the program runs (outputs are staged after it), so
  the handler reports, removes the temporary paths registered with `remove_on_exit`, and exits at once.
A second signal exits at once, and a stopped process whose worker threads never finish is ended by a watchdog.

While outputs are swapped in (gpuplan/output/atomic_out.py), `held()` defers both signals for the whole process. Blocking
them with pthread_sigmask holds them for the calling thread only: the process has other threads (the SDK's gRPC and
executor threads), the kernel delivers a process-directed signal to any thread that does not block it, and Python then
runs the handler in the main thread anyway, in the middle of the swap. So the deferral is a Python-level handler that
only records; the handlers in place before run for what it recorded once the block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NoReturn

EXIT_GRACE_SECONDS = 5.0  # after an interrupt, how long the process may take to exit on its own
Report = Callable[[int], tuple[str, str]]  # signum -> (stderr text, stdout text)

_received: int | None = None  # the first signal of this command
_report: Report | None = None
_remove: list[Path] = []
_HELD = (signal.SIGINT, signal.SIGTERM)
_holding = 0  # depth of nested held() blocks
_handlers: dict[int, Any] = {}  # the handlers held() replaced, restored when the outermost block ends
_pending: list[int] = []  # signals that arrived while held, in order


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM. A KeyboardInterrupt, so code that already handles Ctrl-C handles both."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def _write(fd: int, text: str) -> None:
    with contextlib.suppress(OSError):
        os.write(fd, text.encode("utf-8", "replace"))


def _exit_now(signum: int) -> NoReturn:
    stderr, stdout = _report(signum) if _report else (f"gpuplan: stopped by {signal.Signals(signum).name}\n", "")
    _write(1, stdout)
    _write(2, stderr)
    for path in _remove:
        shutil.rmtree(path, ignore_errors=True) if path.is_dir() else path.unlink(missing_ok=True)
    os._exit(128 + signum)


def _on_signal(signum, _frame) -> None:
    global _received  # noqa: PLW0603  (a signal handler has no other place to leave what it saw)
    if _received is not None:  # the second Ctrl-C: the user means now
        _write(2, f"gpuplan: stopped by {signal.Signals(signum).name} again; exiting now\n")
        os._exit(128 + signum)
    _received = signum
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        raise Interrupted(signum) from None  # no event loop running: as safe as any other exception
    _exit_now(signum)


def install_handlers() -> None:
    global _received, _report
    _received, _report = None, None
    _remove.clear()
    for signum in (signal.SIGINT, signal.SIGTERM):
        try:
            signal.signal(signum, _on_signal)
        except ValueError:  # not the main thread (an embedding program): leave its handlers alone
            return


def report_with(report: Report) -> None:
    """How an immediate exit (a signal during the program run) tells what happened: the runner's own words."""
    global _report  # noqa: PLW0603  (read by the signal handler, which takes no arguments)
    _report = report


def remove_on_exit(path: Path) -> None:
    """A temporary path an immediate exit must not leave behind (removed by its owner otherwise)."""
    _remove.append(Path(path))


def forget(path: Path) -> None:
    if Path(path) in _remove:
        _remove.remove(Path(path))


def _record(signum, _frame) -> None:
    if signum not in _pending:
        _pending.append(signum)


def _set(handlers: list[tuple[int, Any]]) -> None:
    """Set each handler even when a signal handled by an earlier one raises in between."""
    if handlers:
        try:
            signal.signal(*handlers[0])
        finally:
            _set(handlers[1:])


@contextlib.contextmanager
def held() -> Iterator[None]:
    """SIGINT and SIGTERM wait until the block ends, whichever thread they are delivered to; then the handler in
    place before runs for the first that arrived (gpuplan's raises Interrupted there; a second one is dropped, the
    block being over). Outside the main thread, where Python cannot replace handlers, the block runs as it is: the
    main thread's handler then raises in the main thread, never inside this block."""
    global _holding  # noqa: PLW0603  (nested blocks share one deferral)
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    if _holding == 0:
        previous = {signum: signal.getsignal(signum) for signum in _HELD}
        if any(handler is None for handler in previous.values()):  # installed outside Python: cannot restore it
            yield
            return
        _handlers.clear()
        _handlers.update(previous)
        _pending.clear()
        try:
            _set([(signum, _record) for signum in _HELD])
        except BaseException:  # a signal arrived before the deferral was in place: nothing is held yet
            _set(list(previous.items()))
            raise
    _holding += 1
    try:
        yield
    finally:
        _holding -= 1
        if _holding == 0:
            _set(list(_handlers.items()))
            if _pending:
                first = _pending[0]
                _pending.clear()
                signal.raise_signal(first)  # the restored handler runs now


def exit_watchdog(code: int, seconds: float = EXIT_GRACE_SECONDS) -> None:
    """The process is about to exit after an interrupt: if joining worker threads hangs, exit anyway."""
    timer = threading.Timer(seconds, os._exit, (code,))
    timer.daemon = True
    timer.start()


def signal_number(error: BaseException) -> int:
    """The signal behind an interrupt: SIGINT for a plain KeyboardInterrupt."""
    return getattr(error, "signum", signal.SIGINT)


def exit_while_starting(error: BaseException) -> NoReturn:
    """Stopped while the CLI loads (before any command runs): one line, the signal's exit status."""
    signum = signal_number(error)
    print(f"gpuplan: stopped by {signal.Signals(signum).name} while starting; nothing was written", file=sys.stderr)
    sys.exit(128 + signum)
