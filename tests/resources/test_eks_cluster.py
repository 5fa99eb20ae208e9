"""EksCluster and its GPU node pools as the program registers them under Pulumi mocks: AMI types, taints,
labels, instance types, scaling, launch templates (IMDSv2, EFA, Capacity Blocks), autoscaler tags,
IAM, encryption, endpoint, protect, timeouts, and the cluster's Kubernetes provider on every object."""

from __future__ import annotations

import copy
import json

import pytest
import yaml

from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.node_pools import pool_labels, pool_shape
from gpuplan.engine.mock_outputs import FAKE_ACCOUNT
from gpuplan.engine.outputs import clean
from tests.conftest import clean_inputs, load_committed, run_config
from tests.resources.alone import cluster_alone

CLUSTER = "aws:eks/cluster:Cluster"
NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
PLACEMENT = "aws:ec2/placementGroup:PlacementGroup"
ASG_TAG = "aws:autoscaling/tag:Tag"
K8S_PROVIDER = "pulumi:providers:kubernetes"
CR = "cr-0123456789abcdef0"
ADMIN = f"arn:aws:iam::{FAKE_ACCOUNT}:role/platform-admins"
TEMPLATE = "k8s.io/cluster-autoscaler/node-template"

# A new VPC, a public endpoint with CIDRs (plus private access from a VPN), and one pool of each kind; the
# Capacity Block has its window, so it scales on a schedule.
STACK = {
    "aws:region": "us-east-1",
    "pulumi:disable-default-providers": ["kubernetes"],
    "cluster": {
        "platform": "eks",
        "name": "gpu-lab",
        "kubernetesVersion": "1.35",
        "protect": True,
        "eks": {
            "endpointPublicAccess": True,
            "publicAccessCidrs": ["203.0.113.0/24"],
            "adminRoleArns": [ADMIN],
            "availabilityZones": 2,
            "privateAccessCidrs": ["10.40.0.0/16", "10.50.0.0/16"],
        },
    },
    "nodePools": [
        {
            "name": "h100-block",
            "gpu": "H100",
            "instanceType": "p5.48xlarge",
            "maxNodes": 4,
            "capacity": "capacity-block",
            "capacityReservationId": CR,
            "availabilityZone": "us-east-1d",
            "labels": {"team": "research"},
            "capacityBlockStart": "2031-01-05T11:30:00Z",
            "capacityBlockEnd": "2031-01-19T11:30:00Z",
        },
        {"name": "a100-efa", "gpu": "A100-40GB", "minNodes": 1, "maxNodes": 3, "desiredNodes": 2},
        {"name": "l40s-spot", "gpu": "L40S", "instanceType": "g6e.12xlarge", "maxNodes": 2, "capacity": "spot"},
        {
            "name": "t4-rocket",
            "gpu": "T4",
            "instanceType": "g4dn.12xlarge",
            "maxNodes": 6,
            "gpuStack": "device-plugin",
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
            "diskSizeGb": 100,
        },
    ],
    "deviceClasses": [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}],
    "namespaces": [
        {
            "name": "research",
            "migration": "dra-only",
            "claimTemplates": [{"name": "two", "deviceClass": "h100", "count": 2}],
        },
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
    model = pool_model(pool)
    efa = {"dra-gpu-platform.io/efa": "true"} if eks_plan.uses_efa(pool_shape("eks", model)) else {}
    assert group["labels"] == {**pool_labels(model), **efa}
    assert group["version"] == "1.35" and group["clusterName"] == "gpu-lab"


def test_dra_and_device_plugin_pools_get_opposite_operand_labels(run):
    dra = pool_resource(run, NODE_GROUP, "a100-efa")["labels"]
    plugin = pool_resource(run, NODE_GROUP, "t4-rocket")["labels"]
    assert dra["nvidia.com/gpu.deploy.device-plugin"] == "false" and dra["nvidia.com/dra-kubelet-plugin"] == "true"
    assert plugin["nvidia.com/gpu.deploy.device-plugin"] == "true" and "nvidia.com/dra-kubelet-plugin" not in plugin
    assert dra["dra-gpu-platform.io/gpu"] == "A100-40GB" and dra["dra-gpu-platform.io/gpu-stack"] == "dra"


def test_instance_types_come_from_the_pool_or_the_catalog(run):
    assert pool_resource(run, NODE_GROUP, "a100-efa")["instanceTypes"] == [
        "p4d.24xlarge"
    ]  # catalog default for A100-40GB
    assert pool_resource(run, NODE_GROUP, "l40s-spot")["instanceTypes"] == ["g6e.12xlarge"]
    assert pool_resource(run, NODE_GROUP, "t4-rocket")["instanceTypes"] == ["g4dn.12xlarge"]


def test_scaling_follows_min_max_desired_and_the_autoscaler_owns_the_size(run):
    assert pool_resource(run, NODE_GROUP, "a100-efa")["scalingConfig"] == {"minSize": 1, "maxSize": 3, "desiredSize": 2}
    assert pool_resource(run, NODE_GROUP, "t4-rocket")["scalingConfig"] == {
        "minSize": 0,
        "maxSize": 6,
        "desiredSize": 0,
    }
    assert registration(run, "gpu-lab-eks-pool-t4-rocket-nodes").options["ignoreChanges"] == [
        "scalingConfig.desiredSize"
    ]


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
    # the primary interface carries the node's IP address; the other 31 cards carry only EFA traffic
    assert [i["interfaceType"] for i in interfaces] == ["efa"] + ["efa-only"] * 31
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
    assert rocket == [
        {
            "deviceName": "/dev/xvdb",
            "ebs": {"volumeSize": 100, "volumeType": "gp3", "encrypted": "true", "deleteOnTermination": "true"},
        }
    ]
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
        tags = {
            r.inputs["tag"]["key"]: r for r in run.of_type(ASG_TAG) if r.name.startswith(f"gpu-lab-eks-pool-{pool}-")
        }
        expected = eks_plan.node_template_tags(clean_inputs(group)["tags"])
        if pool != "h100-block":  # autoscaled pools also carry the discovery tags (a Capacity Block pool is not)
            expected.update(eks_plan.discovery_tags("gpu-lab"))
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
    # no admin outside the program: whoever creates the cluster gets no access of their own (an access entry below)
    assert cluster["accessConfig"] == {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": False}
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
    # the VPC CNI's permissions live on its own Pod Identity role, not on the node role pods could reach
    assert sorted(p for n, p in policies.items() if "node-role" in n) == [
        "AmazonEC2ContainerRegistryReadOnly",
        "AmazonEKSWorkerNodePolicy",
    ]
    assert policies["gpu-lab-eks-core-addons-vpc-cni-role-AmazonEKS_CNI_Policy"] == "AmazonEKS_CNI_Policy"
    roles = by_name(run, "aws:iam/role:Role")
    assert '"eks.amazonaws.com"' in roles["gpu-lab-eks-cluster-role"]["assumeRolePolicy"]
    assert '"ec2.amazonaws.com"' in roles["gpu-lab-eks-node-role"]["assumeRolePolicy"]


def test_admin_roles_get_access_entries_with_the_cluster_admin_policy(run):
    entry = by_name(run, "aws:eks/accessEntry:AccessEntry")["gpu-lab-eks-access-platform-admins"]
    association = by_name(run, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")[
        "gpu-lab-eks-access-platform-admins-admin"
    ]
    assert entry["principalArn"] == ADMIN and entry["type"] == "STANDARD"
    assert association["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    assert association["accessScope"] == {"type": "cluster"} and association["principalArn"] == ADMIN


def test_the_deployer_viewers_and_namespace_editors_get_their_own_access_entries(run, tmp_path):
    entries = by_name(run, "aws:eks/accessEntry:AccessEntry")
    associations = by_name(run, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    # the deployer (the caller's role, not its session) is cluster admin in the deployers' group
    deployer = entries["gpu-lab-eks-deployer-access"]
    assert deployer["principalArn"] == f"arn:aws:iam::{FAKE_ACCOUNT}:role/offline-deployer"
    assert deployer["kubernetesGroups"] == ["dra-gpu-platform:deployers"]
    admin = associations["gpu-lab-eks-deployer-access-admin"]
    assert admin["policyArn"].endswith("/AmazonEKSClusterAdminPolicy") and admin["accessScope"] == {"type": "cluster"}
    provider = next(r for r in run.of_type(K8S_PROVIDER))
    assert registration(run, "gpu-lab-eks-deployer-access-admin").urn in provider.dependencies

    config = copy.deepcopy(STACK)
    viewer, editor, deployer_arn = (f"arn:aws:iam::{FAKE_ACCOUNT}:role/{n}" for n in ("auditors", "ml-team", "ci"))
    config["cluster"]["eks"].update(
        deployerRoleArn=deployer_arn,
        viewerRoleArns=[viewer],
        namespaceEditors=[{"roleArn": editor, "namespaces": ["research", "legacy"]}],
    )
    tiers = run_config(tmp_path, config, stack="lab")
    entries = by_name(tiers, "aws:eks/accessEntry:AccessEntry")
    associations = by_name(tiers, "aws:eks/accessPolicyAssociation:AccessPolicyAssociation")
    assert entries["gpu-lab-eks-deployer-access"]["principalArn"] == deployer_arn
    view = associations["gpu-lab-eks-access-auditors-AmazonEKSViewPolicy"]
    assert view["principalArn"] == viewer and view["accessScope"] == {"type": "cluster"}
    edit = associations["gpu-lab-eks-access-ml-team-AmazonEKSEditPolicy"]
    assert edit["policyArn"] == "arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy"
    assert edit["accessScope"] == {"type": "namespace", "namespaces": ["legacy", "research"]}


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


def test_without_protect_nothing_is_protected():
    config = copy.deepcopy(STACK)
    config["cluster"]["protect"] = False
    config["nodePools"] = [config["nodePools"][2]]
    config["deviceClasses"] = []
    config["namespaces"] = []
    unprotected = cluster_alone(config, "lab")
    assert not any(r.protect for r in unprotected.resources)
    assert by_name(unprotected, CLUSTER)["gpu-lab-eks-eks"]["deletionProtection"] is False


def test_timeouts(run):
    assert registration(run, "gpu-lab-eks-eks").options["customTimeouts"] == {
        "create": "30m",
        "update": "30m",
        "delete": "30m",
    }
    for group in run.of_type(NODE_GROUP):
        assert group.options["customTimeouts"] == {"create": "60m", "update": "60m", "delete": "60m"}, group.name


@pytest.mark.parametrize("fixture", ["run", "prod"])
def test_every_kubernetes_resource_uses_the_clusters_provider(request, fixture):
    program = request.getfixturevalue(fixture)
    providers = program.of_type(K8S_PROVIDER)
    assert len(providers) == 1 and providers[0].parent.endswith(
        "$dra-gpu-platform:cluster:EksCluster::" + providers[0].name.removesuffix("-k8s")
    )
    kubernetes = [r for r in program.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes
    assert {r.provider for r in kubernetes} == {providers[0].urn}


def test_provider_waits_for_system_nodes_and_gets_a_secret_kubeconfig(run):
    provider = run.of_type(K8S_PROVIDER)[0]
    assert clean_inputs(provider)["kubeconfig"] == "[secret]"
    assert clean({"k": run.outputs["kubeconfig"]}) == {"k": "[secret]"}  # exported as a secret
    assert registration(run, "gpu-lab-eks-system-nodes").urn in provider.dependencies
    assert clean_inputs(registration(run, "gpu-lab-eks-system-nodes"))["labels"] == {
        "dra-gpu-platform.io/role": "system"
    }
    kubeconfig = yaml.safe_load(provider.inputs["kubeconfig"]["value"])
    cluster = registration(run, "gpu-lab-eks-eks").state
    assert kubeconfig["clusters"][0]["cluster"] == {
        "server": cluster["endpoint"],
        "certificate-authority-data": cluster["certificateAuthority"]["data"],
    }
    assert kubeconfig["users"][0]["user"]["exec"]["args"][:6] == [
        "eks",
        "get-token",
        "--cluster-name",
        "gpu-lab",
        "--region",
        "us-east-1",
    ]


# ---------------------------------------------------------------------------------------------- identity


def test_changing_one_pools_instance_type_or_gpu_changes_no_other_urn(prod, tmp_path):
    config = load_committed("prod")
    pools = {p["name"]: p for p in config["nodePools"]}
    pools["h100-infer"]["instanceType"] = "p5.48xlarge"  # now with EFA and a placement group
    pools["h100-infer"]["availabilityZone"] = "us-east-1b"
    pools["t4-legacy"]["gpu"] = "L4"  # the catalog picks g6.xlarge
    changed = run_config(tmp_path, config, stack="prod")

    def outside(program):
        return {
            r.urn
            for r in program.resources
            if not r.name.startswith(("gpu-prod-eks-pool-h100-infer", "gpu-prod-eks-pool-t4-legacy"))
        }

    assert outside(changed) == outside(prod)
    assert by_name(changed, NODE_GROUP)["gpu-prod-eks-pool-t4-legacy-nodes"]["instanceTypes"] == ["g6.xlarge"]
    for pool in ("h100-infer", "t4-legacy"):
        for role in ("nodes", "launch-template"):
            logical = f"gpu-prod-eks-pool-{pool}-{role}"
            assert (
                registration(changed, logical).urn == registration(prod, logical).urn
            )  # the pool's own resources keep their identity too


# ---------------------------------------------------------------------------------------------- issue 15

ADDON = "aws:eks/addon:Addon"
RELEASE = "kubernetes:helm.sh/v3:Release"


def test_private_access_cidrs_open_443_on_the_cluster_security_group_before_kubernetes_objects(run):
    rules = by_name(run, "aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")
    cluster_sg = registration(run, "gpu-lab-eks-eks").state["vpcConfig"]["clusterSecurityGroupId"]
    assert {r["cidrIpv4"] for r in rules.values()} == {"10.40.0.0/16", "10.50.0.0/16"}
    assert all(
        (r["securityGroupId"], r["ipProtocol"], r["fromPort"], r["toPort"]) == (cluster_sg, "tcp", 443, 443)
        for r in rules.values()
    )
    provider = registration(run, "gpu-lab-eks-k8s")
    assert {r.urn for r in run.of_type("aws:vpc/securityGroupIngressRule:SecurityGroupIngressRule")} <= set(
        provider.dependencies
    )


def test_managed_addons_replace_the_self_managed_ones_without_replacing_the_cluster(run):
    cluster = registration(run, "gpu-lab-eks-eks")
    assert cluster.inputs["bootstrapSelfManagedAddons"] is False
    # both force a new cluster and only matter at creation: an existing cluster keeps what it was created with
    assert sorted(cluster.options["ignoreChanges"]) == [
        "accessConfig.bootstrapClusterCreatorAdminPermissions",
        "bootstrapSelfManagedAddons",
    ]
    addons = {r.inputs["addonName"]: r for r in run.of_type(ADDON)}
    assert set(addons) == {"eks-pod-identity-agent", "vpc-cni", "kube-proxy", "coredns", "aws-ebs-csi-driver"}
    assert addons["kube-proxy"].inputs["addonVersion"] == "v1.35.3-eksbuild.13"
    assert "addonVersion" not in clean_inputs(addons["vpc-cni"])  # no public 1.35 table: the EKS default
    assert {a.inputs["resolveConflictsOnCreate"] for a in addons.values()} == {"OVERWRITE"}
    assert {n for n, a in addons.items() if a.inputs.get("preserve")} == {"vpc-cni", "kube-proxy", "coredns"}
    # nodes (system and GPU) wait for the CNI, its credentials and kube-proxy; CoreDNS and EBS CSI wait for nodes
    core = {addons[n].urn for n in ("eks-pod-identity-agent", "vpc-cni", "kube-proxy")}
    for group in run.of_type(NODE_GROUP):
        assert core <= set(group.dependencies), group.name
    system = registration(run, "gpu-lab-eks-system-nodes").urn
    assert system in addons["coredns"].dependencies and system in addons["aws-ebs-csi-driver"].dependencies


def test_vpc_cni_and_ebs_csi_credentials_come_through_pod_identity(run):
    addons = {r.inputs["addonName"]: clean_inputs(r) for r in run.of_type(ADDON)}
    roles = {r.state["arn"]: clean_inputs(r) for r in run.of_type("aws:iam/role:Role")}
    cluster_arn = registration(run, "gpu-lab-eks-eks").state["arn"]
    for name, account in (("vpc-cni", "aws-node"), ("aws-ebs-csi-driver", "ebs-csi-controller-sa")):
        (association,) = addons[name]["podIdentityAssociations"]
        assert association["serviceAccount"] == account
        (trust,) = json.loads(roles[association["roleArn"]]["assumeRolePolicy"])["Statement"]
        assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"} and "sts:TagSession" in trust["Action"]
        # only this cluster's kube-system/<account> may assume the role
        assert trust["Condition"] == {
            "StringEquals": {
                "aws:RequestTag/eks-cluster-arn": cluster_arn,
                "aws:RequestTag/kubernetes-namespace": "kube-system",
                "aws:RequestTag/kubernetes-service-account": account,
            }
        }
    # the VPC CNI enforces NetworkPolicies (the tenants' default deny)
    assert json.loads(addons["vpc-cni"]["configurationValues"]) == {"enableNetworkPolicy": "true"}
    for name in ("coredns", "kube-proxy", "eks-pod-identity-agent"):
        assert "podIdentityAssociations" not in addons[name]


def test_imds_allows_one_hop_and_nodes_are_repaired(run):
    for template in run.of_type(LAUNCH_TEMPLATE):
        assert template.inputs["metadataOptions"] == {
            "httpEndpoint": "enabled",
            "httpTokens": "required",
            "httpPutResponseHopLimit": 1,
        }
    for group in run.of_type(NODE_GROUP):
        assert group.inputs["nodeRepairConfig"] == {"enabled": True}, group.name


def test_al2023_pools_raid0_their_nvme_instance_store_and_bottlerocket_does_not(run):
    from dra_gpu_platform.plans import node_hardening

    al2023 = node_hardening.gpu_user_data("AL2023_x86_64_NVIDIA", raid0=True)
    assert pool_resource(run, LAUNCH_TEMPLATE, "a100-efa")["userData"] == node_hardening.encoded(al2023 or "")
    # Bottlerocket: no nodeadm, no RAID0; its toolkit settings written out
    bottlerocket = node_hardening.bottlerocket_user_data(host_dra_driver=False)
    assert pool_resource(run, LAUNCH_TEMPLATE, "t4-rocket")["userData"] == node_hardening.encoded(bottlerocket)
    assert any("left unused on Bottlerocket" in message for _, message in run.logs)


def test_control_plane_logs_go_to_a_group_with_a_retention_created_first(run):
    group = registration(run, "gpu-lab-eks-control-plane-logs")
    assert clean_inputs(group) == {
        "name": "/aws/eks/gpu-lab/cluster",
        "retentionInDays": 90,
        "tags": {"dra-gpu-platform.io/cluster": "gpu-lab"},
    }
    assert group.urn in registration(run, "gpu-lab-eks-eks").dependencies and group.protect


def test_the_cluster_autoscaler_runs_at_the_clusters_minor_with_a_pod_identity_role(run):
    release = registration(run, "gpu-lab-eks-autoscaler-release")
    values = release.inputs["values"]
    assert (release.inputs["chart"], release.inputs["version"], values["image"]["tag"]) == (
        "cluster-autoscaler",
        "9.59.0",
        "v1.35.2",
    )
    assert release.inputs["namespace"] == "kube-system" and release.provider.endswith("::gpu-lab-eks-k8s")
    association = clean_inputs(registration(run, "gpu-lab-eks-autoscaler-pod-identity"))
    assert (association["namespace"], association["serviceAccount"]) == (
        "kube-system",
        values["rbac"]["serviceAccount"]["name"],
    )
    policy = registration(run, "gpu-lab-eks-autoscaler-policy")
    assert {registration(run, "gpu-lab-eks-autoscaler-pod-identity").urn, policy.urn} <= set(release.dependencies)
    assert '"aws:ResourceTag/k8s.io/cluster-autoscaler/gpu-lab": "owned"' in policy.inputs["policy"]
    # the autoscaler can only find pools that carry every discovery tag on their Auto Scaling group
    discovery = eks_plan.discovery_tags("gpu-lab")
    tagged = {
        r.name.split("-asg-tag-")[0]
        for r in run.of_type(ASG_TAG)
        if r.inputs["tag"]["key"] == "dra-gpu-platform.io/autoscaled"
    }
    assert tagged == {"gpu-lab-eks-pool-a100-efa", "gpu-lab-eks-pool-l40s-spot", "gpu-lab-eks-pool-t4-rocket"}
    assert values["autoDiscovery"]["tags"] == [f"{k}={v}" for k, v in discovery.items()]


def test_the_capacity_block_scales_on_its_window_and_not_with_the_autoscaler(run):
    group = pool_resource(run, NODE_GROUP, "h100-block")
    assert group["scalingConfig"] == {"minSize": 0, "maxSize": 4, "desiredSize": 0}
    schedules = {r.name: clean_inputs(r) for r in run.of_type("aws:autoscaling/schedule:Schedule")}
    assert schedules == {
        "gpu-lab-eks-pool-h100-block-schedule-block-start": {
            "scheduledActionName": "h100-block-block-start",
            "autoscalingGroupName": schedules["gpu-lab-eks-pool-h100-block-schedule-block-start"][
                "autoscalingGroupName"
            ],
            "startTime": "2031-01-05T11:30:00Z",
            "desiredCapacity": 4,
            "minSize": -1,
            "maxSize": -1,
        },
        "gpu-lab-eks-pool-h100-block-schedule-block-end": {
            "scheduledActionName": "h100-block-block-end",
            "autoscalingGroupName": schedules["gpu-lab-eks-pool-h100-block-schedule-block-start"][
                "autoscalingGroupName"
            ],
            "startTime": "2031-01-19T10:30:00Z",
            "desiredCapacity": 0,
            "minSize": -1,
            "maxSize": -1,
        },
    }
    asg = registration(run, "gpu-lab-eks-pool-h100-block-nodes").state["resources"][0]["autoscalingGroups"][0]["name"]
    assert {s["autoscalingGroupName"] for s in schedules.values()} == {asg}


def test_the_efa_device_plugin_lands_on_efa_pools_through_their_taint(run, prod):
    (release,) = [r for r in run.of_type(RELEASE) if r.inputs["chart"] == "aws-efa-k8s-device-plugin"]
    assert (release.inputs["version"], release.inputs["repositoryOpts"]["repo"]) == (
        "v0.5.30",
        "https://aws.github.io/eks-charts",
    )
    assert release.inputs["values"] == {
        "nodeSelector": {"dra-gpu-platform.io/efa": "true"},
        "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
    }
    efa_pools = {n for n, r in by_name(run, NODE_GROUP).items() if r["labels"].get("dra-gpu-platform.io/efa") == "true"}
    assert efa_pools == {"gpu-lab-eks-pool-h100-block-nodes", "gpu-lab-eks-pool-a100-efa-nodes"}
    assert any(r.inputs["chart"] == "aws-efa-k8s-device-plugin" for r in prod.of_type(RELEASE))


def test_a_protected_stack_protects_what_holds_data_or_tenants(run):
    protected = {r.name for r in run.resources if r.protect}
    assert {
        "gpu-lab-eks-secrets-key",
        "gpu-lab-eks-cluster-role",
        "gpu-lab-eks-node-role",
        "gpu-lab-eks-control-plane-logs",
        "gpu-lab-eks-autoscaler-role",
        "gpu-lab-eks-autoscaler-release",
        "gpu-lab-eks-efa-device-plugin-release",
        "gpu-lab-eks-core-addons-vpc-cni-role",
        "gpu-lab-eks-addons-aws-ebs-csi-driver-role",
    } <= protected
    for type_ in (
        "kubernetes:core/v1:Namespace",
        "kubernetes:core/v1:ResourceQuota",
        RELEASE,
        "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate",
        NODE_GROUP,
        CLUSTER,
        "aws:kms/key:Key",
    ):
        resources = run.of_type(type_)
        assert resources and all(r.protect for r in resources), type_
    tenants = [r for r in run.of_type("kubernetes:core/v1:Namespace") if "-ns-" in r.name]
    assert tenants and all(r.options.get("retainOnDelete") for r in tenants)
