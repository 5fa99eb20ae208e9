"""`gpuplan preview|policy --project DIR --stack NAME`: a team's own Pulumi Python program, run offline under the
same mocks, writes what the package's own program writes for the equivalent stack file; its config problems are
exit 2, its bugs exit 3 with the traceback in a file; Pulumi.yaml is read as the Pulumi CLI reads it."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.models import PROJECT
from gpuplan.app import app
from gpuplan.checks.kube_validate import supported_versions
from gpuplan.engine.project import read_project
from gpuplan.engine.user_program import KUBERNETES_UNKNOWN_NOTE
from gpuplan.policy.runner import default_config_path
from tests.conftest import KIND_BASE, ROOT, write_stack

TEAM = "team-gpu"
# The program names its cluster from its own stack config and keeps its sections in a module beside it: the
# program runs from its folder (imports, relative files) and reads `pulumi.Config` as under `pulumi up`.
PROGRAM = """\
import pulumi
from dra_gpu_platform import GpuPlatform, GpuPlatformArgs
from sections import SECTIONS

name = pulumi.Config().require("clusterName")
sections = {**SECTIONS, "cluster": {**SECTIONS["cluster"], "name": name}}
GpuPlatform(name, GpuPlatformArgs.from_sections(sections))
"""


def invoke(*args: str):
    return CliRunner().invoke(app, list(args))


def write_project(
    directory: Path, program: str, *, sections=None, config: str = "", project: str | None = None
) -> Path:
    """A project with `main: src` and `stackConfigDir: config`, stack `lab`."""
    (directory / "src").mkdir(parents=True)
    (directory / "config").mkdir()
    (directory / "Pulumi.yaml").write_text(
        project or f"name: {TEAM}\nruntime:\n  name: python\nmain: src\nstackConfigDir: config\n", encoding="utf-8"
    )
    (directory / "config" / "Pulumi.lab.yaml").write_text(
        config or f"config:\n  {TEAM}:clusterName: lab\n", encoding="utf-8"
    )
    (directory / "src" / "sections.py").write_text(f"SECTIONS = {sections or KIND_BASE!r}\n", encoding="utf-8")
    (directory / "src" / "__main__.py").write_text(program, encoding="utf-8")
    return directory


def equivalent_stack_file(directory: Path) -> Path:
    config = copy.deepcopy(KIND_BASE)
    config["cluster"]["name"] = "lab"
    return write_stack(directory, config, "lab")


def comparable(plan: dict) -> list[tuple]:
    def urn(text: str) -> str:
        return text.replace(f"::{plan['project']}::", "::PROJECT::")

    return [
        (urn(r["urn"]), r["type"], urn(r["parent"]), json.dumps(r["inputs"], sort_keys=True)) for r in plan["resources"]
    ]


@pytest.fixture(scope="module")
def previews(tmp_path_factory):
    root = tmp_path_factory.mktemp("project")
    project = write_project(root / "team", PROGRAM)
    outputs = {}
    for label, args in (
        ("program", ["--project", str(project), "--stack", "lab"]),
        ("file", ["--config", str(equivalent_stack_file(root))]),
    ):
        result = invoke("preview", *args, "--out", str(root / label), "--format", "json")
        assert result.exit_code == 0, result.output
        outputs[label] = (json.loads(result.stdout), root / label)
    return outputs


def test_a_users_program_registers_what_the_stack_file_registers(previews):
    (document, out), (_, reference) = previews["program"], previews["file"]
    plan = json.loads((out / "plan.json").read_text())
    expected = json.loads((reference / "plan.json").read_text())
    assert plan["project"] == TEAM and plan["stack"] == "lab" and expected["project"] == PROJECT
    assert comparable(plan) == comparable(expected) and len(plan["resources"]) > 10
    for path in sorted(reference.rglob("*.yaml")):  # the manifests and kind-config.yaml, byte for byte
        assert (out / path.relative_to(reference)).read_text() == path.read_text(), path.name
    assert document["validation"]["kubernetesVersions"] == ["1.35.0", "1.36.0"]  # the stack's minor and the next


def test_policy_runs_a_users_program_like_the_stack_file_and_finds_the_projects_policy_config(tmp_path):
    project = write_project(tmp_path / "team", PROGRAM)
    stack_file = equivalent_stack_file(tmp_path)
    by_program = invoke(
        "policy", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "a"), "--format", "json"
    )
    by_file = invoke("policy", "--config", str(stack_file), "--out", str(tmp_path / "b"), "--format", "json")
    assert by_program.exit_code == by_file.exit_code == 0, by_program.output
    program_report, file_report = json.loads(by_program.stdout), json.loads(by_file.stdout)
    assert program_report["policyConfig"] is None and file_report["policyConfig"] is None
    assert [v["policy"] for v in program_report["violations"]] == [v["policy"] for v in file_report["violations"]]
    # the project's own policies/config/<stack>.json is the default for its stacks
    (project / "policies" / "config").mkdir(parents=True)
    (project / "policies" / "config" / "lab.json").write_text(json.dumps({"all": "advisory"}))
    configured = invoke(
        "policy", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "c"), "--format", "json"
    )
    assert configured.exit_code == 0 and json.loads(configured.stdout)["policyConfig"] == str(
        project / "policies" / "config" / "lab.json"
    )


def test_a_config_problem_in_the_program_is_exit_2_with_every_problem(tmp_path):
    bad = {**copy.deepcopy(KIND_BASE), "nodePools": [{"name": "dra-pool", "gpu": "H100", "maxNodes": 1, "minNodes": 3}]}
    project = write_project(tmp_path / "team", PROGRAM.replace('"name": name', '"name": "Bad_Name"'), sections=bad)
    result = invoke(
        "preview", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "o"), "--format", "json"
    )
    assert result.exit_code == 2, result.output
    paths = {error["path"] for error in json.loads(result.stdout)["errors"]}
    assert {"cluster.name", "nodePools[0].minNodes"} <= paths
    assert "Traceback" not in result.output and not (tmp_path / "o" / "plan.json").exists()


@pytest.mark.parametrize(
    "raised",
    [
        "pulumi.RunError('set clusterName first')",
        # the library's ConfigError contract (docs: a ValueError carrying its problems), whatever its class
        "type('ConfigError', (ValueError,), {'problems': []})('set clusterName first')",
    ],
)
def test_a_run_error_or_config_error_in_the_program_is_exit_2_with_its_message(tmp_path, raised):
    project = write_project(tmp_path / "team", f"import pulumi\nraise {raised}\n")
    result = invoke("policy", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "o"))
    assert result.exit_code == 2 and "set clusterName first" in result.output and "Traceback" not in result.output


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_a_bug_in_the_program_is_exit_3_with_its_traceback_in_a_file(tmp_path, monkeypatch, fmt):
    monkeypatch.setenv("GPUPLAN_TRACEBACK_DIR", str(tmp_path))
    project = write_project(tmp_path / "team", "import sections\nsections.SECTIONS['nodePools'][7]\n")
    result = invoke(
        "preview", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "o"), "--format", fmt
    )
    assert result.exit_code == 3, result.output
    [traceback] = tmp_path.glob("gpuplan-traceback-*.txt")
    text = traceback.read_text()
    assert "IndexError" in text and str(project / "src" / "__main__.py") in text
    assert "Traceback" not in result.output and "a bug in the program, not in gpuplan" in result.stderr
    if fmt == "json":
        [error] = json.loads(result.stdout)["errors"]
        assert error["kind"] == "program" and error["traceback"] == str(traceback)


def test_a_program_without_gpuplatform_is_checked_for_every_supported_kubernetes_version(tmp_path):
    program = (
        "import pulumi, pulumi_kubernetes as k8s\n"
        "provider = k8s.Provider('cluster', kubeconfig='apiVersion: v1')\n"
        "k8s.core.v1.Namespace('team-a', metadata={'name': 'team-a'}, opts=pulumi.ResourceOptions(provider=provider))\n"
    )
    project = write_project(tmp_path / "team", program)
    result = invoke(
        "preview", "--project", str(project), "--stack", "lab", "--out", str(tmp_path / "o"), "--format", "json"
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    assert document["validation"]["kubernetesVersions"] == list(supported_versions())
    assert KUBERNETES_UNKNOWN_NOTE.format(versions=", ".join(supported_versions())) in document["notes"]
    assert [Path(p).name for p in document["manifests"]] == ["00-namespace-team-a.yaml"]
    assert not (tmp_path / "o" / "kind-config.yaml").exists()


@pytest.mark.parametrize(
    ("pulumi_yaml", "path", "rule"),
    [
        (None, "", "no Pulumi.yaml in this folder"),
        ("name: t\nruntime: nodejs\n", "runtime", "gpuplan runs Pulumi programs written in Python"),
        ("runtime: python\n", "name", "the project needs a name"),
        ("name: t\nruntime: python\nmain: nowhere/\n", "main", "`main` names nothing that exists"),
    ],
)
def test_a_project_gpuplan_cannot_run_is_exit_2_naming_the_field(tmp_path, pulumi_yaml, path, rule):
    project = tmp_path / "p"
    project.mkdir()
    if pulumi_yaml is not None:
        (project / "Pulumi.yaml").write_text(pulumi_yaml)
    (project / "__main__.py").write_text("")
    result = invoke("preview", "--project", str(project), "--stack", "lab", "--format", "json")
    assert result.exit_code == 2, result.output
    [error] = json.loads(result.stdout)["errors"]
    assert error["path"] == path and rule in error["rule"] and error["fix"]


def test_project_options_need_a_stack_and_exclude_a_stack_file(tmp_path):
    no_stack = invoke("preview", "--project", str(tmp_path), "--format", "json")
    both = invoke("policy", "--project", str(tmp_path), "--config", str(tmp_path / "Pulumi.x.yaml"), "--format", "json")
    assert no_stack.exit_code == both.exit_code == 2
    assert json.loads(no_stack.stdout)["errors"][0]["path"] == "--stack"
    assert json.loads(both.stdout)["errors"][0]["path"] == "--project/--config"
    assert invoke("fit", "--project", str(tmp_path)).exit_code == 2  # every command needs the stack with --project


def test_stack_names_the_stack_file_of_the_project_you_are_in(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    outside = invoke("preview", "--stack", "dev", "--format", "json")
    assert outside.exit_code == 2 and "no Pulumi.yaml in" in json.loads(outside.stdout)["errors"][0]["rule"]
    (tmp_path / "Pulumi.yaml").write_text("name: t\nruntime: python\nstackConfigDir: envs\n")
    (tmp_path / "envs" / "deep").mkdir(parents=True)
    write_stack(tmp_path / "envs", KIND_BASE, "lab")
    monkeypatch.chdir(tmp_path / "envs" / "deep")  # anywhere inside the project
    inside = invoke("preview", "--stack", "lab", "--out", str(tmp_path / "o"), "--format", "json")
    assert inside.exit_code == 0, inside.output
    assert json.loads((tmp_path / "o" / "plan.json").read_text())["stack"] == "lab"


def test_pulumi_yaml_is_read_as_the_cli_reads_it(tmp_path):
    (tmp_path / "prog").mkdir()
    (tmp_path / "prog" / "main.py").write_text("")
    (tmp_path / "Pulumi.yml").write_text("name: t\nruntime: {name: python}\nmain: prog/main.py\nconfig: envs\n")
    project = read_project(tmp_path)
    # `config: <dir>` is the old spelling of stackConfigDir; the stack file takes the project file's extension
    assert project.stack_file("org/lab") == tmp_path / "envs" / "Pulumi.org-lab.yml"
    assert project.entry_point() == (tmp_path.resolve() / "prog", tmp_path.resolve() / "prog" / "main.py")


def test_the_policy_config_is_the_stack_projects_else_none(tmp_path):
    assert default_config_path("dev", ROOT) == ROOT / "policies" / "config" / "dev.json"
    # a stack file with no project around it, or a project without that config: each policy's default level, never
    # this package's reference config of the same name
    assert default_config_path("prod", None) is None and default_config_path("prod", tmp_path) is None
    assert default_config_path("lab", None) is None and default_config_path("lab", tmp_path) is None
    (tmp_path / "policies" / "config").mkdir(parents=True)
    (tmp_path / "policies" / "config" / "prod.json").write_text("{}")
    assert default_config_path("prod", tmp_path) == tmp_path / "policies" / "config" / "prod.json"
