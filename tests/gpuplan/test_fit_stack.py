"""`gpuplan fit` reads the stack's DRA objects from the plans instead of running the Pulumi program
(gpuplan/fit/stack.py); for every committed stack they equal what the program records."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine.outputs import is_kubernetes_object, manifest
from gpuplan.fit.stack import stack_documents
from tests.conftest import REFERENCE_STACKS, ROOT, run_file

KINDS = (
    "DeviceClass",
    "ResourceClaimTemplate",
    "ResourceClaim",
    "ResourceQuota",
    "Namespace",
    "DeviceTaintRule",
    "NetworkPolicy",
)


def _key(document):
    metadata = document.get("metadata") or {}
    return document["kind"], metadata.get("namespace"), metadata.get("name")


def _comparable(document):
    """What fit reads: kind, identity, spec; for namespaces the labels (the program adds its own on top)."""
    metadata = document.get("metadata") or {}
    body = {k: v for k, v in document.items() if k not in ("metadata", "apiVersion")}
    return {
        "apiVersion": document["apiVersion"],
        **body,
        "labels": metadata.get("labels") if document["kind"] == "Namespace" else None,
    }


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_stack_objects_from_the_plans_equal_the_program_run(stack):
    path = ROOT / "stacks" / f"Pulumi.{stack}.yaml"
    recorded = {
        _key(d): d
        for d in (manifest(r) for r in run_file(path).resources if is_kubernetes_object(r))
        if d["kind"] in KINDS
    }
    config = load_stack_file(path)
    planned = {_key(d): d for d in stack_documents(plan_stack(config))}
    # The program also creates the software's own namespaces; fit reads the tenants' (their labels).
    tenants = {ns.name for ns in config.namespaces}
    recorded = {k: d for k, d in recorded.items() if k[0] != "Namespace" or k[2] in tenants}
    # ... and the monitoring namespace's NetworkPolicies, which are the monitoring plan's
    recorded = {k: d for k, d in recorded.items() if k[0] != "NetworkPolicy" or k[1] in tenants}
    assert set(planned) == set(recorded)
    for key, document in planned.items():
        expected = _comparable(recorded[key])
        got = _comparable(document)
        if key[0] == "Namespace":
            assert got["labels"].items() <= expected["labels"].items(), key
            got["labels"] = expected["labels"]
        assert got == expected, key
