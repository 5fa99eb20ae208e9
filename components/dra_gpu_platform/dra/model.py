"""What the allocator sees: device shapes, slices and pools as gathered for a node, the devices in use, a pod's
claims and their allocation results; and the predicates upstream applies to them (selectors with their
cached verdicts, blocking taints, slice node selection, attribute lookup). Pure: no Pulumi imports, no I/O.
Toleration and node-selector matching themselves live in dra/tolerations.py and dra/node_selectors.py.

Sources: kubernetes/dynamic-resource-allocation v0.35.6 `structured/internal/incubating/allocator_incubating.go`
(isSelectable, selectorsMatch, lookupAttribute, taintPreventsAllocation), `pools_incubating.go` (Pool,
NodeMatches).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dra_gpu_platform.cel import CelCompileError, CelEvaluationError, Device, DeviceSelector, compile_selector
from dra_gpu_platform.dra import gates as g
from dra_gpu_platform.dra.claims import ClaimSpec, SubRequest
from dra_gpu_platform.dra.node_selectors import node_selector_matches
from dra_gpu_platform.dra.tolerations import DeviceTaint, Taint, untolerated

DeviceID = tuple[str, str, str]  # (driver, pool, device)


# ---------------------------------------------------------------------------------------------------
# what the allocator sees


@dataclass(frozen=True)
class Features:
    """structured.Features as the scheduler derives them from its gates (dynamicresources.go AllocatorFeatures),
    plus the Kubernetes minor whose allocator code applies (34: v0.34, else v0.35)."""

    admin_access: bool = True
    prioritized_list: bool = True
    partitionable_devices: bool = False
    device_taints: bool = False
    binding_and_status: bool = False
    consumable_capacity: bool = False
    minor: int = 35

    @classmethod
    def of(cls, gates: g.FeatureGates) -> Features:
        """dynamicresources.go AllocatorFeatures of the gates in effect, at their minor."""
        return cls(
            admin_access=gates.admin_access,
            prioritized_list=gates.prioritized_list,
            partitionable_devices=gates.partitionable_devices,
            device_taints=gates.device_taints,
            binding_and_status=gates.binding_conditions,
            consumable_capacity=gates.consumable_capacity,
            minor=gates.minor,
        )

    @property
    def experimental(self) -> bool:
        """The allocator code that knows consumable capacity and binding conditions runs: `experimental` up to
        v0.35, `incubating` from v0.36 (the same lineage; docs/references.md#allocator-variants)."""
        return self.consumable_capacity or self.binding_and_status

    @property
    def combinations(self) -> bool:
        """v0.36 incubating allocateOne: the next device of a request is searched after the previous one
        (deviceLocation startLocation), so a request tries combinations, not permutations."""
        return self.minor >= 36 and self.experimental

    @property
    def sorted_pools(self) -> bool:
        """v0.36 incubating GatherPools/buildPool: pools sorted by driver and pool name, a pool's slices by
        name (before: Go map order, slices in list order)."""
        return self.minor >= 36 and self.experimental


@dataclass(frozen=True)
class CapacityPolicy:
    default: Fraction | None = None
    valid_values: tuple[Fraction, ...] = ()
    range_min: Fraction | None = None
    range_max: Fraction | None = None
    range_step: Fraction | None = None


@dataclass(frozen=True, eq=False)
class Shape:
    """Everything the allocator reads from a device except its name; devices with equal shapes are
    interchangeable. `attributes` holds the raw values the constraints compare, by their published key."""

    id: int
    device: Device  # the CEL input
    attributes: Mapping[str, tuple[str, Any]]
    taints: tuple[DeviceTaint, ...] = ()
    consumes: tuple[tuple[str, tuple[tuple[str, Fraction], ...]], ...] = ()
    binding_conditions: tuple[str, ...] = ()
    binds_to_node: bool = False
    allow_multiple: bool = False
    capacity: Mapping[str, tuple[Fraction, CapacityPolicy | None]] = field(default_factory=dict)

    @property
    def driver(self) -> str:
        return self.device.driver


@dataclass(frozen=True)
class NodeSelection:
    """Where a slice (or, with perDeviceNodeSelection, a device) is available."""

    node_name: str | None = None
    all_nodes: bool = False
    node_selector: Mapping[str, Any] | None = None  # core/v1 NodeSelector


@dataclass(frozen=True)
class SliceDevice:
    name: str
    shape: Shape
    selection: NodeSelection | None = None  # only with perDeviceNodeSelection


@dataclass(frozen=True)
class SliceView:
    name: str
    selection: NodeSelection
    per_device: bool
    devices: tuple[SliceDevice, ...]


@dataclass(frozen=True)
class PoolView:
    """A pool as GatherPools returns it for one node (pools_incubating.go Pool)."""

    driver: str
    pool: str
    slices: tuple[SliceView, ...] = ()  # DeviceSlicesTargetingNode
    incomplete: bool = False
    invalid: str | None = None  # InvalidReason
    other_slices: tuple[SliceView, ...] = ()  # DeviceSlicesNotTargetingNode (counters only)
    counter_sets: Mapping[str, Mapping[str, Fraction]] = field(default_factory=dict)
    has_binding_conditions: bool = False


@dataclass(frozen=True)
class NodeInfo:
    """A Node as the scheduler sees it: its labels (slice node selectors and pod affinity match them), and what the
    default filters read (dra_gpu_platform/dra/nodefilters.py): taints, spec.unschedulable and status.allocatable (cpu in
    millicores, memory and other resources in units; cpu, memory, ephemeral-storage and pods absent: unknown)."""

    name: str
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    allocatable: Mapping[str, int] = field(default_factory=dict)


@dataclass
class Usage:
    """Devices already allocated in the cluster (allocateddevices.go foreachAllocatedDevice: every result
    without adminAccess) and, with consumable capacity, what shared devices have given out."""

    allocated: set[DeviceID] = field(default_factory=set)
    consumed: dict[DeviceID, dict[str, Fraction]] = field(default_factory=dict)

    def copy(self) -> Usage:
        return Usage(set(self.allocated), {k: dict(v) for k, v in self.consumed.items()})


@dataclass(frozen=True)
class PodClaim:
    """One claim of the pod to allocate, named for messages."""

    namespace: str
    name: str
    spec: ClaimSpec

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class DeviceResult:
    request: str  # <request> or <request>/<subrequest>
    device: DeviceID
    admin_access: bool = False
    consumed: tuple[tuple[str, Fraction], ...] = ()
    shared: bool = False


@dataclass(frozen=True)
class ClaimAllocation:
    devices: tuple[DeviceResult, ...]
    node_selector: Mapping[str, Any] | None  # createNodeSelector; None = available everywhere
    subrequests: Mapping[str, str]  # request -> chosen subrequest (firstAvailable only)


class AllocationError(Exception):
    """The allocator returned an error: the scheduler aborts the attempt for this pod (statusError)."""


class FailedOnNode(Exception):
    """ErrFailedAllocationOnNode: unschedulable on this node, with a message."""


@dataclass
class Stats:
    evaluations: int = 0  # CEL evaluations run
    lookups: int = 0  # selector verdicts asked for (cached ones included)
    steps: int = 0  # allocateOne calls
    searches: int = 0  # Allocate calls


# ---------------------------------------------------------------------------------------------------
# selectors, blocking taints, node selection


class Selectors:
    """Compiled CEL selectors and their verdict per device shape (a shape is a distinct attribute set)."""

    def __init__(self, stats: Stats | None = None):
        self.stats = stats or Stats()
        self._compiled: dict[str, DeviceSelector | str] = {}
        self._verdicts: dict[tuple[str, int], bool | str] = {}
        self.layouts: dict[Any, Any] = {}  # (node, pools, minor) -> device positions, for Allocation

    def compiled(self, expression: str) -> DeviceSelector | str:
        found = self._compiled.get(expression)
        if found is None:
            try:
                found = compile_selector(expression)
            except CelCompileError as error:
                found = str(error)
            self._compiled[expression] = found
        return found

    def verdict(self, expression: str, shape: Shape) -> bool | str:
        """True/False, or the CEL error text (compile or runtime)."""
        self.stats.lookups += 1
        key = (expression, shape.id)
        found = self._verdicts.get(key)
        if found is None:
            selector = self.compiled(expression)
            if isinstance(selector, str):
                found = f"CEL compile error: {selector}"
            else:
                self.stats.evaluations += 1
                try:
                    found = selector.matches(shape.device)
                except CelEvaluationError as error:
                    found = f"CEL runtime error: {_engine_detail(str(error))}"
            self._verdicts[key] = found
        return found


def _engine_detail(message: str) -> str:
    """The engine's reason without the adapter's framing (the caller names the device)."""
    match = re.search(r"failed on device [^:]*: (.*?)(?: \(Kubernetes aborts the allocation\))?$", message)
    return match.group(1) if match else message


def blocking_taint(sub: SubRequest, shape: Shape) -> DeviceTaint | None:
    """taintPreventsAllocation: an untolerated NoSchedule/NoExecute taint; other effects (None) are ignored."""
    found = untolerated(sub.tolerations, shape.taints)
    return found[0] if found else None


def node_selection_matches(selection: NodeSelection, node: NodeInfo) -> bool:
    """NodeMatches (pools_incubating.go)."""
    if selection.node_name:
        return node.name == selection.node_name
    if selection.all_nodes:
        return True
    if selection.node_selector is not None:
        return node_selector_matches(selection.node_selector, node.labels, node.name)
    return False


def lookup_attribute(shape: Shape, qualified: str) -> tuple[str, Any] | None:
    """lookupAttribute: the fully qualified key, else the bare name when the domain is the driver's."""
    found = shape.attributes.get(qualified)
    if found is not None:
        return found
    domain, _, name = qualified.partition("/")
    if domain == shape.driver:
        return shape.attributes.get(name)
    return None
