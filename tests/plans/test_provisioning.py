"""The provisioners' plans: a karpenter.sh/v1 NodePool per GPU pool (requirements from its types, purchase option and
zone, the GPU taint, the pool's labels, limits from maxNodes, GPU-minded disruption), Karpenter's EC2NodeClasses
(AMI alias per GPU stack, block devices, RAID0, the Capacity Block), the chart's values, IAM and interruption rules,
EKS Auto Mode's and AKS NAP's node classes. Where the pinned releases' CRDs lie in ../shared (never committed), every
object is validated against them."""

from __future__ import annotations

import copy
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import eks_addons, karpenter, platform_namespaces
from dra_gpu_platform.plans import node_hardening
from dra_gpu_platform.plans.provisioning import karpenter as karpenter_plan
from dra_gpu_platform.plans.provisioning.auto_mode import node_class_manifest
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.policies.rules import gpu_isolation
from gpuplan.checks.crd_validate import crd_schemas, validate_custom_resource
from tests.config.test_provisioner_rules import AKS, EKS
from tests.conftest import SHARED, shared_path

BLOCK = {
    "name": "h100",
    "gpu": "H100",
    "instanceType": "p5.48xlarge",
    "maxNodes": 2,
    "capacity": "capacity-block",
    "capacityReservationId": "cr-0123456789abcdef0",
    "availabilityZone": "us-east-1a",
}
RESERVED = {
    "name": "l40s",
    "gpu": "L40S",
    "instanceType": "g6e.48xlarge",
    "maxNodes": 1,
    "capacityReservationId": "cr-0fedcba987654321a",
}


def karpenter_stack(**changes: Any):
    config = copy.deepcopy(EKS)
    config["nodePools"] = [
        *config["nodePools"],
        BLOCK,
        RESERVED,
        {"name": "spot", "gpu": "L4", "gpuStack": "device-plugin", "capacity": "spot", "maxNodes": 4},
    ]
    config.update(changes)
    return plan_stack(StackConfig.model_validate(config))


@pytest.fixture(scope="module")
def plan():
    return karpenter_stack()


def pool_plans(plan) -> dict[str, karpenter_plan.KarpenterPoolPlan]:
    return {p.pool.name: p for p in plan.cluster.karpenter.pools}


def requirement(node_pool: dict[str, Any], key: str) -> list[str]:
    (found,) = [r for r in node_pool["spec"]["template"]["spec"]["requirements"] if r["key"] == key]
    assert found["operator"] == "In"
    return found["values"]


def test_every_gpu_pool_is_a_nodepool_and_no_node_group(plan):
    assert plan.cluster.node_groups == () and plan.cluster.autoscaler is None
    assert sorted(pool_plans(plan)) == ["a10g", "h100", "l40s", "spot", "t4"]


def test_nodepool_requirements_follow_types_purchase_and_zone(plan):
    pools = {name: p.node_pool for name, p in pool_plans(plan).items()}
    assert requirement(pools["a10g"], karpenter.INSTANCE_TYPE_LABEL) == ["g5.12xlarge", "g5.24xlarge"]
    assert requirement(pools["a10g"], karpenter.CAPACITY_TYPE_LABEL) == ["on-demand"]
    assert requirement(pools["h100"], karpenter.CAPACITY_TYPE_LABEL) == ["reserved"]  # the Capacity Block
    assert requirement(pools["h100"], karpenter.ZONE_LABEL) == ["us-east-1a"]
    assert requirement(pools["l40s"], karpenter.CAPACITY_TYPE_LABEL) == ["reserved", "on-demand"]
    assert requirement(pools["spot"], karpenter.CAPACITY_TYPE_LABEL) == ["spot"]
    assert all(requirement(p, karpenter.ARCH_LABEL) == ["amd64"] for p in pools.values())


def test_nodepools_carry_the_pools_labels_taint_limits_and_gpu_minded_disruption(plan):
    for name, kp in pool_plans(plan).items():
        spec = kp.node_pool["spec"]
        assert spec["template"]["metadata"]["labels"] == kp.pool.labels
        assert spec["template"]["spec"]["taints"] == [
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
        ]
        assert spec["limits"] == {"nodes": str(kp.pool.max_nodes)}
        assert spec["disruption"]["consolidationPolicy"] == "WhenEmpty"
        assert karpenter.duration_seconds(spec["disruption"]["consolidateAfter"]) >= 600
        assert spec["template"]["spec"]["nodeClassRef"] == {
            "group": "karpenter.k8s.aws",
            "kind": "EC2NodeClass",
            "name": name,
        }
    # the DRA kubelet plugin's selector is on the DRA pools' nodes from registration, the device plugin's opt-out too
    labels = pool_plans(plan)["a10g"].node_pool["spec"]["template"]["metadata"]["labels"]
    assert (
        labels["nvidia.com/dra-kubelet-plugin"] == "true" and labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    )


def node_class(kp: karpenter_plan.KarpenterPoolPlan, placement: str | None = None) -> dict[str, Any]:
    return karpenter_plan.ec2_node_class_manifest(
        kp, "gpu-test", "gpu-test-karpenter-node", ["subnet-0a1b2c3d4e5f60718"], ["sg-0123456789abcdef0"], placement
    )


def test_ec2_node_classes_boot_the_ami_of_each_gpu_stack_with_their_disks_and_reservations(plan):
    pools = pool_plans(plan)
    a10g, t4, h100 = (
        node_class(pools["a10g"])["spec"],
        node_class(pools["t4"])["spec"],
        node_class(pools["h100"])["spec"],
    )
    assert a10g["amiSelectorTerms"] == [{"alias": karpenter.AL2023_ALIAS}]
    assert t4["amiSelectorTerms"] == [{"alias": karpenter.BOTTLEROCKET_ALIAS}]  # device plugin: Bottlerocket NVIDIA
    assert [d["deviceName"] for d in t4["blockDeviceMappings"]] == ["/dev/xvda", "/dev/xvdb"]
    assert t4["blockDeviceMappings"][1]["ebs"]["volumeSize"] == "200Gi"
    assert a10g["instanceStorePolicy"] == "RAID0" and "instanceStorePolicy" not in t4  # NVMe: AL2023 only
    assert h100["capacityReservationSelectorTerms"] == [{"id": "cr-0123456789abcdef0"}]
    assert "capacityReservationSelectorTerms" not in a10g
    assert (
        a10g["metadataOptions"]["httpPutResponseHopLimit"] == 1 and a10g["metadataOptions"]["httpTokens"] == "required"
    )
    assert not pools["h100"].placement_group  # a Capacity Block is placed already
    assert node_class(pools["a10g"], "pg-0123456789abcdef0")["spec"]["placementGroupSelector"] == {
        "id": "pg-0123456789abcdef0"
    }


def test_chart_values_turn_dra_on_only_from_1_15_and_keep_replicas_on_the_system_nodes():
    values = karpenter_stack().cluster.karpenter.release.values
    assert values["settings"]["awsFeatureGates"] == {"draNVIDIAGPU": True}
    assert values["settings"]["clusterName"] == "gpu-test" and values["settings"]["interruptionQueue"] == "gpu-test"
    assert values["nodeSelector"]["dra-gpu-platform.io/role"] == "system" and values["replicas"] == 2
    plugin_only = copy.deepcopy(EKS)
    plugin_only["autoscaler"] = {"provisioner": "karpenter"}
    plugin_only["nodePools"] = [{**p, "gpuStack": "device-plugin"} for p in plugin_only["nodePools"]]
    plugin_only["cluster"]["eks"]["systemNodes"] = {"instanceType": "m7i.large", "count": 1}
    old = plan_stack(StackConfig.model_validate(plugin_only)).cluster.karpenter
    assert old.version == "1.14.1" and "awsFeatureGates" not in old.release.values["settings"]
    assert old.release.values["replicas"] == 1  # the chart's anti-affinity wants a node per replica
    assert old.release.chart == "oci://public.ecr.aws/karpenter/karpenter" and old.release.repository is None


def test_controller_policies_scope_every_write_to_the_cluster_and_its_queue():
    documents = karpenter.controller_policies("aws", "us-east-1", "123456789012", "gpu-test")
    assert sorted(documents) == [
        "eks-integration",
        "iam-integration",
        "interruption",
        "node-lifecycle",
        "resource-discovery",
    ]
    text = json.dumps(documents)
    assert text.count(karpenter.QUEUE_ARN) == 1 and text.count(karpenter.NODE_ROLE_ARN) == 1
    assert all(len(json.dumps(d)) < 6144 for d in documents.values())  # a managed policy's limit
    for statement in documents["node-lifecycle"]["Statement"]:
        if "TerminateInstances" in json.dumps(statement["Action"]):
            assert statement["Condition"]["StringEquals"] == {"aws:ResourceTag/kubernetes.io/cluster/gpu-test": "owned"}


def test_interruption_rules_cover_spot_health_rebalance_state_and_capacity_reservations(plan):
    details = {pattern["detail-type"][0] for _, pattern in plan.cluster.karpenter.interruption_rules}
    assert details == {
        "AWS Health Event",
        "EC2 Spot Instance Interruption Warning",
        "EC2 Instance Rebalance Recommendation",
        "EC2 Instance State-change Notification",
        "EC2 Capacity Reservation Instance Interruption Warning",
    }


def test_auto_mode_sets_no_gpu_software_and_gives_each_pool_a_node_class():
    config = copy.deepcopy(EKS)
    config["autoscaler"] = {"provisioner": "auto-mode"}
    config["nodePools"] = [{**p, "gpuStack": "device-plugin"} for p in config["nodePools"]]
    plan = plan_stack(StackConfig.model_validate(config))
    assert plan.software.gpu_operator is None and plan.software.dra_driver is None
    assert plan.cluster.auto_mode.node_pools == ()  # no built-in pool: the GPU NodePools are the stack's own
    (a10g, t4) = plan.cluster.auto_mode.pools
    assert a10g.node_pool["spec"]["template"]["spec"]["nodeClassRef"] == {
        "group": "eks.amazonaws.com",
        "kind": "NodeClass",
        "name": "a10g",
    }
    spec = node_class_manifest(t4, "gpu-test", "node-role", ["subnet-0a1b2c3d4e5f60718"], ["sg-0123456789abcdef0"])[
        "spec"
    ]
    assert spec["ephemeralStorage"] == {"size": "200Gi"} and spec["role"] == "node-role"
    assert all(p.ami_type is None and p.efa_interfaces == 0 for p in plan.pools)


def test_node_auto_provisioning_turns_nap_on_without_agent_pools_and_follows_the_driver_owner():
    plan = plan_stack(StackConfig.model_validate(AKS))
    cluster = plan.cluster
    assert cluster.agent_pools == () and not cluster.autoscaled
    assert (cluster.nap.mode, cluster.nap.default_node_pools) == ("Auto", "None")
    (t4,) = cluster.nap.pools
    assert t4.node_class("gpu-test")["spec"]["gpu"] == {"mode": "Driver"}  # AKS installs the driver
    assert t4.node_pool["spec"]["template"]["spec"]["requirements"][0]["key"] == "karpenter.azure.com/sku-name"
    operator = copy.deepcopy(AKS)
    operator["gpuOperator"] = {"driver": "operator"}
    (own,) = plan_stack(StackConfig.model_validate(operator)).cluster.nap.pools
    assert own.node_class("gpu-test")["spec"]["gpu"] == {"mode": "None"}  # the GPU Operator installs it


def test_node_roles_keep_the_projects_node_policies():
    assert eks_addons.NODE_POLICIES == ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly")


# ------------------------------------------------------------------------------------------------ against the CRDs
KARPENTER_CHARTS = SHARED / "charts"
AZURE_CRDS = SHARED / "crds" / "karpenter-provider-azure-v1.14.2"
WHAT = (
    "the Karpenter chart of the pinned release (`helm pull oci://public.ecr.aws/karpenter/karpenter --version <v> "
    "--untar` into ../shared/charts/karpenter-<v>/, its crds/ folder) and Azure/karpenter-provider-azure v1.14.2's "
    "pkg/apis/crds (into ../shared/crds/karpenter-provider-azure-v1.14.2/)"
)


def _crds(folder: Path) -> dict[tuple[str, str], dict[str, Any]]:
    return crd_schemas([yaml.safe_load(p.read_text(encoding="utf-8")) for p in sorted(folder.glob("*.yaml"))])


@pytest.mark.parametrize("version", sorted(karpenter.RELEASES))
def test_nodepools_and_ec2_node_classes_validate_against_the_pinned_releases_crds(version):
    chart = shared_path(KARPENTER_CHARTS / f"karpenter-{version}", WHAT)
    schemas = _crds(chart / "crds")
    plan = karpenter_stack(autoscaler={"provisioner": "karpenter", "version": "1.15.0"})
    errors = []
    for kp in plan.cluster.karpenter.pools:
        for document in (kp.node_pool, node_class(kp, "pg-0123456789abcdef0")):
            schema = schemas[(document["apiVersion"], document["kind"])]
            errors += [e.render() for e in validate_custom_resource(document, schema, kp.pool.name)]
    assert errors == []
    # the check finds what the CRD refuses
    broken = copy.deepcopy(plan.cluster.karpenter.pools[0].node_pool)
    broken["spec"]["disruption"]["consolidationPolicy"] = "Never"
    assert validate_custom_resource(broken, schemas[("karpenter.sh/v1", "NodePool")], "broken")


def test_nap_objects_validate_against_the_azure_providers_crds():
    schemas = _crds(shared_path(AZURE_CRDS, WHAT))
    (t4,) = plan_stack(StackConfig.model_validate(AKS)).cluster.nap.pools
    errors = []
    for document in (t4.node_pool, t4.node_class("gpu-test")):
        errors += [
            e.render()
            for e in validate_custom_resource(document, schemas[(document["apiVersion"], document["kind"])], "t4")
        ]
    assert errors == []


def test_ec2_node_classes_harden_the_nvidia_toolkit_as_the_node_groups_do(plan):
    """Issue 37's node side on Karpenter's nodes: the same user data as a launch template's, not encoded; the pack's
    gpu-toolkit-hardened reads it back."""
    pools = pool_plans(plan)
    a10g, t4 = node_class(pools["a10g"])["spec"]["userData"], node_class(pools["t4"])["spec"]["userData"]
    assert node_hardening.al2023_hardens_toolkit(a10g)  # AL2023 NVIDIA (DRA pool): the toolkit script
    assert "localStorage" not in a10g  # RAID0 is instanceStorePolicy's, Karpenter writes its own NodeConfig
    assert node_hardening.bottlerocket_hardens_toolkit(tomllib.loads(t4))  # Bottlerocket NVIDIA (device plugin)
    for kp in plan.cluster.karpenter.pools:
        assert gpu_isolation.ec2_node_class_problem(node_class(kp)) is None, kp.pool.name


def test_karpenters_namespace_is_reserved_for_tenants(plan):
    assert "Karpenter" in (platform_namespaces.reserved_reason(plan.cluster.karpenter.release.namespace) or "")
