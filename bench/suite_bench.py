"""Wall time of the whole test suite, once: `pytest -q -n 2` (the CI invocation on two cores)."""

from __future__ import annotations

import re

from bench import measure

TARGET_S = 60.0
_COUNTS = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)")


def run() -> dict:
    sample, stdout = measure.run(
        [measure.PYTHON, "-m", "pytest", "-q", "-n", "2"], timeout=1800, capture=True
    )
    summary_line = next((line for line in reversed(stdout.splitlines()) if _COUNTS.search(line)), "")
    counts = {kind.rstrip("s") if kind.startswith("error") else kind: int(n) for n, kind in _COUNTS.findall(summary_line)}
    return {
        "command": "pytest -q -n 2",
        "wall_s": round(sample.wall_s, 2),
        "cpu_s": round(sample.cpu_s, 2),  # the xdist workers are children of pytest: counted when reaped
        "exit_code": sample.returncode,
        "counts": counts,
        "summary": summary_line.strip("= "),
        "target_s": TARGET_S,
        "met": sample.wall_s < TARGET_S,
    }
