"""`gpuplan diff` refuses Kubernetes version steps a managed control plane cannot take (the rule:
dra_gpu_platform/facts/kubernetes.py version_step, tests/facts/test_version_steps.py), on the cluster's change
(gpuplan/diff/safety.py); only EKS's one-minor rollback can be accepted with --allow-replace."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from gpuplan.diff.report import allow, diff_runs
from gpuplan.engine.runtime import ProgramRun, Registration
from tests.conftest import load_committed, qualify

CLUSTER = {
    "eks": ("aws:eks/cluster:Cluster", "version"),
    "aks": ("azure-native:containerservice:ManagedCluster", "kubernetesVersion"),
}


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
