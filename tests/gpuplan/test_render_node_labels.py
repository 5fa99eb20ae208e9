"""Placement sees every label a node carries once it has joined: the platform's pool labels (the EFA marker on
EKS EFA pools) and the cloud's instance-type label, so a chart that selects on them (the EFA device plugin) lands."""

from __future__ import annotations

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import efa as efa_facts
from dra_gpu_platform.facts.node_labels import EFA_LABEL
from dra_gpu_platform.plans.cluster_nodes import pool_nodes
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.render.placement import daemonset_facts
from gpuplan.render.stack import INSTANCE_TYPE_LABEL, efa_findings, node_labels, place_pools, pool_facts
from tests.conftest import ROOT, write_stack

# The placement the EFA device plugin chart asks for (nodeSelector on our EFA marker, required affinity on the
# instance type, the GPU taint tolerated), written here for the test.
EFA_DAEMONSET = {
    "kind": "DaemonSet",
    "metadata": {"name": "efa-probe"},
    "spec": {
        "template": {
            "spec": {
                "nodeSelector": {EFA_LABEL: "true"},
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {
                                    "matchExpressions": [
                                        {"key": INSTANCE_TYPE_LABEL, "operator": "In", "values": ["p5.48xlarge"]}
                                    ]
                                }
                            ]
                        }
                    }
                },
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
            }
        }
    },
}


def _prod():
    return plan_stack(load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml"))


def test_eks_nodes_carry_the_instance_type_and_the_efa_marker_where_efa_is_attached():
    plan = _prod()
    labels = {pool.name: node_labels(pool) for pool in plan.pools}
    assert labels["h100-train"][INSTANCE_TYPE_LABEL] == "p5.48xlarge" and labels["h100-train"][EFA_LABEL] == "true"
    assert EFA_LABEL not in labels["t4-legacy"]
    assert pool_facts(plan.pool("h100-train")).labels == labels["h100-train"]


def test_a_daemonset_selecting_efa_pools_lands_only_on_them():
    placements = {p.pool.name: p for p in place_pools(_prod().pools, {"efa": [EFA_DAEMONSET]})}
    landed = {name: [d.name for d in p.landed] for name, p in placements.items()}
    assert landed["h100-train"] == ["efa-probe"]
    assert landed["h100-infer"] == [] and landed["t4-legacy"] == []
    assert daemonset_facts("efa", EFA_DAEMONSET, "other").node_selector == {EFA_LABEL: "true"}


def test_an_efa_pool_the_efa_plugin_does_not_reach_is_a_finding():
    pools = _prod().pools
    reached = place_pools(pools, {efa_facts.RELEASE: [EFA_DAEMONSET]})
    assert efa_findings(reached) == []
    unreached = place_pools(pools, {"other": [EFA_DAEMONSET]})
    [finding] = efa_findings(unreached)
    assert finding.startswith("pool h100-train: its EFA interfaces stay unusable")


def test_grace_nodes_carry_arm64_in_placement_and_in_fit(tmp_path):
    """p6e-gb200 and ND GB200 v6 have Grace (arm64) CPUs: the kubelet labels their nodes kubernetes.io/arch=arm64,
    so a chart that selects an architecture lands (or not) there as on the cluster; placement and fit agree."""
    config = {
        "azure-native:location": "eastus",
        "cluster": {"platform": "aks", "name": "nvl", "kubernetesVersion": "1.35", "aks": {"privateCluster": True}},
        "nodePools": [
            {"name": "gb200", "gpu": "GB200", "minNodes": 1, "maxNodes": 2},
            {"name": "a10", "gpu": "A10", "minNodes": 1, "maxNodes": 2},
        ],
    }
    plan = plan_stack(load_stack_file(write_stack(tmp_path, config, "nvl")))
    arch = {pool.name: node_labels(pool)["kubernetes.io/arch"] for pool in plan.pools}
    assert arch == {"gb200": "arm64", "a10": "amd64"}
    fit_arch = {pool.name: {n.labels["kubernetes.io/arch"] for n in pool_nodes(pool, "single")} for pool in plan.pools}
    assert fit_arch == {"gb200": {"arm64"}, "a10": {"amd64"}}
