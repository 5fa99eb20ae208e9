"""Exit codes per the contract: 0 ok, 1 findings, 2 invalid input, 3 a bug (one line, traceback in a file)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuplan.app import app
from gpuplan.output.exit_codes import ExitCode
from tests.conftest import KIND_BASE, write_stack


def _invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def test_exit_codes_have_one_meaning_each():
    assert [
        int(code) for code in (ExitCode.OK, ExitCode.FINDINGS, ExitCode.INVALID_INPUT, ExitCode.INTERNAL_ERROR)
    ] == [0, 1, 2, 3]


def test_a_valid_stack_previews_with_exit_0(tmp_path):
    stack = write_stack(tmp_path, KIND_BASE)
    assert _invoke("preview", "--config", str(stack), "--out", str(tmp_path / "out")).exit_code == ExitCode.OK


def test_invalid_input_is_exit_2_with_every_problem(tmp_path):
    stack = write_stack(tmp_path, {**KIND_BASE, "nodePools": [{"name": "Bad_Name", "gpu": "H100", "maxNodes": 0}]})
    result = _invoke("preview", "--config", str(stack), "--out", str(tmp_path / "out"))
    assert result.exit_code == ExitCode.INVALID_INPUT
    assert "nodePools[0] (Bad_Name).name" in result.output and "nodePools[0] (Bad_Name).maxNodes" in result.output
    assert "Traceback" not in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_bug_is_exit_3_with_one_line_and_the_traceback_in_a_file(tmp_path, monkeypatch, fmt):
    from gpuplan.preview import report

    def broken(*_args, **_kwargs):
        raise RuntimeError("deliberate bug for the test")

    monkeypatch.setattr(report, "render_preview", broken)
    monkeypatch.setenv("GPUPLAN_TRACEBACK_DIR", str(tmp_path))
    stack = write_stack(tmp_path, KIND_BASE)
    result = CliRunner().invoke(
        app, ["preview", "--config", str(stack), "--out", str(tmp_path / "out"), "--format", fmt]
    )
    assert result.exit_code == ExitCode.INTERNAL_ERROR
    assert "Traceback" not in result.output
    [written] = tmp_path.glob("gpuplan-traceback-*.txt")
    text = written.read_text()
    assert "Traceback" in text and "deliberate bug for the test" in text
    if fmt == "json":
        document = json.loads(result.stdout)
        assert document["errors"][0]["kind"] == "internal" and document["errors"][0]["traceback"] == str(written)
    else:
        lines = [line for line in result.output.splitlines() if line.strip()]
        assert len(lines) == 1 and "bug in gpuplan" in lines[0] and str(written) in lines[0].replace("\n", "")
