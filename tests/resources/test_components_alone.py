"""Each component built alone from a hand-built plan under Pulumi mocks: no stack file, no StackConfig, no
GpuPlatform. What it registers follows from its plan and nothing else (tests/resources/alone.py)."""

from __future__ import annotations

import pulumi
import pytest

from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import aks as aks_plan
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.admission_policy import DRA_ONLY_POLICY
from dra_gpu_platform.plans.claim_templates import ClaimPlan, ClaimTemplatePlan, ExactPlan, SubRequestPlan
from dra_gpu_platform.plans.device_classes import DeviceClassPlan
from dra_gpu_platform.plans.gpu_software import ReleasePlan
from dra_gpu_platform.plans.maintenance import DeviceTaintRulePlan
from dra_gpu_platform.plans.namespaces import NamespacePlan
from dra_gpu_platform.plans.node_pools import GPU_TAINT
from tests.resources.alone import gpu_pool, inputs, of_type, provider, register, spot_taint

NAMESPACE = "kubernetes:core/v1:Namespace"
RELEASE = "kubernetes:helm.sh/v3:Release"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"


def _group(**pool) -> eks_plan.EksNodeGroupPlan:
    return eks_plan.EksNodeGroupPlan(
        pool=gpu_pool(**pool),
        capacity_type="ON_DEMAND",
        autoscaler_tags={"k8s.io/cluster-autoscaler/enabled": "true", "k8s.io/cluster-autoscaler/lab": "owned"},
        asg_tags={"k8s.io/cluster-autoscaler/node-template/label/team": "ml"},
        efa=(eks_plan.EfaInterface(0, 0, "efa"), eks_plan.EfaInterface(1, 1, "efa-only")),
        placement_group=True,
        user_data=None,
        schedules=(),
    )


def _eks_pool(group: eks_plan.EksNodeGroupPlan, protect: bool = True):
    from dra_gpu_platform.resources.clusters.eks_node_pool import EksGpuNodePool, EksGpuNodePoolArgs

    def build():
        EksGpuNodePool(
            "lab-pool-train",
            EksGpuNodePoolArgs(
                plan=group,
                cluster_name=pulumi.Output.from_input("lab"),
                kubernetes_version="1.35",
                node_role_arn="arn:aws:iam::123456789012:role/nodes",
                subnet_ids=["subnet-0123456789abcdef0"],
                cluster_security_group_id="sg-0123456789abcdef0",
                protect=protect,
                tags={"dra-gpu-platform.io/cluster": "lab"},
            ),
        )

    return register(build)


def test_eks_gpu_node_pool_is_its_plan():
    registered = _eks_pool(_group())
    (component,) = of_type(registered, Component.EKS_GPU_NODE_POOL)
    (group,) = of_type(registered, NODE_GROUP)
    node_group = inputs(group)
    assert node_group["labels"] == gpu_pool().labels
    # the pool's taint in the EKS API's spelling
    assert node_group["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert node_group["scalingConfig"] == {"minSize": 0, "maxSize": 2, "desiredSize": 0}
    assert (node_group["instanceTypes"], node_group["amiType"], node_group["capacityType"]) == (
        ["p5.48xlarge"],
        "AL2023_x86_64_NVIDIA",
        "ON_DEMAND",
    )
    assert node_group["tags"] == {"dra-gpu-platform.io/cluster": "lab", **_group().autoscaler_tags}
    assert group.protect and group.parent == component.urn
    assert group.urn.endswith(f"{Component.EKS_GPU_NODE_POOL}${NODE_GROUP}::lab-pool-train-nodes")
    (template,) = of_type(registered, "aws:ec2/launchTemplate:LaunchTemplate")
    launch = inputs(template)
    assert launch["blockDeviceMappings"][0]["ebs"]["volumeSize"] == 300
    assert [(i["networkCardIndex"], i["interfaceType"]) for i in launch["networkInterfaces"]] == [
        (0, "efa"),
        (1, "efa-only"),
    ]
    assert len(of_type(registered, "aws:ec2/placementGroup:PlacementGroup")) == 1
    (tag,) = of_type(registered, "aws:autoscaling/tag:Tag")
    assert inputs(tag)["tag"]["key"] == "k8s.io/cluster-autoscaler/node-template/label/team"


def test_eks_gpu_node_pool_without_efa_or_protect_registers_neither():
    group = eks_plan.EksNodeGroupPlan(
        pool=gpu_pool(name="small", instance_type="p5.4xlarge", gpus_per_node=1, taints=(GPU_TAINT,)),
        capacity_type="SPOT",
        autoscaler_tags={},
        asg_tags={},
        efa=(),
        placement_group=False,
        user_data=None,
        schedules=(),
    )
    registered = _eks_pool(group, protect=False)
    (node_group,) = of_type(registered, NODE_GROUP)
    assert not node_group.protect and inputs(node_group)["capacityType"] == "SPOT"
    assert "networkInterfaces" not in inputs(of_type(registered, "aws:ec2/launchTemplate:LaunchTemplate")[0])
    assert of_type(registered, "aws:ec2/placementGroup:PlacementGroup") == []


@pytest.mark.parametrize("spot", [False, True])
def test_aks_gpu_node_pool_is_its_plan(spot):
    from dra_gpu_platform.resources.clusters.aks_node_pool import AksGpuNodePool, AksGpuNodePoolArgs

    taints = (GPU_TAINT, spot_taint()) if spot else (GPU_TAINT,)
    pool = gpu_pool(
        name="a100-mig",
        platform="aks",
        gpu="A100-80GB",
        instance_type="Standard_NC24ads_A100_v4",
        shape=None,
        gpus_per_node=1,
        min_nodes=1,
        max_nodes=3,
        desired_nodes=1,
        capacity="spot" if spot else "on-demand",
        mig_profile="3g.40gb",
        taints=taints,
    )
    plan = aks_plan.AksAgentPoolPlan(
        pool=pool,
        agent_pool_name="a100mig",
        node_taints=tuple(t.text for t in taints),
        gpu_driver="None",
        gpu_instance_profile="MIG3g",
        spot=spot,
    )

    def build():
        AksGpuNodePool(
            "lab-pool-a100-mig",
            AksGpuNodePoolArgs(plan, pulumi.Output.from_input("lab"), "rg-lab", "1.35", protect=True),
        )

    (agent_pool,) = of_type(register(build), "azure-native:containerservice:AgentPool")
    values = inputs(agent_pool)
    assert values["agentPoolName"] == "a100mig" and values["vmSize"] == "Standard_NC24ads_A100_v4"
    assert (values["enableAutoScaling"], values["minCount"], values["maxCount"], values["count"]) == (True, 1, 3, 1)
    assert values["nodeLabels"] == pool.labels and values["nodeTaints"] == list(plan.node_taints)
    assert values["gpuProfile"] == {"driver": "None"} and values["gpuInstanceProfile"] == "MIG3g"
    assert values.get("scaleSetPriority") == ("Spot" if spot else None)
    assert agent_pool.protect and agent_pool.options["ignoreChanges"] == ["count"]


def _namespace() -> NamespacePlan:
    exact = ClaimPlan(
        "gpu",
        ExactPlan("h100", "ExactCount", 2, ("device.attributes['gpu.nvidia.com'].index < 4",), admin_access=True),
        (),
        "resource.kubernetes.io/pcieRoot",
    )
    alternatives = ClaimPlan(
        "gpu",
        None,
        (SubRequestPlan("big", "h100", "ExactCount", 1), SubRequestPlan("small", "mig", "All", None, ("true",))),
        None,
    )
    return NamespacePlan(
        name="research",
        migration="dra-only",
        labels={"gpu-mode": "dra-only", "team": "ml"},
        quota={"count/resourceclaims.resource.k8s.io": "4", "h100.deviceclass.resource.k8s.io/devices": "8"},
        claim_templates=(ClaimTemplatePlan("alternatives", alternatives), ClaimTemplatePlan("pair", exact)),
    )


@pytest.mark.parametrize("protect", [False, True])
def test_tenant_namespace_creates_exactly_the_plans_manifests(protect):
    from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs

    plan = _namespace()
    registered = register(lambda: TenantNamespace("lab-ns-research", TenantNamespaceArgs(plan, provider(), protect)))
    (component,) = of_type(registered, Component.TENANT_NAMESPACE)
    children = [r for r in registered if r.parent == component.urn]
    assert {r.provider for r in children} == {"urn:pulumi:test::alone::pulumi:providers:kubernetes::k8s"}
    assert {r.protect for r in children} == {protect}
    (namespace,) = of_type(children, NAMESPACE)
    assert bool(namespace.options.get("retainOnDelete")) is protect
    by_kind = {}
    for registration in children:
        body = inputs(registration)
        by_kind[(body["kind"], body["metadata"]["name"])] = body
    # The SDK arguments carry the plan's body field for field: the manifests the plan gives `gpuplan fit`.
    for manifest in plan.manifests():
        recorded = by_kind[(manifest["kind"], manifest["metadata"]["name"])]
        assert {k: v for k, v in recorded.items() if k not in ("metadata", "apiVersion")} == {
            k: v for k, v in manifest.items() if k not in ("metadata", "apiVersion")
        }, manifest["kind"]
        assert recorded["metadata"]["labels"].items() >= manifest["metadata"].get("labels", {}).items()
    assert by_kind[("ResourceClaimTemplate", "pair")]["spec"]["spec"]["devices"]["requests"][0]["exactly"][
        "adminAccess"
    ]


def test_tenant_namespace_without_quota_or_templates_creates_only_the_namespace():
    from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs

    # a plan built by hand without quota, priority quota or policies: the component adds nothing of its own
    plan = NamespacePlan("legacy", "legacy", {"gpu-mode": "legacy"}, {}, priority_quota=None)
    registered = register(lambda: TenantNamespace("lab-ns-legacy", TenantNamespaceArgs(plan, provider())))
    assert sorted(r.type for r in registered if r.custom and "providers" not in r.type) == [NAMESPACE]


def test_device_classes_create_each_plan_as_it_is():
    from dra_gpu_platform.resources.dra.device_classes import DeviceClasses, DeviceClassesArgs

    shared = DeviceClassPlan(
        "shared",
        ("device.driver == 'gpu.nvidia.com'",),
        (("gpu.nvidia.com", {"apiVersion": "resource.nvidia.com/v1beta1", "kind": "GpuConfig"}),),
    )
    raw = DeviceClassPlan("raw", ("device.driver == 'gpu.example.com'", "true"))
    registered = register(lambda: DeviceClasses("lab-device-classes", DeviceClassesArgs((shared, raw), provider())))
    classes = {
        inputs(r)["metadata"]["name"]: inputs(r)
        for r in of_type(registered, "kubernetes:resource.k8s.io/v1:DeviceClass")
    }
    assert set(classes) == {"shared", "raw"}
    for plan in (shared, raw):
        assert classes[plan.name]["spec"] == plan.manifest()["spec"]
    assert sorted(r.name for r in of_type(registered, "kubernetes:resource.k8s.io/v1:DeviceClass")) == [
        "lab-device-classes-raw",
        "lab-device-classes-shared",
    ]


def test_a_gpu_software_release_is_its_release_plan_in_a_privileged_namespace():
    from dra_gpu_platform.resources.software.dra_driver import DraDriver
    from dra_gpu_platform.resources.software.gpu_operator import GpuOperator
    from dra_gpu_platform.resources.software.helm_release import ReleaseArgs

    operator = ReleasePlan(
        "gpu-operator",
        "gpu-operator",
        "v25.10.1",
        "https://helm.ngc.nvidia.com/nvidia",
        "gpu-operator",
        {"cdi": {"enabled": True}},
        900,
    )
    driver = ReleasePlan("dra", "oci://registry.example/dra-driver", "0.4.1", None, "dra", {"x": 1}, 600)

    def build():
        k8s = provider()
        first = GpuOperator("lab-gpu-operator", ReleaseArgs(operator, k8s))
        DraDriver("lab-dra-driver", ReleaseArgs(driver, k8s, [first.release]))

    registered = register(build)
    releases = {inputs(r)["name"]: r for r in of_type(registered, RELEASE)}
    body = inputs(releases["gpu-operator"])
    assert (body["chart"], body["version"], body["repositoryOpts"], body["values"]) == (
        "gpu-operator",
        "v25.10.1",
        {"repo": "https://helm.ngc.nvidia.com/nvidia"},
        {"cdi": {"enabled": True}},
    )
    assert (body["atomic"], body["timeout"], body["createNamespace"]) == (True, 900, False)
    assert "repositoryOpts" not in inputs(releases["dra"])  # an OCI chart is its own reference
    assert releases["gpu-operator"].urn in releases["dra"].dependencies  # ReleaseArgs.after
    namespaces = {inputs(r)["metadata"]["name"]: inputs(r) for r in of_type(registered, NAMESPACE)}
    assert set(namespaces) == {"gpu-operator", "dra"}
    assert {n["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] for n in namespaces.values()} == {
        "privileged"
    }


def test_the_dra_only_guard_and_maintenance_take_their_plans():
    from dataclasses import replace

    from dra_gpu_platform.resources.dra.maintenance import Maintenance, MaintenanceArgs
    from dra_gpu_platform.resources.tenancy.dra_only_guard import DraOnlyGuard, DraOnlyGuardArgs

    policy = replace(
        DRA_ONLY_POLICY,
        name="no-legacy-gpus",
        namespace_selector={"matchLabels": {"gpu-mode": "dra-only", "tier": "a"}},
    )
    taint = DeviceTaintRulePlan(
        "bad-gpu", "gpu.example.com", "node-2", "gpu-7", "example.com/degraded", None, "NoSchedule"
    )

    def build():
        k8s = provider()
        DraOnlyGuard("lab-dra-only-guard", DraOnlyGuardArgs(policy, k8s))
        Maintenance("lab-maintenance", MaintenanceArgs((taint,), k8s))

    registered = register(build)
    (binding,) = of_type(registered, "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding")
    spec = inputs(binding)["spec"]
    assert spec["policyName"] == "no-legacy-gpus"
    assert spec["matchResources"]["namespaceSelector"]["matchLabels"] == {"gpu-mode": "dra-only", "tier": "a"}
    (rule,) = of_type(registered, "kubernetes:resource.k8s.io/v1alpha3:DeviceTaintRule")
    assert inputs(rule)["spec"] == taint.manifest()["spec"]
