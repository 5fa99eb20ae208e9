"""`gpuplan policy` end to end: the committed stacks pass, each stack of tests/policy_stacks is caught by
exactly its rule, and bad input exits 2 with every problem listed.

Rules no stack file can break, because the stack contract or the components prevent it (they are covered by
the hand-built tests in test_*_rules.py):
- gpu-node-pool-tainted, imds-v2-required: every GPU pool gets the taint and an IMDSv2 launch template.
- gpu-node-pool-nvidia-ami: nodePools[].amiType only accepts the NVIDIA AMI types.
- cluster-endpoint-private: config rules refuse a public endpoint without CIDRs, internet-wide CIDR sets and an
  AKS API server neither private nor limited to authorized ranges; AKS always disables local accounts.
- claim-template-class-exists, device-plugin-retirement-safe: config rules refuse unknown classes and
  legacy/dual namespaces without a device-plugin pool.
- dra-quota-keys-valid: quota keys are built from `quota.claims`/`quota.devices`, always in the real form.
- dra-only-namespace-guarded: the guard and its binding are always installed; stack files declare no workloads.
- dra-driver-not-beside-device-plugin: placement follows from `gpuStack` (labels, selectors, operand labels).
- helm-release-pinned: chart versions come from validated `gpuOperator.version`/`draDriver.version`.
- tenant-namespace-pod-security, tenant-quota-closed, tenant-guard-holds, tenant-network-isolated: every tenant
  namespace gets its labels, closed quotas, guard and NetworkPolicies (PSA labels cannot be set by hand).
- cluster-admin-scoped, control-plane-audit-logs, pod-identity-trust-scoped, autoscaler-iam-scoped: the cluster
  components always declare them (an AKS stack without admin groups also breaks tenant-controls-guarded).
- monitoring-secrets-namespaced, helm-images-by-digest: the releases' values are the platform's.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import REFERENCE_STACKS, ROOT

POLICY_STACKS = ROOT / "tests" / "policy_stacks"
PROD_CONFIG = ROOT / "policies" / "config" / "prod.json"

# stack file → (policy config it is checked with, the one rule that catches it, its level)
EXPECTED = {
    "Pulumi.selector-reads-memory-attribute.yaml": (None, "deviceclass-selector-valid", "mandatory"),
    "Pulumi.claims-without-quota.yaml": (None, "gpu-namespace-has-quota", "mandatory"),
    "Pulumi.quota-misses-a-class.yaml": (None, "gpu-namespace-has-quota", "mandatory"),
    "Pulumi.production-unprotected.yaml": (PROD_CONFIG, "protected-in-production", "mandatory"),
    "Pulumi.over-gpu-budget.yaml": (PROD_CONFIG, "gpu-budget", "advisory"),
    "Pulumi.claim-cannot-fit.yaml": (None, "claims-satisfiable", "mandatory"),
    "Pulumi.tenant-controls-unguarded.yaml": (PROD_CONFIG, "tenant-controls-guarded", "mandatory"),
}


def invoke(*args: str):
    return CliRunner().invoke(app, ["policy", *args])


def test_every_policy_stack_is_in_the_table():
    assert sorted(p.name for p in POLICY_STACKS.glob("Pulumi.*.yaml")) == sorted(EXPECTED)


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_committed_stack_has_no_mandatory_violation(stack, tmp_path):
    result = invoke("--stack", stack, "--format", "json", "--out", str(tmp_path))
    document = json.loads(result.stdout)
    assert [v for v in document["violations"] if v["level"] == "mandatory"] == []
    assert result.exit_code == 0, result.output
    assert document["policyConfig"].endswith(f"policies/config/{stack}.json")
    assert json.loads((tmp_path / "policy.json").read_text()) == document


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_policy_stack_is_caught_by_exactly_its_rule(name, tmp_path):
    config, rule, level = EXPECTED[name]
    args = ["--config", str(POLICY_STACKS / name), "--format", "json", "--out", str(tmp_path)]
    if config:
        args += ["--policy-config", str(config)]
    result = invoke(*args)
    violations = json.loads(result.stdout)["violations"]
    assert {(v["policy"], v["level"]) for v in violations} == {(rule, level)}
    assert result.exit_code == (1 if level == "mandatory" else 0)
    for violation in violations:
        assert violation["message"].count("\n") == 1  # description, then the rule's message
        assert violation["urn"] is None or violation["urn"].startswith(
            f"urn:pulumi:{name[len('Pulumi.') : -len('.yaml')]}::"
        )


def test_text_output_groups_by_policy_with_level_urn_and_message(tmp_path):
    result = invoke(
        "--config",
        str(POLICY_STACKS / "Pulumi.production-unprotected.yaml"),
        "--policy-config",
        str(PROD_CONFIG),
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 1
    lines = result.stdout.splitlines()
    assert "protected-in-production (mandatory): 2 violation(s)" in lines
    assert any(
        line.startswith("  [mandatory] urn:pulumi:production-unprotected::dra-gpu-platform::")
        and line.endswith("aws:eks/cluster:Cluster::gpu-policy-eks-eks")
        for line in lines
    )
    assert (
        "      GPU node pool h100 is not protected in a production stack: one mistaken `pulumi destroy` or a "
        "replacement deletes it, and with it every running GPU job (GPU capacity is often not available again)."
        in lines
    )
    # the summary, then where the report went
    assert lines[-2:] == ["2 mandatory and 0 advisory violation(s)", f"Wrote {tmp_path / 'policy.json'}"]


def test_policy_config_override_changes_the_level(tmp_path):
    override = tmp_path / "advisory.json"
    override.write_text(json.dumps({"all": "advisory"}))
    result = invoke(
        "--config",
        str(POLICY_STACKS / "Pulumi.claims-without-quota.yaml"),
        "--policy-config",
        str(override),
        "--format",
        "json",
        "--out",
        str(tmp_path),
    )
    assert result.exit_code == 0
    assert {v["level"] for v in json.loads(result.stdout)["violations"]} == {"advisory"}


def test_invalid_policy_config_exits_2_with_path_value_rule_and_fix(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"gpu-budget": {"maxGpus": -1}, "imds-v2-requird": "mandatory"}))
    result = invoke("--stack", "dev", "--policy-config", str(bad), "--format", "json", "--out", str(tmp_path))
    assert result.exit_code == 2
    errors = json.loads(result.stdout)["errors"]
    assert [(e["path"], e["value"]) for e in errors] == [("gpu-budget.maxGpus", -1), ("imds-v2-requird", "mandatory")]
    assert errors[0]["rule"] == "-1 is less than the minimum of 0" and errors[0]["file"] == str(bad)
    assert errors[1]["fix"] == "did you mean 'imds-v2-required'?"


def test_invalid_json_and_invalid_stack_file_exit_2_without_traceback(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    result = invoke("--stack", "dev", "--policy-config", str(broken), "--out", str(tmp_path))
    assert result.exit_code == 2 and "not valid JSON (line 1, column 2)" in result.stderr
    stack = tmp_path / "Pulumi.bad.yaml"
    stack.write_text(
        "config:\n  dra-gpu-platform:cluster: {platform: kind, name: Bad_Name, kubernetesVersion: '1.35'}\n"
    )
    result = invoke("--config", str(stack), "--format", "json", "--out", str(tmp_path))
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert [e["path"] for e in json.loads(result.stdout)["errors"]] == ["cluster.name"]


def test_committed_policy_configs_exist_for_every_committed_stack():
    assert {p.stem for p in (ROOT / "policies" / "config").glob("*.json")} >= set(REFERENCE_STACKS)
    assert Path(PROD_CONFIG).exists()
