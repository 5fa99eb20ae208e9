"""A recorded stack's GPU node pools (EKS node groups, AKS agent pools, kind workers, an existing cluster's patched
nodes), read back from resource props by type token as PoolPlans: the inverse of plans/node_pools.py, held to it by a
round-trip test (tests/recorded/test_pool_adapter.py).

Works on pulumi_policy's PolicyResource objects (or anything with resource_type/props/urn/name/
dependencies), so the same code serves `pulumi preview --policy-pack` and the offline `gpuplan policy`.
"""

from __future__ import annotations

import base64
import re
import tomllib
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

import yaml

from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import auto_mode, catalog, eks_amis, karpenter, platforms, provisioners
from dra_gpu_platform.facts import efa as efa_facts
from dra_gpu_platform.facts import node_auto_provisioning as nap
from dra_gpu_platform.facts.catalog import GpuModel
from dra_gpu_platform.facts.node_labels import (
    DRA_KUBELET_PLUGIN_LABEL,
    GPU_ARCHITECTURE_LABEL,
    GPU_COMPUTE_CAPABILITY_LABEL,
    GPU_LABEL,
    GPU_MEMORY_LABEL,
    GPU_MIG_INSTANCES_LABEL,
    GPU_MIG_MEMORY_LABEL,
    GPU_MIG_MEMORY_SLICES_LABEL,
    GPU_PRESENT_LABEL,
    GPU_STACK_LABEL,
    GPUS_PER_NODE_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    from_label_value,
)
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.node_pools import PoolPlan, PoolTaint
from dra_gpu_platform.recorded import props as c

NODE_PATCH = Upstream.NODE_PATCH

# ---------------------------------------------------------------------------------------------------
# GPU hardware facts (docs/references.md#eks-ami-types, docs/references.md#ec2-gpu-instance-types,
# docs/references.md#eks-nvidia-ami-contents)


def ec2_gpus(instance_type: str | None) -> tuple[bool, int | None]:
    """(is a GPU type, GPUs per instance when the catalog knows the size)."""
    return _gpus("eks", instance_type)


def azure_gpus(vm_size: str | None) -> tuple[bool, int | None]:
    return _gpus("aks", vm_size)


def _gpus(platform: str, name: str | None) -> tuple[bool, int | None]:
    is_gpu_type = platforms.profile(platform).node_pools.is_gpu_type
    if not name or is_gpu_type is None:
        return False, None
    shape = catalog.instance_type(platform, name)
    return (True, shape.gpus) if shape is not None else (is_gpu_type(name), None)


def labels_say_gpu(labels: dict[str, str]) -> bool:
    return labels.get(GPU_PRESENT_LABEL) == "true" or GPU_LABEL in labels


# ---------------------------------------------------------------------------------------------------
# GPU node pools: the ONE adapter from recorded resource properties (EKS node groups with their launch template,
# AKS agent pools and a ManagedCluster's inline pools, the workers of a kind config, an existing cluster's node
# patches) to the PoolPlan the stack's own plan uses (dra_gpu_platform/plans/node_pools.py). Pools without GPUs (system
# pools, CPU workers) are left out; what props do not say stays unknown (gpu None, gpus_per_node None).

_EKS_CAPACITY = {eks_enum: capacity for capacity, eks_enum in eks_plan.CAPACITY_TYPES.items()}
_EFA_INTERFACE_TYPES = (efa_facts.PRIMARY_INTERFACE, efa_facts.SECONDARY_INTERFACE)
_AUTOSCALER_ENABLED_TAG = f"{eks_plan.AUTOSCALER_PREFIX}/enabled"


def _taint(key: Any, value: Any, effect: Any) -> PoolTaint:
    """A taint as recorded: Kubernetes' effect spelling, or the EKS API's (NO_SCHEDULE)."""
    return PoolTaint.of(str(key or ""), str(value or ""), platforms.EKS.kubernetes_effect(str(effect or "")))


def _gpu_stack(labels: dict[str, str]) -> str:
    stack = labels.get(GPU_STACK_LABEL)
    if stack in ("dra", "device-plugin"):
        return stack
    return "dra" if labels.get(DRA_KUBELET_PLUGIN_LABEL) == "true" else "device-plugin"


def _recorded_pool(
    name: str,
    platform: str,
    labels: dict[str, str],
    taints: tuple[PoolTaint, ...],
    instance_type: str | None,
    sizes: tuple[int, int, int],
    **known: Any,
) -> PoolPlan:
    """A PoolPlan from what the props say: the GPU model from the pool label (a described GPU from the labels its
    pool carries) or the instance type, GPUs per node from the type or the pool's label, sizes as (min, max,
    desired)."""
    shape = catalog.instance_type_named(instance_type, platform) if instance_type else None
    gpu = labels.get(GPU_LABEL)
    profile = labels.get(MIG_CONFIG_LABEL, "").removeprefix("all-") or None
    model = catalog.gpu_model(gpu) if gpu in catalog.GPU_MODELS else _described_model(gpu, labels, profile)
    if model is None:
        gpu = shape.gpu if shape is not None else None
        model = catalog.gpu_model(gpu) if gpu is not None else None
    per_node = _label_int(labels, GPUS_PER_NODE_LABEL)
    known.setdefault("autoscaled", False)
    return PoolPlan(
        name=name,
        platform=platform,
        gpu=gpu,
        gpu_stack=_gpu_stack(labels),
        instance_type=instance_type,
        shape=shape,
        gpus_per_node=shape.gpus if shape is not None else per_node,
        gpus_per_pcie_root=shape.gpus_per_pcie_root if shape is not None else 1,
        labels=dict(sorted(labels.items())),
        taints=taints,
        min_nodes=sizes[0],
        max_nodes=sizes[1],
        desired_nodes=sizes[2],
        mig_profile=profile,
        gpu_model=model,
        # a cloud instance type the catalog does not list: its GPUs per node come from the pool's label
        unlisted=platforms.profile(platform).node_pools.bought
        and bool(instance_type)
        and shape is None
        and per_node is not None,
        **known,
    )


def _label_int(labels: dict[str, str], key: str) -> int | None:
    value = labels.get(key, "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def _label_quantity(labels: dict[str, str], key: str) -> str | None:
    value = labels.get(key)
    try:
        return value if value is not None and parse_quantity(value) is not None else None
    except QuantityError:
        return None


def _described_model(gpu: str | None, labels: dict[str, str], profile: str | None) -> GpuModel | None:
    """A described GPU read back from its pool's labels (dra_gpu_platform/plans/node_pools.py described_labels), None
    when they do not describe one."""
    memory = labels.get(GPU_MEMORY_LABEL)
    capability = labels.get(GPU_COMPUTE_CAPABILITY_LABEL, "")
    architecture = labels.get(GPU_ARCHITECTURE_LABEL)
    if not gpu or not memory or not architecture or not re.match(r"^\d+\.\d+(\.\d+)?$", capability):
        return None
    if _label_quantity(labels, GPU_MEMORY_LABEL) is None:
        return None
    instances = _label_int(labels, GPU_MIG_INSTANCES_LABEL)
    slices = _label_int(labels, GPU_MIG_MEMORY_SLICES_LABEL)
    # Only the pool's own profile is on its labels: the one its GPUs are split into.
    migs = (
        (catalog.described_mig_profile(profile, instances, slices, _label_quantity(labels, GPU_MIG_MEMORY_LABEL)),)
        if profile and instances and slices and re.match(r"^\d+g\.", profile)
        else ()
    )
    return catalog.described_gpu_model(from_label_value(gpu), memory, capability, from_label_value(architecture), migs)


def eks_node_group_pool(name: str, props: Any, launch_template: Any = None) -> PoolPlan | None:
    """An EKS node group (its launch template for a Capacity Block's instance type, EFA interfaces, disk and
    reservation); None for a node group without GPUs."""
    labels = c.string_map(c.dig(props, "labels"))
    instance_types = [str(t) for t in c.as_list(c.dig(props, "instanceTypes"))]
    if not instance_types and launch_template is not None and c.dig(launch_template, "instanceType"):
        # Capacity Block node groups carry the instance type on their launch template
        # (docs/references.md#eks-capacity-block-node-groups).
        instance_types = [str(c.dig(launch_template, "instanceType"))]
    instance_type = instance_types[0] if instance_types else None
    gpu, _ = ec2_gpus(instance_type)
    ami = c.dig(props, "amiType")
    if not (gpu or ami in eks_amis.NVIDIA_AMI_TYPES or ami in eks_amis.LEGACY_GPU_AMI_TYPES or labels_say_gpu(labels)):
        return None
    scaling = c.dig(props, "scalingConfig")
    # What no rule needs to judge the pool is read through c.known: unknown in a preview, it stays unknown here.
    capacity = c.known(lambda: _EKS_CAPACITY.get(str(c.dig(props, "capacityType", default="ON_DEMAND"))), None)
    capacity = capacity or "on-demand"
    maximum = c.as_int(c.dig(scaling, "maxSize")) or 0

    def efa() -> int:
        interfaces = c.as_list(c.dig(launch_template, "networkInterfaces"))
        return sum(1 for i in interfaces if c.dig(i, "interfaceType") in _EFA_INTERFACE_TYPES)

    def disk() -> int:
        size = c.dig(launch_template, "blockDeviceMappings", 0, "ebs", "volumeSize") or c.dig(props, "diskSize")
        return c.as_int(size) or 0

    reservation = ("capacityReservationSpecification", "capacityReservationTarget", "capacityReservationId")
    return _recorded_pool(
        labels.get(POOL_LABEL) or c.dig(props, "nodeGroupName") or name,
        "eks",
        labels,
        tuple(
            _taint(c.dig(t, "key"), c.dig(t, "value"), c.dig(t, "effect")) for t in c.as_list(c.dig(props, "taints"))
        ),
        instance_type,
        (
            c.known(lambda: c.as_int(c.dig(scaling, "minSize")), None) or 0,
            maximum,
            c.known(lambda: c.as_int(c.dig(scaling, "desiredSize")), None) or 0,
        ),
        # the autoscaler's tag, except on a Capacity Block, which its block sizes (dra_gpu_platform/plans/node_pools.py)
        autoscaled=c.known(lambda: c.dig(props, "tags", _AUTOSCALER_ENABLED_TAG) == "true", False)
        and capacity != "capacity-block",
        capacity=capacity,
        efa_interfaces=c.known(efa, 0),
        disk_size_gb=c.known(disk, 0),
        ami_type=ami,
        capacity_reservation_id=c.known(lambda: c.dig(launch_template, *reservation), None),
        bottlerocket_dra_settings=c.known(lambda: _bottlerocket_dra_user_data(launch_template), False),
    )


def _bottlerocket_dra_user_data(launch_template: Any) -> bool:
    """Whether the launch template's user data (base64 Bottlerocket TOML) turns the AMI's device plugin off and its
    host DRA driver on (docs/references.md#bottlerocket-nvidia-dra-driver); False when there is none or it is not TOML."""
    encoded = c.dig(launch_template, "userData")
    if not isinstance(encoded, str) or not encoded:
        return False
    try:
        document = tomllib.loads(base64.b64decode(encoded, validate=True).decode("utf-8"))
    except (ValueError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False
    return eks_amis.has_bottlerocket_dra_settings(document)


def aks_agent_pool(name: str, props: Any) -> PoolPlan | None:
    """An AKS agent pool (or one of a ManagedCluster's agentPoolProfiles); None for a pool without GPUs. The pool
    label holds the stack's pool name; AKS pool names are shorter (no dashes)."""
    labels = c.string_map(c.dig(props, "nodeLabels"))
    vm_size = c.dig(props, "vmSize")
    gpu, _ = azure_gpus(vm_size)
    if not (gpu or labels_say_gpu(labels)):
        return None
    autoscale = bool(c.dig(props, "enableAutoScaling", default=False))
    count = c.as_int(c.dig(props, "count"))
    minimum = c.known(lambda: c.as_int(c.dig(props, "minCount")), None)
    sizes = (
        (minimum or 0, c.as_int(c.dig(props, "maxCount")) or 0, count or 0)
        if autoscale
        else (count or 0, count or 0, count or 0)
    )
    return _recorded_pool(
        labels.get(POOL_LABEL) or c.dig(props, "agentPoolName") or name,
        "aks",
        labels,
        tuple(PoolTaint.parse(str(t)) for t in c.as_list(c.dig(props, "nodeTaints"))),
        vm_size,
        sizes,
        autoscaled=autoscale,
        capacity="spot"
        if c.known(lambda: c.dig(props, "scaleSetPriority"), None) == aks_facts.SPOT_PRIORITY
        else "on-demand",
        disk_size_gb=c.known(lambda: c.as_int(c.dig(props, "osDiskSizeGB")), None) or 0,
        capacity_reservation_id=c.known(lambda: c.dig(props, "capacityReservationGroupID"), None),
    )


def aks_cluster_pools(props: Any) -> list[PoolPlan]:
    pools = []
    for i, profile in enumerate(c.as_list(c.dig(props, "agentPoolProfiles"))):
        pool = aks_agent_pool(str(c.dig(profile, "name", default=f"profile-{i}")), profile)
        if pool is not None:
            pools.append(pool)
    return pools


def kind_config(props: Any) -> dict[str, Any] | None:
    """The kind cluster config a command passes in its environment (kind reads it with --config)."""
    for value in c.as_dict(c.dig(props, "environment")).values():
        if not isinstance(value, str) or "kind.x-k8s.io/" not in value:
            continue
        try:
            document = yaml.safe_load(value)
        except yaml.YAMLError:
            continue
        if isinstance(document, dict) and document.get("kind") == "Cluster":
            return document
    return None


def kind_pools(props: Any) -> list[PoolPlan]:
    """The GPU workers of a kind config, grouped by their labels, with the names kind gives them
    (<cluster>-worker, -worker2, ... in config order)."""
    document = kind_config(props)
    if document is None:
        return []
    groups: dict[tuple[tuple[str, str], ...], list[tuple[str, dict[str, Any]]]] = {}
    for index, node in enumerate(_kind_workers(document), start=1):
        labels = {str(k): str(v) for k, v in (node.get("labels") or {}).items()}
        name = f"{document.get('name', 'kind')}-worker{'' if index == 1 else index}"
        groups.setdefault(tuple(sorted(labels.items())), []).append((name, node))
    pools = []
    for position, (key, workers) in enumerate(groups.items()):
        labels = dict(key)
        if not labels_say_gpu(labels):
            continue
        count = len(workers)
        pools.append(
            _recorded_pool(
                labels.get(POOL_LABEL, f"workers-{position + 1}"),
                "kind",
                labels,
                _kind_taints(workers[0][1]),
                None,
                (count, count, count),
                nodes=tuple(name for name, _ in workers),
            )
        )
    return pools


def _kind_taints(node: dict) -> tuple[PoolTaint, ...]:
    taints = []
    for patch in node.get("kubeadmConfigPatches") or []:
        try:
            document = yaml.safe_load(patch) if isinstance(patch, str) else patch
        except yaml.YAMLError:
            continue
        if isinstance(document, dict) and document.get("kind") == "JoinConfiguration":
            for taint in (document.get("nodeRegistration") or {}).get("taints") or []:
                taints.append(_taint(taint.get("key"), taint.get("value"), taint.get("effect")))
    return tuple(taints)


def node_patch_pool(name: str, props: Any) -> PoolPlan | None:
    """One node of an existing cluster that the program labels and taints (a NodePatch); None when its labels say
    nothing about GPUs."""
    labels = c.string_map(c.dig(props, "metadata", "labels"))
    if not labels_say_gpu(labels):
        return None
    node = str(c.known(lambda: c.dig(props, "metadata", "name", default=name), name))
    taints = tuple(
        _taint(c.dig(t, "key"), c.dig(t, "value"), c.dig(t, "effect"))
        for t in c.as_list(c.dig(props, "spec", "taints"))
    )
    return _recorded_pool(labels.get(POOL_LABEL, node), "existing", labels, taints, None, (1, 1, 1), nodes=(node,))


# A NodePool's node class group -> its provisioner (dra_gpu_platform/facts/karpenter.py, auto_mode.py,
# node_auto_provisioning.py), whose one platform says how its instance types are read; they are named by these
# requirement keys.
_NODE_CLASS_GROUPS = {
    karpenter.EC2_NODE_CLASS_GROUP: provisioners.KARPENTER,
    auto_mode.NODE_CLASS_GROUP: provisioners.AUTO_MODE,
    nap.NODE_CLASS_GROUP: provisioners.NODE_AUTO_PROVISIONING,
}
_INSTANCE_TYPE_KEYS = (karpenter.INSTANCE_TYPE_LABEL, nap.SKU_NAME_LABEL)
# Requirement keys that select GPU instances by what they carry (Karpenter's, EKS Auto Mode's, NAP's own).
_GPU_REQUIREMENT_KEYS = (
    "karpenter.k8s.aws/instance-gpu-count",
    "karpenter.k8s.aws/instance-gpu-name",
    "karpenter.k8s.aws/instance-gpu-manufacturer",
    "eks.amazonaws.com/instance-gpu-count",
    "eks.amazonaws.com/instance-gpu-name",
    "eks.amazonaws.com/instance-gpu-manufacturer",
    "karpenter.azure.com/sku-gpu-count",
    "karpenter.azure.com/sku-gpu-name",
    "karpenter.azure.com/sku-gpu-manufacturer",
)


def node_pool_requirements(props: Any) -> list[dict[str, Any]]:
    return [c.as_dict(r) for r in c.as_list(c.dig(props, "spec", "template", "spec", "requirements"))]


def karpenter_node_pool(name: str, props: Any) -> PoolPlan | None:
    """A karpenter.sh/v1 NodePool (Karpenter's, EKS Auto Mode's, AKS NAP's): its template's labels and taints, its
    instance types (an `In` requirement), its purchase option and zone, `limits.nodes` as maxNodes (0 when it has
    none: the pool is unbounded); None for a NodePool of no GPU instances."""
    template = c.dig(props, "spec", "template")
    labels = c.string_map(c.dig(template, "metadata", "labels"))
    requirements = node_pool_requirements(props)

    def values(key: str) -> list[str]:
        found = [r for r in requirements if r.get("key") == key and r.get("operator") == "In"]
        return [str(v) for r in found for v in c.as_list(r.get("values"))]

    group = str(c.dig(template, "spec", "nodeClassRef", "group", default=""))
    provisioner = _NODE_CLASS_GROUPS.get(group, provisioners.KARPENTER)
    (platform,) = platforms.offering(provisioner)
    types = [t for key in _INSTANCE_TYPE_KEYS for t in values(key)]
    gpu_types = [t for t in types if _gpus(platform, t)[0]]
    asks_gpus = any(r.get("key") in _GPU_REQUIREMENT_KEYS for r in requirements)
    if not (gpu_types or asks_gpus or labels_say_gpu(labels)):
        return None
    capacity_types = set(values(karpenter.CAPACITY_TYPE_LABEL))
    capacity = (
        "spot" if capacity_types == {"spot"} else "capacity-block" if capacity_types == {"reserved"} else "on-demand"
    )
    limit = c.as_int(c.dig(props, "spec", "limits", "nodes"))
    zones = values(karpenter.ZONE_LABEL)
    return _recorded_pool(
        labels.get(POOL_LABEL) or str(c.dig(props, "metadata", "name", default=name)),
        platform,
        labels,
        tuple(
            _taint(c.dig(t, "key"), c.dig(t, "value"), c.dig(t, "effect"))
            for t in c.as_list(c.dig(template, "spec", "taints"))
        ),
        max(gpu_types, key=lambda t: _gpus(platform, t)[1] or 0) if gpu_types else (types or [None])[0],
        (0, limit or 0, 0),
        autoscaled=True,
        capacity=capacity,
        zone=zones[0] if len(zones) == 1 else None,
        provisioner=provisioner,
        instance_types=tuple(gpu_types or types),
    )


def pools_of(resource_type: str, name: str, props: Any, launch_template: Any = None) -> list[PoolPlan]:
    """The GPU pools one recorded resource declares."""
    found: PoolPlan | None = None
    if resource_type == c.EKS_NODE_GROUP:
        found = eks_node_group_pool(name, props, launch_template)
    elif resource_type == c.KARPENTER_NODE_POOL:
        found = karpenter_node_pool(name, props)
    elif c.AKS_AGENT_POOL_RE.match(resource_type):
        found = aks_agent_pool(name, props)
    elif resource_type == NODE_PATCH:
        found = node_patch_pool(name, props)
    elif c.AKS_CLUSTER_RE.match(resource_type):
        return aks_cluster_pools(props)
    elif resource_type == c.COMMAND:
        return kind_pools(props)
    return [found] if found is not None else []


def launch_template_of(resource: Any) -> Any:
    """The LaunchTemplate a node group uses, found through its (property) dependencies."""
    candidates = list(getattr(resource, "property_dependencies", {}).get("launchTemplate", []))
    candidates += list(getattr(resource, "dependencies", []))
    for dependency in candidates:
        if dependency.resource_type == c.LAUNCH_TEMPLATE:
            return dependency.props
    return None


def declares_node_pools(resources: Iterable[Any]) -> bool:
    """The program creates node pools of its own (GPU or not): EKS node groups, AKS pools, Karpenter NodePools, a
    kind cluster."""
    return any(
        r.resource_type in (c.EKS_NODE_GROUP, c.KARPENTER_NODE_POOL)
        or c.AKS_AGENT_POOL_RE.match(r.resource_type)
        or (c.AKS_CLUSTER_RE.match(r.resource_type) and c.as_list(c.dig(r.props, "agentPoolProfiles")))
        or (r.resource_type == c.COMMAND and _kind_workers(kind_config(r.props)))
        for r in resources
    )


def _kind_workers(document: dict[str, Any] | None) -> list[dict[str, Any]]:
    nodes = (document or {}).get("nodes") or []
    return [n for n in nodes if isinstance(n, dict) and n.get("role") == "worker"]


def stack_pools(resources: Iterable[Any]) -> list[tuple[str, PoolPlan]]:
    """(URN, pool) of every GPU pool the stack declares; an existing cluster's patched nodes of one pool are one
    pool (its nodes sorted, the first URN of their patches)."""
    pools: list[tuple[str, PoolPlan]] = []
    patched: dict[str, int] = {}  # pool name -> its position in `pools`
    for r in resources:
        template = launch_template_of(r) if r.resource_type == c.EKS_NODE_GROUP else None
        for pool in pools_of(r.resource_type, r.name, r.props, template):
            if not pool.profile.node_pools.existing_nodes:
                pools.append((r.urn, pool))
            elif pool.name in patched:
                urn, known = pools[patched[pool.name]]
                nodes = tuple(sorted({*known.nodes, *pool.nodes}))
                count = len(nodes)
                grown = replace(known, nodes=nodes, min_nodes=count, max_nodes=count, desired_nodes=count)
                pools[patched[pool.name]] = (min(urn, r.urn), grown)
            else:
                patched[pool.name] = len(pools)
                pools.append((r.urn, pool))
    return pools


def stack_region(resources: Iterable[Any]) -> str | None:
    """Where the stack's cloud pools run (prices are per region): the region of the provider an EKS node group is
    created with (the engine hands every resource's provider to the pack, a default provider with the stack's
    `aws:region` too; docs/references.md#pulumi-analyzer-providers), or an AKS cluster's `location`."""
    for r in resources:
        if r.resource_type == c.EKS_NODE_GROUP or c.AKS_AGENT_POOL_RE.match(r.resource_type):
            provider = getattr(r, "provider", None)
            key = "region" if r.resource_type == c.EKS_NODE_GROUP else "location"
            found = c.known(lambda p=provider, k=key: c.dig(getattr(p, "props", None), k), None)
            if isinstance(found, str) and found:
                return found
        if c.AKS_CLUSTER_RE.match(r.resource_type):
            found = c.known(lambda props=r.props: c.dig(props, "location"), None)
            if isinstance(found, str) and found:
                return found
    return None
