"""The Nodes of the stack's cluster at max scale, as the scheduler's default filters see them: every GPU pool's nodes
(DRA and device-plugin pools alike) and the cluster's other nodes (EKS/AKS system nodes, kind's control plane), each
with the labels a joined node carries (the pool's own and the well-known ones the kubelet and the cloud add), its
taints, and its allocatable cpu, memory, pods and device-plugin resources. Pure: no Pulumi imports.

Device-plugin resources (docs/references.md#node-device-plugin-resources): the NVIDIA device plugin advertises
`nvidia.com/gpu` per GPU, with MIG per slice under the GPU Operator's strategy (single: `nvidia.com/gpu`, mixed:
`nvidia.com/mig-<profile>`); the AWS EFA device plugin `vpc.amazonaws.com/efa` per interface (dra_gpu_platform/facts/efa.py).
DRA pools advertise no `nvidia.com/gpu`: their GPUs are devices in ResourceSlices (dra_gpu_platform/plans/stack_inventory.py).
An existing cluster's nodes outside the stack's pools are unknown and not modelled.
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.dra.model import NodeInfo
from dra_gpu_platform.dra.pod_resources import CPU, MEMORY, PODS
from dra_gpu_platform.dra.tolerations import Taint
from dra_gpu_platform.facts import efa, platforms
from dra_gpu_platform.facts import node_allocatable as alloc
from dra_gpu_platform.facts.node_labels import SYSTEM_ROLE_LABEL
from dra_gpu_platform.plans.aks import AksClusterPlan
from dra_gpu_platform.plans.eks import EksClusterPlan
from dra_gpu_platform.plans.gpu_software import mig_strategy
from dra_gpu_platform.plans.kind import KindClusterPlan
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.stack import StackPlan
from dra_gpu_platform.plans.stack_inventory import simulated_nodes

DEVICE_PLUGIN_GPU = "nvidia.com/gpu"
MIG_RESOURCE_PREFIX = "nvidia.com/mig-"
AKS_AGENT_POOL_LABEL = "kubernetes.azure.com/agentpool"
SYSTEM_POOL = "(system)"


@dataclass(frozen=True)
class ClusterNodes:
    nodes: tuple[NodeInfo, ...]
    pools: dict[str, str]  # node -> the pool shown in the report
    notes: tuple[str, ...] = ()


def _allocatable(platform: str, instance_type: str | None, vcpus: int | None, memory_gib: int | None) -> dict[str, int]:
    allocatable = platforms.profile(platform).node_pools.allocatable
    if vcpus is None or memory_gib is None or instance_type is None or allocatable is None:
        return {}
    found = allocatable(instance_type, vcpus, memory_gib)
    return {CPU: found.cpu_millis, MEMORY: found.memory_bytes, PODS: found.pods}


def device_plugin_resources(pool: PoolPlan, strategy: str) -> dict[str, int]:
    """What the pool's device plugins advertise per node."""
    resources: dict[str, int] = {}
    if not pool.dra:
        gpus = pool.gpus_per_node or 1  # unknown (kind/existing without gpusPerNode): 1, as the DRA simulation
        model = pool.model
        profile = model.mig_profile(pool.mig_profile) if model is not None and pool.mig_profile else None
        if profile is None:
            resources[DEVICE_PLUGIN_GPU] = gpus
        elif strategy == "single":
            resources[DEVICE_PLUGIN_GPU] = gpus * profile.max_count
        else:
            resources[f"{MIG_RESOURCE_PREFIX}{profile.name}"] = gpus * profile.max_count
    if pool.efa_interfaces:
        resources[efa.RESOURCE] = pool.efa_interfaces
    return resources


def _well_known(node: str, arch: str, instance_type: str | None, zone: str | None) -> dict[str, str]:
    labels = {alloc.HOSTNAME_LABEL: node, alloc.OS_LABEL: "linux", alloc.ARCH_LABEL: arch}
    if instance_type:
        labels[alloc.INSTANCE_TYPE_LABEL] = instance_type
    if zone:
        labels[alloc.ZONE_LABEL] = zone
    return labels


def pool_nodes(pool: PoolPlan, strategy: str, agent_pool: str | None = None) -> list[NodeInfo]:
    shape = pool.shape
    arch = pool.node_arch
    allocatable = _allocatable(
        pool.platform, pool.instance_type, shape.vcpus if shape else None, shape.memory_gib if shape else None
    )
    allocatable.update(device_plugin_resources(pool, strategy))
    extra: dict[str, str] = {}
    if agent_pool:
        extra[AKS_AGENT_POOL_LABEL] = agent_pool
    spot_label = pool.profile.node_pools.spot_label
    if spot_label is not None and pool.capacity == "spot":
        extra[spot_label[0]] = spot_label[1]
    taints = tuple(Taint(t.key, t.value, t.effect) for t in pool.taints)
    return [
        NodeInfo(
            name,
            {**_well_known(name, arch, pool.instance_type, pool.zone), **extra, **pool.labels},
            taints,
            False,
            dict(allocatable),
        )
        for name in simulated_nodes(pool)
    ]


def cluster_nodes(plan: StackPlan) -> ClusterNodes:
    """Every node of the stack's cluster at max scale, GPU pools in plan order, then the others."""
    strategy = mig_strategy(plan.pools)
    cluster = plan.cluster
    agent_pools = (
        {p.pool.name: p.agent_pool_name for p in cluster.agent_pools} if isinstance(cluster, AksClusterPlan) else {}
    )
    nodes: list[NodeInfo] = []
    pools: dict[str, str] = {}
    notes: list[str] = []
    for pool in plan.pools:
        if not pool.dra and pool.gpus_per_node is None:
            notes.append(f"pool {pool.name}: GPUs per node unknown (set gpusPerNode); nvidia.com/gpu simulated as 1")
        for node in pool_nodes(pool, strategy, agent_pools.get(pool.name)):
            nodes.append(node)
            pools[node.name] = pool.name
    system: list[NodeInfo] = []
    if isinstance(cluster, EksClusterPlan):
        shape = cluster.system_nodes
        limits = alloc.EKS_ENI_LIMITS.get(shape.instance_type)
        note = "" if limits else " (allocatable unknown)"
        for i in range(shape.count):
            name = f"system-{i}"
            labels = {**_well_known(name, "amd64", shape.instance_type, None), SYSTEM_ROLE_LABEL: "system"}
            system.append(NodeInfo(name, labels))
        notes.append(f"{shape.count} system node(s) ({shape.instance_type}){note}: no GPUs, no taints")
    elif isinstance(cluster, AksClusterPlan):
        for i in range(cluster.system_count):
            name = f"system-{i}"
            labels = {**_well_known(name, "amd64", cluster.system_vm_size, None), SYSTEM_ROLE_LABEL: "system"}
            system.append(NodeInfo(name, labels))
        notes.append(f"{cluster.system_count} system node(s) ({cluster.system_vm_size}): no GPUs, no taints")
    elif isinstance(cluster, KindClusterPlan):
        name = f"{plan.name}-control-plane"
        labels = {**_well_known(name, "amd64", None, None), alloc.CONTROL_PLANE_LABEL: ""}
        system.append(NodeInfo(name, labels, (Taint(*alloc.CONTROL_PLANE_TAINT),)))
    else:
        notes.append("existing cluster: only the nodes named in nodePools[].nodes are modelled")
    for node in system:
        nodes.append(node)
        pools[node.name] = SYSTEM_POOL
    return ClusterNodes(tuple(nodes), pools, tuple(notes))
