"""EKS planning decisions (dra_gpu_platform/plans/eks.py), without Pulumi: AMI and capacity types, EFA interfaces,
autoscaler node templates, VPC zones and subnets, IAM ARNs, the kubeconfig."""

from __future__ import annotations

import ipaddress

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.facts import catalog, eks_amis
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.node_pools import PoolPlan, plan_pool, pool_labels
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import ROOT, STACKS_DIR


def config_pool(**fields) -> NodePool:
    return NodePool.model_validate({"name": "p", "gpu": "H100", "maxNodes": 2, **fields})


def pool(**fields) -> PoolPlan:
    """One stack pool as EKS plans it, with the cluster autoscaler on."""
    return plan_pool(config_pool(**fields), "eks", autoscaler=True)


def node_group(window=None, bridge: bool = False, **fields) -> eks_plan.EksNodeGroupPlan:
    return eks_plan.node_group_plan("c", pool(**fields), window, bridge)


def shape(name: str):
    return catalog.instance_type("eks", name)


def test_gpu_pools_default_to_al2023_nvidia_and_bottlerocket_only_when_asked():
    assert pool().ami_type == "AL2023_x86_64_NVIDIA"
    assert pool(amiType="BOTTLEROCKET_x86_64_NVIDIA").ami_type == "BOTTLEROCKET_x86_64_NVIDIA"
    assert not any(ami.startswith("AL2_") for ami in eks_amis.GPU_POOL_AMI_TYPES)
    assert eks_amis.root_device_name("BOTTLEROCKET_x86_64_NVIDIA") == "/dev/xvdb"
    assert eks_amis.root_device_name("AL2023_x86_64_NVIDIA") == "/dev/xvda"


@pytest.mark.parametrize(
    "capacity, expected", [("on-demand", "ON_DEMAND"), ("spot", "SPOT"), ("capacity-block", "CAPACITY_BLOCK")]
)
def test_capacity_types_use_the_eks_api_enum(capacity, expected):
    assert eks_plan.capacity_type(capacity) == expected
    extra = {"capacityReservationId": "cr-0123456789abcdef0"} if capacity == "capacity-block" else {}
    assert node_group(capacity=capacity, **extra).capacity_type == expected


def test_p5_48xlarge_gets_one_efa_interface_per_network_card():
    interfaces = eks_plan.efa_interfaces(shape("p5.48xlarge"))
    assert len(interfaces) == 32
    assert [i.network_card_index for i in interfaces] == list(range(32))
    assert interfaces[0].device_index == 0 and {i.device_index for i in interfaces[1:]} == {1}


@pytest.mark.parametrize(
    "name, count",
    [
        ("p5e.48xlarge", 32),
        ("p5en.48xlarge", 16),
        ("p4d.24xlarge", 4),
        ("p4de.24xlarge", 4),
        ("p5.4xlarge", 0),
        ("g4dn.12xlarge", 0),
        ("g6e.48xlarge", 0),
    ],
)
def test_efa_only_on_the_p4d_p5_families(name, count):
    assert len(eks_plan.efa_interfaces(shape(name))) == count


def test_reserved_capacity_gets_no_placement_group():
    p5 = {"instanceType": "p5.48xlarge"}
    assert eks_plan.uses_placement_group(pool(**p5)) and node_group(**p5).placement_group
    assert not eks_plan.uses_placement_group(
        pool(
            capacity="capacity-block", capacityReservationId="cr-0123456789abcdef0", availabilityZone="us-east-1a", **p5
        )
    )
    assert not eks_plan.uses_placement_group(pool(capacityReservationId="cr-0123456789abcdef0", **p5))  # targeted ODCR
    assert not eks_plan.uses_placement_group(pool(instanceType="p5.4xlarge"))


def test_autoscaler_tags_describe_labels_taint_and_gpus_of_a_device_plugin_pool():
    t4 = {
        "name": "t4",
        "gpu": "T4",
        "gpuStack": "device-plugin",
        "labels": {"team": "ml"},
        "instanceType": "g4dn.12xlarge",
    }
    tags = eks_plan.autoscaler_tags("gpu-prod", pool(**t4), extended_resource_bridge=False)
    template = "k8s.io/cluster-autoscaler/node-template"
    assert tags["k8s.io/cluster-autoscaler/enabled"] == "true" and tags["k8s.io/cluster-autoscaler/gpu-prod"] == "owned"
    labels = {k.removeprefix(f"{template}/label/"): v for k, v in tags.items() if "/label/" in k}
    assert labels == pool_labels(config_pool(**t4)) == pool(**t4).labels
    assert tags[f"{template}/taint/nvidia.com/gpu"] == "present:NoSchedule"
    assert tags[f"{template}/resources/nvidia.com/gpu"] == "4"
    assert set(eks_plan.node_template_tags(tags)) == {k for k in tags if k.startswith(f"{template}/")}


def test_dra_pools_do_not_offer_nvidia_com_gpu_to_the_autoscaler_unless_bridged():
    dra = pool(name="h100", instanceType="p5.48xlarge")
    key = "k8s.io/cluster-autoscaler/node-template/resources/nvidia.com/gpu"
    assert key not in eks_plan.autoscaler_tags("c", dra, extended_resource_bridge=False)
    assert eks_plan.autoscaler_tags("c", dra, extended_resource_bridge=True)[key] == "8"


def test_mig_device_plugin_pool_offers_slices():
    mig = pool(gpu="A100-80GB", gpuStack="device-plugin", mig={"profile": "3g.40gb"}, instanceType="p4de.24xlarge")
    assert eks_plan.gpus_per_node_resource(mig) == 16  # 8 GPUs x two 3g.40gb


def test_vpc_zones_include_pinned_zones_then_fill_in_region_order():
    available = ["us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"]
    assert eks_plan.vpc_zones(available, 3, []) == ["us-east-1a", "us-east-1b", "us-east-1c"]
    assert eks_plan.vpc_zones(available, 2, ["us-east-1f"]) == ["us-east-1a", "us-east-1f"]
    assert eks_plan.vpc_zones(available, 2, ["us-east-1d", "us-east-1f", "us-east-1c"]) == [
        "us-east-1c",
        "us-east-1d",
        "us-east-1f",
    ]
    with pytest.raises(ValueError, match="us-east-1e"):
        eks_plan.vpc_zones(available, 3, ["us-east-1e"])


@given(st.integers(min_value=1, max_value=7), st.sampled_from(["10.0.0.0/16", "172.16.0.0/12", "10.42.0.0/20"]))
def test_subnet_plan_never_overlaps_and_stays_in_the_vpc(zones, cidr):
    plan = eks_plan.subnet_plan(cidr, [f"zone-{i}" for i in range(zones)])
    vpc = ipaddress.IPv4Network(cidr)
    subnets = [ipaddress.IPv4Network(s) for z in plan for s in (z.private_cidr, z.public_cidr)]
    assert all(s.subnet_of(vpc) for s in subnets)
    assert all(not a.overlaps(b) for i, a in enumerate(subnets) for b in subnets[i + 1 :])
    assert all(
        ipaddress.IPv4Network(z.private_cidr).num_addresses > ipaddress.IPv4Network(z.public_cidr).num_addresses
        for z in plan
    )


def test_iam_arns_follow_the_partition():
    assert (
        eks_plan.managed_policy_arn("us-east-1", "AmazonEKSClusterPolicy")
        == "arn:aws:iam::aws:policy/AmazonEKSClusterPolicy"
    )
    assert eks_plan.managed_policy_arn("cn-north-1", "AmazonEKS_CNI_Policy").startswith("arn:aws-cn:iam::aws:policy/")
    assert (
        eks_plan.access_policy_arn("us-gov-west-1")
        == "arn:aws-us-gov:eks::aws:cluster-access-policy/AmazonEKSClusterAdminPolicy"
    )
    assert eks_plan.role_name_of("arn:aws:iam::123456789012:role/ops/platform-admins") == "platform-admins"
    trust = eks_plan.assume_role_policy("eks.amazonaws.com")
    assert trust["Statement"] == [
        {"Effect": "Allow", "Principal": {"Service": "eks.amazonaws.com"}, "Action": "sts:AssumeRole"}
    ]


def test_kubeconfig_authenticates_with_aws_eks_get_token():
    document = yaml.safe_load(
        eks_plan.kubeconfig("gpu-prod", "https://ABC.gr7.us-east-1.eks.amazonaws.com", "Q0E=", "us-east-1")
    )
    assert document["clusters"][0]["cluster"] == {
        "server": "https://ABC.gr7.us-east-1.eks.amazonaws.com",
        "certificate-authority-data": "Q0E=",
    }
    assert document["current-context"] == "gpu-prod"
    exec_config = document["users"][0]["user"]["exec"]
    assert exec_config["command"] == "aws"
    assert exec_config["args"][:2] == ["eks", "get-token"]
    args = exec_config["args"]
    assert args[args.index("--cluster-name") + 1] == "gpu-prod" and args[args.index("--region") + 1] == "us-east-1"
    assert "token" not in str(document["users"][0]["user"].keys())  # no static credential in the state


def docs_rows(stack: str) -> dict[str, list[str]]:
    """pool → cells of its row in the table of `stack` in docs/clouds.md ("What each pool can grow to")."""
    text = (ROOT / "docs" / "clouds.md").read_text(encoding="utf-8")
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"### `{stack}` ("))
    table = []
    for line in lines[start + 1 :]:
        if line.startswith("|"):
            table.append(line)
        elif table:
            break
    rows = {}
    for line in table[2:]:
        cells = [c.strip().strip("`") for c in line.strip("|").split("|")]
        rows[cells[0]] = cells
    return rows


def test_docs_give_each_prod_pool_its_instance_type_and_gpus_at_max_scale():
    config = load_stack_file(STACKS_DIR / "Pulumi.prod.yaml")
    rows = docs_rows("prod")
    assert set(rows) == {p.name for p in config.node_pools} | {"system"}
    plan = plan_stack(config)
    for p in plan.pools:
        assert p.shape is not None
        assert rows[p.name][1:6] == [
            p.instance_type,
            f"{p.gpus_per_node} × {p.gpu}",
            str(p.max_nodes),
            str(p.max_gpus),
            str(p.shape.vcpus * p.max_nodes),
        ], p.name
    assert rows["system"][1] == plan.cluster.system_nodes.instance_type


# ---------------------------------------------------------------------------------------------- issue 15


def test_efa_on_card_0_and_efa_only_on_the_other_cards():
    interfaces = eks_plan.efa_interfaces(shape("p5.48xlarge"))
    assert [(i.network_card_index, i.device_index, i.interface_type) for i in interfaces[:3]] == [
        (0, 0, "efa"),
        (1, 1, "efa-only"),
        (2, 1, "efa-only"),
    ]
    assert [i.interface_type for i in eks_plan.efa_interfaces(shape("p5en.48xlarge"))].count("efa") == 1


def _mime_parts(user_data: str | None) -> list:
    import base64
    import email

    assert user_data is not None
    message = email.message_from_bytes(base64.b64decode(user_data))
    assert message.is_multipart() and message.get_content_type() == "multipart/mixed"
    return message.get_payload()


TOOLKIT_SET = (
    "nvidia-ctk config --config-file /etc/nvidia-container-runtime/config.toml --in-place "
    "--set accept-nvidia-visible-devices-envvar-when-unprivileged=false"
)


@pytest.mark.parametrize(
    "fields, raid",
    [
        ({"instanceType": "p5.48xlarge"}, True),  # NVMe instance store: RAID0
        ({"instanceType": "g6.xlarge", "gpu": "L4"}, True),
        ({"instanceType": "g6e.xlarge", "gpu": "L40S"}, True),
        ({"instanceType": "p5.4xlarge"}, True),
        ({"instanceType": "g5.xlarge", "gpu": "A10G", "gpuStack": "device-plugin"}, True),
        # an unlisted type without instance-store disks: the toolkit script alone
        (
            {
                "instanceType": "g7.16xlarge",
                "gpu": "L4",
                "allowUnlisted": True,
                "instanceFacts": {"gpus": 4, "vcpu": 64, "memory": "256Gi"},
            },
            False,
        ),
    ],
)
def test_every_al2023_nvidia_pool_hardens_the_toolkit_before_the_node_joins(fields, raid):
    """The toolkit script is the last part of every AL2023 NVIDIA pool's MIME user data (RAID0 NodeConfig first where
    the instance has NVMe disks): nodeadm reads only the NodeConfig parts, cloud-init runs the script."""
    group = node_group(**fields)
    parts = _mime_parts(group.user_data)
    script = parts[-1]
    assert script.get_content_type() == "text/x-shellscript"
    body = script.get_payload()
    assert body.startswith("#!/bin/bash\n") and "set -euo pipefail" in body and TOOLKIT_SET in body
    assert "grep -Eq" in body  # the script checks the file it wrote
    node_configs = [yaml.safe_load(p.get_payload()) for p in parts[:-1]]
    assert eks_plan.uses_local_raid(group.pool) is raid
    if raid:
        assert node_configs == [
            {
                "apiVersion": "node.eks.aws/v1alpha1",
                "kind": "NodeConfig",
                "spec": {"instance": {"localStorage": {"strategy": "RAID0"}}},
            }
        ]
    else:
        assert node_configs == []


def test_the_user_data_of_the_arm64_nvidia_ami_hardens_the_toolkit_too():
    from dra_gpu_platform.plans import node_hardening

    user_data = node_hardening.gpu_user_data("AL2023_ARM_64_NVIDIA")
    assert user_data is not None and node_hardening.al2023_hardens_toolkit(user_data)
    assert node_hardening.gpu_user_data("AL2023_x86_64_STANDARD") is None  # no NVIDIA toolkit there


def _settings(user_data: str | None) -> dict:
    import base64
    import tomllib

    assert user_data is not None
    return tomllib.loads(base64.b64decode(user_data).decode())


TOOLKIT_SETTINGS = {
    "nvidia-container-runtime": {
        "visible-devices-as-volume-mounts": True,
        "visible-devices-envvar-when-unprivileged": False,
    }
}


def test_a_bottlerocket_dra_pool_turns_the_device_plugin_off_and_the_host_dra_driver_on():
    # bottlerocket-core-kit nvidia-dra-driver-gpu-enabled-marker: the host service runs only with exactly these two;
    # the toolkit's settings are Bottlerocket's safe defaults, written out (no RAID0: no nodeadm on Bottlerocket)
    group = node_group(amiType="BOTTLEROCKET_x86_64_NVIDIA", instanceType="p5.48xlarge")
    assert _settings(group.user_data) == {
        "settings": {
            **TOOLKIT_SETTINGS,
            "kubelet-device-plugins": {"nvidia": {"enabled": False}},
            "kubelet-dra-drivers": {"nvidia": {"enabled": True}},
        }
    }
    assert group.pool.host_dra_driver and not group.pool.ships_device_plugin
    # the chart's kubelet plugin selects nvidia.com/dra-kubelet-plugin=true: these nodes must not carry it
    assert "nvidia.com/dra-kubelet-plugin" not in group.pool.labels
    assert group.pool.labels["nvidia.com/gpu.deploy.device-plugin"] == "false"
    assert group.pool.labels["dra-gpu-platform.io/gpu-stack"] == "dra"


def test_a_bottlerocket_device_plugin_pool_keeps_its_plugin_and_writes_the_toolkit_settings():
    group = node_group(
        amiType="BOTTLEROCKET_x86_64_NVIDIA", gpuStack="device-plugin", instanceType="g4dn.xlarge", gpu="T4"
    )
    assert _settings(group.user_data) == {"settings": TOOLKIT_SETTINGS}
    assert group.pool.ships_device_plugin and not group.pool.host_dra_driver
    al2023 = node_group(instanceType="p5.4xlarge").pool
    assert al2023.labels["nvidia.com/dra-kubelet-plugin"] == "true" and not al2023.host_dra_driver


def test_an_autoscaled_pool_carries_the_discovery_tags_on_its_group_and_a_capacity_block_does_not():
    scaled = node_group(minNodes=1)
    assert scaled.pool.autoscaled and scaled.asg_tags.items() >= eks_plan.discovery_tags("c").items()
    assert (scaled.pool.min_nodes, scaled.pool.max_nodes, scaled.pool.desired_nodes) == (1, 2, 1)
    plan = node_group(
        capacity="capacity-block",
        capacityReservationId="cr-0123456789abcdef0",
        availabilityZone="us-east-1a",
        maxNodes=4,
    )
    block = plan.pool
    assert not block.autoscaled and not set(plan.asg_tags) & set(eks_plan.discovery_tags("c"))
    assert (block.min_nodes, block.max_nodes, block.desired_nodes, plan.schedules) == (0, 4, 4, ())  # sized by it


def test_a_capacity_block_window_schedules_the_pool_up_at_the_start_and_to_zero_before_the_end():
    block = config_pool(
        capacity="capacity-block",
        capacityReservationId="cr-0123456789abcdef0",
        availabilityZone="us-east-1a",
        maxNodes=4,
        capacityBlockStart="2031-01-05T11:30:00+00:00",
        capacityBlockEnd="2031-01-19T13:30:00+02:00",
    )
    window = (block.capacity_block_start, block.capacity_block_end)
    plan = eks_plan.node_group_plan("c", plan_pool(block, "eks", autoscaler=True), window)
    assert plan.pool.desired_nodes == 0
    start, end = plan.schedules
    assert (start.start_time, start.desired, start.min_size, start.max_size) == ("2031-01-05T11:30:00Z", 4, -1, -1)
    assert (end.start_time, end.desired) == ("2031-01-19T10:30:00Z", 0)  # 11:30Z end, an hour of lead


def test_efa_pools_advertise_efa_to_the_autoscaler_and_carry_the_plugin_label():
    tags = eks_plan.autoscaler_tags("c", pool(instanceType="p5.48xlarge"), False)
    assert tags[f"{eks_plan.NODE_TEMPLATE}/resources/vpc.amazonaws.com/efa"] == "32"
    assert tags[f"{eks_plan.NODE_TEMPLATE}/label/dra-gpu-platform.io/efa"] == "true"
    assert "dra-gpu-platform.io/efa" not in pool(instanceType="p5.4xlarge").labels
    # the EFA marker is an EKS label: the same pool on kind has none
    assert "dra-gpu-platform.io/efa" not in plan_pool(config_pool(instanceType="p5.48xlarge"), "kind").labels


@pytest.mark.parametrize(
    "minor, image, dra_flag", [("1.34", "v1.34.5", True), ("1.35", "v1.35.2", None), ("1.36", "v1.36.1", None)]
)
def test_the_autoscaler_runs_at_the_clusters_minor_with_dra_on(minor, image, dra_flag):
    plan = eks_plan.autoscaler_plan("gpu-prod", "us-east-1", minor, None)
    values = plan.release.values
    assert values["image"]["tag"] == image and values["awsRegion"] == "us-east-1" and values["cloudProvider"] == "aws"
    # 1.34 needs the flag; from 1.35 it is locked on and must not be passed
    assert values["extraArgs"].get("enable-dynamic-resource-allocation") == dra_flag
    assert values["autoDiscovery"]["tags"] == [
        "k8s.io/cluster-autoscaler/enabled=true",
        "k8s.io/cluster-autoscaler/gpu-prod=owned",
        "dra-gpu-platform.io/autoscaled=true",
    ]
    assert values["rbac"]["serviceAccount"]["name"] == plan.service_account == "cluster-autoscaler"
    assert (plan.release.chart, plan.release.version) == ("cluster-autoscaler", "9.59.0")
    assert (
        eks_plan.autoscaler_plan("gpu-prod", "us-east-1", minor, f"{minor}.0").release.values["image"]["tag"]
        == f"v{minor}.0"
    )


def test_the_autoscaler_may_scale_only_this_clusters_groups():
    scale = next(
        s
        for s in eks_plan.autoscaler_policy("gpu-prod")["Statement"]
        if "autoscaling:SetDesiredCapacity" in s["Action"]
    )
    # EKS puts the owner tag on every managed node group (the system nodes' too): the platform's own marker, which
    # only autoscaled pools carry, must match as well.
    assert scale["Condition"] == {
        "StringEquals": {
            "aws:ResourceTag/k8s.io/cluster-autoscaler/gpu-prod": "owned",
            "aws:ResourceTag/dra-gpu-platform.io/autoscaled": "true",
        }
    }
    arn = "arn:aws:eks:us-east-1:123456789012:cluster/gpu-prod"
    trust = eks_plan.pod_identity_trust_policy(arn, "kube-system", "cluster-autoscaler")["Statement"][0]
    assert trust["Principal"] == {"Service": "pods.eks.amazonaws.com"} and trust["Action"] == [
        "sts:AssumeRole",
        "sts:TagSession",
    ]
    # only this cluster's service account may assume it: the session tags EKS Pod Identity attaches
    assert trust["Condition"] == {
        "StringEquals": {
            "aws:RequestTag/eks-cluster-arn": arn,
            "aws:RequestTag/kubernetes-namespace": "kube-system",
            "aws:RequestTag/kubernetes-service-account": "cluster-autoscaler",
        }
    }


def test_every_supported_minor_has_an_entry_for_every_addon_and_credentials_go_through_pod_identity():
    from dra_gpu_platform.facts import eks_addons, kubernetes

    for minor in kubernetes.offered_minors("eks", kubernetes.CHECKED):  # 1.37 is not offered by EKS
        plans = {a.name: a for a in eks_plan.addon_plans(minor, "us-east-1")}
        assert set(plans) == {"vpc-cni", "kube-proxy", "coredns", "eks-pod-identity-agent", "aws-ebs-csi-driver"}
        assert all(minor in a.versions for a in eks_addons.ADDONS)
        assert plans["kube-proxy"].version.startswith(f"v{minor}.")  # kube-proxy follows the cluster minor
        assert {n for n, a in plans.items() if a.before_compute} == {"vpc-cni", "kube-proxy", "eks-pod-identity-agent"}
        assert plans["vpc-cni"].service_account == ("kube-system", "aws-node")
        assert plans["vpc-cni"].policy_arn == "arn:aws:iam::aws:policy/AmazonEKS_CNI_Policy"
        assert plans["aws-ebs-csi-driver"].policy_arn == "arn:aws:iam::aws:policy/service-role/AmazonEBSCSIDriverPolicy"
    assert "AmazonEKS_CNI_Policy" not in eks_plan.NODE_POLICIES and eks_plan.IMDS_HOP_LIMIT == 1
