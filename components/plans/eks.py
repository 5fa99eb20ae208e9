"""Decisions behind an EKS cluster and its GPU node groups, as plain data. Pure: no Pulumi imports.

Facts: docs/references.md#eks-ami-types, docs/references.md#eks-capacity-types,
docs/references.md#eks-capacity-block-node-groups, docs/references.md#eks-efa,
docs/references.md#pulumi-aws-eks-arguments.
The components in eks_cluster.py / eks_gpu_node_pool.py turn these into typed pulumi_aws resources.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from typing import Iterable

import yaml

from components.facts import catalog, eks_amis
from components.facts.catalog import InstanceType
from components.config.models import EksSettings, NodePool, StackConfig
from components.facts.node_labels import pool_taint
from components.plans.node_pools import pool_labels

SYSTEM_AMI_TYPE = "AL2023_x86_64_STANDARD"

CAPACITY_TYPES = {"on-demand": "ON_DEMAND", "spot": "SPOT", "capacity-block": "CAPACITY_BLOCK"}
CAPACITY_BLOCK_MARKET = "capacity-block"

# Kubernetes taint effect → EKS API enum.
TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}

CONTROL_PLANE_LOGS = ("api", "audit", "authenticator", "controllerManager", "scheduler")
AUTHENTICATION_MODE = "API"

# Only what EKS itself needs: the control plane, and nodes joining, running the VPC CNI, pulling images.
CLUSTER_POLICIES = ("AmazonEKSClusterPolicy",)
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEKS_CNI_Policy", "AmazonEC2ContainerRegistryReadOnly")
CLUSTER_ADMIN_ACCESS_POLICY = "AmazonEKSClusterAdminPolicy"

AUTOSCALER_PREFIX = "k8s.io/cluster-autoscaler"
NODE_TEMPLATE = f"{AUTOSCALER_PREFIX}/node-template"
GPU_RESOURCE = "nvidia.com/gpu"


@dataclass(frozen=True)
class EksClusterPlan:
    """What EksCluster needs from the stack: its cluster block, region and pools (sorted by name)."""

    name: str
    kubernetes_version: str
    region: str
    protect: bool
    settings: EksSettings
    pools: tuple[NodePool, ...]
    extended_resource_bridge: bool


def cluster_plan(config: StackConfig) -> EksClusterPlan:
    return EksClusterPlan(
        name=config.cluster.name,
        kubernetes_version=config.cluster.kubernetes_version,
        region=config.region or "",
        protect=config.cluster.protect,
        settings=config.cluster.settings(),
        pools=tuple(sorted(config.node_pools, key=lambda p: p.name)),
        extended_resource_bridge=config.dra_driver.extended_resource_bridge,
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


def access_policy_arn(region: str, policy: str = CLUSTER_ADMIN_ACCESS_POLICY) -> str:
    return f"arn:{partition(region)}:eks::aws:cluster-access-policy/{policy}"


def assume_role_policy(service: str) -> dict:
    """Trust policy letting one AWS service principal assume the role."""
    return {
        "Version": "2012-10-17",
        "Statement": [{"Effect": "Allow", "Principal": {"Service": service}, "Action": "sts:AssumeRole"}],
    }


def role_name_of(arn: str) -> str:
    """`arn:aws:iam::123456789012:role/path/admins` → `admins` (stable logical-name part)."""
    return arn.rsplit("/", 1)[-1]


# ---------------------------------------------------------------------------------------------- node pools


def instance_shape(pool: NodePool) -> InstanceType:
    """The EC2 type of a pool: its own, else the catalog default for its GPU (config rules guarantee one)."""
    shape = catalog.pool_shape("eks", pool.gpu, pool.instance_type)
    if shape is None:
        raise ValueError(f"pool {pool.name}: no EC2 instance type for {pool.gpu} (config rules should have caught this)")
    return shape


def gpu_ami_type(pool: NodePool) -> str:
    return pool.ami_type or eks_amis.DEFAULT_GPU_AMI


def capacity_type(pool: NodePool) -> str:
    return CAPACITY_TYPES[pool.capacity]


def uses_efa(shape: InstanceType) -> bool:
    return shape.family in catalog.EFA_FAMILIES and shape.efa_interfaces > 0


@dataclass(frozen=True)
class EfaInterface:
    network_card_index: int
    device_index: int


def efa_interfaces(shape: InstanceType) -> list[EfaInterface]:
    """One EFA interface per network card: the primary (device 0) on card 0, device 1 on every other card."""
    if not uses_efa(shape):
        return []
    return [EfaInterface(card, 0 if card == 0 else 1) for card in range(shape.efa_interfaces)]


def uses_placement_group(pool: NodePool, shape: InstanceType) -> bool:
    """EFA pools get a cluster placement group, except pools launched into a reservation: a Capacity Block
    is already placed together in an EC2 UltraCluster, and a placement group on top cuts how many of the
    reserved instances can launch (eksctl#7949; AWS ParallelCluster rejects the combination, #6311)."""
    return uses_efa(shape) and pool.capacity_reservation_id is None


def gpus_per_node_resource(pool: NodePool, shape: InstanceType) -> int:
    """What the device plugin advertises as nvidia.com/gpu on one node: GPUs, or MIG slices when the pool
    is partitioned (the GPU Operator's default `single` MIG strategy exposes slices as nvidia.com/gpu)."""
    if pool.mig is None:
        return shape.gpus
    profile = catalog.gpu_model(pool.gpu).mig_profile(pool.mig.profile)
    return shape.gpus * (profile.max_count if profile else 1)


def advertises_gpu_resource(pool: NodePool, extended_resource_bridge: bool) -> bool:
    """Only nodes where nvidia.com/gpu requests can land may tell the autoscaler they offer it: a DRA pool
    runs no device plugin, so without the extended-resource bridge a pending nvidia.com/gpu pod would make
    the autoscaler start GPU nodes that can never take it."""
    return pool.gpu_stack == "device-plugin" or extended_resource_bridge


def autoscaler_tags(cluster_name: str, pool: NodePool, shape: InstanceType, extended_resource_bridge: bool) -> dict[str, str]:
    """cluster-autoscaler auto-discovery and node-template tags, so a pool at 0 nodes can still be chosen
    for a pending pod (the autoscaler builds a template node from these)."""
    tags = {f"{AUTOSCALER_PREFIX}/enabled": "true", f"{AUTOSCALER_PREFIX}/{cluster_name}": "owned"}
    for key, value in pool_labels(pool).items():
        tags[f"{NODE_TEMPLATE}/label/{key}"] = value
    key, value, effect = pool_taint()
    tags[f"{NODE_TEMPLATE}/taint/{key}"] = f"{value}:{effect}"
    if advertises_gpu_resource(pool, extended_resource_bridge):
        tags[f"{NODE_TEMPLATE}/resources/{GPU_RESOURCE}"] = str(gpus_per_node_resource(pool, shape))
    return dict(sorted(tags.items()))


def node_template_tags(tags: dict[str, str]) -> dict[str, str]:
    """The node-template subset (what must reach the Auto Scaling group itself)."""
    return {k: v for k, v in tags.items() if k.startswith(f"{NODE_TEMPLATE}/")}


def eks_taint() -> tuple[str, str, str]:
    key, value, effect = pool_taint()
    return key, value, TAINT_EFFECTS[effect]


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
        raise ValueError(f"availability zone(s) {', '.join(missing)} are not available in this region (available: {', '.join(available)})")
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
        "clusters": [{"name": cluster_name, "cluster": {"server": endpoint, "certificate-authority-data": certificate_authority}}],
        "contexts": [{"name": cluster_name, "context": {"cluster": cluster_name, "user": cluster_name}}],
        "current-context": cluster_name,
        "users": [
            {
                "name": cluster_name,
                "user": {
                    "exec": {
                        "apiVersion": "client.authentication.k8s.io/v1beta1",
                        "command": "aws",
                        "args": ["eks", "get-token", "--cluster-name", cluster_name, "--region", region, "--output", "json"],
                        "interactiveMode": "Never",
                    }
                },
            }
        ],
    }
    return yaml.safe_dump(document, sort_keys=False)
