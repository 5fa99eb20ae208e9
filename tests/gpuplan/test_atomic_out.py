"""Outputs under --out are never half-written (gpuplan/output/atomic_out.py): real signals sent to a subprocess while
it stages or swaps in its files, SIGKILL included; concurrent writers; a held lock; --out faults. After every
fault --out holds one run's outputs whole (the previous or the new), never a mix, and no temporary folder stays."""

from __future__ import annotations

import errno
import fcntl
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gpuplan.output import atomic_out
from tests.gpuplan.fault_child import FILES, files

CHILD = Path(__file__).with_name("fault_child.py")


def child(out: Path, tag: str, moment: str = "none", signal: str = "none") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, str(CHILD), str(out), tag, moment, signal], capture_output=True, text=True, timeout=60
    )


def runs_in(out: Path) -> set[str]:
    """Which runs wrote plan.json and the manifests: one name when --out is whole, two for a mix."""
    manifests = list((out / "manifests").iterdir())
    assert len(manifests) == FILES  # never a folder with a run's files missing, or two runs' files side by side
    plan = json.loads((out / "plan.json").read_text())["run"]
    return {plan} | {p.read_text().split(": ", 1)[1].strip() for p in manifests}


def leftovers(out: Path) -> list[str]:
    return sorted(p.name for p in out.parent.iterdir() if ".gpuplan-tmp-" in p.name)


@pytest.fixture
def previous(tmp_path) -> Path:
    out = tmp_path / "build" / "dev"
    atomic_out.commit(out, files("old"), owned=("plan.json", "manifests"))
    (out / "policy.json").write_text("another command's output\n")
    return out


@pytest.mark.parametrize("signal, status", [("TERM", 143), ("INT", 130)])
def test_a_signal_while_staging_keeps_the_previous_outputs_and_removes_the_temporary_folder(previous, signal, status):
    result = child(previous, "new", "staging", signal)
    assert result.returncode == status, result.stderr
    assert runs_in(previous) == {"old"}
    assert (previous / "policy.json").read_text() == "another command's output\n"
    assert leftovers(previous) == []


def test_sigterm_during_the_swap_waits_until_the_new_outputs_are_whole(previous):
    result = child(previous, "new", "swap", "TERM")
    assert result.returncode == 143, result.stderr  # stopped, but only after the last swap
    assert runs_in(previous) == {"new"}
    assert leftovers(previous) == []


def test_sigkill_while_staging_leaves_the_previous_outputs_and_the_next_run_cleans_up(previous):
    result = child(previous, "new", "staging", "KILL")
    assert result.returncode == -9
    assert runs_in(previous) == {"old"}
    assert len(leftovers(previous)) == 1  # a dead run's temporary folder: nobody could remove it
    assert child(previous, "next").returncode == 0
    assert runs_in(previous) == {"next"} and leftovers(previous) == []


def test_sigkill_in_the_middle_of_the_swaps_is_finished_by_the_next_commit(previous):
    result = child(previous, "new", "swap", "KILL")
    assert result.returncode == -9
    # SIGKILL cannot be held back: one entry is swapped in, the journal says what is left.
    [temp] = [previous.parent / name for name in leftovers(previous)]
    assert (temp / atomic_out.JOURNAL).exists()
    assert runs_in(previous) == {"new", "old"}  # the one window a mix exists: until any next run into this --out
    with atomic_out._locked(previous):
        atomic_out.recover(previous)  # what the next commit does first, under the lock
    assert runs_in(previous) == {"new"} and leftovers(previous) == []
    assert (previous / "policy.json").exists()


def test_two_writers_at_once_leave_one_whole_run(previous):
    writers = [
        subprocess.Popen(
            [sys.executable, str(CHILD), str(previous), tag, "none", "none"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        for tag in ("a", "b", "c")
    ]
    finished = [w.communicate(timeout=60) for w in writers]
    assert [w.returncode for w in writers] == [0, 0, 0], [err.decode() for _, err in finished]
    assert len(runs_in(previous)) == 1 and runs_in(previous) <= {"a", "b", "c"}
    assert leftovers(previous) == []


def test_a_run_that_cannot_get_the_lock_fails_with_the_lock_named(previous, monkeypatch):
    monkeypatch.setenv(atomic_out.LOCK_TIMEOUT_ENV, "0.2")
    holder = os.open(atomic_out._lock_path(previous), os.O_RDWR)
    fcntl.flock(holder, fcntl.LOCK_EX)
    try:
        with pytest.raises(atomic_out.OutputError) as raised:
            atomic_out.commit(previous, files("blocked"), owned=("plan.json", "manifests"))
    finally:
        os.close(holder)
    problem = raised.value.problems[0]
    assert "another gpuplan run has held the lock" in problem.rule and ".dev.gpuplan.lock" in problem.rule
    assert "--out" in problem.fix
    assert runs_in(previous) == {"old"} and leftovers(previous) == []


def test_owned_entries_a_run_no_longer_makes_are_removed_and_others_are_kept(previous):
    atomic_out.commit(previous, {"plan.json": '{"run": "new"}\n'}, owned=("plan.json", "manifests", "kind-config.yaml"))
    assert sorted(p.name for p in previous.iterdir()) == ["plan.json", "policy.json"]


def test_out_that_is_a_file_or_below_a_file_is_exit_2_material(tmp_path):
    a_file = tmp_path / "plan"
    a_file.write_text("x")
    with pytest.raises(atomic_out.OutputError, match="names a file"):
        atomic_out.commit(a_file, files("x"))
    with pytest.raises(atomic_out.OutputError) as raised:
        atomic_out.commit(a_file / "below", files("x"))
    assert "is a file" in raised.value.problems[0].rule
    assert a_file.read_text() == "x"


@pytest.mark.parametrize(
    "code, words", [(errno.EROFS, "read-only"), (errno.EACCES, "no permission"), (errno.ENOSPC, "no space left")]
)
def test_environment_errors_name_the_path_and_a_fix(tmp_path, monkeypatch, code, words):
    # Running as root, permissions cannot be provoked for real; the mkdtemp call stands for any failing syscall.
    def refuse(*args, **kwargs):
        raise OSError(code, os.strerror(code), str(tmp_path / "build"))

    monkeypatch.setattr(atomic_out.tempfile, "mkdtemp", refuse)
    with pytest.raises(atomic_out.OutputError) as raised:
        atomic_out.commit(tmp_path / "build" / "dev", files("x"))
    problem = raised.value.problems[0]
    # The problem names the --out given; the path that failed is in the rule.
    assert problem.file == str(tmp_path / "build" / "dev") and f"({tmp_path / 'build'})" in problem.rule
    assert words in problem.rule and "--out" in problem.fix


def test_one_file_is_replaced_whole_or_not_at_all(tmp_path, monkeypatch):
    target = tmp_path / "nvml.json"
    target.write_text("old\n")
    atomic_out.write_file(target, "new\n")
    assert target.read_text() == "new\n"

    def fail(*args):
        raise OSError(errno.ENOSPC, "No space left on device", str(target))

    monkeypatch.setattr(atomic_out.os, "replace", fail)
    with pytest.raises(atomic_out.OutputError, match="no space"):
        atomic_out.write_file(target, "newer\n")
    assert target.read_text() == "new\n" and [p.name for p in tmp_path.iterdir()] == ["nvml.json"]
