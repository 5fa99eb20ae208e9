"""The CLI under hostile input and faults: every failure is exit 2 (input or environment) with the path and a fix,
or 130/143 when stopped, never a traceback or exit 3; results are shown even when --out cannot be written; with
--format json every path prints exactly one JSON document."""

from __future__ import annotations

import json
import os
import signal
import time

import pytest
from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import H200_NVML, KIND_BASE, shared_path, write_stack
from tests.inputs.test_strict_yaml import ALIAS_BOMB

COMMANDS = ("preview", "policy", "fit", "inventory", "preflight", "diff")


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def json_document(result) -> dict:
    return json.loads(result.stdout)  # exactly one document: json.loads refuses anything after it


def clean(result) -> None:
    assert "Traceback" not in result.output and "internal error" not in result.output, result.output


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_answers_a_missing_stack_file_with_one_json_document(command, tmp_path):
    extra = ["--against", "HEAD"] if command == "diff" else []
    result = invoke(
        command,
        "--config",
        str(tmp_path / "Pulumi.none.yaml"),
        *extra,
        "--out",
        str(tmp_path / "o"),
        "--format",
        "json",
    )
    assert result.exit_code == 2, result.output
    [error] = json_document(result)["errors"]
    assert error["file"] == str(tmp_path / "Pulumi.none.yaml") and "does not exist" in error["rule"] and error["fix"]


def test_a_usage_error_with_format_json_is_a_json_document_too():
    result = invoke("fit", "--no-such-option", "--format", "json")
    assert result.exit_code == 2
    [error] = json_document(result)["errors"]
    assert error["file"] == "(command line)" and "No such option" in error["rule"] and "--help" in error["fix"]
    text = invoke("fit", "--no-such-option")
    assert text.exit_code == 2 and "No such option" in text.output


def test_stack_files_that_are_no_files_are_input_errors(tmp_path):
    fifo = tmp_path / "Pulumi.fifo.yaml"
    os.mkfifo(fifo)
    latin1 = tmp_path / "Pulumi.latin1.yaml"
    latin1.write_bytes(b"config:\n  dra-gpu-platform:cluster: {name: caf\xe9}\n")
    for path, words in (
        (tmp_path, "is a directory"),
        (fifo, "FIFO"),
        ("/dev/zero", "character device"),
        (latin1, "not UTF-8: the first bad byte is at offset 46"),
    ):
        for fmt in ("text", "json"):
            started = time.perf_counter()
            result = invoke("preview", "--config", str(path), "--out", str(tmp_path / "out"), "--format", fmt)
            assert result.exit_code == 2 and time.perf_counter() - started < 5, result.output
            clean(result)
            assert words in (json_document(result)["errors"][0]["rule"] if fmt == "json" else result.output)
    assert not (tmp_path / "out").exists()


def test_an_alias_bomb_as_an_nvml_snapshot_is_refused_within_seconds(tmp_path):
    bomb = tmp_path / "nvml.yaml"
    bomb.write_text(ALIAS_BOMB, encoding="utf-8")
    started = time.perf_counter()
    result = invoke("inventory", "--from-nvml", str(bomb), "--format", "json")
    assert result.exit_code == 2 and time.perf_counter() - started < 5
    assert "excessive aliasing" in json_document(result)["errors"][0]["rule"]


def test_a_driver_version_that_is_no_release_is_refused():
    result = invoke("inventory", "--gpu", "H100", "--driver-version", "banana")
    assert result.exit_code == 2 and "--driver-version" in result.output and "0.4.1" in result.output
    clean(result)
    assert invoke("inventory", "--gpu", "H100", "--driver-version", "25.8.1").exit_code == 0


def _snapshot(tmp_path, edit) -> str:
    document = json.loads((shared_path(H200_NVML) / "nvml.json").read_text())
    edit(document)
    path = tmp_path / "nvml.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    return str(path)


def test_an_nvml_snapshot_with_impossible_values_is_refused(tmp_path):
    def break_it(document):
        second = json.loads(json.dumps(document["devices"][0]))
        document["devices"][0]["memoryTotalBytes"] = -1
        document["devices"].append(second)
        third = json.loads(json.dumps(second))
        third["uuid"] = "GPU-another"
        document["devices"].append(third)  # same index, minor and bus ID as the second

    result = invoke("inventory", "--from-nvml", _snapshot(tmp_path, break_it), "--format", "json")
    assert result.exit_code == 2
    found = {(e["path"], e["rule"].split(" (")[0].split(":")[0]) for e in json_document(result)["errors"]}
    assert ("devices[0].memoryTotalBytes", "must be at least 1") in found
    assert {
        ("devices[2].index", "the same GPU index as devices[1]"),
        ("devices[2].minor", "the same device minor number as devices[1]"),
        ("devices[2].pciBusId", "the same PCI bus ID as devices[1]"),
    } <= found


def test_results_are_shown_when_out_cannot_be_written(tmp_path):
    blocker = tmp_path / "out"
    blocker.write_text("a file where the output folder should be\n")
    text = invoke("inventory", "--gpu", "H100", "--count", "2", "--out", str(blocker))
    assert text.exit_code == 2
    assert "kind: ResourceSlice" in text.stdout  # the result first
    assert "--out names a file" in text.stderr and str(blocker) in text.stderr
    document = json_document(invoke("inventory", "--gpu", "H100", "--out", str(blocker), "--format", "json"))
    assert document["kind"] == "List" and document["items"] and "--out names a file" in document["errors"][0]["rule"]
    assert blocker.read_text() == "a file where the output folder should be\n"


def test_preview_into_an_unwritable_out_still_prints_the_tree(tmp_path):
    stack = write_stack(tmp_path, KIND_BASE)
    blocker = tmp_path / "build"
    blocker.write_text("x")
    result = invoke("preview", "--config", str(stack), "--out", str(blocker / "test"))
    assert result.exit_code == 2, result.output
    clean(result)
    assert "dra-gpu-platform:index:GpuPlatform" in result.stdout and "all manifests valid" in result.stdout
    assert "Wrote" not in result.stdout and f"{blocker} is a file" in result.stderr


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_sigterm_during_the_program_run_stops_cleanly_and_keeps_the_previous_outputs(tmp_path, monkeypatch, fmt):
    from gpuplan.engine import runtime

    out = tmp_path / "out"
    out.mkdir()
    (out / "plan.json").write_text('{"previous": true}\n')

    def terminated(*_args, **_kwargs):
        os.kill(os.getpid(), signal.SIGTERM)  # a real signal, as `timeout` or CI cancellation sends it
        time.sleep(5)
        raise AssertionError("the signal did not interrupt the run")

    monkeypatch.setattr(runtime, "run_stack_program", terminated)
    result = invoke("preview", "--config", str(write_stack(tmp_path, KIND_BASE)), "--out", str(out), "--format", fmt)
    assert result.exit_code == 143
    assert (out / "plan.json").read_text() == '{"previous": true}\n' and not list(tmp_path.glob(".out.gpuplan-tmp-*"))
    assert result.stderr.strip().splitlines() == [
        "gpuplan: stopped by SIGTERM; nothing of this run was written; earlier outputs are kept whole"
    ]
    if fmt == "json":
        assert json_document(result)["errors"][0] | {"message": ""} == {
            "kind": "interrupted",
            "signal": "SIGTERM",
            "message": "",
        }


def test_ctrl_c_while_writing_leaves_no_temporary_folder(tmp_path, monkeypatch):
    from gpuplan.output import atomic_out

    out = tmp_path / "slices"
    original = atomic_out.Path.write_text

    def interrupted(self, *args, **kwargs):
        original(self, *args, **kwargs)
        if ".gpuplan-tmp-" in str(self):
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(atomic_out.Path, "write_text", interrupted)
    result = invoke("inventory", "--gpu", "H100", "--out", str(out))
    assert result.exit_code == 130
    assert not out.exists() or not any(out.iterdir())
    assert not list(tmp_path.glob(".slices.gpuplan-tmp-*"))
