"""The pack as a whole: names, metadata, config schemas and files, the import boundary, and that the pack
starts the way the Pulumi CLI starts it."""

from __future__ import annotations

import ast
import json
import select
import subprocess
import sys
import time
import tomllib

import jsonschema
import pytest
import yaml
from pulumi_policy import EnforcementLevel

from dra_gpu_platform.policies.pack import POLICIES
from gpuplan.policy.runner import PACK_VERSION, reconcile
from tests.conftest import REFERENCE_STACKS, ROOT

POLICY_DIR = ROOT / "policies"
NAMES = [
    "gpu-node-pool-tainted",
    "gpu-node-pool-nvidia-ami",
    "protected-in-production",
    "cluster-endpoint-private",
    "imds-v2-required",
    "deviceclass-selector-valid",
    "claim-template-class-exists",
    "dra-quota-keys-valid",
    "gpu-namespace-has-quota",
    "dra-only-namespace-guarded",
    "device-plugin-retirement-safe",
    "dra-driver-not-beside-device-plugin",
    "helm-release-pinned",
    "gpu-budget",
    "gpu-always-on-cost",
    "gpu-nodepool-limits",
    "gpu-nodepool-consolidation",
    "claims-satisfiable",
    "tenant-namespace-not-reserved",
    "tenant-namespace-pod-security",
    "tenant-quota-closed",
    "tenant-guard-holds",
    "gpu-toolkit-hardened",
    "aks-gpu-toolkit-default",
    "tenant-controls-guarded",
    "tenant-services-guarded",
    "tenant-network-isolated",
    "cluster-admin-scoped",
    "control-plane-audit-logs",
    "pod-identity-trust-scoped",
    "autoscaler-iam-scoped",
    "monitoring-secrets-namespaced",
    "helm-images-by-digest",
]


def test_the_pack_has_exactly_the_specified_rules():
    assert [p.name for p in POLICIES] == NAMES


@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: p.name)
def test_every_rule_carries_its_metadata(policy):
    assert policy.description.endswith(".") and len(policy.description) > 40
    assert policy.severity is not None and policy.remediation_steps and len(policy.remediation_steps) > 60
    advisory = ("gpu-budget", "gpu-always-on-cost", "gpu-nodepool-consolidation", "aks-gpu-toolkit-default")
    expected = EnforcementLevel.ADVISORY if policy.name in advisory else EnforcementLevel.MANDATORY
    assert policy.enforcement_level == expected


@pytest.mark.parametrize("policy", [p for p in POLICIES if p.config_schema], ids=lambda p: p.name)
def test_config_schemas_are_json_schema_and_their_defaults_validate(policy):
    schema = {"type": "object", "properties": policy.config_schema.properties}
    jsonschema.Draft7Validator.check_schema(schema)
    defaults = {k: v["default"] for k, v in policy.config_schema.properties.items()}
    assert set(defaults) == set(policy.config_schema.properties)  # every setting has a default
    jsonschema.validate(defaults, schema)
    json.dumps(defaults)  # defaults must survive the trip through the CLI as JSON


@pytest.mark.parametrize("path", sorted((POLICY_DIR / "config").glob("*.json")), ids=lambda p: p.name)
def test_committed_policy_configs_are_valid_and_name_every_policy(path):
    document = json.loads(path.read_text())
    assert set(document) == set(NAMES)  # explicit per environment: no silent defaults
    reconcile(document, str(path))


def test_production_marker_only_in_prod():
    production = {
        p.stem: json.loads(p.read_text())["protected-in-production"]["production"]
        for p in (POLICY_DIR / "config").glob("*.json")
    }
    assert production == {"dev": False, "staging": False, "prod": True}
    assert set(REFERENCE_STACKS) <= set(production)


def test_main_holds_only_the_policy_pack():
    tree = ast.parse((POLICY_DIR / "__main__.py").read_text())
    assert not [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.Lambda))]
    calls = [
        n.value.func.id
        for n in tree.body
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Call) and isinstance(n.value.func, ast.Name)
    ]
    assert calls == ["PolicyPack"]


def test_pack_project_file_and_requirements():
    """The CLI installs requirements.txt into the pack's venv: this repository with its `policy` extra, whose
    pins are uv.lock's (the rules are the installed package's, never a copy)."""
    project = yaml.safe_load((POLICY_DIR / "PulumiPolicy.yaml").read_text())
    assert project["runtime"]["name"] == "python" and project["version"] == PACK_VERSION
    requirements = [
        line for line in (POLICY_DIR / "requirements.txt").read_text().splitlines() if line and not line.startswith("#")
    ]
    assert requirements == ["-e ..[policy]"]
    assert (POLICY_DIR / ".." / "pyproject.toml").resolve() == ROOT / "pyproject.toml"
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert any(r.startswith("pulumi-policy") for r in extras["policy"])


def test_pack_starts_like_the_pulumi_cli_starts_it():
    """`pulumi-analyzer-policy-python` runs `python -u -m pulumi.policy <engine> <pack dir>`: the pack must
    import from there and start its gRPC server (it prints the port, then serves until stopped)."""
    process = subprocess.Popen(
        [sys.executable, "-u", "-m", "pulumi.policy", "127.0.0.1:0", str(POLICY_DIR)],
        cwd=POLICY_DIR,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        line = ""
        while not line and time.monotonic() < deadline and process.poll() is None:
            ready, _, _ = select.select([process.stdout], [], [], 1)
            if ready:
                line = process.stdout.readline().strip()
        assert line.isdigit(), f"no port printed; stderr: {process.stderr.read() if process.poll() is not None else ''}"
    finally:
        process.kill()
        process.wait()
