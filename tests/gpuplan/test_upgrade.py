"""`gpuplan upgrade`: the JSON contract, resources from the diff of consecutive stages, fitChanges judged by each
minor's allocator, blockers from the stages' stack files, the runbook, exit codes 0/1/2."""

from __future__ import annotations

import copy
import json
from datetime import date

import pytest
import yaml
from typer.testing import CliRunner

from gpuplan.app import app
from gpuplan.engine.sources import StackFileSource
from gpuplan.upgrade.report import upgrade_report
from tests.conftest import STACKS_DIR

TODAY = date(2026, 12, 7)
STEP_KEYS = {"step", "kind", "what", "pools", "resources", "disruption"}


def _invoke(*args):
    return CliRunner().invoke(app, ["upgrade", *args])


@pytest.fixture(scope="module")
def dev_to_1_36(tmp_path_factory):
    """The dev stack (kind) planned to 1.36 with the program run at both stages (one diff)."""
    out = tmp_path_factory.mktemp("upgrade-dev")
    result = _invoke(
        "--config", str(STACKS_DIR / "Pulumi.dev.yaml"), "--to", "1.36", "--out", str(out), "--format", "json"
    )
    return result, out


def test_the_json_follows_the_contract_and_lands_in_upgrade_json(dev_to_1_36):
    result, out = dev_to_1_36
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert {"stack", "from", "to", "steps", "fitChanges", "blockers"} <= set(document)
    assert document["stack"] == "dev"
    assert document["from"] == {"kubernetes": "1.35", "gpuOperator": None, "draDriver": None}
    assert document["to"]["kubernetes"] == "1.36"
    assert all(set(step) >= STEP_KEYS for step in document["steps"])
    assert [s["step"] for s in document["steps"]] == list(range(1, len(document["steps"]) + 1))
    assert json.loads((out / "upgrade.json").read_text()) == document


def test_each_step_lists_the_resources_the_diff_changes_and_its_disruption(dev_to_1_36):
    document = json.loads(dev_to_1_36[0].output)
    steps = {s["kind"]: s for s in document["steps"]}
    control = steps["control-plane"]
    assert control["disruption"] == "replace"
    assert any("command:local:Command" in urn and "KindCluster" in urn for urn in control["resources"])
    migration = steps["api-migration"]
    assert any("resource.k8s.io/v1beta2:DeviceTaintRule" in urn for urn in migration["resources"])
    assert any("resource.k8s.io/v1alpha3:DeviceTaintRule" in urn for urn in migration["resources"])
    every = [urn for s in document["steps"] for urn in s["resources"]]
    assert len(every) == len(set(every)), "a changed resource belongs to one step"


def test_the_runbook_has_a_section_per_stage_with_its_edit(dev_to_1_36):
    runbook = (dev_to_1_36[1] / "runbook.md").read_text()
    assert runbook.startswith("# Upgrade runbook: stack `dev`")
    assert "## Stage 1: Kubernetes 1.36" in runbook and "`cluster.kubernetesVersion`: `1.36`" in runbook
    assert "| 1 | control-plane | replace |" in runbook


def _stack_with(tmp_path, name, **sections):
    document = yaml.safe_load((STACKS_DIR / "Pulumi.dev.yaml").read_text())
    config = document["config"]
    for key, value in sections.items():
        if value is None:
            config.pop(f"dra-gpu-platform:{key}", None)
        else:
            config[f"dra-gpu-platform:{key}"] = copy.deepcopy(value)
    path = tmp_path / f"Pulumi.{name}.yaml"
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def test_a_first_available_all_claim_is_unschedulable_on_1_35_and_allocated_on_1_36(tmp_path):
    """The issue's case: an All subrequest after one that cannot be met. v0.35.6 continues the All subrequest with
    the first subrequest's data (deviceIndices without subRequestIndex) and fails; v0.36.2 keeps its own."""
    namespaces = [
        {
            "name": "ml-research",
            "migration": "dra-only",
            "claimTemplates": [
                {
                    "name": "whole-node-fallback",
                    "firstAvailable": [
                        {
                            "deviceClass": "big-gpu",
                            "count": 2,
                            "selectors": ["device.attributes['gpu.example.com'].index >= 100"],
                        },
                        {"deviceClass": "gpu.example.com", "allocationMode": "All"},
                    ],
                }
            ],
        }
    ]
    path = _stack_with(tmp_path, "kind-all", namespaces=namespaces, maintenance=None)
    report = upgrade_report(StackFileSource.of(path), "1.36", today=TODAY, run_program=False)
    assert [(c["name"], c["before"], c["after"]) for c in report.fit_changes] == [
        ("ml-research/whole-node-fallback", "unschedulable", "allocated")
    ]
    why = report.fit_changes[0]["why"]
    assert "v0.35.6" in why and "v0.36.2" in why and "before:" in why
    assert not report.blockers


def test_a_stage_the_config_layer_refuses_is_a_blocker_with_its_fix():
    """prod to 1.37: the cluster-autoscaler has no 1.37 image, so the 1.37 stack file is refused; EKS does not offer
    1.37; the minor and the operator's major are skipped."""
    report = upgrade_report(StackFileSource.of(STACKS_DIR / "Pulumi.prod.yaml"), "1.37", today=TODAY, run_program=False)
    whats = [b.what for b in report.blockers]
    assert whats[0] == "Kubernetes 1.35 → 1.37"  # the one-minor rule of gpuplan diff
    assert "Kubernetes 1.37 on EKS" in whats and "GPU Operator v25.10.1 → v26.7.0" in whats
    refused = [b for b in report.blockers if b.what.startswith("the stack file at stage 3")]
    assert refused and all(b.fix for b in refused)


def test_invalid_targets_exit_2_with_the_flag_and_a_fix(tmp_path):
    result = _invoke("--stack", "prod", "--to", "1.33", "--out", str(tmp_path), "--format", "json")
    assert result.exit_code == 2, result.output
    (problem,) = json.loads(result.output)["errors"]
    assert problem["path"] == "--to" and problem["value"] == "1.33" and problem["fix"]
