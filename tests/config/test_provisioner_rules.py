"""`autoscaler.provisioner` and `nodePools[].instanceTypes`: every combination whose pending GPU pods would never get a
node is exit 2 at the path that causes it, with the fix; what works is accepted, scale-from-zero where it works
(dra_gpu_platform/config/rules/provisioners.py, dra_gpu_platform/facts/provisioners.py)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import eks_amis, karpenter
from dra_gpu_platform.inputs.problems import ConfigError
from dra_gpu_platform.plans.tenancy_notes import host_toolkit_notes

EKS: dict[str, Any] = {
    "region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "gpu-test",
        "kubernetesVersion": "1.36",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "autoscaler": {"provisioner": "karpenter", "version": "1.15.0"},
    "nodePools": [
        {"name": "a10g", "gpu": "A10G", "instanceTypes": ["g5.12xlarge", "g5.24xlarge"], "maxNodes": 6},
        {"name": "t4", "gpu": "T4", "gpuStack": "device-plugin", "maxNodes": 3},
    ],
}
AKS: dict[str, Any] = {
    "region": "eastus",
    "cluster": {
        "platform": "aks",
        "name": "gpu-test",
        "kubernetesVersion": "1.36",
        "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
    },
    "autoscaler": {"provisioner": "node-auto-provisioning"},
    "nodePools": [{"name": "t4", "gpu": "T4", "gpuStack": "device-plugin", "maxNodes": 3}],
}


def stack(base: dict[str, Any], **sections: Any) -> dict[str, Any]:
    config = copy.deepcopy(base)
    config.update(sections)
    return config


def problems(config: dict[str, Any]) -> dict[str, tuple[Any, str, str]]:
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(config)
    return {p.path: (p.value, p.rule, p.fix) for p in caught.value.problems}


def pools(*changes: dict[str, Any], base: dict[str, Any] = EKS) -> list[dict[str, Any]]:
    found = copy.deepcopy(base["nodePools"])
    for i, change in enumerate(changes):
        found[i].update(change)
    return found


def test_karpenter_with_a_dra_pool_from_zero_and_a_device_plugin_pool_is_a_valid_stack():
    config = StackConfig.model_validate(EKS)
    assert [(p.name, p.min_nodes) for p in config.node_pools] == [("a10g", 0), ("t4", 0)]
    # under Karpenter a device-plugin pool boots Bottlerocket NVIDIA, whose device plugin advertises nvidia.com/gpu
    assert config.pool("t4").ami_type == eks_amis.BOTTLEROCKET_NVIDIA  # type: ignore[union-attr]
    assert config.pool("a10g").ami_type is None  # type: ignore[union-attr]


def test_a_dra_pool_under_karpenter_1_14_is_refused_with_the_release_that_serves_it():
    found = problems(stack(EKS, autoscaler={"provisioner": "karpenter", "version": "1.14.1"}))
    value, rule, fix = found["nodePools[0].gpuStack"]
    assert value == "dra" and "never launches a node for a pod with claims" in rule
    assert f"autoscaler.version: {karpenter.DRA_VERSION}" in fix
    # the default release is 1.14.1: the same refusal without a version
    assert "nodePools[0].gpuStack" in problems(stack(EKS, autoscaler={"provisioner": "karpenter"}))


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        ({"minNodes": 1}, "nodePools[0].minNodes", "keeps no minimum"),
        ({"desiredNodes": 1}, "nodePools[0].desiredNodes", "no desired size"),
        ({"instanceType": "g5.12xlarge"}, "nodePools[0].instanceType", "name the same thing"),
        ({"instanceTypes": ["g5.12xlarge", "g5.48xlarge"]}, "nodePools[0].instanceTypes", "same GPUs per node"),
        ({"instanceTypes": ["g5.12xlarge", "g6.12xlarge"]}, "nodePools[0].instanceTypes[1]", "carries L4"),
        ({"instanceTypes": ["g5.12xlarge", "g5.12xlarge"]}, "nodePools[0].instanceTypes[1]", "listed twice"),
        ({"instanceTypes": ["g9.12xlarge"]}, "nodePools[0].instanceTypes[0]", "not a EKS GPU instance type"),
    ],
)
def test_karpenter_pool_mistakes_are_refused_at_their_path(change, path, words):
    found = problems(stack(EKS, nodePools=pools(change)))
    assert words in found[path][1], found


def test_a_karpenter_dra_pool_needs_types_with_nvidia_dra_metadata_and_whole_gpus():
    gb200 = {
        "name": "gb200",
        "gpu": "GB200",
        "maxNodes": 18,
        "capacity": "capacity-block",
        "capacityReservationId": "cr-0eb200000000000b2",
        "availabilityZone": "us-east-1b",
    }
    found = problems(stack(EKS, nodePools=[*EKS["nodePools"], gb200]))
    value, rule, _ = found["nodePools[2].instanceType"]
    assert value == "p6e-gb200.36xlarge" and "no NVIDIA DRA metadata" in rule
    h100 = {"name": "h100", "gpu": "H100", "instanceType": "p5.4xlarge", "maxNodes": 2, "mig": {"profile": "3g.40gb"}}
    found = problems(stack(EKS, nodePools=[*EKS["nodePools"], h100]))
    assert "whole GPUs" in found["nodePools[2].mig"][1]
    found = problems(stack(EKS, draDriver={"computeDomains": True}))
    assert "compute-domain driver" in found["draDriver.computeDomains"][1]


def test_the_extended_resource_bridge_is_off_under_karpenter_and_refused_when_asked_for():
    config = StackConfig.model_validate(EKS)
    assert not config.extended_resource_bridge_on  # on by default at 1.36 under the cluster autoscaler
    found = problems(stack(EKS, draDriver={"extendedResourceBridge": True}))
    assert "never advertises" in found["draDriver.extendedResourceBridge"][1]


def test_capacity_block_windows_are_karpenters_own():
    block = {
        "name": "h100",
        "gpu": "H100",
        "maxNodes": 2,
        "capacity": "capacity-block",
        "capacityReservationId": "cr-0123456789abcdef0",
        "availabilityZone": "us-east-1a",
        "capacityBlockStart": "2026-10-01T11:30:00Z",
        "capacityBlockEnd": "2026-10-08T11:30:00Z",
    }
    found = problems(stack(EKS, nodePools=[*EKS["nodePools"], block]))
    assert {"nodePools[2].capacityBlockStart", "nodePools[2].capacityBlockEnd"} <= set(found)


def test_unknown_karpenter_release_lists_the_known_ones():
    value, rule, fix = problems(stack(EKS, autoscaler={"provisioner": "karpenter", "version": "1.13.0"}))[
        "autoscaler.version"
    ]
    assert value == "1.13.0" and "1.14.1, 1.15.0" in rule and karpenter.DRA_VERSION in fix


def test_auto_mode_refuses_dra_pools_and_what_auto_mode_nodes_run_themselves():
    config = stack(EKS, autoscaler={"provisioner": "auto-mode"}, gpuOperator={"enabled": True})
    config["draDriver"] = {"enabled": True}
    found = problems(config)
    value, rule, fix = found["nodePools[0].gpuStack"]
    assert value == "dra" and "DeviceClasses" in rule and "not in any readable source" in rule
    assert "gpuStack: device-plugin" in fix and f"autoscaler.version: {karpenter.DRA_VERSION}" in fix
    assert {"gpuOperator.enabled", "draDriver.enabled"} <= set(found)
    plugin_only = stack(EKS, autoscaler={"provisioner": "auto-mode"}, nodePools=pools({"gpuStack": "device-plugin"}))
    accepted = StackConfig.model_validate(plugin_only)
    assert not accepted.gpu_operator_enabled  # Auto Mode runs the driver and device plugin itself
    block = {
        "capacity": "capacity-block",
        "capacityReservationId": "cr-0123456789abcdef0",
        "availabilityZone": "us-east-1a",
    }
    found = problems(stack(plugin_only, nodePools=pools({"gpuStack": "device-plugin", **block})))
    assert "Capacity Block" in found["nodePools[0].capacity"][1]


def test_auto_mode_refuses_dra_before_1_36_because_it_runs_no_dra_driver():
    config = stack(EKS, autoscaler={"provisioner": "auto-mode"})
    config["cluster"] = {**EKS["cluster"], "kubernetesVersion": "1.35"}
    assert "only from Kubernetes 1.36" in problems(config)["nodePools[0].gpuStack"][1]


def test_node_auto_provisioning_serves_device_plugin_pools_and_refuses_dra_and_mig():
    assert StackConfig.model_validate(AKS).node_pool_provisioner
    found = problems(stack(AKS, nodePools=pools({"gpuStack": "dra", "mig": {"profile": "x"}}, base=AKS)))
    assert "ignores DRA requests" in found["nodePools[0].gpuStack"][1]
    a100 = [
        {"name": "a100", "gpu": "A100-80GB", "gpuStack": "device-plugin", "maxNodes": 2, "mig": {"profile": "3g.40gb"}}
    ]
    assert "no MIG setting" in problems(stack(AKS, nodePools=a100))["nodePools[0].mig"][1]
    assert "autoscaler.version" in problems(
        stack(AKS, autoscaler={"provisioner": "node-auto-provisioning", "version": "1.2.3"})
    )


@pytest.mark.parametrize(
    ("base", "provisioner", "fix"),
    [(EKS, "node-auto-provisioning", "karpenter, auto-mode"), (AKS, "karpenter", "node-auto-provisioning")],
)
def test_a_provisioner_of_the_other_cloud_is_refused(base, provisioner, fix):
    value, rule, found_fix = problems(stack(base, autoscaler={"provisioner": provisioner}))["autoscaler.provisioner"]
    assert value == provisioner and "runs on" in rule and fix in found_fix


def test_a_provisioner_with_the_autoscaler_off_gets_no_node():
    found = problems(stack(EKS, autoscaler={"provisioner": "karpenter", "version": "1.15.0", "enabled": False}))
    assert "no pending pod would ever get one" in found["autoscaler.enabled"][1]


def test_instance_types_belong_to_nodepool_provisioners():
    found = problems(stack(EKS, autoscaler={}, nodePools=pools({"minNodes": 1})))
    value, rule, fix = found["nodePools[0].instanceTypes"]
    assert "one instanceType" in rule
    assert value == ["g5.12xlarge", "g5.24xlarge"] and "instanceType: g5.12xlarge" in fix


def test_the_cluster_autoscalers_dra_rule_stays_for_the_cluster_autoscaler_only():
    ca = stack(EKS, autoscaler={}, nodePools=[{"name": "a10g", "gpu": "A10G", "maxNodes": 2, "minNodes": 0}])
    assert "cannot see DRA devices" in problems(ca)["nodePools[0].minNodes"][1]
    # without minNodes the cluster autoscaler's dra pool keeps one node; Karpenter's starts at zero
    ca["nodePools"][0].pop("minNodes")
    assert StackConfig.model_validate(ca).node_pools[0].min_nodes == 1


def test_auto_mode_tenants_get_a_note_that_the_node_toolkit_is_awss():
    """Auto Mode's AMIs take no user data: the preview says the node layer of GPU isolation is not the stack's."""
    tenant = {"name": "ml", "migration": "legacy", "quota": {"legacyGpus": 2}}
    plugin_only = stack(EKS, autoscaler={"provisioner": "auto-mode"}, nodePools=pools({"gpuStack": "device-plugin"}))
    [note] = host_toolkit_notes(StackConfig.model_validate(stack(plugin_only, namespaces=[tenant])))
    assert note.startswith("EKS Auto Mode GPU nodes run AWS's immutable AMIs") and "provisioner karpenter" in note
    karpenter_tenants = stack(EKS, namespaces=[tenant])
    assert host_toolkit_notes(StackConfig.model_validate(karpenter_tenants)) == ()  # Karpenter's nodes: ours
    assert host_toolkit_notes(StackConfig.model_validate(plugin_only)) == ()  # no tenants: nothing to isolate
