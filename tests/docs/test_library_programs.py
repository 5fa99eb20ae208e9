"""docs/library.md's Python programs run as written: the page's code blocks are the files of each project, written to
a scratch folder and run under gpuplan's mocks (`run_project`), so the page cannot drift from the library."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dra_gpu_platform.facts.type_tokens import Component, Upstream
from gpuplan.engine.user_program import run_project
from tests.conftest import ROOT, run_config
from tests.docs.markdown import DOCS

PAGE = DOCS / "library.md"
MARKER = re.compile(r"<!-- library program ([\w-]+): ([\w.]+) -->\n```\w+\n(.*?)```", re.DOTALL)


def _programs() -> dict[str, dict[str, str]]:
    programs: dict[str, dict[str, str]] = {}
    for project, file, text in MARKER.findall(PAGE.read_text(encoding="utf-8")):
        programs.setdefault(project, {})[file] = text
    return programs


def _run(folder: Path, project: str):
    files = _programs()[project]
    folder.mkdir()
    for name, text in files.items():
        (folder / name).write_text(text, encoding="utf-8")
    return run_project(folder, "dev"), files


def test_the_page_holds_both_projects_with_their_files():
    assert {project: sorted(files) for project, files in _programs().items()} == {
        "gpu-lab": ["Pulumi.yaml", "__main__.py"],
        "ml-gpus": ["Pulumi.dev.yaml", "Pulumi.yaml", "__main__.py"],
    }


def test_the_gpu_platform_program_registers_what_the_stack_program_does_for_its_sections(tmp_path):
    run, files = _run(tmp_path / "gpu-lab", "gpu-lab")
    assert run.project == yaml.safe_load(files["Pulumi.yaml"])["name"] == "gpu-lab"
    sections = re.search(r"^sections = (\{.*?^\})", files["__main__.py"], re.DOTALL | re.MULTILINE).group(1)
    stack_file = run_config(
        tmp_path, ast.literal_eval(sections), "dev"
    )  # the same sections as this repository's stack file
    assert [(r.type, r.name) for r in run.resources] == [(r.type, r.name) for r in stack_file.resources]
    assert run.plan is not None and run.plan.name == "gpu-lab"
    assert set(run.outputs) == {"kubeconfig", "deviceClasses"} and run.outputs["deviceClasses"] == ["big-gpu"]


def test_the_finer_components_program_builds_its_parts_on_the_existing_cluster(tmp_path):
    run, files = _run(tmp_path / "ml-gpus", "ml-gpus")
    config = yaml.safe_load(files["Pulumi.dev.yaml"])["config"]
    assert run.plan is None  # no GpuPlatform: the cluster is not this program's
    components = {(r.type, r.name) for r in run.resources if not r.custom}
    assert {
        (Component.EKS_GPU_NODE_POOL, "ml-prod-pool-h100"),
        (Component.EKS_GPU_NODE_POOL, "ml-prod-pool-l4"),
        (Component.GPU_OPERATOR, "gpu-operator"),
        (Component.DRA_DRIVER, "dra-driver"),
        (Component.DEVICE_CLASSES, "device-classes"),
        (Component.TENANT_NAMESPACE, "ns-research"),
    } <= components
    node_groups = [r.inputs for r in run.resources if r.type == Upstream.EKS_NODE_GROUP]
    assert sorted(group["instanceTypes"][0] for group in node_groups) == ["g6.xlarge", "p5.48xlarge"]
    assert {group["clusterName"] for group in node_groups} == {config["ml-gpus:clusterName"]}
    assert all(group["subnetIds"] == config["ml-gpus:subnetIds"] for group in node_groups)
    assert all(group["nodeRoleArn"] == config["ml-gpus:nodeRoleArn"] for group in node_groups)
    (provider,) = [r for r in run.resources if r.type == Upstream.KUBERNETES_PROVIDER]
    kubernetes = [r for r in run.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes and {r.provider for r in kubernetes} == {provider.urn}
    assert sorted(r.inputs["metadata"]["name"] for r in run.resources if r.type == Upstream.DEVICE_CLASS) == [
        "h100",
        "l4",
    ]
    assert run.outputs["deviceClasses"] == ["h100", "l4"]


@pytest.mark.parametrize("project", ["gpu-lab", "ml-gpus"])
def test_the_programs_are_what_ruff_format_leaves(project):
    ruff = Path(sys.executable).parent / "ruff"
    source = _programs()[project]["__main__.py"]
    result = subprocess.run(
        [str(ruff), "format", "--check", "--stdin-filename", "__main__.py", "-"],
        input=source,
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,  # the repository's ruff settings
    )
    assert result.returncode == 0, result.stdout + result.stderr
