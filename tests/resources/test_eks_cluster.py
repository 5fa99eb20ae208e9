"""EksCluster and its GPU node pools as the program registers them under Pulumi mocks: AMI types, taints,
labels, instance types, scaling, launch templates (IMDSv2, EFA, Capacity Blocks), autoscaler tags,
IAM, encryption, endpoint, protect, timeouts, and the cluster's Kubernetes provider on every object."""

from __future__ import annotations

import copy

import pytest
import yaml

from components.plans import eks as eks_plan
from components.config.models import NodePool
from components.plans.node_pools import pool_labels
from gpuplan.engine.mock_outputs import FAKE_ACCOUNT
from gpuplan.engine.outputs import clean
from tests.conftest import clean_inputs, load_committed, run_config

CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
PLACEMENT = "aws:ec2/placementGroup:PlacementGroup"
ASG_TAG = "aws:autoscaling/tag:Tag"
K8S_PROVIDER = "pulumi:providers:kubernetes"
CR = "cr-0123456789abcdef0"
ADMIN = f"arn:aws:iam::{FAKE_ACCOUNT}:role/platform-admins"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template"

# A new VPC, a public endpoint with CIDRs, and one pool of each kind.
STACK = {
    "aws:region": "us-east-1",
    "pulumi:disable-default-providers": ["kubernetes"],
    "cluster": {
        "platform": "eks", "name": "gpu-lab", "kubernetesVersion": "1.35", "protect": True,
        "eks": {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"], "adminRoleArns": [ADMIN],
                "availabilityZones": 2},
    },
    "nodePools": [
        {"name": "h100-block", "gpu": "H100", "instanceType": "p5.48xlarge", "maxNodes": 4, "capacity": "capacity-block",
         "capacityReservationId": CR, "availabilityZone": "us-east-1d", "labels": {"team": "research"}},
        {"name": "a100-efa", "gpu": "A100-40GB", "minNodes": 1, "maxNodes": 3, "desiredNodes": 2},
        {"name": "l40s-spot", "gpu": "L40S", "instanceType": "g6e.12xlarge", "maxNodes": 2, "capacity": "spot"},
        {"name": "t4-rocket", "gpu": "T4", "instanceType": "g4dn.12xlarge", "maxNodes": 6, "gpuStack": "device-plugin",
         "amiType": "BOTTLEROCKET_x86_64_NVIDIA", "diskSizeGb": 100},
    ],
    "deviceClasses": [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}],
    "namespaces": [
        {"name": "research", "migration": "dra-only", "claimTemplates": [{"name": "two", "deviceClass": "h100", "count": 2}]},
        {"name": "legacy", "migration": "legacy", "quota": {"legacyGpus": 4}},
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_config(tmp_path_factory.mktemp("eks"), STACK, stack="lab")


@pytest.fixture(scope="module")
def prod(tmp_path_factory):
    return run_config(tmp_path_factory.mktemp("prod"), load_committed("prod"), stack="prod")


def by_name(run, type_: str) -> dict[str, dict]:
    return {r.name: clean_inputs(r) for r in run.of_type(type_)}


def registration(run, name: str):
    return next(r for r in run.resources if r.name == name)


def pool_resource(run, type_: str, pool: str) -> dict:
    return by_name(run, type_)[f"gpu-lab-eks-pool-{pool}-{'nodes' if type_ == NODE_GROUP else 'launch-template'}"]


def pool_model(name: str) -> NodePool:
    return NodePool.model_validate(next(p for p in STACK["nodePools"] if p["name"] == name))


# ---------------------------------------------------------------------------------------------- node groups


def test_ami_types_are_al2023_nvidia_unless_bottlerocket_is_asked(run):
    groups = by_name(run, NODE_GROUP)
    assert {n: g["amiType"] for n, g in groups.items()} == {
        "gpu-lab-eks-pool-a100-efa-nodes": "AL2023_x86_64_NVIDIA",
        "gpu-lab-eks-pool-h100-block-nodes": "AL2023_x86_64_NVIDIA",
        "gpu-lab-eks-pool-l40s-spot-nodes": "AL2023_x86_64_NVIDIA",
        "gpu-lab-eks-pool-t4-rocket-nodes": "BOTTLEROCKET_x86_64_NVIDIA",
        "gpu-lab-eks-system-nodes": "AL2023_x86_64_STANDARD",
    }


@pytest.mark.parametrize("pool", ["h100-block", "a100-efa", "l40s-spot", "t4-rocket"])
def test_gpu_pools_carry_the_gpu_taint_and_the_pool_labels(run, pool):
    group = pool_resource(run, NODE_GROUP, pool)
    assert group["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert group["labels"] == pool_labels(pool_model(pool))
    assert group["version"] == "1.35" and group["clusterName"] == "gpu-lab"


def test_dra_and_device_plugin_pools_get_opposite_operand_labels(run):
    dra = pool_resource(run, NODE_GROUP, "a100-efa")["labels"]
    plugin = pool_resource(run, NODE_GROUP, "t4-rocket")["labels"]
    assert dra["nvidia.com/gpu.deploy.device-plugin"] == "false" and dra["nvidia.com/dra-kubelet-plugin"] == "true"
    assert plugin["nvidia.com/gpu.deploy.device-plugin"] == "true" and "nvidia.com/dra-kubelet-plugin" not in plugin
    assert dra["dra-gpu-platform.io/gpu"] == "A100-40GB" and dra["dra-gpu-platform.io/gpu-stack"] == "dra"


def test_instance_types_come_from_the_pool_or_the_catalog(run):
    assert pool_resource(run, NODE_GROUP, "a100-efa")["instanceTypes"] == ["p4d.24xlarge"]  # catalog default for A100-40GB
    assert pool_resource(run, NODE_GROUP, "l40s-spot")["instanceTypes"] == ["g6e.12xlarge"]
    assert pool_resource(run, NODE_GROUP, "t4-rocket")["instanceTypes"] == ["g4dn.12xlarge"]


def test_scaling_follows_min_max_desired_and_the_autoscaler_owns_the_size(run):
    assert pool_resource(run, NODE_GROUP, "a100-efa")["scalingConfig"] == {"minSize": 1, "maxSize": 3, "desiredSize": 2}
    assert pool_resource(run, NODE_GROUP, "t4-rocket")["scalingConfig"] == {"minSize": 0, "maxSize": 6, "desiredSize": 0}
    assert registration(run, "gpu-lab-eks-pool-t4-rocket-nodes").options["ignoreChanges"] == ["scalingConfig.desiredSize"]


def test_capacity_types(run):
    assert {n: g["capacityType"] for n, g in by_name(run, NODE_GROUP).items()} == {
        "gpu-lab-eks-pool-a100-efa-nodes": "ON_DEMAND",
        "gpu-lab-eks-pool-h100-block-nodes": "CAPACITY_BLOCK",
        "gpu-lab-eks-pool-l40s-spot-nodes": "SPOT",
        "gpu-lab-eks-pool-t4-rocket-nodes": "ON_DEMAND",
        "gpu-lab-eks-system-nodes": "ON_DEMAND",
    }


# ---------------------------------------------------------------------------------------------- launch templates


def test_every_launch_template_requires_imdsv2(run):
    templates = by_name(run, LAUNCH_TEMPLATE)
    assert len(templates) == 5
    for name, template in templates.items():
        assert template["metadataOptions"]["httpTokens"] == "required", name
        assert template["metadataOptions"]["httpEndpoint"] == "enabled", name


def test_node_groups_use_their_own_launch_template(run):
    for pool in ("h100-block", "a100-efa", "l40s-spot", "t4-rocket"):
        group = pool_resource(run, NODE_GROUP, pool)
        assert group["launchTemplate"] == {"id": f"gpu-lab-eks-pool-{pool}-launch-template-id", "version": "1"}


def test_p5_48xlarge_gets_32_efa_interfaces_in_the_cluster_security_group(run):
    interfaces = pool_resource(run, LAUNCH_TEMPLATE, "h100-block")["networkInterfaces"]
    assert len(interfaces) == 32
    assert [i["networkCardIndex"] for i in interfaces] == list(range(32))
    assert [i["deviceIndex"] for i in interfaces] == [0] + [1] * 31
    assert {i["interfaceType"] for i in interfaces} == {"efa"}
    cluster_sg = registration(run, "gpu-lab-eks-eks").state["vpcConfig"]["clusterSecurityGroupId"]
    assert all(i["securityGroups"] == [cluster_sg] for i in interfaces)


def test_p4d_gets_4_efa_interfaces_and_a_cluster_placement_group_in_one_zone(run):
    template = pool_resource(run, LAUNCH_TEMPLATE, "a100-efa")
    assert len(template["networkInterfaces"]) == 4
    groups = {r.name: r for r in run.of_type(PLACEMENT)}
    assert set(groups) == {"gpu-lab-eks-pool-a100-efa-placement"}  # not for the Capacity Block
    group = groups["gpu-lab-eks-pool-a100-efa-placement"]
    assert group.inputs["strategy"] == "cluster"
    assert template["placement"] == {"groupName": group.state["name"]}
    subnets = pool_resource(run, NODE_GROUP, "a100-efa")["subnetIds"]
    assert subnets == ["gpu-lab-eks-network-private-us-east-1a-id"]
    assert any("a100-efa" in message and "us-east-1a" in message for _, message in run.logs)


def test_non_efa_pools_have_no_network_interfaces_on_the_template(run):
    assert "networkInterfaces" not in pool_resource(run, LAUNCH_TEMPLATE, "l40s-spot")
    assert "placement" not in pool_resource(run, LAUNCH_TEMPLATE, "t4-rocket")


def test_capacity_block_wiring(run):
    template = pool_resource(run, LAUNCH_TEMPLATE, "h100-block")
    group = pool_resource(run, NODE_GROUP, "h100-block")
    assert template["instanceMarketOptions"] == {"marketType": "capacity-block"}
    assert template["capacityReservationSpecification"] == {"capacityReservationTarget": {"capacityReservationId": CR}}
    assert template["instanceType"] == "p5.48xlarge" and "instanceTypes" not in group
    assert group["capacityType"] == "CAPACITY_BLOCK"
    assert group["subnetIds"] == ["gpu-lab-eks-network-private-us-east-1d-id"]  # the block's zone only
    assert "placement" not in template


def test_other_templates_have_no_market_or_reservation(run):
    for pool in ("a100-efa", "l40s-spot", "t4-rocket"):
        template = pool_resource(run, LAUNCH_TEMPLATE, pool)
        assert "instanceMarketOptions" not in template and "capacityReservationSpecification" not in template
        assert "instanceType" not in template


def test_root_volumes_follow_the_ami_family(run):
    rocket = pool_resource(run, LAUNCH_TEMPLATE, "t4-rocket")["blockDeviceMappings"]
    al2023 = pool_resource(run, LAUNCH_TEMPLATE, "l40s-spot")["blockDeviceMappings"]
    assert rocket == [{"deviceName": "/dev/xvdb", "ebs": {"volumeSize": 100, "volumeType": "gp3", "encrypted": "true", "deleteOnTermination": "true"}}]
    assert al2023[0]["deviceName"] == "/dev/xvda" and al2023[0]["ebs"]["volumeSize"] == 200


# ---------------------------------------------------------------------------------------------- autoscaler


def test_node_groups_carry_the_autoscaler_tags(run):
    tags = pool_resource(run, NODE_GROUP, "t4-rocket")["tags"]
    assert tags["k8s.io/cluster-autoscaler/enabled"] == "true" and tags["k8s.io/cluster-autoscaler/gpu-lab"] == "owned"
    assert tags[f"{TEMPLATE}/resources/nvidia.com/gpu"] == "4"  # g4dn.12xlarge: 4 T4
    assert tags[f"{TEMPLATE}/taint/nvidia.com/gpu"] == "present:NoSchedule"
    assert tags[f"{TEMPLATE}/label/dra-gpu-platform.io/pool"] == "t4-rocket"


def test_node_template_tags_reach_the_auto_scaling_group(run):
    for pool in ("h100-block", "a100-efa", "l40s-spot", "t4-rocket"):
        group = registration(run, f"gpu-lab-eks-pool-{pool}-nodes")
        asg = group.state["resources"][0]["autoscalingGroups"][0]["name"]
        tags = {r.inputs["tag"]["key"]: r for r in run.of_type(ASG_TAG) if r.name.startswith(f"gpu-lab-eks-pool-{pool}-")}
        expected = eks_plan.node_template_tags(clean_inputs(group)["tags"])
        assert set(tags) == set(expected) and expected
        for key, tag in tags.items():
            assert tag.inputs["autoscalingGroupName"] == asg
            assert tag.inputs["tag"] == {"key": key, "value": expected[key], "propagateAtLaunch": False}
            assert group.urn in tag.dependencies


def test_dra_pools_do_not_advertise_nvidia_com_gpu(run):
    for pool in ("h100-block", "a100-efa", "l40s-spot"):
        assert f"{TEMPLATE}/resources/nvidia.com/gpu" not in pool_resource(run, NODE_GROUP, pool)["tags"]


# ---------------------------------------------------------------------------------------------- cluster


def test_cluster_api_access_encryption_logging_and_endpoint(run):
    cluster = by_name(run, CLUSTER)["gpu-lab-eks-eks"]
    key_arn = registration(run, "gpu-lab-eks-secrets-key").state["arn"]
    assert cluster["name"] == "gpu-lab" and cluster["version"] == "1.35"
    assert cluster["accessConfig"] == {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": True}
    assert cluster["encryptionConfig"] == {"provider": {"keyArn": key_arn}, "resources": ["secrets"]}
    assert cluster["enabledClusterLogTypes"] == ["api", "audit", "authenticator", "controllerManager", "scheduler"]
    vpc = cluster["vpcConfig"]
    assert vpc["endpointPrivateAccess"] is True and vpc["endpointPublicAccess"] is True
    assert vpc["publicAccessCidrs"] == ["203.0.113.0/24"]
    assert registration(run, "gpu-lab-eks-secrets-key").inputs["enableKeyRotation"] is True


def test_prod_endpoint_is_private(prod):
    vpc = by_name(prod, CLUSTER)["gpu-prod-eks-eks"]["vpcConfig"]
    assert vpc["endpointPublicAccess"] is False and "publicAccessCidrs" not in vpc
    assert vpc["subnetIds"] == load_committed("prod")["cluster"]["eks"]["subnetIds"]


def test_iam_roles_get_only_the_managed_policies_eks_needs(run):
    attachments = {r.name: clean_inputs(r) for r in run.of_type("aws:iam/rolePolicyAttachment:RolePolicyAttachment")}
    policies = {name: a["policyArn"].rsplit("/", 1)[1] for name, a in attachments.items()}
    assert sorted(p for n, p in policies.items() if "cluster-role" in n) == ["AmazonEKSClusterPolicy"]
    assert sorted(p for n, p in policies.items() if "node-role" in n) == [
        "AmazonEC2ContainerRegistryReadOnly", "AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy"]
    roles = by_name(run, "aws:iam/role:Role")
    assert '"eks.amazonaws.com"' in roles["gpu-lab-eks-cluster-role"]["assumeRolePolicy"]
    assert '"ec2.amazonaws.com"' in roles["gpu-lab-eks-node-role"]["assumeRolePolicy"]


def test_admin_roles_get_access_entries_with_the_cluster_admin_policy(run):
    entry = by_name(run, "aws:eks/accessEntry:AccessEntry")["gpu-lab-eks-access-platform-admins"]
    association = by_name(run, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")["gpu-lab-eks-access-platform-admins-admin"]
    assert entry["principalArn"] == ADMIN and entry["type"] == "STANDARD"
    assert association["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert association["accessScope"] == {"type": "cluster"} and association["principalArn"] == ADMIN


def test_new_vpc_spans_the_pinned_zone_with_a_nat_per_zone(run):
    subnets = by_name(run, "aws:ec2/subnet:Subnet")
    private = {s["availabilityZone"] for n, s in subnets.items() if "-private-" in n}
    assert private == {"us-east-1a", "us-east-1d"}  # first zone of the region, plus the Capacity Block's
    assert len(run.of_type("aws:ec2/natGateway:NatGateway")) == 2
    cluster = by_name(run, CLUSTER)["gpu-lab-eks-eks"]
    assert sorted(cluster["vpcConfig"]["subnetIds"]) == sorted(f"gpu-lab-eks-network-private-{z}-id" for z in private)


def test_existing_subnets_are_used_as_they_are(prod):
    assert not prod.of_type("aws:ec2/vpc:Vpc")
    subnets = load_committed("prod")["cluster"]["eks"]["subnetIds"]
    # the mock puts the n-th subnet in the n-th zone; the Capacity Block lives in us-east-1a
    assert by_name(prod, NODE_GROUP)["gpu-prod-eks-pool-h100-train-nodes"]["subnetIds"] == [subnets[0]]
    assert by_name(prod, NODE_GROUP)["gpu-prod-eks-pool-t4-legacy-nodes"]["subnetIds"] == subnets


# ---------------------------------------------------------------------------------------------- options


def test_protect_covers_the_cluster_and_every_node_group(run):
    assert registration(run, "gpu-lab-eks-eks").protect
    assert by_name(run, CLUSTER)["gpu-lab-eks-eks"]["deletionProtection"] is True
    assert all(r.protect for r in run.of_type(NODE_GROUP)) and len(run.of_type(NODE_GROUP)) == 5


def test_without_protect_nothing_is_protected(tmp_path):
    config = copy.deepcopy(STACK)
    config["cluster"]["protect"] = False
    config["nodePools"] = [config["nodePools"][2]]
    config["deviceClasses"] = []
    config["namespaces"] = []
    unprotected = run_config(tmp_path, config, stack="lab")
    assert not any(r.protect for r in unprotected.resources)
    assert by_name(unprotected, CLUSTER)["gpu-lab-eks-eks"]["deletionProtection"] is False


def test_timeouts(run):
    assert registration(run, "gpu-lab-eks-eks").options["customTimeouts"] == {"create": "30m", "update": "30m", "delete": "30m"}
    for group in run.of_type(NODE_GROUP):
        assert group.options["customTimeouts"] == {"create": "60m", "update": "60m", "delete": "60m"}, group.name


@pytest.mark.parametrize("fixture", ["run", "prod"])
def test_every_kubernetes_resource_uses_the_clusters_provider(request, fixture):
    program = request.getfixturevalue(fixture)
    providers = program.of_type(K8S_PROVIDER)
    assert len(providers) == 1 and providers[0].parent.endswith("$dra-gpu-platform:cluster:EksCluster::" + providers[0].name.removesuffix("-k8s"))
    kubernetes = [r for r in program.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes
    assert {r.provider for r in kubernetes} == {providers[0].urn}


def test_provider_waits_for_system_nodes_and_gets_a_secret_kubeconfig(run):
    provider = run.of_type(K8S_PROVIDER)[0]
    assert clean_inputs(provider)["kubeconfig"] == "[secret]"
    assert clean({"k": run.outputs["kubeconfig"]}) == {"k": "[secret]"}  # exported as a secret
    assert registration(run, "gpu-lab-eks-system-nodes").urn in provider.dependencies
    assert clean_inputs(registration(run, "gpu-lab-eks-system-nodes"))["labels"] == {"dra-gpu-platform.io/role": "system"}
    kubeconfig = yaml.safe_load(provider.inputs["kubeconfig"]["value"])
    cluster = registration(run, "gpu-lab-eks-eks").state
    assert kubeconfig["clusters"][0]["cluster"] == {"server": cluster["endpoint"],
                                                   "certificate-authority-data": cluster["certificateAuthority"]["data"]}
    assert kubeconfig["users"][0]["user"]["exec"]["args"][:6] == ["eks", "get-token", "--cluster-name", "gpu-lab", "--region", "us-east-1"]


# ---------------------------------------------------------------------------------------------- identity


def test_changing_one_pools_instance_type_or_gpu_changes_no_other_urn(prod, tmp_path):
    config = load_committed("prod")
    pools = {p["name"]: p for p in config["nodePools"]}
    pools["h100-infer"]["instanceType"] = "p5.48xlarge"  # now with EFA and a placement group
    pools["h100-infer"]["availabilityZone"] = "us-east-1b"
    pools["t4-legacy"]["gpu"] = "L4"  # the catalog picks g6.xlarge
    changed = run_config(tmp_path, config, stack="prod")

    def outside(program):
        return {r.urn for r in program.resources if not r.name.startswith(("gpu-prod-eks-pool-h100-infer", "gpu-prod-eks-pool-t4-legacy"))}

    assert outside(changed) == outside(prod)
    assert by_name(changed, NODE_GROUP)["gpu-prod-eks-pool-t4-legacy-nodes"]["instanceTypes"] == ["g6.xlarge"]
    for pool in ("h100-infer", "t4-legacy"):
        for role in ("nodes", "launch-template"):
            urn = lambda program: registration(program, f"gpu-prod-eks-pool-{pool}-{role}").urn  # noqa: E731
            assert urn(changed) == urn(prod)  # the pool's own resources keep their identity too
