"""Run as a subprocess by tests/gpuplan/test_atomic_out.py: one commit of outputs into --out, with a real signal
sent to this process at a chosen moment, the way Ctrl-C (SIGINT), a CI timeout (SIGTERM) or the OOM killer
(SIGKILL) would hit a gpuplan command.

    python fault_child.py OUT TAG MOMENT SIGNAL
MOMENT: staging (after the 3rd staged file is written) | swap (after the first entry is swapped in) | none.
Exit status: 0 when committed, 128 + signal when stopped (what gpuplan's runner returns).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from gpuplan.output import atomic_out, signals

FILES = 12  # manifests per commit


def files(tag: str) -> dict[str, str]:
    """What one run writes: every file names its run, so a mix of two runs is visible."""
    out = {"plan.json": f'{{"run": "{tag}"}}\n'}
    out.update({f"manifests/{i:02d}-object.yaml": f"run: {tag}\n" for i in range(FILES)})
    return out


def main() -> int:
    out, tag, moment, name = sys.argv[1:5]
    signum = getattr(signal, f"SIG{name}") if name != "none" else None
    signals.install_handlers()
    if moment == "staging":
        original = Path.write_text
        count = 0

        def write_text(self, *args, **kwargs):
            nonlocal count
            result = original(self, *args, **kwargs)
            count += 1
            if count == 3:
                os.kill(os.getpid(), signum)
            return result

        Path.write_text = write_text
    elif moment == "swap":
        original_swap = atomic_out._swap_in
        swapped = 0

        def swap_in(*args):
            nonlocal swapped
            original_swap(*args)
            swapped += 1
            if swapped == 1:
                os.kill(os.getpid(), signum)

        atomic_out._swap_in = swap_in
    try:
        atomic_out.commit(Path(out), files(tag), owned=("plan.json", "manifests"))
    except KeyboardInterrupt as error:
        return 128 + signals.signal_number(error)
    return 0


if __name__ == "__main__":
    sys.exit(main())
