"""The seed stacks (tests/seed_stacks: an EKS 1.36 stack with template tolerations and legacy namespaces served by the
extended-resource bridge, an AKS 1.36 stack migrating with the bridge and no device-plugin pool, dynamic MIG on EKS
1.36, a kind 1.37 stack) get what every stack in stacks/ gets: every manifest strict-valid for the stack's minor and
the minors it can move to, the policy pack passing, and fit's view of the stack's objects equal to what the program
creates. Their fit results are in tests/gpuplan/test_fit_seeds.py."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.checks.kube_validate import versions_for
from gpuplan.engine.outputs import is_kubernetes_object, manifest
from gpuplan.engine.sources import StackFileSource
from gpuplan.fit.stack import stack_documents
from gpuplan.policy.runner import run_policies
from gpuplan.preview.stack import render_preview
from tests.conftest import ROOT, run_file

SEEDS = ROOT / "tests" / "seed_stacks"
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in SEEDS.glob("Pulumi.*.yaml"))
DRA_KINDS = ("DeviceClass", "ResourceClaimTemplate", "ResourceClaim", "ResourceQuota", "DeviceTaintRule")


def _source(stack: str) -> StackFileSource:
    return StackFileSource(stack, SEEDS / f"Pulumi.{stack}.yaml")


def test_the_seed_stacks_are_the_four_of_the_issue():
    assert STACKS == ["aks-136-migrating", "eks-136-bridge", "eks-136-dynamic-mig", "kind-137"]


@pytest.mark.parametrize("stack", STACKS)
def test_every_manifest_is_strict_valid_for_the_seed_stacks_minor(stack, tmp_path):
    preview = render_preview(_source(stack), tmp_path)
    config = load_stack_file(SEEDS / f"Pulumi.{stack}.yaml")
    minor = config.cluster.kubernetes_version
    assert preview.checked == versions_for(minor, config.platform) and f"{minor}.0" in preview.checked
    assert [error.render() for error in preview.errors] == []


@pytest.mark.parametrize("stack", STACKS)
def test_the_policy_pack_passes_on_the_seed_stack(stack):
    report = run_policies(_source(stack), None)
    assert [f"{v.policy}: {v.urn}: {v.message}" for v in report.mandatory] == []
    assert [v.policy for v in report.violations] == []


@pytest.mark.parametrize("stack", ["eks-136-bridge", "kind-137"])  # tolerations, shared claims, v1 DeviceTaintRules
def test_fit_reads_the_objects_the_program_creates(stack):
    path = SEEDS / f"Pulumi.{stack}.yaml"
    recorded = {}
    for document in (manifest(r) for r in run_file(path).resources if is_kubernetes_object(r)):
        if document["kind"] in DRA_KINDS:
            metadata = document["metadata"]
            recorded[(document["kind"], metadata.get("namespace"), metadata["name"])] = document
    planned = {
        (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
        for d in stack_documents(plan_stack(load_stack_file(path)))
        if d["kind"] in DRA_KINDS
    }
    assert set(planned) == set(recorded)
    assert {k[0] for k in planned} >= {"ResourceClaim", "ResourceClaimTemplate"}
    for key, document in planned.items():
        assert document["apiVersion"] == recorded[key]["apiVersion"], key
        assert document["spec"] == recorded[key]["spec"], key
