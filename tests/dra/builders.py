"""Small DRA inventories and claims for the allocator and scheduler tests (plain resource.k8s.io/v1 documents)."""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.dra.claims import DeviceClassSpec, parse_claim_spec
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.model import Features, NodeInfo, PodClaim, Selectors, Usage
from dra_gpu_platform.dra.scheduler import ClaimObject, PodClaimRef, PodSpec, Scheduler
from dra_gpu_platform.dra.tolerations import apply_taint_rules

EX = "gpu.example.com"
ANY = DeviceClassSpec("any", (f"device.driver == '{EX}'",))
BIG = DeviceClassSpec("big", (f"device.capacity['{EX}'].memory.compareTo(quantity('40Gi')) >= 0",))
CLASSES = {c.name: c for c in (ANY, BIG)}
ROOT = "resource.kubernetes.io/pcieRoot"
DEFAULT_135 = Features()  # DRAAdminAccess and DRAPrioritizedList on, the alpha gates off


def device(name: str, memory: str = "80Gi", root: str | None = None, **attributes: Any) -> dict[str, Any]:
    attrs: dict[str, Any] = {"model": {"string": "LATEST"}}
    for key, value in attributes.items():
        kind = "bool" if isinstance(value, bool) else "int" if isinstance(value, int) else "string"
        attrs[key] = {kind: value}
    if root is not None:
        attrs[ROOT] = {"string": root}
    return {"name": name, "attributes": attrs, "capacity": {"memory": {"value": memory}}}


def gpus(count: int, memory: str = "80Gi", per_root: int = 0, start: int = 0) -> list[dict[str, Any]]:
    return [
        device(f"gpu-{i}", memory, f"pci{i // per_root}" if per_root else None) for i in range(start, start + count)
    ]


def slice_doc(
    node: str | None,
    devices: list[dict[str, Any]],
    *,
    pool: str | None = None,
    name: str | None = None,
    generation: int = 1,
    count: int = 1,
    driver: str = EX,
    **placement: Any,
) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool or node or "shared", "generation": generation, "resourceSliceCount": count},
        "devices": devices,
    }
    if node is not None:
        spec["nodeName"] = node
    spec.update(placement)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name or f"{pool or node}-{generation}-{len(devices)}"},
        "spec": spec,
    }


def claim(
    namespace: str = "ns",
    name: str = "c",
    *requests: dict[str, Any],
    constraints: list[dict[str, Any]] | None = None,
    consumable_capacity: bool = True,
) -> PodClaim:
    devices: dict[str, Any] = {"requests": list(requests)}
    if constraints:
        devices["constraints"] = constraints
    spec, problems = parse_claim_spec(devices, consumable_capacity=consumable_capacity)
    assert spec is not None, problems
    return PodClaim(namespace, name, spec)


def exact(name: str = "gpu", device_class: str = "any", count: int | None = 1, **more: Any) -> dict[str, Any]:
    body = {"deviceClassName": device_class, **more}
    if count is not None and more.get("allocationMode") != "All":
        body["count"] = count
    return {"name": name, "exactly": body}


def first_available(name: str, *subs: tuple[str, str, int]) -> dict[str, Any]:
    return {"name": name, "firstAvailable": [{"name": s, "deviceClassName": c, "count": n} for s, c, n in subs]}


def cluster(
    *slices: dict[str, Any],
    nodes: list[NodeInfo] | None = None,
    usage: Usage | None = None,
    claims: list[PodClaim] = (),
    classes: dict[str, DeviceClassSpec] | None = None,
    features: Features = DEFAULT_135,
):
    expressions = {e for c in (classes or CLASSES).values() for e in c.selectors}
    expressions |= {e for c in claims for r in c.spec.requests for s in r.alternatives for e in s.selectors}
    attributes = {k.attribute for c in claims for k in c.spec.constraints if k.attribute}
    return build_cluster(
        list(slices),
        nodes=nodes,
        usage=usage,
        expressions=expressions,
        constraint_attributes=attributes,
        minor=features.minor,
        partitionable_devices=features.partitionable_devices,
        consumable_capacity=features.consumable_capacity,
        sorted_pools=features.sorted_pools,
        binding_last=features.experimental,
    )


def scheduler(
    *slices: dict[str, Any],
    claims: list[PodClaim] = (),
    features: Features = DEFAULT_135,
    classes: dict[str, DeviceClassSpec] | None = None,
    nodes: list[NodeInfo] | None = None,
    usage: Usage | None = None,
    objects: list[ClaimObject] = (),
    templates: list[PodClaim] = (),
) -> Scheduler:
    built = cluster(*slices, nodes=nodes, usage=usage, claims=[*claims, *templates], classes=classes, features=features)
    return Scheduler(
        built,
        classes or CLASSES,
        features,
        Selectors(),
        claims=objects,
        templates={(t.namespace, t.name): ClaimObject(t.namespace, t.name, t.spec) for t in templates},
    )


def pod(
    name: str,
    *templates: str,
    namespace: str = "ns",
    claims: tuple[str, ...] = (),
    nodes: tuple[str, ...] | None = None,
) -> PodSpec:
    refs = tuple(PodClaimRef(f"t{i}", template=t) for i, t in enumerate(templates))
    refs += tuple(PodClaimRef(f"c{i}", claim=c) for i, c in enumerate(claims))
    return PodSpec(namespace, name, refs, node_names=nodes)


def devices_of(allocations) -> list[list[str]]:
    return [
        [d.device[2] if len({x.device[1] for x in a.devices}) == 1 else "/".join(d.device[1:]) for d in a.devices]
        for a in allocations
    ]


class NodeDevices:
    """A node's devices as the allocator gathers them (newest generation, taints), with every attribute."""

    def __init__(self, name, pool, devices):
        self.name, self.node_pool, self.devices = name, pool, devices


def nodes_of(slices, node_pools=None, rules=()):
    slices = apply_taint_rules(list(slices), list(rules))
    cluster = build_cluster(slices, expressions=["device.attributes.size() >= 0"])  # reads whole maps: keep everything
    result = []
    for node in cluster.nodes:
        devices = [(p.driver, d.name, d.shape) for p in cluster.pools(node) for s in p.slices for d in s.devices]
        result.append(NodeDevices(node.name, (node_pools or {}).get(node.name, node.name), devices))
    return result
