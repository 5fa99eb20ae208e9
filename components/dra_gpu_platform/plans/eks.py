"""Decisions behind an EKS cluster and its GPU node groups, as plain data. Pure: no Pulumi imports.

Facts: docs/references.md#eks-ami-types, docs/references.md#eks-capacity-types,
docs/references.md#eks-capacity-block-node-groups, docs/references.md#eks-efa,
docs/references.md#pulumi-aws-eks-arguments, docs/references.md#eks-private-endpoint-access,
docs/references.md#eks-managed-addons, docs/references.md#eks-instance-store-raid0,
docs/references.md#eks-capacity-block-schedules, docs/references.md#cluster-autoscaler-chart,
docs/references.md#cluster-autoscaler-iam, docs/references.md#efa-device-plugin-chart.
The components in resources/clusters/eks.py / eks_node_pool.py turn these into typed pulumi_aws resources; the
pools themselves (shape, labels, taints, sizes) are the stack's PoolPlans (dra_gpu_platform/plans/node_pools.py).
"""

from __future__ import annotations

import ipaddress
import json
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import yaml

from dra_gpu_platform.config.models import EksCluster, StackConfig, platform_cluster
from dra_gpu_platform.facts import autoscaler as ca
from dra_gpu_platform.facts import cluster_access, eks_addons, eks_amis, provisioners
from dra_gpu_platform.facts import efa as efa_facts
from dra_gpu_platform.facts.catalog import InstanceType
from dra_gpu_platform.facts.node_labels import EFA_LABEL, SYSTEM_ROLE_LABEL
from dra_gpu_platform.plans import node_hardening
from dra_gpu_platform.plans.gpu_software import ReleasePlan, gpu_toleration
from dra_gpu_platform.plans.node_pools import PoolPlan, unlisted_note, uses_efa
from dra_gpu_platform.plans.provisioning.auto_mode import AutoModePlan, auto_mode_plan
from dra_gpu_platform.plans.provisioning.karpenter import KarpenterPlan, karpenter_plan

SYSTEM_AMI_TYPE = "AL2023_x86_64_STANDARD"

CAPACITY_TYPES = {"on-demand": "ON_DEMAND", "spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}
CAPACITY_BLOCK_MARKET = "capacity-block"

CONTROL_PLANE_LOGS = ("api", "audit", "authenticator", "controllerManager", "scheduler")
AUTHENTICATION_MODE = "API"

# Only what EKS itself needs: the control plane, and nodes joining and pulling images (the VPC CNI's own
# permissions go through Pod Identity: dra_gpu_platform/facts/eks_addons.py).
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = eks_addons.NODE_POLICIES
CLUSTER_ADMIN_ACCESS_POLICY = cluster_access.EKS_ADMIN_POLICY

# IMDSv2 with one hop: host processes and host-network pods (aws-node, the EBS CSI node plugin, the EFA device
# plugin) reach the instance metadata service, ordinary pods - one hop further - do not, so they cannot take
# the node role's credentials. Add-ons that call AWS get their own role through EKS Pod Identity, whose agent
# listens on 169.254.170.23, not on IMDS (docs/references.md#eks-imds-hop-limit, docs/references.md#eks-pod-identity).
IMDS_HOP_LIMIT = 1

AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"
NODE_TEMPLATE = f"{AUTOSCALER_PREFIX}/node-template"
GPU_RESOURCE = "nvidia.com/gpu"


@dataclass(frozen=True)
class EfaInterface:
    network_card_index: int
    device_index: int
    interface_type: str  # "efa" or "interface" (card 0, with the node's IP address), or "efa-only"


@dataclass(frozen=True)
class ScheduledSize:
    """One scheduled action on a node group's Auto Scaling group (`-1`: leave that size as it is)."""

    name: str
    start_time: str  # UTC, "YYYY-MM-DDThh:mm:ssZ" (aws.autoscaling.Schedule)
    desired: int
    min_size: int = -1
    max_size: int = -1


@dataclass(frozen=True)
class EksNodeGroupPlan:
    """Everything EksGpuNodePool needs for one stack pool: the pool, and what only an EKS node group has."""

    pool: PoolPlan
    capacity_type: str  # the EKS API enum (ON_DEMAND, SPOT, CAPACITY_BLOCK)
    autoscaler_tags: dict[str, str]  # node group tags (incl. the discovery and node-template tags)
    asg_tags: dict[str, str]  # what must be on the Auto Scaling group itself
    efa: tuple[EfaInterface, ...]
    placement_group: bool  # a cluster placement group of its own (EFA pools outside a reservation)
    user_data: str | None  # base64 MIME multi-part for the launch template, or None
    schedules: tuple[ScheduledSize, ...]

    @property
    def capacity_block(self) -> bool:
        return self.pool.capacity == "capacity-block"


@dataclass(frozen=True)
class AddonPlan:
    name: str
    version: str | None  # None: the EKS default version for the cluster's Kubernetes version
    before_compute: bool
    preserve: bool
    service_account: tuple[str, str] | None  # (namespace, name) bound to its own role through Pod Identity
    policy_arn: str | None
    configuration: str | None = None  # configurationValues (JSON), None: the add-on's defaults


@dataclass(frozen=True)
class AutoscalerPlan:
    release: ReleasePlan
    namespace: str
    service_account: str
    policy: dict[str, Any]  # inline IAM policy of the autoscaler's Pod Identity role


@dataclass(frozen=True)
class SystemNodesPlan:
    """The system (CPU) node group: cluster add-ons and the autoscaler run there."""

    instance_type: str
    count: int


@dataclass(frozen=True)
class EksNetworkPlan:
    subnet_ids: tuple[str, ...]  # existing private subnets; empty: the stack creates a VPC
    vpc_cidr: str
    zone_count: int  # zones of a created VPC
    pinned_zones: tuple[str, ...]  # zones pools are pinned to (a created VPC spans them)


@dataclass(frozen=True)
class AccessTierPlan:
    """One EKS access entry and the access policy associated with it (cluster scope, or some namespaces)."""

    name: str  # logical-name part: stable, from the role's name
    principal_arn: str
    policy: str  # the EKS access policy (dra_gpu_platform/facts/cluster_access.py)
    namespaces: tuple[str, ...] = ()  # empty: the whole cluster


@dataclass(frozen=True)
class EksAccessPlan:
    endpoint_public_access: bool
    public_access_cidrs: tuple[str, ...]
    private_access_cidrs: tuple[str, ...]  # 443 ingress on the cluster security group
    admin_role_arns: tuple[str, ...]  # cluster-admin through EKS access entries
    # The deployer's access entry (cluster admin, in the deployers' group); None: the identity running `pulumi up`.
    deployer_role_arn: str | None = None
    tiers: tuple[AccessTierPlan, ...] = ()  # the view and namespace-edit tiers, sorted by name


@dataclass(frozen=True)
class EksClusterPlan:
    """What EksCluster needs from the stack: the control plane's settings, system nodes, network, access, one node
    group per pool (sorted by name), the add-ons, the autoscaler and the EFA device plugin."""

    name: str
    kubernetes_version: str
    region: str
    protect: bool
    system_nodes: SystemNodesPlan
    network: EksNetworkPlan
    access: EksAccessPlan
    node_groups: tuple[EksNodeGroupPlan, ...] = ()
    addons: tuple[AddonPlan, ...] = ()
    autoscaler: AutoscalerPlan | None = None
    efa_plugin: ReleasePlan | None = None
    log_group: str = ""
    log_retention_days: int = eks_addons.CONTROL_PLANE_LOG_RETENTION_DAYS
    notes: tuple[str, ...] = ()  # what the preview should tell the operator
    # GPU pools as NodePools (autoscaler.provisioner): Karpenter's chart and objects, or EKS Auto Mode's
    karpenter: KarpenterPlan | None = None
    auto_mode: AutoModePlan | None = None


def cluster_plan(config: StackConfig, pools: tuple[PoolPlan, ...]) -> EksClusterPlan:
    name = config.cluster.name
    region = config.region or ""
    minor = config.cluster.kubernetes_version
    settings = platform_cluster(config.cluster, EksCluster).settings()
    bridge = config.extended_resource_bridge_on
    groups = [pool for pool in pools if not pool.node_pool]
    node_groups = tuple(node_group_plan(name, pool, block_window(config, pool.name), bridge) for pool in groups)
    autoscaler = karpenter = auto_mode = None
    provisioned = tuple(pool for pool in pools if pool.node_pool)
    if config.autoscaler_enabled and not config.node_pool_provisioner:
        autoscaler = autoscaler_plan(name, region, minor, config.autoscaler.version)
    elif config.provisioner == provisioners.KARPENTER and config.node_pool_provisioner:
        karpenter = karpenter_plan(name, config.autoscaler.version, settings.system_nodes.count, provisioned)
    elif config.auto_mode:
        auto_mode = auto_mode_plan(provisioned)
    efa = any(g.efa for g in node_groups) or any(p.efa_interfaces for p in provisioned)
    return EksClusterPlan(
        name=name,
        kubernetes_version=minor,
        region=region,
        protect=config.cluster.protect,
        system_nodes=SystemNodesPlan(settings.system_nodes.instance_type, settings.system_nodes.count),
        network=EksNetworkPlan(
            subnet_ids=tuple(settings.subnet_ids or ()),
            vpc_cidr=settings.vpc_cidr,
            zone_count=settings.availability_zones,
            pinned_zones=tuple(sorted({p.zone for p in pools if p.zone})),
        ),
        access=EksAccessPlan(
            endpoint_public_access=settings.endpoint_public_access,
            public_access_cidrs=tuple(settings.public_access_cidrs),
            private_access_cidrs=tuple(settings.private_access_cidrs),
            admin_role_arns=tuple(settings.admin_role_arns),
            deployer_role_arn=settings.deployer_role_arn,
            tiers=access_tiers(
                settings.viewer_role_arns, [(e.role_arn, e.namespaces) for e in settings.namespace_editors]
            ),
        ),
        node_groups=node_groups,
        addons=addon_plans(minor, region),
        autoscaler=autoscaler,
        efa_plugin=efa_plugin_plan() if efa else None,
        log_group=eks_addons.control_plane_log_group(name),
        notes=cluster_notes(config, node_groups)
        + (karpenter.notes if karpenter else ())
        + (auto_mode.notes if auto_mode else ()),
        karpenter=karpenter,
        auto_mode=auto_mode,
    )


def block_window(config: StackConfig, pool_name: str) -> tuple[datetime, datetime] | None:
    """A Capacity Block pool's start and end, when the stack names both."""
    pool = config.pool(pool_name)
    if pool is None or pool.capacity != "capacity-block":
        return None
    start, end = pool.capacity_block_start, pool.capacity_block_end
    return (start, end) if start is not None and end is not None else None


def cluster_notes(config: StackConfig, node_groups: Iterable[EksNodeGroupPlan]) -> tuple[str, ...]:
    notes = []
    if (
        config.autoscaler_enabled
        and not config.node_pool_provisioner
        and (1, config.cluster.minor) < ca.DRA_PRODUCTION_READY_FROM
        and config.dra_pools
    ):
        notes.append(
            f"cluster-autoscaler {config.cluster.kubernetes_version} handles DRA claims only with "
            f"--{ca.DRA_FLAG} (set for you) and with known gaps; DRA autoscaling is production-ready from 1.35 "
            "(cluster-autoscaler docs/dra_support.md)"
        )
    for group in node_groups:
        pool = group.pool
        if group.capacity_block and not group.schedules:
            notes.append(
                f"pool {pool.name}: a Capacity Block pool of {pool.max_nodes} node(s); its instances launch once the "
                "block is active (set capacityBlockStart/capacityBlockEnd to scale with the block)"
            )
        if pool.host_dra_driver:
            notes.append(
                f"pool {pool.name}: Bottlerocket runs the NVIDIA DRA driver on the host (the AMI's device plugin off, "
                f"set in the launch template's user data); its nodes need Bottlerocket {eks_amis.BOTTLEROCKET_DRA_MIN_VERSION} "
                "or newer, which EKS picks when it creates or updates the node group (an older node fails on the "
                "unknown setting)"
            )
        unlisted = unlisted_note(pool)
        if unlisted is not None:
            notes.append(unlisted)
        nvme = pool.shape.nvme_disks if pool.shape is not None else 0
        if nvme and eks_amis.is_bottlerocket(pool.ami_type):
            notes.append(
                f"pool {pool.name}: {pool.instance_type} has {nvme} NVMe instance-store disk(s), "
                "left unused on Bottlerocket (nodeadm's RAID0 local storage is an AL2023 feature)"
            )
    settings = platform_cluster(config.cluster, EksCluster).settings()
    if not settings.endpoint_public_access and settings.subnet_ids and not settings.private_access_cidrs:
        notes.append(
            "the API endpoint is private and no privateAccessCidrs are listed: only members of the cluster security "
            "group reach it; list the network you deploy from in cluster.eks.privateAccessCidrs"
        )
    return tuple(notes)


# ---------------------------------------------------------------------------------------------- add-ons


def addon_plans(minor: str, region: str) -> tuple[AddonPlan, ...]:
    return tuple(
        AddonPlan(
            name=addon.name,
            version=addon.version(minor),
            before_compute=addon.before_compute,
            preserve=addon.preserve,
            service_account=addon.service_account,
            policy_arn=managed_policy_arn(region, addon.managed_policy) if addon.managed_policy else None,
            configuration=json.dumps(addon.configuration, sort_keys=True) if addon.configuration else None,
        )
        for addon in eks_addons.ADDONS
    )


def access_tiers(viewers: Iterable[str], editors: Iterable[tuple[str, Iterable[str]]]) -> tuple[AccessTierPlan, ...]:
    """The narrower tiers: viewers read the whole cluster (no Secrets), editors edit workloads in their namespaces."""
    tiers = [AccessTierPlan(role_name_of(arn), arn, cluster_access.EKS_VIEW_POLICY) for arn in viewers]
    tiers += [
        AccessTierPlan(role_name_of(arn), arn, cluster_access.EKS_EDIT_POLICY, tuple(sorted(set(namespaces))))
        for arn, namespaces in editors
    ]
    return tuple(sorted(tiers, key=lambda t: t.name))


def pod_identity_trust_policy(cluster_arn: str, namespace: str, service_account: str) -> dict[str, Any]:
    """Trust policy of a role that EKS Pod Identity hands to one service account of one cluster: the session tags
    EKS Pod Identity attaches to every request (eks-cluster-arn, kubernetes-namespace, kubernetes-service-account;
    docs/references.md#eks-pod-identity-session-tags) must name them, so no other pod or cluster can assume it."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": eks_addons.POD_IDENTITY_SERVICE},
                "Action": list(eks_addons.POD_IDENTITY_ACTIONS),
                "Condition": {
                    "StringEquals": {
                        f"aws:RequestTag/{tag}": value
                        for tag, value in zip(
                            eks_addons.POD_IDENTITY_TRUST_TAGS, (cluster_arn, namespace, service_account), strict=True
                        )
                    }
                },
            }
        ],
    }


# ---------------------------------------------------------------------------------------------- autoscaler


def autoscaler_version(minor: str, override: str | None) -> str:
    return override.lstrip("v") if override else ca.default_version(minor)


def discovery_tags(cluster_name: str) -> dict[str, str]:
    """The Auto Scaling group tags (and values) the autoscaler discovers a node group by."""
    return {
        ca.DISCOVERY_ENABLED: "true",
        ca.discovery_owner_tag(cluster_name): "owned",
        ca.DISCOVERY_MARKER: "true",
    }


def autoscaler_policy(cluster_name: str) -> dict[str, Any]:
    """cluster-autoscaler's IAM (cloudprovider/aws/README.md "Full Cluster Autoscaler Features Policy"), with the
    scaling actions limited to this cluster's Auto Scaling groups by their owner tag and to the groups this platform
    marks as autoscaled (EKS puts the owner tag on every managed node group, the system nodes' too)."""
    return {
        "Version": "2012-10-17",
        "Statement": [
            {"Sid": "Discover", "Effect": "Allow", "Action": list(ca.DESCRIBE_ACTIONS), "Resource": "*"},
            {
                "Sid": "ScaleThisClustersGroups",
                "Effect": "Allow",
                "Action": list(ca.SCALE_ACTIONS),
                "Resource": "*",
                "Condition": {
                    "StringEquals": {
                        f"aws:ResourceTag/{ca.discovery_owner_tag(cluster_name)}": "owned",
                        f"aws:ResourceTag/{ca.DISCOVERY_MARKER}": "true",
                    }
                },
            },
        ],
    }


def autoscaler_values(cluster_name: str, region: str, version: str) -> dict[str, Any]:
    """Values of the cluster-autoscaler chart (chart 9.59.0 values.yaml / templates/deployment.yaml)."""
    tags = [f"{key}={value}" for key, value in discovery_tags(cluster_name).items()]
    extra_args: dict[str, Any] = {
        # GPU instances boot slower than the 15-minute default allows (docs/references.md#duration-eks-node-group: p90 20 minutes).
        "max-node-provision-time": "25m0s",
    }
    if ca.version_tuple(version)[:2] < ca.DRA_FLAG_LOCKED_FROM:
        extra_args[ca.DRA_FLAG] = True  # off by default before 1.35 (config/flags/flags.go)
    return {
        "cloudProvider": "aws",
        "awsRegion": region,
        "autoDiscovery": {"clusterName": cluster_name, "tags": tags},
        "image": {"tag": f"v{version}"},
        "rbac": {"serviceAccount": {"create": True, "name": ca.SERVICE_ACCOUNT}},
        "extraArgs": dict(sorted(extra_args.items())),
        # on the system nodes: GPU nodes come and go with the autoscaler's own decisions
        "nodeSelector": {SYSTEM_ROLE_LABEL: "system"},
    }


def autoscaler_plan(cluster_name: str, region: str, minor: str, override: str | None) -> AutoscalerPlan:
    version = autoscaler_version(minor, override)
    return AutoscalerPlan(
        release=ReleasePlan(
            release=ca.RELEASE,
            chart=ca.CHART,
            version=ca.CHART_VERSION,
            repository=ca.REPOSITORY,
            namespace=ca.NAMESPACE,
            values=autoscaler_values(cluster_name, region, version),
            timeout_s=600,
        ),
        namespace=ca.NAMESPACE,
        service_account=ca.SERVICE_ACCOUNT,
        policy=autoscaler_policy(cluster_name),
    )


# ---------------------------------------------------------------------------------------------- EFA


def efa_plugin_values() -> dict[str, Any]:
    return {
        "nodeSelector": {EFA_LABEL: "true"},
        # GPU nodes carry the nvidia.com/gpu taint; the chart tolerates only CriticalAddonsOnly by itself.
        "tolerations": [gpu_toleration()],
    }


def efa_plugin_plan() -> ReleasePlan:
    return ReleasePlan(
        release=efa_facts.RELEASE,
        chart=efa_facts.CHART,
        version=efa_facts.CHART_VERSION,
        repository=efa_facts.REPOSITORY,
        namespace=efa_facts.NAMESPACE,
        values=efa_plugin_values(),
        timeout_s=300,
    )


# ---------------------------------------------------------------------------------------------- AWS basics


def partition(region: str) -> str:
    if region.startswith("cn-"):
        return "aws-cn"
    if region.startswith("us-gov-"):
        return "aws-us-gov"
    return "aws"


def managed_policy_arn(region: str, policy: str) -> str:
    return f"arn:{partition(region)}:iam::aws:policy/{policy}"


def access_policy_arn(region: str, policy: str = cluster_access.EKS_ADMIN_POLICY) -> str:
    return f"arn:{partition(region)}:eks::aws:cluster-access-policy/{policy}"


def assume_role_policy(service: str, actions: tuple[str, ...] = ("sts:AssumeRole",)) -> dict[str, Any]:
    """Trust policy letting one AWS service principal assume the role (EKS Auto Mode's cluster role also tags the
    session: dra_gpu_platform/facts/auto_mode.py)."""
    action: str | list[str] = actions[0] if len(actions) == 1 else list(actions)
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": action}],
    }


def role_name_of(arn: str) -> str:
    """`arn:aws:iam::123456789012:role/path/admins` → `admins` (stable logical-name part)."""
    return arn.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------------------------- node pools


def capacity_type(capacity: str) -> str:
    """The EKS API's purchase option for a pool's `capacity`."""
    return CAPACITY_TYPES[capacity]


def efa_interfaces(shape: InstanceType) -> list[EfaInterface]:
    """The interfaces of an EFA pool's launch template: the primary (device 0, the node's IP address) on card 0, `efa`
    where card 0 carries EFA and a plain ENA `interface` where it does not (p6-b300); device 1 `efa-only` (no IP
    address) on every other EFA card."""
    if not uses_efa(shape):
        return []
    primary = efa_facts.PRIMARY_INTERFACE if shape.ena_only_cards == 0 else efa_facts.ENA_INTERFACE
    return [
        EfaInterface(card, 0, primary) if card == 0 else EfaInterface(card, 1, efa_facts.SECONDARY_INTERFACE)
        for card in range(shape.ena_only_cards + shape.efa_interfaces)
    ]


def uses_placement_group(pool: PoolPlan) -> bool:
    """EFA pools get a cluster placement group, except pools launched into a reservation: a Capacity Block
    is already placed together in an EC2 UltraCluster, and a placement group on top cuts how many of the
    reserved instances can launch (eksctl#7949; AWS ParallelCluster rejects the combination, #6311)."""
    return pool.efa_interfaces > 0 and pool.capacity_reservation_id is None


def gpus_per_node_resource(pool: PoolPlan) -> int:
    """What the device plugin advertises as nvidia.com/gpu on one node: GPUs, or MIG slices when the pool
    is partitioned (the GPU Operator's default `single` MIG strategy exposes slices as nvidia.com/gpu)."""
    gpus = pool.gpus_per_node or 0
    model = pool.model
    if pool.mig_profile is None or model is None:
        return gpus
    profile = model.mig_profile(pool.mig_profile)
    return gpus * (profile.max_count if profile else 1)


def advertises_gpu_resource(pool: PoolPlan, extended_resource_bridge: bool) -> bool:
    """Only nodes where nvidia.com/gpu requests can land may tell the autoscaler they offer it: a DRA pool
    runs no device plugin, so without the extended-resource bridge a pending nvidia.com/gpu pod would make
    the autoscaler start GPU nodes that can never take it."""
    return pool.gpu_stack == "device-plugin" or extended_resource_bridge


def autoscaler_tags(cluster_name: str, pool: PoolPlan, extended_resource_bridge: bool) -> dict[str, str]:
    """cluster-autoscaler auto-discovery and node-template tags, so a pool at 0 nodes can still be chosen
    for a pending pod (the autoscaler builds a template node from these)."""
    tags = {f"{AUTOSCALER_PREFIX}/enabled": "true", f"{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}
    for key, value in pool.labels.items():
        tags[f"{NODE_TEMPLATE}/label/{key}"] = value
    for taint in pool.taints:
        tags[f"{NODE_TEMPLATE}/taint/{taint.key}"] = f"{taint.value}:{taint.effect}"
    if advertises_gpu_resource(pool, extended_resource_bridge):
        tags[f"{NODE_TEMPLATE}/resources/{GPU_RESOURCE}"] = str(gpus_per_node_resource(pool))
    if pool.efa_interfaces:
        # The EFA device plugin advertises one vpc.amazonaws.com/efa per interface.
        tags[f"{NODE_TEMPLATE}/resources/{efa_facts.RESOURCE}"] = str(pool.efa_interfaces)
    return dict(sorted(tags.items()))


def node_template_tags(tags: dict[str, str]) -> dict[str, str]:
    """The node-template subset (what must reach the Auto Scaling group itself)."""
    return {k: v for k, v in tags.items() if k.startswith(f"{NODE_TEMPLATE}/")}


def pool_user_data(pool: PoolPlan) -> str | None:
    """Launch-template user data (base64) of a GPU pool (dra_gpu_platform/plans/node_hardening.py): on AL2023 NVIDIA a
    MIME document that makes the NVIDIA toolkit ignore NVIDIA_VISIBLE_DEVICES from unprivileged containers, with a
    nodeadm NodeConfig that builds one RAID0 volume from the instance-store NVMe disks for kubelet, containerd and pod
    logs where the instance has them (amazon-eks-ami v20260724 nodeadm/api/v1alpha1/nodeconfig_types.go
    `spec.instance.localStorage.strategy: RAID0`); on Bottlerocket NVIDIA TOML with the toolkit's settings, and on DRA
    pools the AMI's device plugin off and its host NVIDIA DRA driver on
    (docs/references.md#bottlerocket-nvidia-dra-driver). EKS merges it with its own part (cluster name, endpoint, CA,
    labels, taints)."""
    if pool.ami_type is None:
        return None
    user_data = node_hardening.gpu_user_data(
        pool.ami_type, host_dra_driver=pool.host_dra_driver, raid0=uses_local_raid(pool)
    )
    return node_hardening.encoded(user_data) if user_data is not None else None


def uses_local_raid(pool: PoolPlan) -> bool:
    return pool.shape is not None and pool.shape.nvme_disks > 0 and not eks_amis.is_bottlerocket(pool.ami_type)


def utc(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


# A Capacity Block's instances are reclaimed at its end; drain them well before (the pool goes to zero first).
CAPACITY_BLOCK_SCALE_DOWN_LEAD = timedelta(hours=1)


def capacity_block_schedules(pool: PoolPlan, window: tuple[datetime, datetime] | None) -> tuple[ScheduledSize, ...]:
    if pool.capacity != "capacity-block" or window is None:
        return ()
    start, end = window
    scale_down = max(start, end - CAPACITY_BLOCK_SCALE_DOWN_LEAD)
    return (
        ScheduledSize(f"{pool.name}-block-start", utc(start), desired=pool.max_nodes),
        ScheduledSize(f"{pool.name}-block-end", utc(scale_down), desired=0),
    )


def node_group_plan(
    cluster_name: str,
    pool: PoolPlan,
    window: tuple[datetime, datetime] | None = None,
    extended_resource_bridge: bool = False,
) -> EksNodeGroupPlan:
    tags = autoscaler_tags(cluster_name, pool, extended_resource_bridge)
    asg_tags = node_template_tags(tags)
    if pool.autoscaled:
        asg_tags.update(discovery_tags(cluster_name))
    return EksNodeGroupPlan(
        pool=pool,
        capacity_type=capacity_type(pool.capacity),
        autoscaler_tags=tags,
        asg_tags=dict(sorted(asg_tags.items())),
        efa=tuple(efa_interfaces(pool.shape)) if pool.efa_interfaces and pool.shape is not None else (),
        placement_group=uses_placement_group(pool),
        user_data=pool_user_data(pool),
        schedules=capacity_block_schedules(pool, window),
    )


# ---------------------------------------------------------------------------------------------- network


@dataclass(frozen=True)
class ZoneSubnets:
    zone: str
    private_cidr: str
    public_cidr: str


def vpc_zones(available: Iterable[str], count: int, required: Iterable[str]) -> list[str]:
    """Zones of a new VPC: every zone a pool is pinned to, then the region's first zones up to `count`.
    Raises ValueError naming a pinned zone the region does not offer."""
    available = list(available)
    required = sorted(set(required))
    missing = [z for z in required if z not in available]
    if missing:
        raise ValueError(
            f"availability zone(s) {', '.join(missing)} are not available in this region (available: {', '.join(available)})"
        )
    chosen = list(required)
    for zone in available:
        if len(chosen) >= max(count, len(required)):
            break
        if zone not in chosen:
            chosen.append(zone)
    return sorted(chosen)


def subnet_plan(vpc_cidr: str, zones: list[str]) -> list[ZoneSubnets]:
    """Private subnets get an eighth of the VPC each (the VPC CNI gives every pod a VPC address); the
    public subnets, which only hold NAT gateways and load balancers, share the last eighth."""
    network = ipaddress.IPv4Network(vpc_cidr, strict=False)
    eighths = list(network.subnets(prefixlen_diff=3))
    publics = list(eighths[7].subnets(prefixlen_diff=3))
    if len(zones) > 7:
        raise ValueError("at most 7 zones fit the subnet plan")
    return [ZoneSubnets(zone, str(eighths[i]), str(publics[i])) for i, zone in enumerate(zones)]


# ---------------------------------------------------------------------------------------------- kubeconfig


def kubeconfig(cluster_name: str, endpoint: str, certificate_authority: str, region: str) -> str:
    """A kubeconfig that authenticates with `aws eks get-token` (AWS CLI v2 on the PATH of whoever runs
    `pulumi up`), so no long-lived token is stored in the state."""
    document = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [
            {"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}
        ],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "users": [
            {
                "name": cluster_name,
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": "aws",
                        "args": [
                            "eks",
                            "get-token",
                            "--cluster-name",
                            cluster_name,
                            "--region",
                            region,
                            "--output",
                            "json",
                        ],
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
    }
    return yaml.safe_dump(document, sort_keys=False)
