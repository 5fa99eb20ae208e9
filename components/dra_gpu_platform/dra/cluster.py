"""A cluster as the scheduler's DRA plugin sees it: Nodes, ResourceSlices grouped into pools per node (with the
scheduler's pool validity), the devices existing ResourceClaims hold, and DeviceClasses. Pure: no Pulumi
imports, no I/O.

Sources: kubernetes/dynamic-resource-allocation v0.35.6 `structured/internal/incubating/pools_incubating.go`
(GatherPools, addSlice, buildPool, checkSlicesInPool, validateDeviceNames, NodeMatches) and v0.34.9 for 1.34;
kubernetes `pkg/scheduler/framework/plugins/dynamicresources/allocateddevices.go` (foreachAllocatedDevice).

Scale by structure: devices are interned into shapes (dra_gpu_platform/dra/shapes.py); nodes whose pools have the
same shapes in the same order and the same devices in use form one class (`node_classes`), evaluated once. Device
names, pool names and node names are kept per node only for the report.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dra_gpu_platform.dra.model import (
    DeviceID,
    NodeInfo,
    NodeSelection,
    PoolView,
    SliceDevice,
    SliceView,
    Usage,
    node_selection_matches,
)
from dra_gpu_platform.dra.shapes import ReadSet, Shapes, quantity_value
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

# ---------------------------------------------------------------------------------------------------
# slices and pools


@dataclass(frozen=True)
class SliceRecord:
    order: int
    name: str
    driver: str
    pool: str
    generation: int
    count: int  # resourceSliceCount
    selection: NodeSelection
    per_device: bool | None  # perDeviceNodeSelection (None: not set)
    devices: tuple[SliceDevice, ...]
    shared_counters: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    counter_set_names: tuple[str, ...] = ()  # in order, duplicates kept (getAndValidateCounterSets)

    def view(self) -> SliceView:
        return SliceView(self.name, self.selection, bool(self.per_device), self.devices)


def slice_record(document: Mapping[str, Any], order: int, shapes: Shapes) -> SliceRecord:
    """A resource.k8s.io/v1 ResourceSlice (validated by the caller)."""
    spec = document.get("spec") or {}
    driver = str(spec.get("driver"))
    pool = spec.get("pool") or {}
    per_device = spec.get("perDeviceNodeSelection")
    devices = []
    for device in spec.get("devices") or ():
        selection = None
        if per_device:
            selection = NodeSelection(device.get("nodeName"), bool(device.get("allNodes")), device.get("nodeSelector"))
        devices.append(SliceDevice(str(device.get("name")), shapes.shape(driver, device), selection))
    counters: dict[str, dict[str, Fraction]] = {}
    names = []
    for counter_set in spec.get("sharedCounters") or ():
        name = str(counter_set.get("name"))
        names.append(name)
        counters.setdefault(
            name, {n: quantity_value((v or {}).get("value")) for n, v in (counter_set.get("counters") or {}).items()}
        )
    return SliceRecord(
        order,
        str((document.get("metadata") or {}).get("name") or f"slice-{order}"),
        driver,
        str(pool.get("name")),
        int(pool.get("generation") or 0),
        int(pool.get("resourceSliceCount") or 0),
        NodeSelection(spec.get("nodeName") or None, bool(spec.get("allNodes")), spec.get("nodeSelector")),
        per_device,
        shapes.layout(devices),
        counters,
        tuple(names),
    )


def _selection_set(selection: NodeSelection) -> bool:
    return bool(selection.node_name) or selection.all_nodes or selection.node_selector is not None


class Cluster:
    """Nodes and slices; `pools(node)` is GatherPools for that node (cached), `usage` the devices in use."""

    def __init__(
        self,
        nodes: Sequence[NodeInfo],
        slices: Sequence[SliceRecord],
        usage: Usage,
        *,
        minor: int = 35,
        partitionable_devices: bool = False,
        pool_labels: Mapping[str, str] | None = None,
        sorted_pools: bool = False,
        binding_last: bool = False,
    ):
        self.nodes = list(nodes)
        self.slices = list(slices)
        self.usage = usage
        self.minor = minor
        self.partitionable = partitionable_devices
        # v0.36+ incubating: pools by driver and pool name, a pool's slices by name (Features.sorted_pools)
        self.sorted_pools = sorted_pools
        # the lineage that knows binding conditions puts pools with such devices last (Features.experimental)
        self.binding_last = binding_last
        self.pool_labels = dict(pool_labels or {})  # node -> node pool shown in the report
        self._by_node: dict[str, list[SliceRecord]] = {}
        self._selected: list[SliceRecord] = []  # allNodes / nodeSelector / per-device / counters
        self._by_pool: dict[tuple[str, str], list[SliceRecord]] = {}
        for record in self.slices:
            self._by_pool.setdefault((record.driver, record.pool), []).append(record)
            if record.selection.node_name and not record.shared_counters and not record.per_device:
                self._by_node.setdefault(record.selection.node_name, []).append(record)
            else:
                self._selected.append(record)
        self._views: dict[str, tuple[PoolView, ...]] = {}
        self._layout_ids: dict[Any, int] = {}
        self._pool_layout: dict[int, int] = {}
        self._index = {node.name: i for i, node in enumerate(self.nodes)}
        self._keys: dict[str, Any] = {}  # node -> node_key, while valid
        self._groups: dict[Any, list[int]] | None = None  # node_key -> node indexes, ascending
        self._pool_nodes: dict[tuple[str, str], list[str]] | None = None
        self._shared: dict[tuple[str, str], bool] = {}
        self.shapes: Shapes | None = None
        self._shares: bool | None = None
        self._ordered: list[list[NodeInfo]] | None = None
        self._firsts: dict[int, tuple[list[NodeInfo], list[tuple[str, NodeInfo]]]] = {}

    # -- GatherPools ---------------------------------------------------------------------------------
    def pools(self, node: NodeInfo) -> tuple[PoolView, ...]:
        found = self._views.get(node.name)
        if found is None:
            found = self._gather(node)
            self._views[node.name] = found
        return found

    def _relevant(self, node: NodeInfo) -> list[SliceRecord]:
        candidates = sorted([*self._by_node.get(node.name, ()), *self._selected], key=lambda r: r.order)
        relevant = []
        for record in candidates:
            if not self.partitionable and (record.per_device is not None or record.shared_counters):
                continue
            if record.shared_counters and self.partitionable and self.minor <= 36:
                # up to v0.36 counter slices join every node's view; v0.37 applies their node selection
                relevant.append(record)
            elif _selection_set(record.selection):
                if node_selection_matches(record.selection, node):
                    relevant.append(record)
            elif record.per_device:
                if any(node_selection_matches(d.selection or NodeSelection(), node) for d in record.devices):
                    relevant.append(record)
            # else: a future, unknown way of selecting nodes: skipped (GatherPools "Nothing known was set")
        return relevant

    def _gather(self, node: NodeInfo) -> tuple[PoolView, ...]:
        pools: dict[tuple[str, str], list[SliceRecord]] = {}
        for record in self._relevant(node):  # addSlice
            key = (record.driver, record.pool)
            kept = pools.get(key)
            if kept is None or record.generation > kept[0].generation:
                pools[key] = [record]
            elif record.generation == kept[0].generation:
                kept.append(record)
        result = []
        for key, kept in pools.items():  # up to v0.35: Go map order (random); here: first appearance
            if self.sorted_pools:
                kept.sort(key=lambda r: r.name)  # buildPool sortSlicesByName
            elif self.binding_last:
                # v0.35 experimental GatherPools adds the slices with binding conditions after the others
                kept.sort(key=lambda r: any(d.shape.binding_conditions for d in r.devices))
            if self.minor <= 34:
                result.append(self._build(key, kept, None, incomplete=len(kept) != kept[0].count))
                continue
            if len(kept) == kept[0].count:
                result.append(self._build(key, kept, None))
                continue
            obsolete, everything = self._check_slices_in_pool(key, kept[0].generation)
            if obsolete:
                continue
            if len(everything) != kept[0].count:
                result.append(PoolView(key[0], key[1], incomplete=True))
                continue
            result.append(self._build(key, kept, everything))
        if self.sorted_pools:
            result.sort(key=lambda p: (p.driver, p.pool))  # sortPoolsByID
        if self.binding_last:
            result.sort(key=lambda p: p.has_binding_conditions)  # resultWithBindingConditions come last
        return tuple(result)

    def _check_slices_in_pool(self, key: tuple[str, str], generation: int) -> tuple[bool, list[SliceRecord]]:
        everything = []
        for record in self._by_pool.get(key, ()):
            if record.generation == generation:
                everything.append(record)
            elif record.generation > generation:
                return True, []
        return False, everything

    def _build(
        self,
        key: tuple[str, str],
        kept: list[SliceRecord],
        everything: list[SliceRecord] | None,
        incomplete: bool = False,
    ) -> PoolView:
        """buildPool: duplicate device names make the pool invalid; with partitionable devices also
        duplicate counter sets and unknown counters."""
        if self.partitionable:
            device_slices = [r for r in kept if not r.shared_counters]
            counter_slices = [r for r in kept if r.shared_counters]
        else:
            device_slices, counter_slices = kept, []
        names: set[str] = set()
        for record in device_slices:
            for device in record.devices:
                if device.name in names:
                    return PoolView(
                        key[0],
                        key[1],
                        incomplete=incomplete,
                        invalid=f"duplicate device name {device.name}",
                        slices=tuple(r.view() for r in device_slices) if self.minor <= 34 else (),
                    )
                names.add(device.name)
        views = tuple(r.view() for r in device_slices)
        binding = any(d.shape.binding_conditions for r in device_slices for d in r.devices)
        if not self.partitionable:
            return PoolView(key[0], key[1], views, incomplete=incomplete, has_binding_conditions=binding)
        counter_sets: dict[str, Mapping[str, Fraction]] = {}
        for record in counter_slices:
            for name in record.counter_set_names:
                if name in counter_sets:
                    return PoolView(key[0], key[1], incomplete=incomplete, invalid=f"duplicate counter set name {name}")
                counter_sets[name] = record.shared_counters[name]
        problem = _counter_problem(counter_sets, kept)
        if problem:
            return PoolView(key[0], key[1], incomplete=incomplete, invalid=problem)
        others: tuple[SliceView, ...] = ()
        if everything is not None and len(kept) != len(everything):
            kept_names = {r.name for r in kept}
            other_records = [r for r in everything if r.name not in kept_names]
            problem = _counter_problem(counter_sets, other_records)
            if problem:
                return PoolView(key[0], key[1], incomplete=incomplete, invalid=problem)
            others = tuple(r.view() for r in other_records)
        return PoolView(
            key[0],
            key[1],
            views,
            incomplete=incomplete,
            other_slices=others,
            counter_sets=counter_sets,
            has_binding_conditions=binding,
        )

    # -- equivalence classes of nodes ----------------------------------------------------------------
    def _layout(self, pool: PoolView) -> int:
        found = self._pool_layout.get(id(pool))
        if found is None:
            key = (
                pool.driver,
                pool.incomplete,
                pool.invalid,
                bool(pool.counter_sets),
                tuple((s.per_device, tuple(d.shape.id for d in s.devices)) for s in pool.slices),
            )
            found = self._layout_ids.setdefault(key, len(self._layout_ids))
            self._pool_layout[id(pool)] = found
        return found

    def node_key(self, node: NodeInfo) -> Any:
        """Equal for two nodes every pod treats alike: the same pool layouts, the same devices in use at the
        same places, the same per-device node matches. Pools shared by several nodes (allNodes, node
        selectors, counters) enter by identity, since using one of their devices changes both nodes."""
        found = self._keys.get(node.name)
        if found is None:
            found = self._keys[node.name] = self._node_key(node)
        return found

    def _node_key(self, node: NodeInfo) -> Any:
        parts = []
        allocated = self.usage.allocated
        consumed = self.usage.consumed
        for pool in self.pools(node):
            layout = self._layout(pool)
            used: list[
                int | tuple[int, tuple[tuple[str, Fraction], ...]]
            ] = []  # an allocated device, or its consumption
            matches = []
            position = 0
            for s in pool.slices:
                for d in s.devices:
                    device_id = (pool.driver, pool.pool, d.name)
                    if allocated and device_id in allocated:
                        used.append(position)
                    elif consumed and device_id in consumed:
                        used.append((position, tuple(sorted(consumed[device_id].items()))))
                    if s.per_device:
                        matches.append(node_selection_matches(d.selection or NodeSelection(), node))
                    position += 1
            shared = (pool.driver, pool.pool) if self._is_shared(pool) else None
            parts.append((layout, tuple(used), tuple(matches), shared))
        return tuple(parts)

    def _is_shared(self, pool: PoolView) -> bool:
        key = (pool.driver, pool.pool)
        found = self._shared.get(key)
        if found is None:
            records = self._by_pool.get(key, ())
            found = self._shared[key] = any(
                not r.selection.node_name or r.shared_counters or r.per_device for r in records
            )
        return found

    def node_classes(self, nodes: Iterable[NodeInfo] | None = None) -> list[list[NodeInfo]]:
        """Nodes grouped by node_key, in the order of each group's first node. For all nodes the groups are
        kept up to date as devices change hands (`changed`), so a placement costs the nodes it touches."""
        if nodes is not None:
            groups: dict[Any, list[NodeInfo]] = {}
            for node in nodes:
                groups.setdefault(self.node_key(node), []).append(node)
            return list(groups.values())
        if self._groups is None:
            self._groups = {}
            for i, node in enumerate(self.nodes):
                self._groups.setdefault(self.node_key(node), []).append(i)
        if self._ordered is None:
            ordered = sorted(self._groups.values(), key=lambda members: members[0])
            self._ordered = [[self.nodes[i] for i in members] for members in ordered]
        return self._ordered

    def positions(self) -> Mapping[str, int]:
        """Node name -> its place in node order."""
        return self._index

    def pool_firsts(self, group: list[NodeInfo]) -> list[tuple[str, NodeInfo]]:
        """(node pool, its first node) for the pools a node class spans, in node order."""
        key = id(group)
        found = self._firsts.get(key)
        if found is None or found[0] is not group:
            seen: dict[str, NodeInfo] = {}
            for node in group:
                seen.setdefault(self.pool_labels.get(node.name, node.name), node)
            found = self._firsts[key] = (group, list(seen.items()))
        return found[1]

    def changed(self, devices: Iterable[DeviceID]) -> None:
        """Devices were allocated or freed: the nodes that see their pools get new keys."""
        if self._pool_nodes is None:
            self._pool_nodes = {}
            for node in self.nodes:
                for pool in self.pools(node):
                    self._pool_nodes.setdefault((pool.driver, pool.pool), []).append(node.name)
        touched = {name for device in devices for name in self._pool_nodes.get(device[:2], ())}
        if touched:
            self._ordered = None
            self._firsts = {}
        for name in touched:
            old = self._keys.pop(name, None)
            if self._groups is None:
                continue
            index = self._index[name]
            if old is not None and old in self._groups:
                members = self._groups[old]
                members.remove(index)
                if not members:
                    del self._groups[old]
            bisect.insort(self._groups.setdefault(self.node_key(self.nodes[index]), []), index)

    def shares_pools(self) -> bool:
        if self._shares is None:
            self._shares = any(self._is_shared(PoolView(r.driver, r.pool)) for r in self.slices)
        return self._shares

    # -- mapping a representative's result onto another node of its class ----------------------------
    def translate(self, device: DeviceID, representative: NodeInfo, node: NodeInfo) -> DeviceID:
        """The device of `node` at the place `device` has on `representative` (same class)."""
        if representative.name == node.name:
            return device
        source = self.pools(representative)
        target = self.pools(node)
        for pool, other in zip(source, target, strict=False):
            if (pool.driver, pool.pool) != device[:2]:
                continue
            position = 0
            for s in pool.slices:
                for d in s.devices:
                    if d.name == device[2]:
                        return (other.driver, other.pool, _nth_device(other, position))
                    position += 1
        return device

    def device_count(self) -> int:
        return sum(len(r.devices) for r in self.slices)


def build_cluster(
    slices: Sequence[Mapping[str, Any]],
    *,
    nodes: Sequence[NodeInfo] | None = None,
    node_pools: Mapping[str, str] | None = None,
    usage: Usage | None = None,
    expressions: Iterable[str] = (),
    constraint_attributes: Iterable[str] = (),
    minor: int = 35,
    partitionable_devices: bool = False,
    consumable_capacity: bool = False,
    sorted_pools: bool = False,
    binding_last: bool = False,
) -> Cluster:
    """A Cluster from v1 ResourceSlice documents; devices are projected onto what `expressions` (every CEL
    selector that will run) and `constraint_attributes` read. Without `nodes`, the nodes are the slices'
    nodeName values."""
    from dra_gpu_platform.cel import CelCompileError, compile_selector

    selectors = []
    for expression in sorted(set(expressions)):
        try:
            selectors.append(compile_selector(expression))
        except CelCompileError:
            continue  # it errors when it runs; it cannot read anything before
    shapes = Shapes(ReadSet.of(selectors, constraint_attributes), consumable_capacity=consumable_capacity)
    if nodes is None:
        names = dict.fromkeys(s["spec"].get("nodeName") for s in slices if (s.get("spec") or {}).get("nodeName"))
        nodes = [NodeInfo(name) for name in names]
    records = [slice_record(s, i, shapes) for i, s in enumerate(slices)]
    cluster = Cluster(
        nodes,
        records,
        usage or Usage(),
        minor=minor,
        partitionable_devices=partitionable_devices,
        pool_labels=node_pools,
        sorted_pools=sorted_pools,
        binding_last=binding_last,
    )
    cluster.shapes = shapes
    return cluster


def _nth_device(pool: PoolView, position: int) -> str:
    for s in pool.slices:
        if position < len(s.devices):
            return s.devices[position].name
        position -= len(s.devices)
    raise IndexError(position)


def _counter_problem(counter_sets: Mapping[str, Mapping[str, Fraction]], records: Iterable[SliceRecord]) -> str | None:
    """validateDeviceCounterConsumption."""
    for record in records:
        for device in record.devices:
            for counter_set, counters in device.shape.consumes:
                found = counter_sets.get(counter_set)
                if found is None:
                    return f"counter set {counter_set} not found"
                for name, _ in counters:
                    if name not in found:
                        return f"counter {name} not found in counter set {counter_set}"
    return None


# ---------------------------------------------------------------------------------------------------
# devices in use


def allocated_devices(claims: Iterable[Mapping[str, Any]], *, consumable_capacity: bool = False) -> Usage:
    """Usage of existing ResourceClaims (foreachAllocatedDevice): every result of status.allocation except
    adminAccess ones; with consumable capacity, results with a shareID are shared consumption instead."""
    usage = Usage()
    for claim in claims:
        allocation = (claim.get("status") or {}).get("allocation")
        if not isinstance(allocation, Mapping):
            continue
        for result in (allocation.get("devices") or {}).get("results") or ():
            if not isinstance(result, Mapping) or result.get("adminAccess") is True:
                continue
            device_id = (str(result.get("driver")), str(result.get("pool")), str(result.get("device")))
            if consumable_capacity and result.get("shareID"):
                bucket = usage.consumed.setdefault(device_id, {})
                for name, value in (result.get("consumedCapacity") or {}).items():
                    try:
                        bucket[name] = bucket.get(name, Fraction(0)) + parse_quantity(str(value)).value
                    except QuantityError:
                        continue
                continue
            usage.allocated.add(device_id)
    return usage
