"""Run as a subprocess by tests/gpuplan/test_interrupt_at_swap.py: commit after commit into one --out, each stopped by a
real SIGINT or SIGTERM sent at a chosen point of the commit (a line of gpuplan/output/atomic_out.py or signals.py, counted
with sys.settrace), the way the issue saw it: from another thread of the process (the SDK's gRPC threads), from the
main thread, or to the other thread alone. Prints one JSON line per commit: the exit status and the interrupt message
as gpuplan's runner makes them, and which runs --out holds afterwards.

    python interrupt_child.py OUT SEED COUNT
"""

from __future__ import annotations

import json
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "components"))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gpuplan.output import atomic_out, signals
from tests.gpuplan.fault_child import files

TRACED = {atomic_out.__file__, signals.__file__}
OWNED = ("plan.json", "manifests")


class Sender(threading.Thread):
    """A thread that is not the main one (as the SDK's are): sends the signal when asked, or just receives one."""

    def __init__(self) -> None:
        super().__init__(daemon=True)
        self.asked = threading.Event()
        self.sent = threading.Event()
        self.signum = signal.SIGTERM

    def run(self) -> None:
        while True:
            self.asked.wait()
            self.asked.clear()
            os.kill(os.getpid(), self.signum)  # process-directed: the kernel picks a thread that does not block it
            self.sent.set()


SWAP = {"_finish", "_swap_in", "_exchange", "_inode"}  # the functions that swap entries in


def tracer(at: int, send, functions: list[str] | None = None):
    """A trace function that calls `send` at the `at`-th line executed in the traced modules (and notes each line's
    function in `functions`)."""
    seen = 0

    def local(frame, event, _arg):
        nonlocal seen
        if event == "line":
            if seen == at:
                send()
            if functions is not None:
                functions.append(frame.f_code.co_name)
            seen += 1
        return local

    def global_(frame, _event, _arg):
        return local if frame.f_code.co_filename in TRACED else None

    return global_, lambda: seen


def close_files_under(folder: Path) -> None:
    """gpuplan exits after an interrupt, and the kernel closes its files and so drops their locks; here the next commit
    follows in the same process, so a lock file or owner file whose close the signal cut short is closed as the exit
    would close it."""
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:
            continue
        if target.startswith(str(folder) + os.sep):
            os.close(int(fd))


def runs_in(out: Path) -> list[str]:
    plan = json.loads((out / "plan.json").read_text())["run"]
    return sorted({plan} | {p.read_text().split(": ", 1)[1].strip() for p in (out / "manifests").iterdir()})


def main() -> int:
    out, seed, count = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    sender = Sender()
    sender.start()
    atomic_out.commit(out, files("start"), owned=OWNED)
    functions: list[str] = []
    counting, lines = tracer(-1, lambda: None, functions)
    sys.settrace(counting)
    atomic_out.commit(out, files("counted"), owned=OWNED)  # the lines one commit runs
    sys.settrace(None)
    total = lines()
    swapping = [i for i, name in enumerate(functions) if name in SWAP]
    rng = random.Random(seed)
    for i in range(count):
        tag, previous = f"run{i}", runs_in(out)
        signum = rng.choice((signal.SIGINT, signal.SIGTERM))
        how = rng.choice(("other-thread", "main-thread", "to-other-thread"))
        at = rng.choice(swapping) if rng.random() < 0.5 else rng.randrange(total)  # half of them at the swap

        def send(signum=signum, how=how) -> None:
            if how == "main-thread":
                os.kill(os.getpid(), signum)
            elif how == "to-other-thread":
                signal.pthread_kill(sender.ident, signum)  # type: ignore[arg-type]
            else:
                sender.signum = signum
                sender.asked.set()
                sender.sent.wait(5)
                sender.sent.clear()
            # Until Python has run the handler (in the main thread, whichever thread the kernel chose): while held it
            # records the signal; else it raises here. So the signal lands exactly at this line, on any machine.
            deadline = time.monotonic() + 10
            while not signals._pending and time.monotonic() < deadline:
                time.sleep(0.0005)

        signals.install_handlers()  # what every gpuplan command does first; resets the first-signal memory
        atomic_out.COMMITS.clear()  # what the runner does before each command
        status, message = 0, ""
        trace, _ = tracer(at, send)
        try:
            sys.settrace(trace)
            try:
                atomic_out.commit(out, files(tag), owned=OWNED)
            finally:
                sys.settrace(None)
        except KeyboardInterrupt as error:
            stopped = signals.signal_number(error)
            status, message = 128 + stopped, atomic_out.interrupted(stopped)
        close_files_under(out.parent)
        leftovers = sorted(p.name for p in out.parent.iterdir() if ".gpuplan-tmp-" in p.name)
        report = {
            "point": at,
            "of": total,
            "swapping": at in swapping,
            "how": how,
            "signal": signal.Signals(signum).name,
            "status": status,
            "message": message,
            "previous": previous,
            "new": tag,
            "runs": runs_in(out),
            "manifests": len(list((out / "manifests").iterdir())),
            "leftovers": leftovers,
        }
        print(json.dumps(report), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
