"""SIGINT and SIGTERM at any point of a commit of outputs (gpuplan/output/atomic_out.py, gpuplan/output/signals.py `held`):
--out holds one run whole, the previous or the new, never plan.json of one beside manifests/ of the other, and the
interrupt message says which. Child processes (tests/gpuplan/interrupt_child.py) commit again and again, each commit
stopped at a line chosen by a seeded random generator, the signal sent from another thread, from the main thread or
to the other thread alone: the process has threads besides the main one, as gpuplan's has (the SDK's), so blocking
the signals in the calling thread would not hold them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.gpuplan.fault_child import FILES

CHILD = Path(__file__).with_name("interrupt_child.py")
SEEDS = (11, 23, 37)
COMMITS = 25  # per child


def test_interrupts_anywhere_in_the_commit_leave_one_whole_run_and_a_true_message(tmp_path):
    children = []
    for seed in SEEDS:
        out = tmp_path / f"s{seed}" / "build" / "dev"
        command = [sys.executable, str(CHILD), str(out), str(seed), str(COMMITS)]
        children.append((out, subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)))
    reports = []
    for out, child in children:
        stdout, stderr = child.communicate(timeout=120)
        assert child.returncode == 0, stderr
        reports += [(out, json.loads(line)) for line in stdout.splitlines()]
    assert len(reports) == len(SEEDS) * COMMITS
    assert sum(r["swapping"] for _, r in reports) >= len(reports) // 3  # many of them in the middle of the swaps
    stopped = {"nothing": 0, "all": 0}
    for out, report in reports:
        where = f"{report['signal']} from {report['how']} at line {report['point']} of {report['of']}"
        assert report["manifests"] == FILES and report["leftovers"] == [], where
        assert report["runs"] in ([report["new"]], report["previous"]), where  # one run, never a mix
        assert report["status"] in (0, 130, 143), where
        if report["status"] == 0:
            assert report["runs"] == [report["new"]], where
            continue
        assert report["status"] == (130 if report["signal"] == "SIGINT" else 143), where
        stop = f"gpuplan: stopped by {report['signal']}; "
        if report["runs"] == [report["new"]]:
            assert report["message"] == (
                f"{stop}all of this run's outputs were written whole before it: {FILES + 1} files in {out}"
            ), where
            stopped["all"] += 1
        else:
            assert report["message"] == f"{stop}nothing of this run was written; earlier outputs are kept whole", where
            stopped["nothing"] += 1
    # the points fall before, inside and after the swaps: both outcomes are seen
    assert stopped["nothing"] and stopped["all"], stopped
