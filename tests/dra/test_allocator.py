"""The structured allocator on one node, rule by rule. Each test names the upstream function it follows
(kubernetes/dynamic-resource-allocation v0.35.6 structured/internal/incubating/allocator_incubating.go unless
stated otherwise); expected results are worked out from that code, not from ours."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dra_gpu_platform.dra.allocator import allocate
from dra_gpu_platform.dra.model import AllocationError, FailedOnNode, Features, NodeInfo, Selectors, Usage
from tests.dra.builders import CLASSES, EX, ROOT, claim, cluster, device, exact, first_available, gpus, slice_doc

NODE = NodeInfo("n")


def run(slices, claims, *, usage=None, features=None, engine="auto", classes=None):
    features = features or Features()
    built = cluster(*slices, claims=claims, usage=usage, features=features, classes=classes)
    return allocate(
        NODE, built.pools(NODE), claims, classes or CLASSES, built.usage, features, Selectors(), engine=engine
    )


def names(result):
    return [[d.device[2] for d in allocation.devices] for allocation in result]


# --- claims and requests, in order, with backtracking (allocateOne) ---------------------------------------


def test_claims_of_a_pod_are_allocated_together_and_backtrack_across_claims():
    """allocateOne walks claim after claim; when a later claim finds nothing, an earlier one tries its next
    device. gpu-0 is the only big device: claim a (any) takes it first, b (big) fails, a moves to gpu-1."""
    slices = [slice_doc("n", [device("gpu-0", "80Gi"), device("gpu-1", "20Gi")])]
    a, b = claim("ns", "a", exact()), claim("ns", "b", exact(device_class="big"))
    assert names(run(slices, [a, b])) == [["gpu-1"], ["gpu-0"]]
    assert run(slices, [b, claim("ns", "b2", exact(device_class="big"))]) is None  # two big claims, one big device


def test_requests_and_claims_never_share_a_device():
    """deviceInUse: allocatedDevices plus every device taken for any claim of this pod."""
    slices = [slice_doc("n", gpus(3))]
    result = run(slices, [claim("ns", "a", exact("x", count=2)), claim("ns", "b", exact("y"))])
    assert names(result) == [["gpu-0", "gpu-1"], ["gpu-2"]]
    assert run(slices, [claim("ns", "a", exact("x", count=2), exact("y", count=2))]) is None


def test_devices_allocated_in_the_cluster_are_in_use():
    """Allocate receives allocatedDevices (allocateddevices.go foreachAllocatedDevice)."""
    slices = [slice_doc("n", gpus(2))]
    used = Usage({(EX, "n", "gpu-0")})
    assert names(run(slices, [claim("ns", "a", exact())], usage=used)) == [["gpu-1"]]
    assert run(slices, [claim("ns", "a", exact(count=2))], usage=used) is None


def test_first_available_tries_subrequests_in_order_and_backtracks_into_them():
    """The subrequest loop of allocateOne: the first subrequest for which the rest completes wins. r0 prefers
    a big device, but r1 needs the only big one: r0 falls back to "small" and takes gpu-1."""
    slices = [slice_doc("n", [device("gpu-0", "80Gi"), device("gpu-1", "20Gi")])]
    pod_claim = claim("ns", "a", first_available("r0", ("big", "big", 1), ("small", "any", 1)), exact("r1", "big"))
    [result] = run(slices, [pod_claim])
    assert result.subrequests == {"r0": "small"}
    assert [(d.request, d.device[2]) for d in result.devices] == [("r0/small", "gpu-1"), ("r1", "gpu-0")]


def test_first_available_is_refused_without_the_gate():
    """Allocate: `has subrequests, but the DRAPrioritizedList feature is disabled` is an error."""
    with pytest.raises(AllocationError, match="DRAPrioritizedList feature is disabled"):
        run(
            [slice_doc("n", gpus(1))],
            [claim("ns", "a", first_available("r", ("x", "any", 1)))],
            features=Features(prioritized_list=False),
        )


# --- allocationMode All ---------------------------------------------------------------------------------


def test_all_takes_every_selectable_device_and_fails_when_one_is_in_use():
    """validateDeviceRequest collects every selectable device of the node for All, in use or not; allocateOne
    then needs each (allocateDevice with must), so one device in use means no solution on the node."""
    slices = [slice_doc("n", [*gpus(3), device("gpu-3", "20Gi")])]
    all_big = claim("ns", "a", exact(device_class="big", allocationMode="All"))
    assert names(run(slices, [all_big])) == [["gpu-0", "gpu-1", "gpu-2"]]
    assert run(slices, [all_big], usage=Usage({(EX, "n", "gpu-1")})) is None
    assert names(run(slices, [all_big], usage=Usage({(EX, "n", "gpu-3")}))) == [["gpu-0", "gpu-1", "gpu-2"]]


def test_all_with_no_matching_device_does_not_fit():
    """allocateOne: at least one device is required for All."""
    slices = [slice_doc("n", [device("gpu-0", "20Gi")])]
    assert run(slices, [claim("ns", "a", exact(device_class="big", allocationMode="All"))]) is None


def test_all_whose_devices_break_a_constraint_is_an_error():
    """allocateDevice with must=true: `cannot add device ... because a claim constraint would not be satisfied`."""
    slices = [slice_doc("n", gpus(4, per_root=2))]
    spec = claim("ns", "a", exact(allocationMode="All"), constraints=[{"matchAttribute": ROOT}])
    with pytest.raises(AllocationError, match="cannot add device gpu.example.com/n/gpu-2 because a claim constraint"):
        run(slices, [spec])


def test_all_on_a_node_with_an_incomplete_pool_is_an_error_and_exact_count_skips_the_pool():
    """validateDeviceRequest: `asks for all devices, but resource pool ... is currently being updated`;
    allocateOne skips incomplete pools for ExactCount (GatherPools marks them IsIncomplete)."""
    slices = [slice_doc("n", gpus(2), pool="p", count=2), slice_doc("n", gpus(1), pool="q", name="q-slice")]
    with pytest.raises(AllocationError, match="resource pool gpu.example.com/p is currently being updated"):
        run(slices, [claim("ns", "a", exact(allocationMode="All"))])
    assert names(run(slices, [claim("ns", "a", exact())])) == [["gpu-0"]]  # from pool q
    assert run(slices, [claim("ns", "a", exact(count=2))]) is None


# --- the 32-device limit ---------------------------------------------------------------------------------


def test_more_than_32_devices_in_a_claim_is_an_error():
    """Allocate: `number of requested devices %d exceeds the claim limit of 32` (AllocationResultsMaxSize)."""
    slices = [slice_doc("n", gpus(40))]
    with pytest.raises(AllocationError, match="number of requested devices 40 exceeds the claim limit of 32"):
        run(slices, [claim("ns", "a", exact(allocationMode="All"))])
    with pytest.raises(AllocationError, match="number of requested devices 33 exceeds"):
        run(slices, [claim("ns", "a", exact(count=33))])


def test_a_subrequest_over_the_limit_falls_back_to_the_next_one():
    """errAllocationResultMaxSizeExceeded makes the subrequest loop try the next subrequest: 20 + 20 > 32."""
    slices = [slice_doc("n", gpus(40))]
    spec = claim("ns", "a", exact("a", count=20), first_available("b", ("many", "any", 20), ("few", "any", 2)))
    [result] = run(slices, [spec])
    assert result.subrequests == {"b": "few"} and len(result.devices) == 22


# --- constraints ------------------------------------------------------------------------------------------


def test_match_attribute_keeps_the_devices_of_named_requests_on_one_value():
    """matchAttributeConstraint.add: the first device fixes the value, the others must equal it; a device
    without the attribute never joins. With two GPUs per pcieRoot, a third one cannot match."""
    slices = [slice_doc("n", [*gpus(4, per_root=2), device("gpu-9")])]
    pair = claim("ns", "a", exact(count=2), constraints=[{"requests": ["gpu"], "matchAttribute": ROOT}])
    assert names(run(slices, [pair])) == [["gpu-0", "gpu-1"]]
    three = claim("ns", "a", exact(count=3), constraints=[{"requests": ["gpu"], "matchAttribute": ROOT}])
    assert run(slices, [three]) is None


def test_match_attribute_can_name_one_subrequest():
    """matchAttributeConstraint.matches: `<request>/<subrequest>` limits it to that alternative."""
    slices = [slice_doc("n", gpus(4, per_root=1))]
    spec = claim(
        "ns",
        "a",
        first_available("g", ("pair", "any", 2), ("one", "any", 1)),
        constraints=[{"requests": ["g/pair"], "matchAttribute": ROOT}],
    )
    [result] = run(slices, [spec])
    assert result.subrequests == {"g": "one"}  # no two GPUs share a root here


def test_distinct_attribute_is_refused_by_the_incubating_allocator():
    """Allocate in incubating knows only matchAttribute: `constraint #0: empty constraint (unsupported
    constraint type?)` - a stored claim with distinctAttribute errors with 1.35 default gates."""
    spec = claim("ns", "a", exact(count=2), constraints=[{"distinctAttribute": ROOT}])
    with pytest.raises(AllocationError, match="empty constraint"):
        run([slice_doc("n", gpus(4, per_root=2))], [spec])


def test_distinct_attribute_compares_with_the_last_device_of_each_request():
    """experimental constraint.go distinctAttributeConstraint keeps one value per request name, so with the
    roots r0, r1, r0 three devices of one request pass (only neighbours differ); two requests are compared."""
    experimental = Features(consumable_capacity=True)
    slices = [slice_doc("n", [device("gpu-0", root="r0"), device("gpu-1", root="r1"), device("gpu-2", root="r0")])]
    three = claim("ns", "a", exact(count=3), constraints=[{"distinctAttribute": ROOT}])
    assert names(run(slices, [three], features=experimental)) == [["gpu-0", "gpu-1", "gpu-2"]]
    across = claim("ns", "a", exact("x"), exact("y"), exact("z"), constraints=[{"distinctAttribute": ROOT}])
    assert run(slices, [across], features=experimental) is None  # x, y, z each remembered: r0, r1, then r0 again


# --- taints, admin access, gates -----------------------------------------------------------------------------


def test_taints_count_only_with_the_device_taints_gate():
    """allocateDevice checks taintPreventsAllocation only when DeviceTaints is on; NoSchedule and NoExecute
    block unless tolerated (resourceclaim.ToleratesTaint), other effects such as None are ignored."""
    tainted = device("gpu-1")
    tainted["taints"] = [{"key": "example.com/degraded", "value": "v", "effect": "NoSchedule"}]
    ignored = device("gpu-2")
    ignored["taints"] = [{"key": "example.com/note", "effect": "None"}]
    slices = [slice_doc("n", [device("gpu-0"), tainted, ignored])]
    three = claim("ns", "a", exact(count=3))
    assert run(slices, [three]) is not None  # gate off: taints are not looked at
    assert run(slices, [three], features=Features(device_taints=True)) is None
    tolerant = claim("ns", "a", exact(count=3, tolerations=[{"key": "example.com/degraded", "operator": "Exists"}]))
    assert run(slices, [tolerant], features=Features(device_taints=True)) is not None


def test_admin_access_uses_devices_in_use_and_needs_its_gate():
    """allocateOne/allocateDevice skip the in-use check for adminAccess requests (only the same claim counts);
    validateDeviceRequest: `admin access is requested, but the feature is disabled`."""
    slices = [slice_doc("n", gpus(2))]
    admin = claim("ns", "a", exact(allocationMode="All", adminAccess=True))
    [result] = run(slices, [admin], usage=Usage({(EX, "n", "gpu-0"), (EX, "n", "gpu-1")}))
    assert [d.admin_access for d in result.devices] == [True, True]
    with pytest.raises(AllocationError, match="admin access is requested, but the feature is disabled"):
        run(slices, [admin], features=Features(admin_access=False))


def test_devices_with_binding_conditions_are_not_selectable_without_the_gates():
    """isSelectable: devices with bindingConditions are skipped unless DeviceBindingAndStatus."""
    waiting = device("gpu-0")
    waiting["bindingConditions"] = ["example.com/attached"]
    slices = [slice_doc("n", [waiting, device("gpu-1")])]
    assert names(run(slices, [claim("ns", "a", exact())])) == [["gpu-1"]]
    assert names(run(slices, [claim("ns", "a", exact())], features=Features(binding_and_status=True))) == [["gpu-0"]]


def test_devices_consuming_counters_need_the_partitionable_gate_and_enough_counters():
    """allocateDevice: consumesCounters with PartitionableDevices off is not usable; on, checkAvailableCounters
    subtracts what allocated and allocating devices consume from the pool's sharedCounters."""
    partitions = []
    for i in range(3):
        part = device(f"part-{i}")
        part["consumesCounters"] = [{"counterSet": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]
        partitions.append(part)
    counters = slice_doc(
        None,
        [],
        pool="n",
        name="counters",
        count=2,
        sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "80Gi"}}}],
    )
    slices = [slice_doc("n", partitions, name="devices", count=2), counters]
    assert (
        run(slices, [claim("ns", "a", exact())]) is None
    )  # gate off: the counter slice and the partitions are skipped
    on = Features(partitionable_devices=True)
    assert names(run(slices, [claim("ns", "a", exact(count=2))], features=on)) == [["part-0", "part-1"]]
    assert run(slices, [claim("ns", "a", exact(count=3))], features=on) is None  # 3 x 40Gi of 80Gi


def test_capacity_requests_without_the_gate_are_an_error_in_the_experimental_allocator():
    """experimental Allocate: `has capacity requests, but the DRAConsumableCapacity feature is disabled`."""
    spec = claim("ns", "a", exact(capacity={"requests": {"memory": "10Gi"}}))
    with pytest.raises(AllocationError, match="DRAConsumableCapacity feature is disabled"):
        run([slice_doc("n", gpus(1))], [spec], features=Features(binding_and_status=True))
    assert run([slice_doc("n", gpus(1))], [spec]) is not None  # incubating does not look at capacity at all


def test_consumable_capacity_shares_a_device_until_its_capacity_is_used():
    """experimental allocateDevice/CmpRequestOverCapacity: allowMultipleAllocations devices are never "in use";
    each allocation takes its requested capacity."""
    shared = device("gpu-0", "40Gi")
    shared["allowMultipleAllocations"] = True
    on = Features(consumable_capacity=True)
    slices = [slice_doc("n", [shared])]
    half = [claim("ns", f"c{i}", exact(capacity={"requests": {"memory": "20Gi"}})) for i in range(3)]
    result = run(slices, half[:2], features=on)
    assert [d.device[2] for a in result for d in a.devices] == ["gpu-0", "gpu-0"]
    assert all(d.consumed == (("memory", Fraction(20 * 2**30)),) for a in result for d in a.devices)
    assert run(slices, half, features=on) is None


# --- CEL ----------------------------------------------------------------------------------------------------


def test_a_cel_runtime_error_aborts_but_only_where_the_search_evaluates():
    """selectorsMatch returns the CEL runtime error; isSelectable runs only for devices the search reaches
    (not in use, before a solution is found), and for All on every device of the node."""
    classes = {
        **CLASSES,
        "odd": CLASSES["any"].__class__("odd", ("device.attributes['gpu.example.com'].flag == true",)),
    }
    slices = [slice_doc("n", [device("gpu-0", flag=True), device("gpu-1")])]  # gpu-1 lacks the attribute
    assert names(run(slices, [claim("ns", "a", exact(device_class="odd"))], classes=classes)) == [["gpu-0"]]
    with pytest.raises(AllocationError, match="class odd: selector #0: CEL runtime error"):
        run(slices, [claim("ns", "a", exact(device_class="odd", count=2))], classes=classes)
    with pytest.raises(AllocationError, match="CEL runtime error"):
        run(slices, [claim("ns", "a", exact(device_class="odd", allocationMode="All"))], classes=classes)
    assert names(
        run(slices, [claim("ns", "a", exact(device_class="odd"))], classes=classes, usage=Usage({(EX, "n", "gpu-1")}))
    ) == [["gpu-0"]]


def test_a_version_compared_with_a_string_is_an_error_not_false():
    """apiserver pkg/cel/semver.go Semver.Equal: `no such overload` for a non-Semver operand."""
    version = device("gpu-0")
    version["attributes"]["driverVersion"] = {"version": "1.0.0"}
    classes = {"v": CLASSES["any"].__class__("v", ("device.attributes['gpu.example.com'].driverVersion == '1.0.0'",))}
    with pytest.raises(AllocationError, match="no such overload"):
        run([slice_doc("n", [version])], [claim("ns", "a", exact(device_class="v"))], classes=classes)


# --- 1.34 ---------------------------------------------------------------------------------------------------


def test_kubernetes_1_34_uses_incomplete_pools_and_fails_on_invalid_ones():
    """v0.34.9: allocateOne does not skip incomplete pools for ExactCount; an invalid pool (duplicate device
    names) is an error as soon as the search reaches it. v0.35.6 skips both and reports invalid pools only
    when nothing fits (ErrFailedAllocationOnNode)."""
    incomplete = [slice_doc("n", gpus(1), pool="p", count=2)]
    assert run(incomplete, [claim("ns", "a", exact())]) is None
    assert names(run(incomplete, [claim("ns", "a", exact())], features=Features(minor=34))) == [["gpu-0"]]
    duplicated = [
        slice_doc("n", gpus(1), pool="p", count=2, name="one"),
        slice_doc("n", gpus(1), pool="p", count=2, name="two"),
    ]
    with pytest.raises(AllocationError, match="pool p is invalid: duplicate device name gpu-0"):
        run(duplicated, [claim("ns", "a", exact())], features=Features(minor=34))
    with pytest.raises(FailedOnNode, match="invalid resource pools were encountered"):
        run(duplicated, [claim("ns", "a", exact())])


@pytest.mark.parametrize("engine", ["exact", "classes"])
def test_both_engines_find_the_same_first_solution(engine):
    """The class engine visits classes in the order of their first free device; upstream's device loop."""
    slices = [slice_doc("n", gpus(6, per_root=2))]
    spec = claim(
        "ns", "a", exact("x", count=2), exact("y", count=2), constraints=[{"requests": ["y"], "matchAttribute": ROOT}]
    )
    assert names(run(slices, [spec], engine=engine, usage=Usage({(EX, "n", "gpu-3")}))) == [
        ["gpu-0", "gpu-1", "gpu-4", "gpu-5"]
    ]


def test_all_after_a_pick_of_the_same_class_keeps_scan_order():
    """allocateOne for All takes its devices in scan order: after r0 took gpu-0, All meets it in use (no solution);
    after the backtrack to gpu-1, All meets gpu-0 first and the distinct constraint fails with must=true, an error.
    (Found by the property test; the auto engine searches such claims device by device.)"""
    slices = [slice_doc("n", [device("gpu-0", root="r0"), device("gpu-1", root="r0")])]
    spec = claim("ns", "a", exact("r0"), exact("r1", allocationMode="All"), constraints=[{"distinctAttribute": ROOT}])
    for engine in ("exact", "auto"):
        with pytest.raises(
            AllocationError, match="cannot add device gpu.example.com/n/gpu-0 because a claim constraint"
        ):
            run(slices, [spec], engine=engine, features=Features(consumable_capacity=True))
