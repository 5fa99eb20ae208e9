"""The plans of the seeds' features: DeviceTaintRule in the API version of the minor, kind's gates and
runtime-config only where the minor has them off, tolerations and shared claims as manifests, dynamic MIG's
inventory."""

from __future__ import annotations

import pytest

from dra_gpu_platform.plans.kind import feature_gates, runtime_config
from dra_gpu_platform.plans.stack import plan_stack
from tests.config.test_loading import mutate, parse
from tests.config.test_seed_rules import DYNAMIC_MIG, EKS_136, KIND_137, TOLERATION, at
from tests.conftest import KIND_BASE

RULE_APIS = {
    "1.34": "resource.k8s.io/v1alpha3",
    "1.35": "resource.k8s.io/v1alpha3",
    "1.36": "resource.k8s.io/v1beta2",
    "1.37": "resource.k8s.io/v1",
}
# The gates and API versions a kind cluster needs for DeviceTaintRules, per minor: only what is off by default.
KIND_TAINT_SETUP = {
    "1.34": ({"DRADeviceTaints"}, {"resource.k8s.io/v1alpha3"}),
    "1.35": ({"DRADeviceTaints", "DRADeviceTaintRules"}, {"resource.k8s.io/v1alpha3"}),
    "1.36": ({"DRADeviceTaintRules"}, {"resource.k8s.io/v1beta2"}),
    "1.37": (set(), set()),
}


def _kind_with_rules(version: str):
    config = at(KIND_137, version)
    config["maintenance"]["deviceTaints"] = config["maintenance"]["deviceTaints"][:1]  # effect None needs 1.35
    return parse(config)


@pytest.mark.parametrize("version", sorted(RULE_APIS))
def test_device_taint_rules_use_the_api_version_the_minor_serves(version):
    config = _kind_with_rules(version)
    (rule,) = plan_stack(config).device_taints
    manifest = rule.manifest()
    assert manifest["apiVersion"] == RULE_APIS[version]
    assert manifest["spec"]["deviceSelector"] == {"driver": "gpu.example.com", "pool": "gpu-kind-137-worker2"}
    gates, apis = KIND_TAINT_SETUP[version]
    assert set(feature_gates(config)) - {"DynamicResourceAllocation"} == gates
    assert set(runtime_config(config)) == apis


def test_kind_turns_on_only_what_tolerations_and_dynamic_mig_need_below_1_36():
    tolerant = parse(mutate(KIND_BASE, "namespaces[0].claimTemplates[0].tolerations", [TOLERATION]))
    assert feature_gates(tolerant) == {"DRADeviceTaints": True, "DynamicResourceAllocation": True}
    assert runtime_config(tolerant) == {}
    dynamic = mutate(KIND_BASE, "cluster.kind.gpuDriver", "nvidia")
    dynamic["nodePools"] = dynamic["nodePools"][:1]
    dynamic["namespaces"] = dynamic["namespaces"][:1]
    dynamic["draDriver"] = {"featureGates": {"DynamicMIG": True}}
    assert feature_gates(parse(dynamic))["DRAPartitionableDevices"] is True
    assert "DRAPartitionableDevices" not in feature_gates(parse(at(dynamic, "1.36")))  # beta and on there


def test_tolerations_are_sent_as_resource_k8s_io_v1_device_tolerations():
    plan = plan_stack(parse(EKS_136))
    namespace = next(ns for ns in plan.namespaces if ns.name == "ml-research")
    tolerant = next(t for t in namespace.claim_templates if t.name == "tolerant")
    assert tolerant.devices()["requests"][0]["exactly"]["tolerations"] == [
        {"operator": "Exists", "key": "gpu.nvidia.com/xid", "effect": "NoSchedule"}
    ]
    kind = plan_stack(parse(KIND_137))
    template = next(t for t in kind.namespaces[0].claim_templates if t.name == "through-maintenance")
    (toleration,) = template.devices()["requests"][0]["exactly"]["tolerations"]
    assert toleration["tolerationSeconds"] == 300 and "value" not in toleration


def test_shared_claims_are_resource_claims_of_the_namespace_keyed_by_name():
    plan = plan_stack(parse(EKS_136))
    namespace = next(ns for ns in plan.namespaces if ns.name == "ml-research")
    claims = [d for d in namespace.manifests() if d["kind"] == "ResourceClaim"]
    assert [(c["apiVersion"], c["metadata"]) for c in claims] == [
        ("resource.k8s.io/v1", {"name": "shared-l4", "namespace": "ml-research"})
    ]
    assert claims[0]["spec"]["devices"]["requests"][0]["exactly"]["deviceClassName"] == "l4-shared"


def test_the_bridge_needs_no_gate_at_1_36_and_the_eks_pools_advertise_nvidia_gpu():
    plan = plan_stack(parse(EKS_136))
    assert plan.feature_gates == {}  # DRAExtendedResource is on by default: EKS sets no gates
    group = next(g for g in plan.cluster.node_groups if g.pool.name == "h100")
    # a pending nvidia.com/gpu pod may make the autoscaler grow a DRA pool: the bridge serves it there
    assert group.autoscaler_tags["k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"] == "1"


def test_dynamic_mig_simulates_partitionable_devices():
    plan = plan_stack(parse(DYNAMIC_MIG))
    inventory = plan.inventory()
    assert plan.dynamic_mig
    counters = [s for s in inventory.slices if s["spec"].get("sharedCounters")]
    assert len(counters) == 2  # one counter slice per node (split slices from 1.35)
    names = {d["name"] for s in inventory.slices for d in s["spec"].get("devices") or []}
    assert {"gpu-0", "gpu-0-mig-3g40gb-9-0", "gpu-0-mig-7g80gb-0-0"} <= names
    assert any("DynamicMIG" in note for note in inventory.notes)
