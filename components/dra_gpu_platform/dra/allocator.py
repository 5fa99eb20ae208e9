"""The structured allocator of the kube-scheduler, for the unallocated claims of one pod on one node.
Pure: no Pulumi imports, no I/O.

A port of kubernetes/dynamic-resource-allocation v0.35.6 `structured/internal/incubating/allocator_incubating.go`
(the variant the 1.35 scheduler runs with default gates) plus what `internal/experimental/allocator_experimental.go`
adds when its gates are on (distinctAttribute, consumable capacity, binding conditions). Function names in
comments are upstream's; docs/gpuplan/fit.md lists every rule with its source.

Two engines walk the same recursion (`_allocate_one` = upstream `allocateOne`):
- `exact`: device by device in the node's scan order (pools, slices, devices), exactly as upstream;
- `classes`: devices that the pod cannot tell apart (same shape, same in-use state, same per-device node match)
  form a class; at each step the engine tries one device per class, the lowest free one, in the order of each
  class's first free device, and remembers failed states. That visits the same first solution: upstream tries
  every device of a class at that step, and after the first of them failed the others fail the same way.
  The property test (tests/dra/test_allocator_engines.py) compares both engines on random inventories.
The class engine is used unless the pod needs per-device bookkeeping it does not model: adminAccess requests
(they may share devices with other claims of the pod), devices that consume counters, and consumable capacity.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dra_gpu_platform.dra.capacity import capacity_fits, consumed_capacity
from dra_gpu_platform.dra.claims import DeviceClassSpec, SubRequest
from dra_gpu_platform.dra.constraints import MatchAttribute, claim_constraint
from dra_gpu_platform.dra.model import (
    AllocationError,
    ClaimAllocation,
    DeviceID,
    DeviceResult,
    FailedOnNode,
    Features,
    NodeInfo,
    NodeSelection,
    PodClaim,
    PoolView,
    Selectors,
    Shape,
    Usage,
    blocking_taint,
    node_selection_matches,
)

MAX_DEVICES_PER_CLAIM = 32  # resourceapi.AllocationResultsMaxSize
# Steps (allocateOne calls) one node may take before the simulation stops, as the scheduler's Filter stops
# after DRASchedulerFilterTimeout (10 s by default) and reports the node unschedulable.
SEARCH_BUDGET = 200_000


# ---------------------------------------------------------------------------------------------------
# the search


class _MaxSize(Exception):
    """errAllocationResultMaxSizeExceeded as a value (never raised)."""


_MAX_SIZE = _MaxSize()


@dataclass
class _RequestData:
    sub: SubRequest
    parent: str | None  # request name when this is a subrequest
    device_class: DeviceClassSpec
    count: int
    slot: tuple[int, int]  # (request, subrequest) index: requestIndices, the key of isSelectable's cache
    all_devices: list[int] | None = None  # positions, for allocationMode All
    selected: int = 0  # selectedSubRequestIndex (on the entry with sub index 0)


@dataclass(frozen=True)
class _Position:
    pool: int
    slice: int
    index: int
    id: DeviceID
    shape: Shape
    usable: bool  # pool complete and valid (for the device loop)
    node_match: bool | None  # per-device node selection result, None when the slice selects as a whole


class _Stop(Exception):
    pass


class Allocation:
    """One Allocate call: upstream `allocator` (the per-call state)."""

    def __init__(
        self,
        node: NodeInfo,
        pools: Sequence[PoolView],
        claims: Sequence[PodClaim],
        classes: Mapping[str, DeviceClassSpec],
        usage: Usage,
        features: Features,
        selectors: Selectors,
        *,
        engine: str = "auto",
        budget: int = SEARCH_BUDGET,
    ):
        self.node = node
        self.pools = list(pools)
        self.claims = list(claims)
        self.classes = classes
        self.usage = usage
        self.features = features
        self.selectors = selectors
        self.budget = budget
        self.steps = 0
        # Positions depend on the node and its pools only: kept per run (Selectors.layouts).
        key = (node.name, id(pools), features.minor)
        layout = selectors.layouts.get(key)
        if layout is not None and layout[0] is pools:
            self.positions, self.pool_positions = layout[1], layout[2]
        else:
            self.positions, self.pool_positions = [], []
            self._layout(node)
            selectors.layouts[key] = (pools, self.positions, self.pool_positions)
        self.engine = self._choose_engine() if engine == "auto" else engine
        self._init_state()

    def _layout(self, node: NodeInfo) -> None:
        for p, pool in enumerate(self.pools):
            slices = []
            for s, slice_ in enumerate(pool.slices):
                indexes = []
                for d, device in enumerate(slice_.devices):
                    match = (
                        node_selection_matches(device.selection or NodeSelection(), node) if slice_.per_device else None
                    )
                    indexes.append(len(self.positions))
                    self.positions.append(
                        _Position(
                            p, s, d, (pool.driver, pool.pool, device.name), device.shape, self._pool_usable(pool), match
                        )
                    )
                slices.append(indexes)
            self.pool_positions.append(slices)

    def _init_state(self) -> None:
        self.request_data: dict[tuple[int, int, int], _RequestData] = {}
        self.constraints: list[list[MatchAttribute]] = [[] for _ in self.claims]
        self.results: list[list[tuple[int, _RequestData, bool, tuple[tuple[str, Fraction], ...]]]] = [
            [] for _ in self.claims
        ]
        self.allocating: dict[int, set[int]] = {}  # position -> claim indexes (allocatingDevices)
        self.allocating_capacity: dict[int, dict[str, Fraction]] = {}
        self.consumed_counters: dict[str, dict[str, dict[str, Fraction]]] = {}  # pool -> set -> counter
        self._available_counters: dict[str, dict[str, dict[str, Fraction]]] = {}
        self._matches: dict[tuple[int, tuple[int, int], int, int], bool] = {}
        # class engine
        self._class_of: list[int] = []
        self._class_members: list[list[int]] = []
        self._taken: list[int] = []
        self._failed: set[Any] = set()
        self._failed_err: dict[Any, _MaxSize] = {}

    def _pool_usable(self, pool: PoolView) -> bool:
        if self.features.minor <= 34:  # v0.34: incomplete pools are used; an invalid one is an error when reached
            return True
        return not pool.incomplete and pool.invalid is None

    def _choose_engine(self) -> str:
        for claim in self.claims:
            # distinctAttribute compares a device with the last one of each request: with v0.36's combinations
            # the order of picks decides, so devices of one class are not interchangeable.
            if self.features.combinations and any(c.distinct for c in claim.spec.constraints):
                return "exact"
            # All takes its devices in scan order: with a constraint, which device of a class an earlier pick
            # took decides between "in use" (no solution) and a constraint error, so classes are not symmetric.
            if claim.spec.constraints and any(s.mode == "All" for r in claim.spec.requests for s in r.alternatives):
                return "exact"
            for request in claim.spec.requests:
                for sub in request.alternatives:
                    if sub.admin_access_set or (sub.capacity and self.features.consumable_capacity):
                        return "exact"
        for position in self.positions:
            shape = position.shape
            if shape.consumes and self.features.partitionable_devices:
                return "exact"
            if shape.allow_multiple and self.features.consumable_capacity:
                return "exact"
        if self.features.minor <= 34 and any(p.invalid for p in self.pools):
            return "exact"
        return "classes"

    # -- Allocate ------------------------------------------------------------------------------------
    def run(self) -> list[ClaimAllocation] | None:
        """The allocation of every claim, or None (unschedulable on this node). Raises AllocationError, or
        FailedOnNode for ErrFailedAllocationOnNode."""
        self.selectors.stats.searches += 1
        min_total = 0
        for ci, claim in enumerate(self.claims):
            minimum = 0
            for ri, request in enumerate(claim.spec.requests):
                if request.first_available and not self.features.prioritized_list:
                    raise AllocationError(
                        f"claim {claim.ref}, request {request.name}: has subrequests, but the "
                        "DRAPrioritizedList feature is disabled"
                    )
                if self.features.experimental and not self.features.consumable_capacity:
                    for sub in request.alternatives:
                        if sub.capacity:
                            what = f"subrequest {sub.name}" if request.first_available else f"request {request.name}"
                            raise AllocationError(
                                f"claim {claim.ref}, {what}: has capacity requests, but the "
                                "DRAConsumableCapacity feature is disabled"
                            )
                least = None
                for si, sub in enumerate(request.alternatives):
                    # Up to v0.35 Allocate sets requestKey.subRequestIndex after validateDeviceRequest, so
                    # subrequest i is validated (and an All request's devices selected) under the key of i-1
                    # and that key's cache entries; v0.36 sets it first.
                    key = (ri, si if self.features.minor >= 36 else max(si - 1, 0))
                    data = self._validate(ci, claim, sub, request.name if request.first_available else None, key)
                    data.slot = (ri, si)
                    self.request_data[(ci, ri, si)] = data
                    least = data.count if least is None else min(least, data.count)
                minimum += least or 0
            if minimum > MAX_DEVICES_PER_CLAIM:
                raise AllocationError(
                    f"claim {claim.ref}: number of requested devices {minimum} exceeds the claim "
                    f"limit of {MAX_DEVICES_PER_CLAIM}"
                )
            for i, constraint in enumerate(claim.spec.constraints):
                if constraint.attribute is None or (constraint.distinct and not self.features.experimental):
                    raise AllocationError(
                        f"claim {claim.ref}, constraint #{i}: empty constraint (unsupported constraint type?)"
                    )
                self.constraints[ci].append(claim_constraint(constraint, constraint.attribute))
            min_total += minimum
        self._matches = {}  # Allocate starts the search with a new deviceMatchesRequest cache
        if self.engine == "classes":
            self._build_classes()
        try:
            done, _ = self._allocate_one(0, 0, 0, 0, False, 0)
        except _Stop:
            raise FailedOnNode(
                f"timed out trying to allocate devices (the simulation stopped after {self.budget} "
                "search steps; the scheduler stops after DRASchedulerFilterTimeout)"
            ) from None
        if not done:
            if self.features.minor > 34 and any(pool.invalid is not None for pool in self.pools):
                raise FailedOnNode("invalid resource pools were encountered")
            return None
        return self._results()

    def _validate(
        self, ci: int, claim: PodClaim, sub: SubRequest, parent: str | None, key: tuple[int, int]
    ) -> _RequestData:
        """validateDeviceRequest (under `key`, see run)."""
        name = sub.name if parent else sub.request
        if sub.admin_access_set and not self.features.admin_access:
            raise AllocationError(
                f"claim {claim.ref}, request {name}: admin access is requested, but the feature is disabled"
            )
        if not sub.device_class:
            raise AllocationError(
                f"claim {claim.ref}, request {name}: missing device class name (unsupported request type?)"
            )
        device_class = self.classes.get(sub.device_class)
        if device_class is None:
            raise AllocationError(
                f"claim {claim.ref}, request {name}: could not retrieve device class {sub.device_class}: "
                f'deviceclass.resource.k8s.io "{sub.device_class}" not found'
            )
        data = _RequestData(sub, parent, device_class, sub.count, key)
        if sub.mode == "All":
            data.all_devices = []
            for p, pool in enumerate(self.pools):
                if pool.incomplete:
                    raise AllocationError(
                        f"claim {claim.ref}, request {name}: asks for all devices, but resource pool "
                        f"{pool.driver}/{pool.pool} is currently being updated"
                    )
                if pool.invalid is not None:
                    raise AllocationError(
                        f"claim {claim.ref}, request {name}: asks for all devices, but resource pool "
                        f"{pool.driver}/{pool.pool} is currently invalid"
                    )
                for positions in self.pool_positions[p]:
                    for position in positions:
                        if self._selectable(ci, data, position):
                            if self.features.consumable_capacity:
                                fits = self._capacity_fits(data.sub, position)
                                if not fits:
                                    continue
                            data.all_devices.append(position)
            data.count = len(data.all_devices)
        return data

    # -- allocateOne ---------------------------------------------------------------------------------
    def _allocate_one(
        self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int = 0
    ) -> tuple[bool, _MaxSize | None]:
        """allocateOne; `start` is v0.36's startLocation as a device position (0: every device)."""
        self.steps += 1
        self.selectors.stats.steps += 1
        if self.steps > self.budget:
            raise _Stop
        if ci >= len(self.claims):
            return True, None
        claim = self.claims[ci]
        if ri >= len(claim.spec.requests):
            ok, err = self._allocate_one(ci + 1, 0, 0, 0, False)
            if err is _MAX_SIZE:
                return False, None
            return ok, err
        key = None
        if self.engine == "classes":
            key = (
                ci,
                ri,
                si,
                di,
                in_sub,
                tuple(self._taken),
                len(self.results[ci]),
                tuple(c.state() for c in self.constraints[ci]),
            )
            if key in self._failed:
                return False, self._failed_err.get(key)
        ok, err = self._allocate_one_uncached(ci, ri, si, di, in_sub, start)
        if key is not None and not ok:
            self._failed.add(key)
            if err is not None:
                self._failed_err[key] = err
        return ok, err

    def _allocate_one_uncached(
        self, ci: int, ri: int, si: int, di: int, in_sub: bool, start: int
    ) -> tuple[bool, _MaxSize | None]:
        data = self.request_data[(ci, ri, si)]
        if not in_sub and data.parent is not None:
            all_exceeded = True
            sub_index = 0
            while (ci, ri, sub_index) in self.request_data:
                ok, err = self._allocate_one(ci, ri, sub_index, di, True)
                if err is _MAX_SIZE:
                    sub_index += 1
                    continue
                all_exceeded = False
                if ok:
                    self.request_data[(ci, ri, 0)].selected = sub_index
                    return True, None
                sub_index += 1
            return False, (_MAX_SIZE if all_exceeded else None)
        sub = data.sub
        if sub.mode == "All" and not data.all_devices:
            return False, None
        if di >= data.count:
            return self._allocate_one(ci, ri + 1, 0, 0, False)
        if len(self.results[ci]) + data.count - di > MAX_DEVICES_PER_CLAIM:
            return False, _MAX_SIZE
        if sub.mode == "All" and data.all_devices is not None:  # (an All request always has its positions)
            position = data.all_devices[di]
            ok, undo = self._allocate_device(ci, data, position, must=True)
            if not ok:
                return False, None
            # Up to v0.35 the next step drops subRequestIndex (deviceIndices without it), so an All
            # subrequest other than the first continues with the first subrequest's data; v0.36 keeps it.
            done, err = self._allocate_one(ci, ri, si if self.features.minor >= 36 else 0, di + 1, in_sub)
            if err is not None or not done:
                undo()
                return False, err
            return True, None
        for position in self._candidates(ci, data, start):
            ok, undo = self._allocate_device(ci, data, position, must=False)
            if not ok:
                continue
            after = position + 1 if self.features.combinations else 0
            done, err = self._allocate_one(ci, ri, si, di + 1, in_sub, after)
            if err is None and done:
                return True, None
            undo()
            if err is not None:
                return False, err
        return False, None

    def _candidates(self, ci: int, data: _RequestData, start: int = 0) -> Iterator[int]:
        """Devices to try for the next pick: every device of a usable pool in scan order, after the cheap in-use
        check and the selectors (the device loop of allocateOne); or one device per class."""
        admin = data.sub.admin_access
        if self.engine == "exact":
            for position in range(start, len(self.positions)):
                entry = self.positions[position]
                if self.features.minor <= 34 and self.pools[entry.pool].invalid is not None:
                    pool = self.pools[entry.pool]  # v0.34 allocateOne: an invalid pool fails the search
                    raise AllocationError(f"pool {pool.pool} is invalid: {pool.invalid}")
                if not entry.usable:
                    continue
                if admin and ci in self.allocating.get(position, ()):
                    continue
                if not admin and self._in_use(position):
                    continue
                if not self._selectable(ci, data, position):
                    continue
                if self.features.consumable_capacity and self._capacity_fits(data.sub, position) is not True:
                    continue
                yield position
            return
        # classes: one candidate per class, in the order of each class's first free device
        order = []
        for cls, members in enumerate(self._class_members):
            taken = self._taken[cls]
            if taken >= len(members):
                continue
            first = members[taken]
            if self._in_use(first):  # allocated in the cluster: the whole class is
                continue
            order.append((first, cls))
        order.sort()
        for _first, cls in order:
            if self._taken[cls] >= len(self._class_members[cls]):
                continue
            position = self._class_members[cls][self._taken[cls]]
            if not self._selectable(ci, data, position):
                continue
            yield position

    # -- isSelectable / allocateDevice ---------------------------------------------------------------
    def _selectable(self, ci: int, data: _RequestData, position: int) -> bool:
        entry = self.positions[position]
        shape = entry.shape
        if not self.features.binding_and_status and shape.binding_conditions:
            return False
        # deviceMatchesRequest: cached per claim, request and subrequest index (data.slot)
        key = (ci, data.slot, shape.id, -1 if entry.node_match is None else int(entry.node_match))
        found = self._matches.get(key)
        if found is not None:
            return found
        claim = self.claims[ci]
        for owner, selectors in ((data.device_class, data.device_class.selectors), (None, data.sub.selectors)):
            for i, expression in enumerate(selectors):
                verdict = self.selectors.verdict(expression, shape)
                if isinstance(verdict, str):
                    where = f"class {owner.name}" if owner is not None else f"claim {claim.ref}"
                    raise AllocationError(
                        f"{where}: selector #{i}: {verdict} (on device {'/'.join(entry.id)}; the "
                        "scheduler aborts the pod's scheduling attempt)"
                    )
                if not verdict:
                    self._matches[key] = False
                    return False
        if entry.node_match is False:
            self._matches[key] = False
            return False
        self._matches[key] = True
        return True

    def _in_use(self, position: int) -> bool:
        return self.positions[position].id in self.usage.allocated or bool(self.allocating.get(position))

    def _capacity_fits(self, sub: SubRequest, position: int) -> bool | None:
        entry = self.positions[position]
        return capacity_fits(
            sub, entry.shape, self.usage.consumed.get(entry.id, {}), self.allocating_capacity.get(position, {})
        )

    def _allocate_device(
        self, ci: int, data: _RequestData, position: int, must: bool
    ) -> tuple[bool, Callable[[], None]]:
        entry = self.positions[position]
        shape = entry.shape
        sub = data.sub
        multiple = self.features.consumable_capacity and shape.allow_multiple
        if not multiple and sub.admin_access and ci in self.allocating.get(position, ()):
            return False, _noop
        if not sub.admin_access and self._in_use(position):
            return False, _noop
        if not self.features.partitionable_devices and shape.consumes:
            return False, _noop
        skip_counters = multiple and (entry.id in self.usage.consumed or position in self.allocating_capacity)
        if not skip_counters and shape.consumes:
            if not self._check_counters(entry):  # consumes the counters when they suffice
                return False, _noop
        request = data.parent or sub.request
        sub_name = sub.name if data.parent else None
        if self.features.device_taints and blocking_taint(sub, shape) is not None:
            return False, _noop  # upstream leaks the counters consumed above; so does this port
        constraints = self.constraints[ci]
        for i, constraint in enumerate(constraints):
            if not constraint.add(request, sub_name, shape):
                if must:
                    claim = self.claims[ci]
                    raise AllocationError(
                        f"claim {claim.ref}, request {sub.name if data.parent else sub.request}: cannot add "
                        f"device {'/'.join(entry.id)} because a claim constraint would not be satisfied"
                    )
                for earlier in constraints[:i]:
                    earlier.remove(request, sub_name, shape)
                return False, _noop
        owners = self.allocating.setdefault(position, set())
        if not multiple:
            owners.add(ci)
        consumed: tuple[tuple[str, Fraction], ...] = ()
        if self.features.consumable_capacity:
            fits = self._capacity_fits(sub, position)
            if not fits:
                return False, _noop  # upstream returns here without rolling back; so does this port
            if multiple:
                requests = dict(sub.capacity or ())
                consumed = tuple(
                    sorted((name, consumed_capacity(requests.get(name), cap)) for name, cap in shape.capacity.items())
                )
                bucket = self.allocating_capacity.setdefault(position, {})
                for name, amount in consumed:
                    bucket[name] = bucket.get(name, Fraction(0)) + amount
        self.results[ci].append((position, data, bool(sub.admin_access), consumed))
        if self.engine == "classes":
            self._taken[self._class_of[position]] += 1
        previous = len(self.results[ci]) - 1

        def undo() -> None:
            for constraint in constraints:
                constraint.remove(request, sub_name, shape)
            owners.discard(ci)
            if multiple:
                bucket = self.allocating_capacity.get(position, {})
                for name, amount in consumed:
                    bucket[name] = bucket.get(name, Fraction(0)) - amount
                    if not bucket[name]:
                        del bucket[name]
                if not bucket:
                    self.allocating_capacity.pop(position, None)
            elif self.features.partitionable_devices and shape.consumes:
                self._release_counters(entry)
            del self.results[ci][previous:]
            if self.engine == "classes":
                self._taken[self._class_of[position]] -= 1

        return True, undo

    # -- counters (checkAvailableCounters) ------------------------------------------------------------
    def _pool_counters(self, pool: PoolView) -> dict[str, dict[str, Fraction]]:
        found = self._available_counters.get(pool.pool)
        if found is None:
            found = {name: dict(counters) for name, counters in pool.counter_sets.items()}
            for slice_ in (*pool.slices, *pool.other_slices):
                for device in slice_.devices:
                    device_id = (pool.driver, pool.pool, device.name)
                    # v0.36 IsDeviceAllocated: a shareable device with capacity given out counts as allocated
                    if device_id not in self.usage.allocated and not (
                        self.features.minor >= 36 and device_id in self.usage.consumed
                    ):
                        continue
                    for counter_set, counters in device.shape.consumes:
                        available = found.get(counter_set)
                        if available is None:
                            continue
                        for name, amount in counters:
                            if name in available:
                                available[name] -= amount
            self._available_counters[pool.pool] = found
        return found

    def _check_counters(self, entry: _Position) -> bool:
        pool = self.pools[entry.pool]
        available = self._pool_counters(pool)
        consumed = self.consumed_counters.setdefault(pool.pool, {})
        for counter_set, counters in entry.shape.consumes:
            bucket = consumed.setdefault(counter_set, {})
            for name, amount in counters:
                bucket[name] = bucket.get(name, Fraction(0)) + amount
        for set_name, limits in available.items():
            for name, amount in limits.items():
                if amount < consumed.get(set_name, {}).get(name, Fraction(0)):
                    self._release_counters(entry)
                    return False
        return True

    def _release_counters(self, entry: _Position) -> None:
        consumed = self.consumed_counters.get(self.pools[entry.pool].pool, {})
        for counter_set, counters in entry.shape.consumes:
            bucket = consumed.get(counter_set, {})
            for name, amount in counters:
                bucket[name] = bucket.get(name, Fraction(0)) - amount

    # -- classes ---------------------------------------------------------------------------------------
    def _build_classes(self) -> None:
        index: dict[tuple[int, bool, bool | None], int] = {}
        for position, entry in enumerate(self.positions):
            if not entry.usable:
                self._class_of.append(-1)
                continue
            key = (entry.shape.id, entry.id in self.usage.allocated, entry.node_match)
            cls = index.get(key)
            if cls is None:
                cls = index[key] = len(self._class_members)
                self._class_members.append([])
            self._class_members[cls].append(position)
            self._class_of.append(cls)
        self._taken = [0] * len(self._class_members)

    # -- results (Allocate's result assembly, createNodeSelector) -----------------------------------
    def _results(self) -> list[ClaimAllocation]:
        allocations = []
        for ci, claim in enumerate(self.claims):
            devices = []
            slices = []
            for position, data, admin, consumed in self.results[ci]:
                entry = self.positions[position]
                label = f"{data.parent}/{data.sub.name}" if data.parent else data.sub.request
                devices.append(DeviceResult(label, entry.id, admin, consumed, bool(consumed)))
                slice_ = self.pools[entry.pool].slices[entry.slice]
                device = slice_.devices[entry.index]
                slices.append(
                    (
                        slice_.selection if not slice_.per_device else (device.selection or NodeSelection()),
                        entry.shape.binds_to_node and self.features.binding_and_status,
                    )
                )
            chosen: dict[str, str] = {}
            for ri, request in enumerate(claim.spec.requests):
                if request.first_available:
                    alternative = request.alternatives[self.request_data[(ci, ri, 0)].selected]
                    if alternative.name is not None:  # always: every firstAvailable subrequest has a name
                        chosen[request.name] = alternative.name
            allocations.append(ClaimAllocation(tuple(devices), self._node_selector(slices), chosen))
        return allocations

    def _node_selector(self, selections: list[tuple[NodeSelection, bool]]) -> Mapping[str, Any] | None:
        fields: list[dict[str, Any]] = []
        expressions: list[dict[str, Any]] = []
        for selection, binds in selections:
            if selection.node_name or binds:
                name = (
                    self.node.name if binds and self.features.experimental else (selection.node_name or self.node.name)
                )
                return {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [name]}]}
                    ]
                }
            if selection.node_selector is not None:
                terms = selection.node_selector.get("nodeSelectorTerms") or []
                if len(terms) == 1:
                    for source, target in (
                        (terms[0].get("matchFields") or [], fields),
                        (terms[0].get("matchExpressions") or [], expressions),
                    ):
                        for requirement in source:
                            if not any(_same_requirement(requirement, r) for r in target):
                                target.append(dict(requirement))
                elif len(terms) > 1:
                    raise AllocationError(f"unsupported ResourceSlice.NodeSelector with {len(terms)} terms")
        if fields or expressions:
            term: dict[str, Any] = {}
            if fields:
                term["matchFields"] = fields
            if expressions:
                term["matchExpressions"] = expressions
            return {"nodeSelectorTerms": [term]}
        return None


def _same_requirement(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return (
        a.get("key") == b.get("key")
        and a.get("operator") == b.get("operator")
        and set(a.get("values") or []) == set(b.get("values") or [])
    )


def _noop() -> None:
    return None


def allocate(
    node: NodeInfo,
    pools: Sequence[PoolView],
    claims: Sequence[PodClaim],
    classes: Mapping[str, DeviceClassSpec],
    usage: Usage,
    features: Features,
    selectors: Selectors,
    *,
    engine: str = "auto",
    budget: int = SEARCH_BUDGET,
) -> list[ClaimAllocation] | None:
    """Allocate for one node: the allocation of every claim, or None when they do not fit here.
    Raises AllocationError (the scheduler's error) or FailedOnNode (unschedulable with a message)."""
    return Allocation(node, pools, claims, classes, usage, features, selectors, engine=engine, budget=budget).run()
