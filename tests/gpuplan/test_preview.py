"""`gpuplan preview` per the contract: outputs, determinism, validation, exit codes, error reporting."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import yaml
from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import KIND_BASE, ROOT, write_stack


@pytest.fixture(scope="module")
def dev_outputs(tmp_path_factory):
    out = tmp_path_factory.mktemp("dev")
    first, second = out / "a", out / "b"
    for target in (first, second):
        result = CliRunner().invoke(app, ["preview", "--stack", "dev", "--out", str(target)])
        assert result.exit_code == 0, result.output
    return first, second, result.output


def test_preview_writes_plan_manifests_and_kind_config(dev_outputs):
    first, _, output = dev_outputs
    plan = json.loads((first / "plan.json").read_text())
    assert plan["stack"] == "dev" and plan["project"] == "dra-gpu-platform"
    assert [r["urn"] for r in plan["resources"]] == sorted(r["urn"] for r in plan["resources"])
    assert set(plan["resources"][0]) >= {
        "urn",
        "type",
        "name",
        "parent",
        "provider",
        "dependencies",
        "protect",
        "inputs",
    }
    kinds = {yaml.safe_load(p.read_text())["kind"] for p in (first / "manifests").glob("*.yaml")}
    assert {
        "Namespace",
        "DeviceClass",
        "ResourceClaimTemplate",
        "ResourceQuota",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "DeviceTaintRule",
    } <= kinds
    kind_config = yaml.safe_load((first / "kind-config.yaml").read_text())
    assert kind_config["kind"] == "Cluster" and kind_config["nodes"][0]["role"] == "control-plane"
    assert "all manifests valid" in output and "gpu-dev-kind-k8s" in output


def test_preview_is_byte_identical_across_runs(dev_outputs):
    first, second, _ = dev_outputs
    files = sorted(p.relative_to(first) for p in first.rglob("*") if p.is_file())
    assert files == sorted(p.relative_to(second) for p in second.rglob("*") if p.is_file())
    for relative in files:
        assert (first / relative).read_bytes() == (second / relative).read_bytes(), relative


def test_manifests_are_applied_namespaces_first(dev_outputs):
    first, _, _ = dev_outputs
    names = sorted(p.name for p in (first / "manifests").glob("*.yaml"))
    kinds = [yaml.safe_load((first / "manifests" / n).read_text())["kind"] for n in names]
    assert kinds.index("ResourceClaimTemplate") > max(i for i, k in enumerate(kinds) if k == "Namespace")


def test_manifests_pass_the_kubernetes_validate_cli(dev_outputs):
    first, _, _ = dev_outputs
    files = sorted(str(p) for p in (first / "manifests").glob("*.yaml"))
    for version in ("1.35.0", "1.36.0"):
        result = subprocess.run(
            [sys.executable, "-m", "kubernetes_validate", "--strict", "--quiet", "-k", version, *files],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr


def test_json_format_reports_validation(tmp_path):
    result = CliRunner().invoke(
        app,
        [
            "preview",
            "--config",
            str(write_stack(tmp_path, KIND_BASE)),
            "--out",
            str(tmp_path / "o"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["stack"] == "test" and document["validation"]["errors"] == []
    # the stack's minor and the one a kind cluster moves to next (gpuplan/checks/kube_validate.py versions_for)
    assert document["validation"]["kubernetesVersions"] == ["1.35.0", "1.36.0"]


BROKEN = """\
config:
  dra-gpu-platform:cluster:
    platform: kind
    name: gpu-dev
    kubernetesVersion: "1.35"
  dra-gpu-platform:nodePools:
    - name: a
      gpu: A100-80GB
      maxNodes: 2
    - name: b
      gpu: H100
      maxNodes: 1
      mig: {profile: 3g.99gb}
  dra-gpu-platform:namespaces:
    - name: team
      claimTemplates: [{name: t, deviceClass: no-such-class}]
"""


def test_broken_stack_exits_2_with_every_problem_and_no_traceback(tmp_path):
    stack_file = tmp_path / "Pulumi.broken.yaml"
    stack_file.write_text(BROKEN)
    result = subprocess.run(
        [sys.executable, "-m", "gpuplan", "preview", "--config", str(stack_file), "--out", str(tmp_path / "out")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 2
    output = result.stdout + result.stderr
    assert "Traceback" not in output
    assert f"{stack_file}: nodePools[1] (b).mig.profile = '3g.99gb'" in output
    assert "not a MIG profile of H100" in output and "fix:" in output
    assert "namespaces[0] (team).claimTemplates[0] (t).deviceClass = 'no-such-class'" in output
    assert not (tmp_path / "out" / "plan.json").exists()  # bad input changes nothing


def test_broken_stack_json_errors(tmp_path):
    stack_file = tmp_path / "Pulumi.broken.yaml"
    stack_file.write_text(BROKEN)
    result = CliRunner().invoke(app, ["preview", "--config", str(stack_file), "--format", "json"])
    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert {"file", "path", "where", "value", "rule", "fix", "excerpt"} == set(errors[0])
    assert any(e["path"] == "nodePools[1].mig.profile" and e["value"] == "3g.99gb" for e in errors)


def test_unreadable_yaml_is_invalid_input(tmp_path):
    stack_file = tmp_path / "Pulumi.bad.yaml"
    stack_file.write_text("config:\n  dra-gpu-platform:cluster: {platform: kind\n")
    result = CliRunner().invoke(app, ["preview", "--config", str(stack_file)])
    assert result.exit_code == 2 and "not valid YAML (line" in result.output


def test_missing_stack_is_invalid_input():
    result = CliRunner().invoke(app, ["preview", "--stack", "no-such-stack"])
    assert result.exit_code == 2 and "does not exist" in result.output
