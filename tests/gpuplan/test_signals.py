"""gpuplan/output/signals.py: outside an event loop a signal is an exception (cleanup runs); while the Pulumi mock
runtime's loop runs it exits at once, with the runner's report and its temporary paths removed (an exception
there can break asyncio, whose bookkeeping the SDK juggles by hand, and hang the process); a second signal exits
at once; a process whose worker threads never finish still exits after an interrupt. The real preview, stopped in
the middle of its program run, is the last test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from gpuplan.output import signals
from tests.conftest import KIND_BASE, ROOT, write_stack


def _child(code: str, *args: str) -> subprocess.CompletedProcess:
    script = f"import sys; sys.path.insert(0, {str(ROOT)!r})\n" + textwrap.dedent(code)
    return subprocess.run([sys.executable, "-c", script, *args], capture_output=True, text=True, timeout=120)


def test_outside_an_event_loop_a_signal_is_an_exception():
    signals.install_handlers()
    with pytest.raises(signals.Interrupted) as raised:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(5)
    assert raised.value.signum == signal.SIGTERM


def test_inside_a_running_loop_a_signal_reports_cleans_up_and_exits_at_once(tmp_path):
    temp = tmp_path / "gpuplan-diff-x"
    temp.mkdir()
    result = _child(
        """
        import asyncio, os, signal, sys
        from pathlib import Path
        from gpuplan.output import signals
        signals.install_handlers()
        signals.report_with(lambda signum: (f"stopped by {signum}\\n", '{"errors": []}\\n'))
        signals.remove_on_exit(Path(sys.argv[1]))
        async def program():
            os.kill(os.getpid(), signal.SIGTERM)
            await asyncio.sleep(30)
        asyncio.new_event_loop().run_until_complete(program())
    """,
        str(temp),
    )
    assert result.returncode == 143
    assert result.stderr == "stopped by 15\n" and json.loads(result.stdout) == {"errors": []}
    assert not temp.exists()


def test_a_second_signal_exits_at_once():
    result = _child("""
        import os, signal, time
        from gpuplan.output import signals
        signals.install_handlers()
        try:
            os.kill(os.getpid(), signal.SIGINT)
        except signals.Interrupted:
            pass  # the first one: cleaning up would take a while
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(30)
    """)
    assert result.returncode == 130 and "again; exiting now" in result.stderr


def test_a_stopped_process_whose_threads_never_finish_still_exits():
    started = time.perf_counter()
    result = _child("""
        import sys, threading
        from gpuplan.output import signals
        threading.Thread(target=threading.Event().wait).start()  # a worker that never returns
        signals.exit_watchdog(143, seconds=0.5)
        sys.exit(143)
    """)
    assert result.returncode == 143 and time.perf_counter() - started < 20


def test_preview_stopped_in_the_middle_of_its_program_run(tmp_path):
    # The signal arrives from inside the mock runtime's event loop (the first resource's mocked outputs), where a
    # raised exception hung the process; the previous outputs must stay and the one JSON document must come out.
    out = tmp_path / "out"
    out.mkdir()
    (out / "plan.json").write_text('{"previous": true}\n')
    result = _child(
        """
        import os, signal, sys
        from gpuplan.engine import mock_outputs
        original = mock_outputs.outputs_for
        def outputs_for(*args):
            os.kill(os.getpid(), signal.SIGTERM)
            return original(*args)
        mock_outputs.outputs_for = outputs_for
        from gpuplan.main import main
        sys.argv = ["gpuplan", "preview", "--config", sys.argv[1], "--out", sys.argv[2], "--format", "json"]
        main()
    """,
        str(write_stack(tmp_path, KIND_BASE)),
        str(out),
    )
    assert result.returncode == 143, result.stderr
    assert json.loads(result.stdout)["errors"][0]["signal"] == "SIGTERM"
    assert (
        result.stderr.strip()
        == "gpuplan: stopped by SIGTERM; nothing of this run was written; earlier outputs are kept whole"
    )
    assert (out / "plan.json").read_text() == '{"previous": true}\n' and sorted(p.name for p in tmp_path.iterdir()) == [
        "Pulumi.test.yaml",
        "out",
    ]
