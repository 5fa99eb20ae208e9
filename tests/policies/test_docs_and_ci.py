"""docs/policies.md and the sample CI workflow stay true to the pack and its configs."""

from __future__ import annotations

import json
import re

import yaml
from pulumi_policy import StackValidationPolicy

from dra_gpu_platform.policies.pack import POLICIES
from tests.conftest import REFERENCE_STACKS, ROOT

DOC = (ROOT / "docs" / "policies.md").read_text(encoding="utf-8")
CONFIGS = {p.stem: json.loads(p.read_text()) for p in (ROOT / "policies" / "config").glob("*.json")}


def _level(entry) -> str:
    return entry if isinstance(entry, str) else entry["enforcementLevel"]


def test_level_table_matches_the_pack_and_the_committed_configs():
    rows = re.findall(r"^\| `([a-z0-9-]+)` \| (\w+) \| (\w+) \| (\w+) \| (\w+) \| (\w+) \|$", DOC, re.MULTILINE)
    assert [r[0] for r in rows] == [p.name for p in POLICIES]
    for (name, kind, severity, dev, staging, prod), policy in zip(rows, POLICIES, strict=False):
        assert kind == ("stack" if isinstance(policy, StackValidationPolicy) else "resource")
        assert severity == policy.severity.value
        assert (dev, staging, prod) == tuple(_level(CONFIGS[env][name]) for env in ("dev", "staging", "prod"))


def test_every_rule_has_a_section_with_checks_why_and_fix():
    rules = DOC[DOC.index("## The rules\n") : DOC.index("\n## ", DOC.index("## The rules\n") + 1)]
    sections = re.split(r"^### ", rules, flags=re.MULTILINE)[1:]
    assert [re.match(r"`([a-z0-9-]+)`", s)[1] for s in sections] == [p.name for p in POLICIES]
    for section in sections:
        assert "- **Checks**:" in section and "- **Why**:" in section and "- **Fix**:" in section


def test_documented_budgets_match_the_configs():
    budgets = {env: CONFIGS[env]["gpu-budget"]["maxGpus"] for env in ("dev", "staging", "prod")}
    assert f"{budgets['dev']} (dev), {budgets['staging']} (staging) and {budgets['prod']} (prod)" in DOC


def test_ci_workflow_runs_tests_gpuplan_policy_per_stack_and_preview_with_the_pack():
    workflow = yaml.safe_load((ROOT / ".github" / "workflows" / "ci.yml").read_text())
    jobs = workflow["jobs"]
    assert any(step.get("run", "").startswith("make test") for step in jobs["test"]["steps"])
    assert set(jobs["policy"]["strategy"]["matrix"]["stack"]) >= set(REFERENCE_STACKS)
    assert any("gpuplan policy --stack ${{ matrix.stack }}" in step.get("run", "") for step in jobs["policy"]["steps"])
    [preview] = [s for s in jobs["preview"]["steps"] if s.get("uses", "").startswith("pulumi/actions@")]
    assert preview["with"]["command"] == "preview"
    assert preview["with"]["policyPacks"].strip().splitlines() == ["policies"]
    assert preview["with"]["policyPackConfigs"].strip().splitlines() == ["policies/config/${{ matrix.stack }}.json"]
    assert set(jobs["preview"]["strategy"]["matrix"]["stack"]) >= set(REFERENCE_STACKS)
