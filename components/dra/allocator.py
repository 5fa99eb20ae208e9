"""DRA allocation simulation with the scheduler's semantics. Pure: no Pulumi imports, no I/O.

Semantics (kubernetes/dynamic-resource-allocation structured allocator; docs/references.md#allocator-semantics,
docs/references.md#dra-api-request-shapes):
- all devices of a claim come from one node (the pools that node can reach);
- a device is selectable when every selector of its DeviceClass and then every selector of the request
  matches, in order: the first false stops, an evaluation error aborts the allocation (an error, not
  "unsatisfiable");
- ExactCount takes `count` devices, All takes every selectable device of the node (at least one, each one
  free, at most 32 per claim); firstAvailable tries its subrequests in order and reports the one that won;
- constraints[].matchAttribute: all devices of the named requests (all requests when none are named; a
  `<request>/<subrequest>` entry names one alternative) share the attribute's value, and a device without
  it fails the constraint; distinctAttribute (alpha) wants distinct values;
- a device already allocated is not taken again, except by an adminAccess request (which never marks
  devices in use); a device tainted NoSchedule/NoExecute needs a matching toleration;
- the search backtracks over devices in publication order, like the scheduler, and takes the first solution.

Selector results are cached on the projection of a device onto what the expression reads
(DeviceSelector.device_key), so devices that differ only in uuid, bus ID or pcieRoot are evaluated once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from components.dra.cel import CelCompileError, CelEvaluationError, DeviceSelector, Version, compile_selector
from components.dra.claims import ClaimSpec, Constraint, DeviceClassSpec, SubRequest
from components.dra.slices import DeviceTaint, NodeInventory, SliceDevice

MAX_DEVICES_PER_CLAIM = 32  # resourceapi.AllocationResultsMaxSize
SEARCH_BUDGET = 200_000  # candidate devices tried per claim and node before the simulation gives up


# ---------------------------------------------------------------------------------------------------
# simulation


class AllocationError(Exception):
    """The scheduler would stop with an error (CEL evaluation or compile error, unknown DeviceClass, ...)."""


@dataclass
class Stats:
    evaluations: int = 0  # CEL evaluations actually run
    lookups: int = 0  # selector results asked for (cache hits included)


@dataclass(frozen=True)
class Pick:
    sub: SubRequest
    device: SliceDevice


@dataclass
class ClaimResult:
    satisfiable: bool
    allocations: list[dict[str, Any]]
    max_concurrent: int
    reasons: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    pools: list[str] = field(default_factory=list)  # node pools where the claim fits


class _GaveUp(Exception):
    pass


class _ConstraintState:
    def __init__(self, constraint: Constraint):
        self.constraint = constraint
        self.values: Counter = Counter()

    def add(self, sub: SubRequest, device: SliceDevice) -> bool:
        if not self.constraint.applies(sub):
            return True
        value = attribute_value(device, self.constraint.attribute)
        if value is None:
            return False
        if self.constraint.distinct:
            if self.values[value]:
                return False
        elif self.values and value not in self.values:
            return False
        self.values[value] += 1
        return True

    def remove(self, sub: SubRequest, device: SliceDevice) -> None:
        if self.constraint.applies(sub):
            value = attribute_value(device, self.constraint.attribute)
            self.values[value] -= 1
            if not self.values[value]:
                del self.values[value]


def attribute_value(device: SliceDevice, qualified: str) -> tuple[str, str] | None:
    """The attribute as the constraint compares it (same kind and value), or None when the device lacks it."""
    domain, _, name = qualified.partition("/")
    value = device.device.attributes.get(domain, {}).get(name)
    if value is None:
        return None
    kind = "version" if isinstance(value, Version) else type(value).__name__
    return (kind, str(value))


def _blocking_taint(sub: SubRequest, device: SliceDevice) -> DeviceTaint | None:
    for taint in device.taints:
        if taint.effect in ("NoSchedule", "NoExecute") and not any(t.tolerates(taint) for t in sub.tolerations):
            return taint
    return None


class Simulator:
    """Allocates claims on an inventory. `cache=False` evaluates every selector every time it is asked
    (the baseline of bench/fit_bench.py)."""

    def __init__(self, nodes: list[NodeInventory], classes: Mapping[str, DeviceClassSpec], *, cache: bool = True):
        self.nodes = nodes
        self.classes = dict(classes)
        self.cache = cache
        self.stats = Stats()
        self._compiled: dict[str, DeviceSelector | str] = {}
        self._results: dict[tuple[str, Any], bool | str] = {}
        self._chains: dict[SubRequest, tuple[tuple[str, int, str], ...]] = {}
        self._masks: dict[tuple[SubRequest, str], list[Any]] = {}

    # -- selectors -------------------------------------------------------------------------------------
    def selector(self, expression: str) -> DeviceSelector:
        compiled = self._compiled.get(expression)
        if compiled is None:
            try:
                compiled = compile_selector(expression)
            except CelCompileError as error:
                compiled = str(error)
            self._compiled[expression] = compiled
        if isinstance(compiled, str):
            raise AllocationError(f"CEL compile error: {compiled}")
        return compiled

    def chain(self, sub: SubRequest) -> tuple[tuple[str, int, str], ...]:
        """(owner, index, expression) of every selector a device must pass: the class's, then the request's."""
        chain = self._chains.get(sub)
        if chain is None:
            device_class = self.classes.get(sub.device_class)
            if device_class is None:
                raise AllocationError(
                    f"request {sub.label}: DeviceClass {sub.device_class!r} does not exist (not in the stack, the "
                    f"driver chart's classes or the claim files); the claim stays pending"
                )
            chain = tuple((f"DeviceClass {device_class.name}", i, e) for i, e in enumerate(device_class.selectors)) + tuple(
                (f"request {sub.label}", i, e) for i, e in enumerate(sub.selectors))
            self._chains[sub] = chain
        return chain

    def evaluate(self, expression: str, device: SliceDevice) -> bool:
        selector = self.selector(expression)
        self.stats.lookups += 1
        key = (expression, selector.device_key(device.device)) if self.cache else None
        result = self._results.get(key) if key is not None else None
        if result is None:
            self.stats.evaluations += 1
            try:
                result = selector.matches(device.device)
            except CelEvaluationError as error:
                result = str(error)
            if key is not None:
                self._results[key] = result
        if isinstance(result, str):
            raise AllocationError(f"CEL evaluation error: {result}")
        return result

    def first_failure(self, sub: SubRequest, device: SliceDevice) -> tuple[str, int, str] | None:
        """The first selector that is false for the device, or None when it is selectable."""
        for step in self.chain(sub):
            if not self.evaluate(step[2], device):
                return step
        return None

    # -- one claim on one node -------------------------------------------------------------------------
    def _mask(self, sub: SubRequest, node: NodeInventory) -> list[Any]:
        """Per device of the node: None (not evaluated yet), True/False, or the AllocationError it raised.
        Filled lazily, in the order the search reaches devices, so an error surfaces only where the
        scheduler would meet it."""
        key = (sub, node.name)
        mask = self._masks.get(key) if self.cache else None
        if mask is None:
            mask = [None] * len(node.devices)
            if self.cache:
                self._masks[key] = mask
        return mask

    def _selectable_at(self, sub: SubRequest, node: NodeInventory, mask: list[Any], index: int) -> bool:
        verdict = mask[index]
        if verdict is None:
            try:
                verdict = self.first_failure(sub, node.devices[index]) is None
            except AllocationError as error:
                verdict = error
            mask[index] = verdict
        if verdict is True or verdict is False:
            return verdict
        raise verdict

    def allocate(self, spec: ClaimSpec, node: NodeInventory, in_use: set[tuple[str, str, str]]) -> list[Pick] | None:
        """The first allocation the scheduler would find on this node, or None. Raises AllocationError."""
        masks = [[self._mask(sub, node) for sub in request.alternatives] for request in spec.requests]
        for request, request_masks in zip(spec.requests, masks):  # cheap necessary condition before the search
            if not any(self._enough(sub, node, in_use, mask) for sub, mask in zip(request.alternatives, request_masks)):
                return None
        devices = node.devices
        picks: list[Pick] = []
        taken: set[tuple[str, str, str]] = set()  # devices of this claim
        states = [_ConstraintState(c) for c in spec.constraints]
        steps = [0]

        def free(sub: SubRequest, device: SliceDevice) -> bool:
            if device.id in taken:
                return False
            return sub.admin_access or device.id not in in_use

        def add(sub: SubRequest, device: SliceDevice) -> bool:
            for i, state in enumerate(states):
                if not state.add(sub, device):
                    for earlier in states[:i]:
                        earlier.remove(sub, device)
                    return False
            picks.append(Pick(sub, device))
            taken.add(device.id)
            return True

        def undo(sub: SubRequest, device: SliceDevice) -> None:
            picks.pop()
            taken.discard(device.id)
            for state in states:
                state.remove(sub, device)

        def place(index: int) -> bool:
            if index == len(spec.requests):
                return True
            request = spec.requests[index]
            return any(try_sub(index, sub, mask) for sub, mask in zip(request.alternatives, masks[index]))

        def try_sub(index: int, sub: SubRequest, mask: list[Any]) -> bool:
            if sub.mode == "All":
                matching = [d for i, d in enumerate(devices) if self._selectable_at(sub, node, mask, i)]
                if not matching or len(picks) + len(matching) > MAX_DEVICES_PER_CLAIM:
                    return False
                added = []
                for device in matching:
                    if not free(sub, device) or _blocking_taint(sub, device) is not None:
                        break
                    if not add(sub, device):
                        for d in reversed(added):
                            undo(sub, d)
                        raise AllocationError(
                            f"request {sub.label}: cannot add device {device.pool}/{device.name} because constraint "
                            f"{_constraint_text(spec)} would not be satisfied (allocationMode All)"
                        )
                    added.append(device)
                else:
                    if place(index + 1):
                        return True
                for device in reversed(added):
                    undo(sub, device)
                return False
            return pick(index, sub, mask, sub.count, 0)

        def pick(index: int, sub: SubRequest, mask: list[Any], remaining: int, start: int) -> bool:
            if remaining == 0:
                return place(index + 1)
            if len(picks) + remaining > MAX_DEVICES_PER_CLAIM:
                return False
            for position in range(start, len(devices)):
                steps[0] += 1
                if steps[0] > SEARCH_BUDGET:
                    raise _GaveUp
                device = devices[position]
                # Cheap checks first, as the scheduler does: in use, then taints, then selectors.
                if not free(sub, device) or (device.taints and _blocking_taint(sub, device) is not None):
                    continue
                if not self._selectable_at(sub, node, mask, position) or not add(sub, device):
                    continue
                if pick(index, sub, mask, remaining - 1, position + 1):
                    return True
                undo(sub, device)
            return False

        try:
            return list(picks) if place(0) else None
        except _GaveUp:
            raise AllocationError(
                f"node {node.name}: the simulation stopped after {SEARCH_BUDGET} candidate devices without a "
                "solution; the constraints make this claim expensive for the scheduler as well"
            ) from None

    def _usable(self, sub: SubRequest, node: NodeInventory, in_use: set[tuple[str, str, str]]) -> list[SliceDevice]:
        mask = self._mask(sub, node)
        return [d for i, d in enumerate(node.devices) if (sub.admin_access or d.id not in in_use)
                and _blocking_taint(sub, d) is None and self._selectable_at(sub, node, mask, i)]

    def _enough(self, sub: SubRequest, node: NodeInventory, in_use: set[tuple[str, str, str]], mask: list[Any]) -> bool:
        if sub.mode == "All":
            return True  # decided by the search (every matching device must be free)
        found = 0
        for index, device in enumerate(node.devices):
            if sub.admin_access or device.id not in in_use:
                if (not device.taints or _blocking_taint(sub, device) is None) and self._selectable_at(sub, node, mask, index):
                    found += 1
                    if found >= sub.count:
                        return True
        return False

    # -- a claim on the whole inventory ----------------------------------------------------------------
    def evaluate_claim(self, spec: ClaimSpec, *, single: bool = False) -> ClaimResult:
        """Where the claim fits on an empty inventory (first node per node pool), how many fit at once
        (greedy fill over every node; a ResourceClaim object counts once), and why not, per pool."""
        errors: list[str] = []
        allocations: list[dict[str, Any]] = []
        fitting_pools: list[str] = []
        failed: list[NodeInventory] = []
        for pool, nodes in _by_pool(self.nodes).items():
            for node in nodes:
                try:
                    picks = self.allocate(spec, node, set())
                except AllocationError as error:
                    _add_unique(errors, str(error))
                    break
                if picks is not None:
                    allocations += allocation_entries(pool, node.name, spec, picks)
                    fitting_pools.append(pool)
                    break
            else:
                if nodes:
                    failed.append(nodes[0])
        max_concurrent = self.fill(spec, single=single) if fitting_pools else 0
        reasons: list[str] = []
        if not fitting_pools and not errors:  # an error is the finding; the scheduler stops there
            for node in failed:
                try:
                    reasons.append(f"pool {node.node_pool}: {self.diagnose(spec, node)}")
                except AllocationError as error:
                    _add_unique(errors, str(error))
            if not self.nodes:
                reasons.append("the inventory has no DRA devices (no node pool with gpuStack: dra, or an empty dump)")
        return ClaimResult(bool(fitting_pools), allocations, max_concurrent, reasons, errors, fitting_pools)

    def fill(self, spec: ClaimSpec, *, single: bool = False) -> int:
        """Greedy fill: allocate claims node after node until none fits. Feasibility only shrinks as devices
        are taken, so staying on a node until it is full equals first-fit from the first node each time.
        A claim that takes no device (adminAccess only) counts once per node where it fits."""
        in_use: set[tuple[str, str, str]] = set()
        count = 0
        for node in self.nodes:
            while True:
                try:
                    picks = self.allocate(spec, node, in_use)
                except AllocationError:
                    picks = None
                if picks is None:
                    break
                count += 1
                if single:
                    return count
                consumed = {p.device.id for p in picks if not p.sub.admin_access}
                if not consumed:
                    break
                in_use |= consumed
        return count

    # -- why not ---------------------------------------------------------------------------------------
    def diagnose(self, spec: ClaimSpec, node: NodeInventory) -> str:
        """Why the claim does not fit on this (empty) node, in one line."""
        problems = []
        for request in spec.requests:
            shortfalls = [self._shortfall(sub, node) for sub in request.alternatives]
            if all(shortfalls):
                if request.first_available:
                    problems.append(f"request {request.name}: no alternative fits: " +
                                    "; ".join(f"{sub.name}: {text}" for sub, text in zip(request.alternatives, shortfalls)))
                else:
                    problems.append(f"request {request.name}: {shortfalls[0]}")
        if problems:
            return "; ".join(problems)
        for constraint in spec.constraints:
            text = self._constraint_shortfall(spec, constraint, node)
            if text:
                return text
        needed = sum(min(s.count for s in r.alternatives) for r in spec.requests)
        return (f"each request fits alone, but not all {len(spec.requests)} together: they need {needed} distinct "
                f"devices on one node (a device serves one request)")

    def _shortfall(self, sub: SubRequest, node: NodeInventory) -> str | None:
        """Why this (sub)request alone does not fit on the empty node, or None when it does."""
        usable = self._usable(sub, node, set())
        failures: Counter = Counter()
        tainted = 0
        for device in node.devices:
            verdict = self.first_failure(sub, device)
            if verdict is not None:
                failures[verdict] += 1
            elif _blocking_taint(sub, device) is not None:
                tainted += 1
        if sub.mode == "All":
            if len(usable) > MAX_DEVICES_PER_CLAIM:
                return f"allocationMode All would take {len(usable)} devices, more than {MAX_DEVICES_PER_CLAIM} per claim"
            if usable and not tainted:
                return None
            if usable:
                return f"allocationMode All needs every matching device, and {tainted} of them are tainted and not tolerated"
        elif len(usable) >= sub.count:
            return None
        if usable:
            return (f"needs {sub.count} devices of DeviceClass {sub.device_class} on one node, a node of this pool has "
                    f"{len(usable)} that match" + (f" ({tainted} more are tainted and not tolerated)" if tainted else ""))
        if not node.devices:
            return "a node of this pool publishes no devices"
        per_node = f"{len(node.devices)} device{'s' if len(node.devices) != 1 else ''} per node"
        parts = []
        for step, count in failures.most_common(2):
            owner, index, expression = step
            devices = [d for d in node.devices if self.first_failure(sub, d) == step]
            parts.append(f"{owner} selector #{index} `{expression}` is false for {count} of {per_node} "
                         f"({self._values(expression, devices)})")
        if tainted:
            parts.append(f"{tainted} matching device(s) are tainted and not tolerated")
        return "no device matches: " + "; ".join(parts)

    def _values(self, expression: str, devices: list[SliceDevice]) -> str:
        """The values of what a selector reads, as the failing devices publish them."""
        selector = self.selector(expression)
        shown = []
        if "device.driver" in expression:
            shown.append("driver " + _distinct(d.driver for d in devices))
        for map_name, domain, name in selector.reads() or ():
            source = (lambda d: d.device.attributes) if map_name == "attributes" else (lambda d: d.device.capacity)
            values = [source(d).get(domain, {}).get(name) for d in devices]
            if all(v is None for v in values):
                shown.append(f"{domain}/{name} not published")
            else:
                shown.append(f"{domain}/{name}={_distinct('missing' if v is None else str(v) for v in values)}")
        return ", ".join(shown) if shown else "the expression reads whole attribute maps"

    def _constraint_shortfall(self, spec: ClaimSpec, constraint: Constraint, node: NodeInventory) -> str | None:
        subs = [sub for r in spec.requests for sub in r.alternatives[:1] if constraint.applies(sub)]
        if not subs:
            return None
        needed = sum(s.count for s in subs)
        candidates = {d.id: d for sub in subs for d in self._usable(sub, node, set())}.values()
        values = Counter(attribute_value(d, constraint.attribute) for d in candidates)
        missing = values.pop(None, 0)
        where = f"constraint {constraint.field_name} {constraint.attribute}"
        if not values:
            return f"{where}: the {missing} matching devices do not publish {constraint.attribute}"
        if constraint.distinct:
            return f"{where}: only {len(values)} distinct values among matching devices, {needed} devices needed"
        best, count = values.most_common(1)[0]
        return (f"{where}: at most {count} matching devices share one value ({best[1]}) on a node of this pool, "
                f"{needed} needed" + (f"; {missing} lack the attribute" if missing else ""))


def _constraint_text(spec: ClaimSpec) -> str:
    return ", ".join(f"{c.field_name} {c.attribute}" for c in spec.constraints) or "(none)"


def _distinct(values: Iterable[str], limit: int = 3) -> str:
    seen = list(dict.fromkeys(values))
    text = "|".join(seen[:limit])
    return text + (f"|… ({len(seen)} values)" if len(seen) > limit else "")


def _add_unique(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)


def _by_pool(nodes: list[NodeInventory]) -> dict[str, list[NodeInventory]]:
    pools: dict[str, list[NodeInventory]] = {}
    for node in nodes:
        pools.setdefault(node.node_pool, []).append(node)
    return pools


def allocation_entries(pool: str, node: str, spec: ClaimSpec, picks: list[Pick]) -> list[dict[str, Any]]:
    """One entry per request: the subrequest that won (None for `exactly`) and its devices."""
    entries = []
    for request in spec.requests:
        mine = [p for p in picks if p.sub.request == request.name]
        subrequest = mine[0].sub.name if mine else None
        entries.append({
            "pool": pool,
            "node": node,
            "request": request.name,
            "subrequest": subrequest,
            "devices": [f"{p.device.driver}/{p.device.pool}/{p.device.name}" for p in mine],
        })
    return entries
