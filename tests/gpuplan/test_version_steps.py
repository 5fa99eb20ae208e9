"""`gpuplan diff` refuses Kubernetes version steps a managed control plane cannot take (gpuplan/diff/compare.py
version_step): EKS and AKS upgrade one minor at a time; AKS never downgrades; EKS rolls back exactly one minor,
only within 7 days of an in-place upgrade (which gpuplan cannot see, so --allow-replace may accept that one)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from gpuplan.diff.compare import allow, diff_runs, version_step
from gpuplan.engine.runtime import ProgramRun, Registration
from tests.conftest import load_committed, qualify

CLUSTER = {
    "eks": ("aws:eks/cluster:Cluster", "version"),
    "aks": ("azure-native:containerservice:ManagedCluster", "kubernetesVersion"),
}


@pytest.mark.parametrize(
    "platform, old, new, refused, allowable",
    [
        ("eks", 34, 35, False, None),
        ("aks", 34, 35, False, None),
        ("eks", 35, 35, False, None),
        ("eks", 33, 35, True, False),
        ("aks", 32, 35, True, False),  # skips
        ("eks", 35, 34, True, True),  # EKS version rollback, if within 7 days
        ("eks", 35, 33, True, False),
        ("aks", 35, 34, True, False),  # no such rollback / no AKS downgrade
        ("kind", 35, 34, False, None),
        ("existing", 33, 35, False, None),  # not a managed control plane
    ],
)
def test_version_steps(platform, old, new, refused, allowable):
    step = version_step(platform, old, new)
    assert (step is not None) == refused
    if step is not None:
        why, how, can_allow = step
        assert can_allow is allowable and f"1.{old} → 1.{new}" in why and "https://" in why and how
        if new > old:
            assert "one minor at a time" in why and " → ".join(f"1.{m}" for m in range(old, new + 1)) in how


def _run(stack: str, version: str) -> ProgramRun:
    config = load_committed(stack)
    config["cluster"]["kubernetesVersion"] = version
    parsed = parse_config_map(qualify(config), stack=stack, source=f"Pulumi.{stack}.yaml")
    type_, key = CLUSTER[parsed.platform]
    cluster = Registration(
        urn=f"urn:pulumi:{stack}::dra-gpu-platform::{type_}::cluster",
        type=type_,
        name="cluster",
        custom=True,
        parent="",
        provider="",
        dependencies=[],
        protect=False,
        inputs={key: version},
    )
    return ProgramRun(stack, "dra-gpu-platform", parsed, stack, [cluster], {}, [])


@pytest.mark.parametrize("stack, allowable", [("prod", True), ("staging", False)])
def test_a_downgrade_refuses_the_cluster_update(stack, allowable):
    report = diff_runs(_run(stack, "1.36"), _run(stack, "1.35"))  # minors both EKS and AKS offer
    [change] = report.refused
    assert change.op == "update" and change.allowable is allowable and "downgrade" in change.why
    assert change.as_json()["allowable"] is allowable
    assert allow(report, [change.urn]) == []  # the URN names the change either way
    assert bool(report.refused) is not allowable  # only EKS's rollback can be accepted on purpose


def test_an_upgrade_of_one_minor_is_an_ordinary_update():
    report = diff_runs(_run("prod", "1.34"), _run("prod", "1.35"))
    assert report.refused == [] and [c.op for c in report.changes] == ["update"]
