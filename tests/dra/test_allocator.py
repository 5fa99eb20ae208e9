"""Allocation with the scheduler's semantics (docs/references.md#allocator-semantics): one node per claim, class then request
selectors, count/All, firstAvailable order, matchAttribute, no reuse except adminAccess, taints, errors."""

from __future__ import annotations

import pytest

from components.dra.allocator import Simulator
from components.dra.claims import ClaimSpec, Constraint, DeviceClassSpec, Request, SubRequest, Toleration, parse_claim_spec
from components.dra.quota import claim_charge, quota_limit
from components.dra.cel import Device
from components.dra.slices import DeviceTaint, NodeInventory, SliceDevice, catalog_inventory

EX = "gpu.example.com"
NV = "gpu.nvidia.com"
ANY_EXAMPLE = DeviceClassSpec(EX, (f"device.driver == '{EX}'",))
NV_GPU = DeviceClassSpec(NV, (f"device.driver == '{NV}' && device.attributes['{NV}'].type == 'gpu'",))


def example_node(name: str, count: int = 8, pool: str = "pool", taint: dict[int, DeviceTaint] | None = None,
                 memory: str = "80Gi", extra: dict[int, dict] | None = None) -> NodeInventory:
    devices = []
    for i in range(count):
        raw = {"name": f"gpu-{i}", "attributes": {"index": {"int": i}, "model": {"string": "LATEST-GPU-MODEL"},
                                                   "uuid": {"string": f"{name}-uuid-{i}"}, **(extra or {}).get(i, {})},
               "capacity": {"memory": {"value": memory}}}
        taints = (taint[i],) if taint and i in taint else ()
        devices.append(SliceDevice(EX, name, raw["name"], name, pool, Device.from_slice_device(EX, raw), taints))
    return NodeInventory(name, pool, tuple(devices))


def exact(name: str = "gpu", device_class: str = EX, count: int = 1, selectors: tuple[str, ...] = (), **more) -> Request:
    return Request(name, (SubRequest(name, None, device_class, selectors, count=count, **more),))


def claim(*requests: Request, constraints: tuple[Constraint, ...] = ()) -> ClaimSpec:
    return ClaimSpec(tuple(requests), constraints)


def simulator(*nodes: NodeInventory, classes=(ANY_EXAMPLE,)) -> Simulator:
    return Simulator(list(nodes), {c.name: c for c in classes})


# --- one node per claim, counts ---------------------------------------------------------------------------


def test_devices_of_a_claim_come_from_one_node():
    sim = simulator(example_node("a", 4), example_node("b", 4))
    result = sim.evaluate_claim(claim(exact(count=5)))
    assert not result.satisfiable and result.errors == []
    assert result.reasons == ["pool pool: request gpu: needs 5 devices of DeviceClass gpu.example.com on one node, "
                              "a node of this pool has 4 that match"]
    fits = sim.evaluate_claim(claim(exact(count=4)))
    assert fits.satisfiable and fits.max_concurrent == 2
    assert fits.allocations == [{"pool": "pool", "node": "a", "request": "gpu", "subrequest": None,
                                 "devices": [f"{EX}/a/gpu-{i}" for i in range(4)]}]


def test_greedy_fill_counts_claims_on_the_whole_inventory():
    sim = simulator(example_node("a", 8), example_node("b", 8), example_node("c", 3))
    assert sim.evaluate_claim(claim(exact(count=3))).max_concurrent == 2 + 2 + 1
    assert sim.evaluate_claim(claim(exact(count=1))).max_concurrent == 19
    assert sim.evaluate_claim(claim(exact(count=1)), single=True).max_concurrent == 1  # a ResourceClaim object


def test_two_requests_never_share_a_device():
    sim = simulator(example_node("a", 3))
    result = sim.evaluate_claim(claim(exact("x", count=2), exact("y", count=2)))
    assert not result.satisfiable
    assert "need 4 distinct devices" in result.reasons[0]
    ok = sim.evaluate_claim(claim(exact("x", count=2), exact("y")))
    assert [a["devices"] for a in ok.allocations] == [[f"{EX}/a/gpu-0", f"{EX}/a/gpu-1"], [f"{EX}/a/gpu-2"]]


def test_allocation_mode_all_takes_every_matching_device_of_a_node():
    sim = simulator(example_node("a", 5), example_node("b", 2))
    result = sim.evaluate_claim(claim(exact(mode="All")))
    assert result.satisfiable and len(result.allocations[0]["devices"]) == 5
    assert result.max_concurrent == 2  # one per node: the second needs every device, all taken on a
    none = sim.evaluate_claim(claim(exact(mode="All", selectors=("device.attributes['gpu.example.com'].index > 99",))))
    assert not none.satisfiable and "no device matches" in none.reasons[0]
    too_many = simulator(example_node("big", 40)).evaluate_claim(claim(exact(mode="All")))
    assert not too_many.satisfiable and "more than 32 per claim" in too_many.reasons[0]


# --- selectors ------------------------------------------------------------------------------------------


def test_class_selectors_run_first_and_a_false_one_stops_the_chain():
    # On example devices the NVIDIA class is false before the request selector (which would fail there) runs.
    sim = simulator(example_node("a", 2), classes=(ANY_EXAMPLE, NV_GPU))
    result = sim.evaluate_claim(claim(exact(device_class=NV, selectors=(f"device.attributes['{NV}'].productName == 'x'",))))
    assert not result.satisfiable and result.errors == []
    assert "DeviceClass gpu.nvidia.com selector #0" in result.reasons[0] and "driver gpu.example.com" in result.reasons[0]


def test_an_evaluation_error_is_an_error_not_unsatisfiable():
    nvidia = catalog_inventory("H100", 2, "h").nodes()
    sim = Simulator(nvidia, {NV: NV_GPU})
    result = sim.evaluate_claim(claim(exact(device_class=NV, selectors=(
        f"device.attributes['{NV}'].memory.compareTo(quantity('40Gi')) >= 0",))))
    assert not result.satisfiable and result.reasons == [] and result.max_concurrent == 0
    assert len(result.errors) == 1 and "CEL evaluation error" in result.errors[0] and "memory" in result.errors[0]
    fixed = sim.evaluate_claim(claim(exact(device_class=NV, selectors=(
        f"device.capacity['{NV}'].memory.compareTo(quantity('40Gi')) >= 0",))))
    assert fixed.satisfiable and fixed.max_concurrent == 2


def test_selector_results_are_cached_on_what_the_expression_reads():
    sim = simulator(example_node("a", 8), example_node("b", 8))
    memory = "device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0"
    sim.evaluate_claim(claim(exact(selectors=(memory,))))
    # 16 devices, uuids all different, two selectors: each selector ran once
    assert sim.stats.evaluations == 2 and sim.stats.lookups >= 32
    by_uuid = simulator(example_node("a", 8))
    by_uuid.evaluate_claim(claim(exact(selectors=("device.attributes['gpu.example.com'].uuid != ''",))))
    assert by_uuid.stats.evaluations == 1 + 8  # the class selector once, the uuid selector per device


def test_unknown_device_class_is_an_error():
    result = simulator(example_node("a")).evaluate_claim(claim(exact(device_class="nope")))
    assert not result.satisfiable and "DeviceClass 'nope' does not exist" in result.errors[0]


# --- firstAvailable ---------------------------------------------------------------------------------------


def prioritized(*subs: SubRequest) -> Request:
    return Request("gpu", subs, first_available=True)


def test_first_available_reports_the_subrequest_that_won():
    sim = simulator(example_node("a", 4, memory="40Gi"))
    big = SubRequest("gpu", "big", EX, ("device.capacity['gpu.example.com'].memory.compareTo(quantity('80Gi')) >= 0",))
    two = SubRequest("gpu", "two-small", EX, count=2)
    result = sim.evaluate_claim(claim(prioritized(big, two)))
    assert result.satisfiable and result.allocations[0]["subrequest"] == "two-small"
    assert result.max_concurrent == 2
    preferred = simulator(example_node("a", 4)).evaluate_claim(claim(prioritized(big, two)))
    assert preferred.allocations[0]["subrequest"] == "big" and preferred.max_concurrent == 4


def test_no_alternative_fits_lists_each_subrequest():
    sim = simulator(example_node("a", 1))
    result = sim.evaluate_claim(claim(prioritized(SubRequest("gpu", "pair", EX, count=2), SubRequest("gpu", "four", EX, count=4))))
    assert result.reasons == ["pool pool: request gpu: no alternative fits: pair: needs 2 devices of DeviceClass "
                              "gpu.example.com on one node, a node of this pool has 1 that match; four: needs 4 devices "
                              "of DeviceClass gpu.example.com on one node, a node of this pool has 1 that match"]


# --- constraints ------------------------------------------------------------------------------------------


def test_match_attribute_pairs_gpus_under_one_pcie_root():
    nodes = catalog_inventory("H100", 8, "p5", per_root=2).nodes()
    sim = Simulator(nodes, {NV: NV_GPU})
    root = Constraint(("gpu",), "resource.kubernetes.io/pcieRoot")
    pair = sim.evaluate_claim(claim(exact(device_class=NV, count=2), constraints=(root,)))
    assert pair.satisfiable and pair.max_concurrent == 4
    assert pair.allocations[0]["devices"] == [f"{NV}/p5/gpu-0", f"{NV}/p5/gpu-1"]
    triple = sim.evaluate_claim(claim(exact(device_class=NV, count=3), constraints=(root,)))
    assert not triple.satisfiable
    assert "at most 2 matching devices share one value" in triple.reasons[0] and "3 needed" in triple.reasons[0]


def test_a_device_without_the_attribute_fails_the_constraint():
    sim = simulator(example_node("a", 4, extra={2: {"rack": {"string": "r1"}}, 3: {"rack": {"string": "r1"}}}))
    rack = Constraint((), "gpu.example.com/rack")
    result = sim.evaluate_claim(claim(exact(count=2), constraints=(rack,)))
    assert result.allocations[0]["devices"] == [f"{EX}/a/gpu-2", f"{EX}/a/gpu-3"]  # gpu-0/1 lack rack
    missing = sim.evaluate_claim(claim(exact(count=2), constraints=(Constraint((), "gpu.example.com/zone"),)))
    assert not missing.satisfiable and "do not publish gpu.example.com/zone" in missing.reasons[0]


def test_constraint_can_name_one_alternative_and_other_requests_are_free():
    sim = simulator(example_node("a", 4, extra={1: {"rack": {"string": "r1"}}, 3: {"rack": {"string": "r1"}}}))
    subs = prioritized(SubRequest("gpu", "one", EX))
    rack = Constraint(("gpu/one", "other"), "gpu.example.com/rack")
    result = sim.evaluate_claim(claim(subs, exact("other"), exact("free"), constraints=(rack,)))
    devices = {a["request"]: a["devices"] for a in result.allocations}
    assert devices == {"gpu": [f"{EX}/a/gpu-1"], "other": [f"{EX}/a/gpu-3"], "free": [f"{EX}/a/gpu-0"]}


def test_distinct_attribute_wants_different_values():
    sim = simulator(example_node("a", 3, extra={0: {"rack": {"string": "r1"}}, 1: {"rack": {"string": "r1"}}, 2: {"rack": {"string": "r2"}}}))
    spread = Constraint((), "gpu.example.com/rack", distinct=True)
    result = sim.evaluate_claim(claim(exact(count=2), constraints=(spread,)))
    assert result.allocations[0]["devices"] == [f"{EX}/a/gpu-0", f"{EX}/a/gpu-2"]
    assert not sim.evaluate_claim(claim(exact(count=3), constraints=(spread,))).satisfiable


# --- reuse, admin access, taints ----------------------------------------------------------------------------


def test_admin_access_uses_devices_in_use_and_takes_none():
    node = example_node("a", 2)
    sim = simulator(node)
    spec = claim(exact(mode="All", admin_access=True))
    busy = {d.id for d in node.devices}
    assert sim.allocate(claim(exact()), node, busy) is None
    picks = sim.allocate(spec, node, busy)
    assert [p.device.name for p in picks] == ["gpu-0", "gpu-1"]
    assert sim.evaluate_claim(spec).max_concurrent == 1  # takes nothing: counted once per node


def test_tainted_devices_need_a_toleration():
    taint = DeviceTaint("example.com/degraded", "", "NoSchedule")
    sim = simulator(example_node("a", 2, taint={1: taint}))
    assert sim.evaluate_claim(claim(exact())).max_concurrent == 1
    blocked = sim.evaluate_claim(claim(exact(count=2)))
    assert not blocked.satisfiable and "1 more are tainted" in blocked.reasons[0]
    tolerated = claim(exact(count=2, tolerations=(Toleration("example.com/degraded", "Exists"),)))
    assert sim.evaluate_claim(tolerated).satisfiable
    effect_none = simulator(example_node("a", 2, taint={1: DeviceTaint("k", "v", "None")}))
    assert effect_none.evaluate_claim(claim(exact(count=2))).satisfiable


# --- parsing and quota ------------------------------------------------------------------------------------


@pytest.mark.parametrize("devices, path, rule", [
    ({"requests": [{"name": "g", "exactly": {"deviceClassName": "c"}, "firstAvailable": [{"name": "a", "deviceClassName": "c"}]}]},
     "spec.devices.requests[0]", "exactly one of exactly or firstAvailable"),
    ({"requests": [{"name": "g", "exactly": {}}]}, "spec.devices.requests[0].exactly.deviceClassName", "required"),
    ({"requests": [{"name": "g", "exactly": {"deviceClassName": "c", "allocationMode": "All", "count": 2}}]},
     "spec.devices.requests[0].exactly.count", "only allowed with allocationMode ExactCount"),
    ({"requests": [{"name": "g", "firstAvailable": [{"name": "a", "deviceClassName": "c", "adminAccess": True}]}]},
     "spec.devices.requests[0].firstAvailable[0].adminAccess", "no adminAccess"),
    ({"requests": [{"name": "g", "exactly": {"deviceClassName": "c"}}], "constraints": [{"requests": ["h"], "matchAttribute": "a.b/c"}]},
     "spec.devices.constraints[0].requests", "is not a request"),
    ({"requests": [{"name": "g", "exactly": {"deviceClassName": "c"}}], "constraints": [{"matchAttribute": "gpu.nvidia.com/nvlink-domain"}]},
     "spec.devices.constraints[0].matchAttribute", "C identifier"),
])
def test_claims_the_api_server_rejects_are_problems(devices, path, rule):
    spec, problems = parse_claim_spec(devices)
    assert spec is None
    assert any(p[0] == path and rule in p[2] for p in problems), problems


def test_quota_charge_and_limit_follow_the_evaluator():
    spec = claim(exact("a", "big", count=2), Request("b", (SubRequest("b", "x", "big", count=3), SubRequest("b", "y", "small", count=1)), True),
                 exact("c", "all", mode="All"))
    assert claim_charge(spec) == {"big": 5, "small": 1, "all": 32}
    hard = {"count/resourceclaims.resource.k8s.io": "10", "big.deviceclass.resource.k8s.io/devices": "12",
            "all.deviceclass.resource.k8s.io/devices": "64", "requests.nvidia.com/gpu": "4"}
    assert quota_limit(spec, [hard]) == 2
    assert quota_limit(spec, [hard, {"count/resourceclaims.resource.k8s.io": "1"}]) == 1
    assert quota_limit(spec, []) is None


def test_device_key_projects_onto_what_the_selector_reads():
    from components.dra.cel import compile_selector

    node = example_node("a", 2)
    first, second = (d.device for d in node.devices)  # differ only in index and uuid
    model = compile_selector("device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'")
    assert model.reads() == (("attributes", "gpu.example.com", "model"),)
    assert model.device_key(first) == model.device_key(second)
    index = compile_selector("device.attributes['gpu.example.com'].index == 0")
    assert index.device_key(first) != index.device_key(second)
    whole = compile_selector("'model' in device.attributes['gpu.example.com']")
    assert whole.reads() is None and whole.device_key(first) != whole.device_key(second)  # falls back to Device.key()
    other_driver = Device.from_slice_device("other.example.com", {"name": "gpu-0", "attributes": {"model": {"string": "LATEST-GPU-MODEL"}}})
    assert model.device_key(other_driver) != model.device_key(first)  # the driver is always part of the key


def test_without_the_cache_results_are_the_same_and_cost_more():
    nodes = (example_node("a", 4), example_node("b", 4))
    spec = claim(exact(count=2, selectors=("device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",)))
    cached, uncached = simulator(*nodes), Simulator(list(nodes), {EX: ANY_EXAMPLE}, cache=False)
    first, second = cached.evaluate_claim(spec), uncached.evaluate_claim(spec)
    assert (first.satisfiable, first.allocations, first.max_concurrent) == (second.satisfiable, second.allocations, second.max_concurrent)
    assert cached.stats.evaluations == 2 and uncached.stats.evaluations > 16
