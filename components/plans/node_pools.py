"""One PoolPlan per GPU node pool, on every platform: what its nodes are and carry. Pure: no Pulumi imports.

Derived once here (plan_pools) and read by everything else: the cloud node groups and agent pools, the kind
config, the existing cluster's node patches, the GPU software values, the simulated inventory of `gpuplan fit`,
`gpuplan render`'s placement, and (through its adapter from recorded resource properties) the policy pack. The
labels drive the GPU Operator's per-node operands, the DRA kubelet plugin's node selector, the policy pack and
the fit simulator, so the "never both plugins on one node" rule is checked on one source.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from dra_gpu_platform.config.models import AUTOSCALED_PLATFORMS, NodePool, StackConfig
from dra_gpu_platform.dra.tolerations import Taint
from dra_gpu_platform.facts import catalog, eks_amis
from dra_gpu_platform.facts.aks import SPOT_TAINT
from dra_gpu_platform.facts.catalog import GpuModel, InstanceType
from dra_gpu_platform.facts.node_labels import (
    DEVICE_PLUGIN_DEPLOY_LABEL,
    DRA_KUBELET_PLUGIN_LABEL,
    EFA_LABEL,
    GPU_LABEL,
    GPU_STACK_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    pool_taint,
)

# The placeholder in the kubectl commands preview prints for a pool whose nodes the stack does not name.
NODE_PLACEHOLDER = "NODE"

# Kubernetes taint effect → the EKS API's spelling (NodeGroup taints[].effect).
EKS_TAINT_EFFECTS = {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}
KUBERNETES_TAINT_EFFECTS = {eks: kubernetes for kubernetes, eks in EKS_TAINT_EFFECTS.items()}


@dataclass(frozen=True)
class PoolTaint(Taint):
    """A node taint of a pool in both spellings: Kubernetes (key, value, effect) and the EKS API's effect enum."""

    eks_effect: str = "NO_SCHEDULE"

    @classmethod
    def of(cls, key: str, value: str, effect: str) -> PoolTaint:
        return cls(key, value, effect, EKS_TAINT_EFFECTS.get(effect, effect))

    @classmethod
    def parse(cls, text: str) -> PoolTaint:
        """ "key=value:Effect" or "key:Effect" (kubectl taint, AKS nodeTaints)."""
        head, _, effect = text.rpartition(":")
        key, _, value = head.partition("=")
        return cls.of(key, value, effect)

    @property
    def text(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"

    def manifest(self) -> dict[str, str]:
        return {"key": self.key, "value": self.value, "effect": self.effect}


GPU_TAINT = PoolTaint.of(*pool_taint())
AKS_SPOT_TAINT = PoolTaint.parse(SPOT_TAINT)


@dataclass(frozen=True)
class PoolPlan:
    """A GPU node pool: its GPUs, machine shape, node labels and taints, sizes and purchase option.

    A pool of this stack always knows its GPU and sizes; a pool read back from recorded resources (the policy
    pack's adapter) may not know its GPU model (`gpu` None) or GPUs per node.
    """

    name: str
    platform: str  # eks | aks | kind | existing
    gpu: str | None  # the catalog's GPU key (H100, ...)
    gpu_stack: str  # dra | device-plugin
    instance_type: str | None  # EC2 type / Azure VM size (kind/existing: when given)
    shape: InstanceType | None  # the catalog's entry for instance_type
    gpus_per_node: int | None  # None: unknown (kind/existing without gpusPerNode or a known instanceType)
    gpus_per_pcie_root: int
    labels: dict[str, str]  # every label the pool gives its nodes, sorted
    taints: tuple[PoolTaint, ...]
    min_nodes: int
    max_nodes: int
    desired_nodes: int
    autoscaled: bool  # a cluster autoscaler sizes the pool between min and max
    capacity: str = "on-demand"  # on-demand | spot | capacity-block
    mig_profile: str | None = None  # every GPU split into this MIG profile
    efa_interfaces: int = 0  # EFA interfaces per node (EKS EFA pools)
    disk_size_gb: int = 0  # root volume per node; 0: not the stack's (kind, existing)
    ami_type: str | None = None  # EKS AMI type
    zone: str | None = None  # the one zone the pool is pinned to
    capacity_reservation_id: str | None = None
    nodes: tuple[str, ...] = field(default=())  # node names the stack knows: kind workers, an existing pool's nodes
    # The pool's user data turns a Bottlerocket AMI's device plugin off and its host DRA driver on: this stack writes it
    # for every Bottlerocket NVIDIA DRA pool (components/plans/eks.py); the policy pack reads it back from the launch
    # template, so a node group made elsewhere without it keeps its device plugin.
    bottlerocket_dra_settings: bool = False

    @property
    def model(self) -> GpuModel | None:
        return catalog.gpu_model(self.gpu) if self.gpu in catalog.GPU_MODELS else None

    @property
    def dra(self) -> bool:
        return self.gpu_stack == "dra"

    @property
    def ships_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs run their own NVIDIA device plugin (docs/references.md#eks-nvidia-ami-contents),
        except where the user data turns it off for the host DRA driver."""
        return eks_amis.ships_device_plugin(self.ami_type) and not self.host_dra_driver

    @property
    def host_dra_driver(self) -> bool:
        """The node image runs the NVIDIA DRA driver itself (Bottlerocket NVIDIA DRA pools,
        docs/references.md#bottlerocket-nvidia-dra-driver), not the DRA driver chart's kubelet plugin."""
        return eks_amis.runs_host_dra_driver(self.ami_type, self.gpu_stack) and self.bottlerocket_dra_settings

    @property
    def max_gpus(self) -> int | None:
        return None if self.gpus_per_node is None else self.gpus_per_node * self.max_nodes

    def has_taint(self, key: str, effect: str) -> bool:
        return any(t.key == key and t.effect == effect for t in self.taints)


# ---------------------------------------------------------------------------------------------------
# From the stack


def pool_labels(pool: NodePool) -> dict[str, str]:
    """Node labels for a pool on every platform: user labels first, ours win on conflict (config rules forbid
    overlaps)."""
    dra = pool.gpu_stack == "dra"
    # Bottlerocket DRA pools run the host's DRA driver: the chart's kubelet plugin must not land there too.
    chart_plugin = dra and not eks_amis.runs_host_dra_driver(pool.ami_type, pool.gpu_stack)
    labels = {
        **pool.labels,
        POOL_LABEL: pool.name,
        GPU_LABEL: pool.gpu,
        GPU_STACK_LABEL: pool.gpu_stack,
        # Not nvidia.com/gpu.present: the GPU Operator sets it once NFD found the GPU, and resets it (deleting
        # every gpu.deploy.* label, this guard too) on a node that carries it before NFD has labelled it
        # (gpu-operator v25.10.1 controllers/state_manager.go:510-528). The operator keeps a gpu.deploy.* value
        # it finds (:374-384), so this static guard holds (v25.10.1; from v26.7.0 a node loses it until NFD has run,
        # and the cluster-wide devicePlugin.enabled=false of the config rules keeps the plugin off): its device
        # plugin stays off DRA nodes, and the DRA
        # kubelet plugin selects DRA_KUBELET_PLUGIN_LABEL, which device-plugin nodes and Bottlerocket DRA nodes (their
        # host runs the DRA driver) never carry.
        DEVICE_PLUGIN_DEPLOY_LABEL: "false" if dra else "true",
    }
    if chart_plugin:
        labels[DRA_KUBELET_PLUGIN_LABEL] = "true"
    if pool.mig is not None:
        labels[MIG_CONFIG_LABEL] = f"all-{pool.mig.profile}"
    return dict(sorted(labels.items()))


def uses_efa(shape: InstanceType | None) -> bool:
    """EC2 types of the EFA families get one EFA interface per network card (docs/references.md#eks-efa)."""
    return shape is not None and shape.family in catalog.EFA_FAMILIES and shape.efa_interfaces > 0


def pool_shape(platform: str, pool: NodePool) -> InstanceType | None:
    """The machine shape of a pool: on the clouds its own type or the catalog default for its GPU (config rules
    guarantee one); on kind/existing the catalog's entry for an instanceType it names, if any."""
    if platform in AUTOSCALED_PLATFORMS:
        shape = catalog.pool_shape(platform, pool.gpu, pool.instance_type)
        if shape is None:
            raise ValueError(
                f"pool {pool.name}: no {platform} instance type for {pool.gpu} (config rules should have caught this)"
            )
        return shape
    return catalog.instance_type_named(pool.instance_type)


def has_block_window(pool: NodePool) -> bool:
    """A Capacity Block pool that names its block's window scales on schedules (components/plans/eks.py)."""
    return (
        pool.capacity == "capacity-block"
        and pool.capacity_block_start is not None
        and pool.capacity_block_end is not None
    )


def plan_pool(pool: NodePool, platform: str, *, autoscaler: bool = False, nodes: Sequence[str] = ()) -> PoolPlan:
    """One pool of the stack on `platform`; `autoscaler`: the stack's cluster autoscaler runs; `nodes`: its
    kind workers (plan_pools names them)."""
    shape = pool_shape(platform, pool)
    cloud = platform in AUTOSCALED_PLATFORMS
    gpus, per_root = None, 1
    if cloud and shape is not None:
        gpus, per_root = shape.gpus, shape.gpus_per_pcie_root
    elif pool.gpus_per_node is not None:
        gpus = pool.gpus_per_node
    elif shape is not None:
        gpus, per_root = shape.gpus, shape.gpus_per_pcie_root
    labels = pool_labels(pool)
    efa = shape.efa_interfaces if platform == "eks" and shape is not None and uses_efa(shape) else 0
    if efa:
        labels = dict(sorted({**labels, EFA_LABEL: "true"}.items()))
    taints = (GPU_TAINT, AKS_SPOT_TAINT) if platform == "aks" and pool.capacity == "spot" else (GPU_TAINT,)
    capacity_block = pool.capacity == "capacity-block"
    if platform == "kind":
        # kind starts every worker of the config: the pool is always at maxNodes
        min_nodes = desired = pool.max_nodes
    elif capacity_block:
        # Sized by the block: its instances start when the schedule (or the block) begins.
        min_nodes, desired = 0, (0 if has_block_window(pool) else pool.max_nodes)
    else:
        min_nodes, desired = pool.min_nodes, pool.initial_nodes
    return PoolPlan(
        name=pool.name,
        platform=platform,
        gpu=pool.gpu,
        gpu_stack=pool.gpu_stack,
        instance_type=shape.name if shape is not None else pool.instance_type,
        shape=shape,
        gpus_per_node=gpus,
        gpus_per_pcie_root=per_root,
        labels=labels,
        taints=taints,
        min_nodes=min_nodes,
        max_nodes=pool.max_nodes,
        desired_nodes=desired,
        autoscaled=autoscaler and cloud and not capacity_block,
        capacity=pool.capacity,
        mig_profile=pool.mig.profile if pool.mig is not None else None,
        efa_interfaces=efa,
        disk_size_gb=pool.disk_size_gb if cloud else 0,  # kind and existing nodes bring their own disks
        ami_type=(pool.ami_type or eks_amis.DEFAULT_GPU_AMI) if platform == "eks" else pool.ami_type,
        bottlerocket_dra_settings=platform == "eks" and eks_amis.runs_host_dra_driver(pool.ami_type, pool.gpu_stack),
        zone=pool.availability_zone,
        capacity_reservation_id=pool.capacity_reservation_id,
        # kind's workers in the order kind names them; an existing pool's nodes sorted (the stack file's order is no
        # meaning)
        nodes=tuple(nodes) if platform == "kind" else tuple(sorted(pool.nodes)),
    )


def kind_worker_names(cluster_name: str, pools: Iterable[NodePool]) -> dict[str, list[str]]:
    """kind names workers <cluster>-worker, -worker2, ... in config order; pools are laid out sorted by
    name so reordering the stack file changes neither the kind config nor any node name."""
    names: dict[str, list[str]] = {}
    index = 0
    for pool in sorted(pools, key=lambda p: p.name):
        names[pool.name] = []
        for _ in range(pool.max_nodes):
            index += 1
            names[pool.name].append(f"{cluster_name}-worker{'' if index == 1 else index}")
    return names


def plan_pools(config: StackConfig) -> tuple[PoolPlan, ...]:
    """Every pool of the stack, sorted by name."""
    platform = config.platform
    workers = kind_worker_names(config.cluster.name, config.node_pools) if platform == "kind" else {}
    return tuple(
        plan_pool(pool, platform, autoscaler=config.autoscaler_enabled, nodes=workers.get(pool.name, ()))
        for pool in sorted(config.node_pools, key=lambda p: p.name)
    )


# ---------------------------------------------------------------------------------------------------
# platform existing: the node patches


@dataclass(frozen=True)
class NodePatchPlan:
    """The labels and taints the program applies to one named node of an existing cluster (server-side apply)."""

    node: str
    pool: str
    labels: dict[str, str]
    taints: tuple[PoolTaint, ...]


def node_patches(pools: Iterable[PoolPlan]) -> tuple[NodePatchPlan, ...]:
    """platform existing: one patch per node named in `nodePools[i].nodes`, in pool then node order."""
    return tuple(
        NodePatchPlan(node=node, pool=pool.name, labels=pool.labels, taints=pool.taints)
        for pool in pools
        if pool.platform == "existing"
        for node in pool.nodes
    )


def label_commands(pool: PoolPlan, node: str = NODE_PLACEHOLDER) -> list[str]:
    """The kubectl commands that give a node the pool's labels and taints (what the program's NodePatch applies)."""
    labels = " ".join(shlex.quote(f"{k}={v}") for k, v in pool.labels.items())
    taints = " ".join(shlex.quote(t.text) for t in pool.taints)
    return [f"kubectl label node {node} --overwrite {labels}", f"kubectl taint node {node} --overwrite {taints}"]


def unmapped_pool_warning(pool: PoolPlan) -> str:
    """What preview and `pulumi up` say about a pool of an existing cluster that names no nodes."""
    commands = "; ".join(label_commands(pool))
    return (
        f"pool {pool.name}: no nodes listed (nodePools[].nodes), so this stack labels and taints none; its GPU software "
        f"(NFD, the GPU Operator's operands, the {'DRA kubelet plugin' if pool.dra else 'device plugin'}) "
        f"will not run on any node until you run, for each of its nodes: {commands}"
    )
