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

from dra_gpu_platform.config.models import NodePool, StackConfig
from dra_gpu_platform.dra.tolerations import Taint
from dra_gpu_platform.facts import catalog, eks_amis, node_allocatable, platforms, provisioners
from dra_gpu_platform.facts.catalog import GpuModel, InstanceType
from dra_gpu_platform.facts.node_labels import (
    DEVICE_PLUGIN_DEPLOY_LABEL,
    DRA_KUBELET_PLUGIN_LABEL,
    EFA_LABEL,
    GPU_ARCHITECTURE_LABEL,
    GPU_COMPUTE_CAPABILITY_LABEL,
    GPU_LABEL,
    GPU_MEMORY_LABEL,
    GPU_MIG_INSTANCES_LABEL,
    GPU_MIG_MEMORY_LABEL,
    GPU_MIG_MEMORY_SLICES_LABEL,
    GPU_STACK_LABEL,
    GPUS_PER_NODE_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    label_value,
    pool_taint,
)

# The placeholder in the kubectl commands preview prints for a pool whose nodes the stack does not name.
NODE_PLACEHOLDER = "NODE"


@dataclass(frozen=True)
class PoolTaint(Taint):
    """A node taint of a pool in both spellings: Kubernetes (key, value, effect) and the EKS API's effect enum
    (NodeGroup taints[].effect; dra_gpu_platform/facts/platforms.py EKS.taint_effects)."""

    eks_effect: str = "NO_SCHEDULE"

    @classmethod
    def of(cls, key: str, value: str, effect: str) -> PoolTaint:
        return cls(key, value, effect, platforms.EKS.taint_effect(effect))

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


@dataclass(frozen=True)
class DeclaredPrice:
    """What the stack's owner pays per node-hour (USD) for a capacity-block pool or a pool in a capacity
    reservation (`nodePools[].price`), with the date it applies from and where the figure comes from."""

    per_node_hour: float
    as_of: str  # YYYY-MM-DD
    source: str


@dataclass(frozen=True)
class PoolPlan:
    """A GPU node pool: its GPUs, machine shape, node labels and taints, sizes and purchase option.

    A pool of this stack always knows its GPU and sizes; a pool read back from recorded resources (the policy
    pack's adapter) may not know its GPU model (`gpu` None) or GPUs per node. `gpu_model` holds the GPU's resolved
    facts, the catalog's or (a described GPU) the stack's; `model` reads them.
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
    # for every Bottlerocket NVIDIA DRA pool (dra_gpu_platform/plans/eks.py); the policy pack reads it back from the launch
    # template, so a node group made elsewhere without it keeps its device plugin.
    bottlerocket_dra_settings: bool = False
    gpu_model: GpuModel | None = None  # the GPU's facts (a described GPU's, or the catalog's)
    unlisted: bool = False  # a cloud instance type the catalog does not list: `shape` holds the declared facts
    declared_price: DeclaredPrice | None = None  # nodePools[].price
    # What grows the pool (dra_gpu_platform/facts/provisioners.py): a node group or agent pool under the cluster
    # autoscaler, a NodePool of Karpenter, EKS Auto Mode or AKS node auto-provisioning; their instance types (the
    # provisioner launches the cheapest that fits; `instance_type`/`shape` is the first, all alike in GPUs and CPU).
    provisioner: str = provisioners.CLUSTER_AUTOSCALER
    instance_types: tuple[str, ...] = ()

    @property
    def node_pool(self) -> bool:
        """A NodePool of Karpenter, EKS Auto Mode or AKS node auto-provisioning: no node group, no agent pool."""
        return self.provisioner in provisioners.NODE_POOL_PROVISIONERS

    @property
    def types(self) -> tuple[str, ...]:
        """Every instance type the pool's nodes may have."""
        return self.instance_types or ((self.instance_type,) if self.instance_type else ())

    @property
    def profile(self) -> platforms.PlatformProfile:
        """What differs on the pool's platform (dra_gpu_platform/facts/platforms.py)."""
        return platforms.profile(self.platform)

    @property
    def model(self) -> GpuModel | None:
        if self.gpu_model is not None:
            return self.gpu_model
        return catalog.gpu_model(self.gpu) if self.gpu in catalog.GPU_MODELS else None

    @property
    def described(self) -> bool:
        """A GPU the catalog does not list, as the stack describes it."""
        return self.gpu is not None and self.gpu not in catalog.GPU_MODELS and self.gpu_model is not None

    @property
    def gpu_name(self) -> str | None:
        """The catalog key, or a described GPU's NVML product name."""
        model = self.model
        return model.product_name if self.described and model is not None else self.gpu

    @property
    def min_gpus(self) -> int | None:
        return None if self.gpus_per_node is None else self.gpus_per_node * self.min_nodes

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

    @property
    def node_arch(self) -> str:
        """The `kubernetes.io/arch` value the kubelet gives the pool's nodes (Go's GOARCH): arm64 on Grace instances
        (p6e-gb200, ND GB200 v6), amd64 elsewhere and where the shape is unknown."""
        architecture = self.shape.cpu_architecture if self.shape is not None else "x86_64"
        return node_allocatable.GO_ARCH[architecture]

    def has_taint(self, key: str, effect: str) -> bool:
        return any(t.key == key and t.effect == effect for t in self.taints)


# ---------------------------------------------------------------------------------------------------
# From the stack


def pool_labels(pool: NodePool) -> dict[str, str]:
    """Node labels for a pool on every platform: user labels first, ours win on conflict (config rules forbid
    overlaps). A pool of a described GPU or an unlisted instance type also carries the facts the policy pack must
    read back (dra_gpu_platform/facts/node_labels.py)."""
    dra = pool.gpu_stack == "dra"
    # Bottlerocket DRA pools run the host's DRA driver: the chart's kubelet plugin must not land there too.
    chart_plugin = dra and not eks_amis.runs_host_dra_driver(pool.ami_type, pool.gpu_stack)
    labels = {
        **pool.labels,
        **described_labels(pool),
        POOL_LABEL: pool.name,
        GPU_LABEL: pool.gpu_key,
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


def described_labels(pool: NodePool) -> dict[str, str]:
    """The facts of a GPU or instance type the catalog does not list, as node labels (read back by the policy
    pack's adapter, dra_gpu_platform/recorded/pools.py): nothing for a catalog GPU on a catalog type."""
    labels: dict[str, str] = {}
    gpu = pool.described_gpu
    if gpu is not None:
        labels[GPU_MEMORY_LABEL] = gpu.memory
        labels[GPU_COMPUTE_CAPABILITY_LABEL] = gpu.compute_capability
        labels[GPU_ARCHITECTURE_LABEL] = label_value(gpu.architecture)
        profile = next((p for p in gpu.mig_profiles if pool.mig is not None and p.name == pool.mig.profile), None)
        if profile is not None:
            labels[GPU_MIG_INSTANCES_LABEL] = str(profile.max_count)
            labels[GPU_MIG_MEMORY_SLICES_LABEL] = str(profile.memory_slices)
            if profile.memory is not None:
                labels[GPU_MIG_MEMORY_LABEL] = profile.memory
    gpus = (
        pool.gpus_per_node
        if gpu is not None
        else pool.instance_facts.gpus
        if pool.unlisted and pool.instance_facts
        else None
    )
    if gpus is not None:
        labels[GPUS_PER_NODE_LABEL] = str(gpus)
    return labels


def uses_efa(shape: InstanceType | None) -> bool:
    """EC2 types of the EFA families get one EFA interface per network card (docs/references.md#eks-efa); an
    unlisted type the interfaces its stack declares."""
    return shape is not None and (shape.family in catalog.EFA_FAMILIES or not shape.listed) and shape.efa_interfaces > 0


def pool_shape(platform: str, pool: NodePool) -> InstanceType | None:
    """The machine shape of a pool: on the clouds its own type or the catalog default for its GPU (config rules
    guarantee one); on kind/existing the catalog's entry for an instanceType it names, if any."""
    if platforms.profile(platform).node_pools.bought:
        declared = pool.declared_shape(platform)
        first = pool.instance_types[0] if pool.instance_types else pool.instance_type
        shape = declared or catalog.pool_shape(platform, pool.gpu_key, first)
        if shape is None:
            raise ValueError(
                f"pool {pool.name}: no {platform} instance type for {pool.gpu_name} (config rules should have caught this)"
            )
        return shape
    return catalog.instance_type_named(pool.instance_type)


def has_block_window(pool: NodePool) -> bool:
    """A Capacity Block pool that names its block's window scales on schedules (dra_gpu_platform/plans/eks.py)."""
    return (
        pool.capacity == "capacity-block"
        and pool.capacity_block_start is not None
        and pool.capacity_block_end is not None
    )


def plan_pool(
    pool: NodePool,
    platform: str,
    *,
    autoscaler: bool = False,
    nodes: Sequence[str] = (),
    provisioner: str = provisioners.CLUSTER_AUTOSCALER,
) -> PoolPlan:
    """One pool of the stack on `platform`; `autoscaler`: the stack's cluster autoscaler runs; `nodes`: its
    kind workers (plan_pools names them); `provisioner`: what grows it (a NodePool provisioner keeps no nodes of its
    own: the pool is 0 nodes until pods are pending)."""
    shape = pool_shape(platform, pool)
    bought = platforms.profile(platform).node_pools
    cloud = bought.bought
    node_pool = cloud and provisioner in provisioners.NODE_POOL_PROVISIONERS
    gpus, per_root = None, 1
    if cloud and shape is not None:
        gpus, per_root = shape.gpus, shape.gpus_per_pcie_root
    elif pool.gpus_per_node is not None:
        gpus = pool.gpus_per_node
    elif shape is not None:
        gpus, per_root = shape.gpus, shape.gpus_per_pcie_root
    labels = pool_labels(pool)
    # EKS Auto Mode handles its nodes' network interfaces itself: no EFA interfaces or EFA device plugin of ours.
    auto_mode = node_pool and provisioner == provisioners.AUTO_MODE
    efa = shape.efa_interfaces if bought.efa and shape is not None and uses_efa(shape) and not auto_mode else 0
    if efa:
        labels = dict(sorted({**labels, EFA_LABEL: "true"}.items()))
    taints: tuple[PoolTaint, ...] = (GPU_TAINT,)
    if bought.spot_taint is not None and pool.capacity == "spot":
        taints += (PoolTaint.parse(bought.spot_taint),)
    capacity_block = pool.capacity == "capacity-block"
    if bought.workers_at_max:
        # kind starts every worker of the config: the pool is always at maxNodes
        min_nodes = desired = pool.max_nodes
    elif node_pool:
        min_nodes = desired = 0  # nodes for pending pods only, Capacity Block pools too (launched while it is active)
    elif capacity_block:
        # Sized by the block: its instances start when the schedule (or the block) begins.
        min_nodes, desired = 0, (0 if has_block_window(pool) else pool.max_nodes)
    else:
        min_nodes, desired = pool.min_nodes, pool.initial_nodes
    return PoolPlan(
        name=pool.name,
        platform=platform,
        gpu=pool.gpu_key,
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
        autoscaled=autoscaler and cloud and (node_pool or not capacity_block),
        capacity=pool.capacity,
        mig_profile=pool.mig.profile if pool.mig is not None else None,
        efa_interfaces=efa,
        disk_size_gb=pool.disk_size_gb if cloud else 0,  # kind and existing nodes bring their own disks
        ami_type=(pool.ami_type or eks_amis.default_gpu_ami(shape.cpu_architecture if shape else "x86_64"))
        if bought.ami_types and not auto_mode
        else pool.ami_type,
        bottlerocket_dra_settings=bought.ami_types and eks_amis.runs_host_dra_driver(pool.ami_type, pool.gpu_stack),
        zone=pool.availability_zone,
        capacity_reservation_id=pool.capacity_reservation_id,
        # kind's workers in the order kind names them; an existing pool's nodes sorted (the stack file's order is no
        # meaning)
        nodes=tuple(nodes) if bought.workers_at_max else tuple(sorted(pool.nodes)),
        gpu_model=pool.gpu_model,
        unlisted=shape is not None and not shape.listed,
        declared_price=declared_price(pool),
        provisioner=provisioner if node_pool else provisioners.CLUSTER_AUTOSCALER,
        instance_types=tuple(pool.instance_types or ()) if node_pool else (),
    )


DECLARED_PRICE_SOURCE = "declared in the stack file (nodePools[].price)"


def declared_price(pool: NodePool) -> DeclaredPrice | None:
    price = pool.price
    if price is None:
        return None
    source = f"{price.source}; {DECLARED_PRICE_SOURCE}" if price.source else DECLARED_PRICE_SOURCE
    return DeclaredPrice(price.per_node_hour, price.as_of, source)


def unlisted_note(pool: PoolPlan) -> str | None:
    """What preview and `pulumi up` say about a pool whose instance type the catalog does not list."""
    if not pool.unlisted or pool.shape is None:
        return None
    shape = pool.shape
    return (
        f"pool {pool.name}: instance type {pool.instance_type} is not in the catalog (allowUnlisted); its "
        f"{shape.gpus} GPU(s), {shape.vcpus} vCPUs, {shape.memory_gib} GiB and {shape.max_efa_interfaces or 0} EFA "
        "interface(s) are the stack's instanceFacts, unchecked here (gpuplan preflight asks the cloud)"
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
    at_max = config.profile.node_pools.workers_at_max
    workers = kind_worker_names(config.cluster.name, config.node_pools) if at_max else {}
    return tuple(
        plan_pool(
            pool,
            platform,
            autoscaler=config.autoscaler_enabled,
            nodes=workers.get(pool.name, ()),
            provisioner=config.provisioner if config.node_pool_provisioner else provisioners.CLUSTER_AUTOSCALER,
        )
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
        if pool.profile.node_pools.existing_nodes
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
