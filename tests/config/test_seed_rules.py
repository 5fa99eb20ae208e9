"""The seeds' DRA features are accepted where the stack's Kubernetes minor (or kind, which sets the gates) has them on,
and refused elsewhere with the field path and the fix: device tolerations, DeviceTaintRules, dynamic MIG, shared
claims, the extended-resource bridge. Bases are the seed stacks (tests/seed_stacks)."""

from __future__ import annotations

import copy

import pytest
import yaml

from dra_gpu_platform.config.models import PROJECT
from dra_gpu_platform.inputs.problems import InputError
from tests.config.test_loading import mutate, parse, problems
from tests.conftest import KIND_BASE, ROOT

SEEDS = ROOT / "tests" / "seed_stacks"


def seed(name: str) -> dict:
    """A seed stack's config, keys without the project prefix (as the helpers of test_loading take them)."""
    config = yaml.safe_load((SEEDS / f"Pulumi.{name}.yaml").read_text(encoding="utf-8"))["config"]
    return {k.removeprefix(f"{PROJECT}:"): v for k, v in config.items() if k != "pulumi:disable-default-providers"}


EKS_136 = seed("eks-136-bridge")
DYNAMIC_MIG = seed("eks-136-dynamic-mig")
KIND_137 = seed("kind-137")
TOLERATION = {"key": "gpu.nvidia.com/xid", "operator": "Exists", "effect": "NoSchedule"}


def at(config: dict, version: str) -> dict:
    return mutate(config, "cluster.kubernetesVersion", version)


# --- device tolerations ---------------------------------------------------------------------------------------


def test_tolerations_need_dra_device_taints_which_eks_has_from_1_36():
    assert parse(EKS_136).namespaces[0].claim_templates[0].tolerations[0].key == "gpu.nvidia.com/xid"
    found = problems(at(EKS_136, "1.35"))
    rule = found["namespaces[0].claimTemplates[0].tolerations"]
    assert "DRADeviceTaints" in rule and "1.35" in rule


def test_kind_turns_dra_device_taints_on_for_tolerations_below_1_36():
    config = mutate(KIND_BASE, "namespaces[0].claimTemplates[0].tolerations", [TOLERATION])
    assert parse(config).namespaces[0].claim_templates[0].tolerations


@pytest.mark.parametrize(
    ("toleration", "path", "words"),
    [
        ({"key": "a/b", "operator": "Exists", "value": "x"}, "value", "must be empty for operator Exists"),
        ({"operator": "Equal", "value": "x"}, "operator", "only with operator Exists"),
        ({"key": "a/b", "effect": "NoSchedule", "tolerationSeconds": 30}, "tolerationSeconds", "NoExecute"),
    ],
)
def test_a_toleration_is_checked_as_the_api_server_checks_it(toleration, path, words):
    config = mutate(EKS_136, "namespaces[0].claimTemplates[0].tolerations", [toleration])
    assert words in problems(config)[f"namespaces[0].claimTemplates[0].tolerations[0].{path}"]


def test_kind_1_34_knows_no_taint_effect_none():
    config = mutate(KIND_BASE, "namespaces[0].claimTemplates[0].tolerations", [{"key": "k", "effect": "None"}])
    found = problems(mutate(config, "cluster.kubernetesVersion", "1.34"))
    assert "from Kubernetes 1.35" in found["namespaces[0].claimTemplates[0].tolerations[0].effect"]


def test_a_toleration_key_is_a_label_name():
    config = mutate(EKS_136, "namespaces[0].claimTemplates[0].tolerations", [{"key": "not a key!"}])
    assert "label key" in problems(config)["namespaces[0].claimTemplates[0].tolerations[0].key"]


def test_with_first_available_tolerations_belong_to_each_alternative():
    template = {"name": "t", "firstAvailable": [{"deviceClass": "h100"}], "tolerations": [TOLERATION]}
    config = mutate(EKS_136, "namespaces[0].claimTemplates", [template])
    assert "each firstAvailable entry" in problems(config)["namespaces[0].claimTemplates[0].tolerations"]
    template = {"name": "t", "firstAvailable": [{"deviceClass": "h100", "tolerations": [TOLERATION]}]}
    plan = parse(mutate(EKS_136, "namespaces[0].claimTemplates", [template]))
    assert plan.namespaces[0].claim_templates[0].first_available[0].tolerations[0].effect == "NoSchedule"


# --- DeviceTaintRules -----------------------------------------------------------------------------------------

RULE = {"name": "node-drain", "driver": "gpu.nvidia.com", "pool": "h100-0", "key": "maintenance", "effect": "NoExecute"}


@pytest.mark.parametrize("version", ["1.35", "1.36"])
def test_managed_clusters_below_1_37_cannot_serve_device_taint_rules(version):
    config = at(mutate(EKS_136, "maintenance", {"deviceTaints": [RULE]}), version)
    config["namespaces"][0]["claimTemplates"][0].pop("tolerations")  # 1.35 refuses those on their own
    rule = problems(config)["maintenance.deviceTaints"]
    assert "DRADeviceTaintRules" in rule and "--runtime-config" in rule and "EKS control planes cannot" in rule


@pytest.mark.parametrize("version", ["1.35", "1.36", "1.37"])  # 1.34 has no taint effect None: below
def test_kind_serves_device_taint_rules_at_every_minor(version):
    assert parse(at(KIND_137, version)).maintenance.device_taints[0].pool == "gpu-kind-137-worker2"


def test_a_device_name_needs_its_pool_and_a_pool_alone_takes_the_whole_node():
    config = copy.deepcopy(KIND_137)
    config["maintenance"]["deviceTaints"].append(
        {"name": "gpu3-everywhere", "driver": "gpu.example.com", "device": "gpu-3", "key": "k"}
    )
    found = problems(at(config, "1.34"))
    assert "every pool of the driver" in found["maintenance.deviceTaints[2].device"]
    assert "exists from Kubernetes 1.35" in found["maintenance.deviceTaints[1].effect"]
    assert parse(KIND_137).maintenance.device_taints[0].device is None


# --- dynamic MIG ----------------------------------------------------------------------------------------------


def test_dynamic_mig_is_accepted_where_partitionable_devices_are_on():
    assert parse(DYNAMIC_MIG).dynamic_mig


def test_dynamic_mig_is_refused_beside_a_static_mig_pool():
    config = copy.deepcopy(DYNAMIC_MIG)
    config["nodePools"].append({"name": "h100-static", "gpu": "H100", "instanceType": "p5.4xlarge", "minNodes": 1,
                                "maxNodes": 1, "mig": {"profile": "3g.40gb"}})  # fmt: skip
    rule = problems(config)["draDriver.featureGates"]
    assert "h100-static" in rule and "destroys" in rule and "did not create" in rule


def test_dynamic_mig_needs_partitionable_devices_which_eks_has_from_1_36():
    rule = problems(at(DYNAMIC_MIG, "1.35"))["draDriver.featureGates.DynamicMIG"]
    assert "DRAPartitionableDevices" in rule


def test_dynamic_mig_needs_a_driver_that_has_the_gate():
    config = mutate(DYNAMIC_MIG, "draDriver.version", "25.8.1")
    assert "no DynamicMIG gate" in problems(config)["draDriver.featureGates.DynamicMIG"]


def test_the_driver_refuses_dynamic_mig_with_mps_even_when_a_class_turns_mps_on():
    config = copy.deepcopy(DYNAMIC_MIG)
    config["deviceClasses"].append({"name": "mps", "gpu": "H100", "sharing": {"strategy": "MPS"}})
    assert "MPSSupport both on (turned on for device classes mps)" in problems(config)["draDriver.featureGates"]


# --- shared claims --------------------------------------------------------------------------------------------


def test_shared_claims_count_against_the_namespace_quota():
    config = mutate(EKS_136, "namespaces[0].quota", {"claims": 0, "devices": {"l4-shared": 0}})
    found = problems(config)
    assert "shared claims" in found["namespaces[0].sharedClaims"]
    assert "charged 1 l4-shared devices" in found["namespaces[0].quota.devices.l4-shared"]


def test_legacy_namespaces_have_no_shared_claims():
    config = mutate(EKS_136, "namespaces[1].sharedClaims", [{"name": "s", "deviceClass": "h100"}])
    assert "shared claims are not allowed" in problems(config)["namespaces[1].sharedClaims"]


# --- the extended-resource bridge -----------------------------------------------------------------------------


def test_the_bridge_is_on_by_default_from_1_36_and_serves_legacy_grants_only_where_nothing_else_does():
    """The contract's default: on from 1.36 where the driver's class carries extendedResourceName. On by default it
    serves legacy grants only in a stack without device-plugin pools (their one server); beside a device-plugin pool
    the quotas keep them there until the stack opts in with `true` (any model) or named models."""
    default = parse(EKS_136)  # 1.36, the 0.4.1 chart, no device-plugin pool, no key
    assert default.extended_resource_bridge_on and default.bridge_serves_legacy_grants and default.bridge_models is None
    named = parse(mutate(EKS_136, "draDriver.extendedResourceBridge", {"gpus": ["H100", "L4"]}))
    assert named.bridge_serves_legacy_grants and named.bridge_models == ("H100", "L4")
    widened = parse(mutate(EKS_136, "draDriver.extendedResourceBridge", True))
    assert widened.extended_resource_bridge_on and widened.bridge_models is None
    # off: the legacy namespace has no server left (test_with_the_bridge_off_... names the fix)
    assert "namespaces[1].migration" in problems(mutate(EKS_136, "draDriver.extendedResourceBridge", False))
    assert not parse(at(KIND_137, "1.36")).extended_resource_bridge_on  # the example driver's class: no bridge
    beside_plugin = mutate(EKS_136, "nodePools", [*EKS_136["nodePools"], {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin", "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}])  # fmt: skip
    kept = parse(beside_plugin)
    assert kept.extended_resource_bridge_on and not kept.bridge_serves_legacy_grants


def test_below_1_36_a_legacy_namespace_without_device_plugin_pool_names_1_36_as_the_fix():
    config = at(EKS_136, "1.35")
    config["namespaces"][0]["claimTemplates"][0].pop("tolerations")
    config["draDriver"].pop("extendedResourceBridge", None)
    (problem,) = [p for p in _problems(config) if p.path == "namespaces[1].migration"]
    assert "Kubernetes 1.36+" in problem.fix
    for opt_in in (True, {"gpus": ["H100", "L4"]}):
        config["draDriver"]["extendedResourceBridge"] = opt_in
        assert "alpha (off) in Kubernetes 1.35" in problems(config)["draDriver.extendedResourceBridge"]


def test_with_the_bridge_off_a_legacy_namespace_needs_a_device_plugin_pool_at_1_36():
    config = mutate(EKS_136, "draDriver.extendedResourceBridge", False)
    (problem,) = [p for p in _problems(config) if p.path == "namespaces[1].migration"]
    assert "device-plugin pool or the extended-resource bridge" in problem.rule
    assert problem.fix.startswith("opt in to the extended-resource bridge with draDriver.extendedResourceBridge: "
                                  "{gpus: [H100, L4]}")  # fmt: skip


def test_the_bridge_names_only_models_the_cluster_can_keep_it_to():
    """Up to 1.37 the driver's gpu.nvidia.com (every full GPU, no pool) is the one class serving nvidia.com/gpu: a
    DRA pool of a model the opt-in does not name would be served all the same, so the stack is refused."""
    found = problems(mutate(EKS_136, "draDriver.extendedResourceBridge", {"gpus": ["L4"]}))
    rule = found["draDriver.extendedResourceBridge.gpus"]
    assert "matches every full GPU and no pool" in rule and "the GPUs of h100 (H100)" in rule
    found = problems(mutate(EKS_136, "draDriver.extendedResourceBridge", {"gpus": ["H100", "L4", "A100-80GB"]}))
    assert "no DRA pool of full GPUs has this model" in found["draDriver.extendedResourceBridge.gpus[2]"]
    # a MIG pool is not served (the class selects type gpu), so the opt-in need not name its model
    mig = mutate(EKS_136, "nodePools", [*EKS_136["nodePools"], {"name": "a100-mig", "gpu": "A100-80GB",
                 "instanceType": "p4de.24xlarge", "minNodes": 1, "maxNodes": 1, "mig": {"profile": "3g.40gb"}}])  # fmt: skip
    mig["draDriver"]["extendedResourceBridge"] = {"gpus": ["H100", "L4"]}
    assert parse(mig).bridge_models == ("H100", "L4")


def test_a_bridge_value_that_is_neither_a_switch_nor_models_is_refused_at_its_path():
    found = problems(mutate(EKS_136, "draDriver.extendedResourceBridge", {"gpus": []}))
    assert "draDriver.extendedResourceBridge.gpus" in found
    found = problems(mutate(EKS_136, "draDriver.extendedResourceBridge", {"models": ["H100"]}))
    assert any(path.startswith("draDriver.extendedResourceBridge") for path in found), found


def test_the_refusal_of_an_operator_device_plugin_pool_names_the_bridge_where_the_minor_allows_it():
    config = seed("aks-136-migrating")
    config["nodePools"].append({"name": "t4-plugin", "gpu": "T4", "instanceType": "Standard_NC4as_T4_v3",
                                "maxNodes": 1, "gpuStack": "device-plugin"})  # fmt: skip
    problem = next(p for p in _problems(config) if p.path == "nodePools[2].gpuStack")
    assert problem.fix.startswith("remove this pool and let DRA serve nvidia.com/gpu through the extended-resource")
    problem = next(p for p in _problems(at(config, "1.35")) if p.path == "nodePools[2].gpuStack")
    assert "extended-resource" not in problem.fix


def _problems(config: dict):
    with pytest.raises(InputError) as caught:
        parse(config)
    return caught.value.problems


def test_the_1_36_runbook_swaps_the_device_plugin_pool_for_dra_in_one_valid_change():
    """docs/gpu-software.md, "From Kubernetes 1.36": before (the operator's device plugin, legacy namespaces) and
    after (every pool on DRA, the same legacy namespace, the bridge opted in for the pools' models) are both valid
    stacks; the namespace is untouched."""
    after = seed("aks-136-migrating")
    after["draDriver"]["extendedResourceBridge"] = {"gpus": ["A100-80GB", "T4"]}  # as the runbook names them
    before = copy.deepcopy(after)
    before["draDriver"].pop("extendedResourceBridge")
    before["nodePools"] = [{"name": "t4-legacy", "gpu": "T4", "instanceType": "Standard_NC4as_T4_v3", "minNodes": 1,
                            "maxNodes": 3, "gpuStack": "device-plugin"}]  # fmt: skip
    before["namespaces"] = [ns for ns in after["namespaces"] if ns["migration"] == "legacy"]
    before.pop("deviceClasses")
    assert parse(before).device_plugin_pools and parse(after).extended_resource_bridge_on
    assert not parse(after).device_plugin_pools
    legacy = next(ns for ns in after["namespaces"] if ns["migration"] == "legacy")
    assert legacy == before["namespaces"][0]
