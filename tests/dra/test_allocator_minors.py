"""What changes in the allocator from Kubernetes 1.35 to 1.36 and 1.37, rule by rule. Each test names the
upstream function at its tag in kubernetes/dynamic-resource-allocation (v0.35.6 for 1.35, v0.36.2 for 1.36,
v0.37.0-alpha.2 for 1.37); expected results are worked out from that code. tests/dra/test_oracle_differential.py
checks the same rules against the real allocator on random cases."""

from __future__ import annotations

from fractions import Fraction

from dra_gpu_platform.dra import gates as g
from dra_gpu_platform.dra.allocator import allocate
from dra_gpu_platform.dra.claims import DeviceClassSpec
from dra_gpu_platform.dra.model import Features, NodeInfo, Selectors, Usage
from dra_gpu_platform.dra.scheduler import Scheduler
from tests.dra.builders import CLASSES, EX, claim, cluster, device, exact, gpus, slice_doc

NODE = NodeInfo("n")
V35_EXPERIMENTAL = Features.of(g.parse("DRAConsumableCapacity=true", "1.35"))
V35 = Features.of(g.defaults("1.35"))
V36 = Features.of(g.defaults("1.36"))
V37 = Features.of(g.defaults("1.37"))


def run(slices, claims, features, *, usage=None, classes=None):
    built = cluster(*slices, claims=claims, usage=usage, features=features, classes=classes)
    return allocate(NODE, built.pools(NODE), claims, classes or CLASSES, built.usage, features, Selectors())


def names(result):
    return [["/".join(d.device[1:]) for d in allocation.devices] for allocation in result]


def test_a_request_tries_combinations_from_1_36():
    """v0.36.2 incubating allocateOne: the next device of a request is searched after the previous one
    (startLocation), v0.35.6 experimental tries every order. distinctAttribute compares a device with the last
    one of each request (constraint.go distinctAttributeConstraint), so values x, x, y give x, y, x in 1.35
    and nothing in 1.36."""
    slices = [slice_doc("n", [device("d0", v="x"), device("d1", v="x"), device("d2", v="y")])]
    wanted = claim("ns", "c", exact(count=3), constraints=[{"distinctAttribute": f"{EX}/v"}])
    assert names(run(slices, [wanted], V35_EXPERIMENTAL)) == [["n/d0", "n/d2", "n/d1"]]
    assert run(slices, [wanted], V36) is None and run(slices, [wanted], V37) is None


def test_pools_and_slices_are_walked_by_name_from_1_36():
    """v0.36.2 incubating GatherPools sortPoolsByID and buildPool sortSlicesByName; v0.35.6 walks pools in Go
    map order (here: the order the inventory names them) and slices in list order."""
    slices = [
        slice_doc("n", [device("b0")], pool="b-pool", name="s-b"),
        slice_doc("n", [device("a1")], pool="a-pool", name="s-2", count=2),
        slice_doc("n", [device("a0")], pool="a-pool", name="s-1", count=2),
    ]
    wanted = [claim("ns", "c", exact(count=2))]
    assert names(run(slices, wanted, V35)) == [["b-pool/b0", "a-pool/a1"]]
    assert names(run(slices, wanted, V36)) == [["a-pool/a0", "a-pool/a1"]]


def test_pools_with_binding_conditions_come_last():
    """GatherPools (v0.35.6 experimental, v0.36.2 incubating): pools with devices that have binding conditions
    follow the others, so a plain device wins even when its pool sorts later."""
    waiting = {**device("a0"), "bindingConditions": ["ready"], "bindingFailureConditions": ["failed"]}
    slices = [slice_doc("n", [waiting], pool="a-pool"), slice_doc("n", [device("z0")], pool="z-pool")]
    assert names(run(slices, [claim("ns", "c", exact())], V36)) == [["z-pool/z0"]]


def test_an_all_subrequest_keeps_its_index_from_1_36():
    """allocateOne, allocationMode All: v0.35.6 continues with deviceIndices{claim, request, device+1}, which
    drops subRequestIndex, so an All subrequest other than the first goes on with the first one's data; v0.36.2
    keeps it. Second alternative "rest" (All of three devices) after "big" (1 big device, none here): 1.36 takes
    all three, 1.35 takes one for "rest" and then counts the next ones against "big" (count 1: done)."""
    slices = [slice_doc("n", gpus(3, memory="8Gi"))]
    wanted = claim(
        "ns",
        "c",
        {
            "name": "r",
            "firstAvailable": [
                {"name": "big", "deviceClassName": "big", "count": 1},
                {"name": "rest", "deviceClassName": "any", "allocationMode": "All"},
            ],
        },
    )
    assert names(run(slices, [wanted], V36)) == [["n/gpu-0", "n/gpu-1", "n/gpu-2"]]
    assert names(run(slices, [wanted], V35)) == [["n/gpu-0"]]


def test_capacity_requests_are_checked_on_exclusive_devices_too():
    """CmpRequestOverCapacity runs on every candidate once DRAConsumableCapacity is on (v0.36.2 incubating
    allocateOne and allocateDevice; the same in v0.35.6 experimental), not only on shareable devices: 10Gi
    does not fit an 8Gi device, 4Gi does, and nothing is consumed from an exclusive device."""
    slices = [slice_doc("n", [device("small", "8Gi"), device("large", "40Gi")])]
    ten = claim("ns", "c", exact(capacity={"requests": {"memory": "10Gi"}}))
    assert names(run(slices, [ten], V36)) == [["n/large"]]
    four = run(slices, [claim("ns", "c", exact(capacity={"requests": {"memory": "4Gi"}}))], V36)
    assert names(four) == [["n/small"]] and four[0].devices[0].consumed == ()


def test_a_shareable_device_in_use_consumes_its_counters_from_1_36():
    """checkAvailableCounters: v0.36.2 counts devices as allocated with internal.IsDeviceAllocated, which also
    holds devices that gave out capacity (AllocatedSharedDeviceIDs, AggregatedCapacity); v0.35.6 only
    AllocatedDevices. The shared device "a" draws 30Gi of 40Gi, so "b" (20Gi) no longer fits at 1.36."""

    def consuming(name: str, amount: str, **more):
        return {
            **device(name),
            "consumesCounters": [{"counterSet": "mem", "counters": {"m": {"value": amount}}}],
            **more,
        }

    slices = [
        slice_doc("n", [consuming("a", "30Gi", allowMultipleAllocations=True), consuming("b", "20Gi")], count=2),
        slice_doc(
            "n", [], name="counters", count=2, sharedCounters=[{"name": "mem", "counters": {"m": {"value": "40Gi"}}}]
        ),
    ]
    only_b = {"b": DeviceClassSpec("b", (f"device.attributes['{EX}'].model == 'B'",))}
    slices[0]["spec"]["devices"][1]["attributes"]["model"] = {"string": "B"}
    usage = Usage(consumed={(EX, "n", "a"): {"memory": Fraction(1 << 30)}})
    wanted = [claim("ns", "c", exact(device_class="b"))]
    assert run(slices, wanted, V36, usage=usage.copy(), classes=only_b) is None
    with_counters = Features.of(g.parse("DRAConsumableCapacity=true,DRAPartitionableDevices=true", "1.35"))
    assert names(run(slices, wanted, with_counters, usage=usage.copy(), classes=only_b)) == [["n/b"]]


def test_counter_slices_join_every_node_up_to_1_36_and_follow_their_node_selection_in_1_37():
    """GatherPools: v0.36.2 incubating always takes slices with SharedCounters ("needed to use a pool
    regardless of their node selector"); v0.37.0-alpha.2 only where their node selection matches (Allocate
    puts only nodeName-less slices in slicesShared)."""
    slices = [
        slice_doc("n0", gpus(1), count=2),
        slice_doc(
            "n0", [], name="counters", count=2, sharedCounters=[{"name": "s", "counters": {"c": {"value": "1"}}}]
        ),
    ]
    other = NodeInfo("n1")
    for features, seen in ((V36, ["n0"]), (V37, [])):
        built = cluster(*slices, nodes=[NodeInfo("n0"), other], features=features)
        assert [p.pool for p in built.pools(other)] == seen


def test_fill_counts_the_capacity_shareable_devices_give_out():
    """Copies of a claim allocated one after another pass each result on (the oracle's allocatedSharedDevices):
    an 8Gi shareable device holds two 4Gi shares, not one per node."""
    shareable = {**device("s", "8Gi"), "allowMultipleAllocations": True}
    slices = [slice_doc("n", [shareable])]
    wanted = claim("ns", "c", exact(capacity={"requests": {"memory": "4Gi"}}))
    built = cluster(*slices, claims=[wanted], features=V36)
    assert Scheduler(built, CLASSES, V36, Selectors()).fill(wanted) == 2
