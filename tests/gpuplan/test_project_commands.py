"""`--project DIR --stack NAME` for every command on one stack (gpuplan/engine/sources.py: one StackSource with
config(), plan() and run()): fit, inventory, preflight and render read the plan the user's program builds its
GpuPlatform from and answer as for the equivalent stack file; without --out the outputs go under the project
(DIR/build/<stack>), never the working directory's build/, and the text says where; a program that builds no
GpuPlatform has no plan, which those commands refuse as invalid input."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from gpuplan.app import app
from gpuplan.engine.sources import ProjectSource, StackFileSource, resolve_source
from tests.conftest import KIND_BASE, write_stack
from tests.gpuplan import probe_charts
from tests.gpuplan.test_project import PROGRAM, equivalent_stack_file, write_project
from tests.gpuplan.test_render import STACK as RENDER_STACK


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


@pytest.fixture(scope="module")
def project_and_file(tmp_path_factory):
    root = tmp_path_factory.mktemp("commands")
    return write_project(root / "team", PROGRAM), equivalent_stack_file(root), root


@pytest.mark.parametrize("command", ["fit", "inventory"])
def test_a_users_program_answers_as_the_equivalent_stack_file(project_and_file, command):
    project, stack_file, root = project_and_file
    by_program = invoke(command, "--project", str(project), "--stack", "lab", "--format", "json")
    by_file = invoke(command, "--config", str(stack_file), "--out", str(root / "file"), "--format", "json")
    assert by_program.exit_code == by_file.exit_code == 0, by_program.output
    document = json.loads(by_program.stdout)
    assert document == json.loads(by_file.stdout)
    if command == "fit":
        assert document["claims"] and document["inventory"]["source"] == "stack:lab"
    else:
        assert document["kind"] == "List" and document["items"]


def test_without_out_the_outputs_go_under_the_project_and_the_text_says_where(project_and_file, tmp_path, monkeypatch):
    project, _, _ = project_and_file
    monkeypatch.chdir(tmp_path)  # a working directory with its own build/: never written
    result = invoke("fit", "--project", str(project), "--stack", "lab")
    written = project / "build" / "lab" / "fit.json"
    assert result.exit_code == 0, result.output
    assert written.is_file() and not (tmp_path / "build").exists()
    assert f"Wrote {written}" in " ".join(result.stdout.split())
    assert ProjectSource("lab", project).out_dir(None) == project / "build" / "lab"
    assert StackFileSource("lab", tmp_path / "Pulumi.lab.yaml").out_dir(None).as_posix() == "build/lab"


def test_preflight_of_a_users_kind_program_asks_no_cloud_and_writes_nothing(project_and_file):
    project, _, _ = project_and_file
    result = invoke("preflight", "--project", str(project), "--stack", "lab", "--format", "json")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) | {"message": ""} == {
        "stack": "lab",
        "platform": "kind",
        "covered": False,
        "ok": True,
        "message": "",
    }
    assert not (project / "build" / "lab" / "preflight.json").exists()


NO_PLATFORM = "import pulumi\npulumi.export('nothing', 1)\n"


def test_a_program_without_gpuplatform_has_no_plan_for_fit_inventory_or_preflight(tmp_path):
    project = write_project(tmp_path / "team", NO_PLATFORM)
    for command in ("fit", "inventory", "preflight"):
        result = invoke(command, "--project", str(project), "--stack", "lab", "--format", "json")
        assert result.exit_code == 2, (command, result.output)
        [error] = json.loads(result.stdout)["errors"]
        assert error["path"] == "--project" and "builds no GpuPlatform" in error["rule"], command
        assert "--config FILE" in error["fix"]
    assert not (project / "build").exists()  # refused before anything is written


def test_one_source_reads_and_plans_a_stack_file_once(tmp_path, monkeypatch):
    from gpuplan.engine import sources

    reads: list[object] = []
    original = sources.read_stack_file
    monkeypatch.setattr(sources, "read_stack_file", lambda path: reads.append(path) or original(path))
    source = resolve_source(None, write_stack(tmp_path, copy.deepcopy(KIND_BASE), "once"), None)
    assert source.plan() is source.plan() and source.config() is source.run().config
    assert source.run().plan is source.plan() and len(reads) == 1


def test_render_runs_a_users_program_like_the_stack_file(helm_path, tmp_path):
    sections = {key: value for key, value in copy.deepcopy(RENDER_STACK).items() if key != "kubeconfig"}
    program = PROGRAM.replace(
        "GpuPlatformArgs.from_sections(sections)",
        "GpuPlatformArgs.from_sections(sections, kubeconfig='apiVersion: v1')",
    )
    project = write_project(tmp_path / "team", program, sections=sections)
    stack = copy.deepcopy(RENDER_STACK)
    stack["cluster"]["name"] = "lab"
    stack_file = write_stack(tmp_path, stack, "lab")
    charts = probe_charts.write_charts(tmp_path / "charts")
    common = ["--helm", helm_path, "--charts", str(charts), "--format", "json"]
    by_program = invoke("render", "--project", str(project), "--stack", "lab", *common)
    by_file = invoke("render", "--config", str(stack_file), "--out", str(tmp_path / "file"), *common)
    assert by_program.exit_code == by_file.exit_code, by_program.output
    program_report, file_report = json.loads(by_program.stdout), json.loads(by_file.stdout)
    assert program_report["placement"] == file_report["placement"] and program_report["placement"]
    assert [(r["release"], r["objects"]) for r in program_report["releases"]] == [
        (r["release"], r["objects"]) for r in file_report["releases"]
    ]
    assert program_report["kustomization"] == str(project / "build" / "lab" / "rendered" / "kustomization.yaml")
    # a program that builds no GpuPlatform has no releases to render: refused before anything is written
    empty = write_project(tmp_path / "empty", NO_PLATFORM)
    refused = invoke("render", "--project", str(empty), "--stack", "lab", *common)
    assert refused.exit_code == 2 and json.loads(refused.stdout)["errors"][0]["path"] == "--project"
    assert not (empty / "build").exists()
