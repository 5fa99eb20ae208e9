"""Pods through the DynamicResources plugin model (kubernetes pkg/scheduler/framework/plugins/dynamicresources/
dynamicresources.go, 1.35: PreFilter, Filter, Score, Reserve), one pod after the other."""

from __future__ import annotations

from dra_gpu_platform.dra.model import ClaimAllocation, DeviceResult, Usage
from dra_gpu_platform.dra.scheduler import ALLOCATED, ERROR, REJECTED, UNSCHEDULABLE, ClaimObject
from tests.dra.builders import EX, claim, device, exact, first_available, gpus, pod, scheduler, slice_doc


def test_all_claims_of_a_pod_go_to_one_node_together():
    """Filter calls Allocate with every unallocated claim of the pod: two one-GPU claims need a node with two
    GPUs, although each alone fits on the first node."""
    one = claim("ns", "one", exact())
    s = scheduler(slice_doc("small", gpus(1)), slice_doc("large", gpus(2)), templates=[one])
    outcome = s.schedule(pod("p", "one", "one"))
    assert outcome.kind == ALLOCATED and outcome.node == "large"
    assert [c.devices for c in outcome.claims] == [[f"{EX}/large/gpu-0"], [f"{EX}/large/gpu-1"]]
    assert [c.claim for c in outcome.claims] == ["ns/p-t0", "ns/p-t1"]  # spec.resourceClaims order


def test_pods_placed_earlier_hold_their_devices():
    """Reserve: the chosen allocation is in flight, so its devices are in use for the next pod."""
    s = scheduler(slice_doc("n", gpus(2)), templates=[claim("ns", "one", exact())])
    kinds = [s.schedule(pod(f"p{i}", "one")).kind for i in range(3)]
    assert kinds == [ALLOCATED, ALLOCATED, UNSCHEDULABLE]


def test_a_missing_device_class_leaves_the_pod_waiting_not_in_error():
    """PreFilter validateDeviceClass: NotFound is statusUnschedulable `device class %s does not exist`."""
    s = scheduler(slice_doc("n", gpus(1)), templates=[claim("ns", "t", exact(device_class="nope"))])
    outcome = s.schedule(pod("p", "t"))
    assert outcome.kind == UNSCHEDULABLE and "device class nope does not exist" in outcome.reasons[0]
    assert outcome.claims[0].kind == UNSCHEDULABLE and "does not exist" in outcome.claims[0].reason


def test_a_missing_claim_or_template_leaves_the_pod_waiting():
    """foreachPodResourceClaim: the claim must exist (a template's claim is created by the controller)."""
    s = scheduler(slice_doc("n", gpus(1)))
    assert s.schedule(pod("p", "absent")).kind == UNSCHEDULABLE
    missing = s.schedule(pod("q", claims=("absent",)))
    assert missing.kind == UNSCHEDULABLE and 'resourceclaim "absent" not found' in missing.reasons[0]


def test_an_allocated_claim_pins_the_pod_to_its_node_and_a_shared_claim_is_reused():
    """PreFilter: an allocated claim's nodeSelector becomes availableOnNodes; Filter: other nodes are
    `resourceclaim not available on the node`. A second pod sharing a claim takes no new device."""
    shared = ClaimObject("ns", "shared", claim("ns", "shared", exact()).spec)
    s = scheduler(slice_doc("a", gpus(1)), slice_doc("b", gpus(1)), objects=[shared])
    first = s.schedule(pod("p1", claims=("shared",)))
    assert first.kind == ALLOCATED and first.node == "a"
    second = s.schedule(pod("p2", claims=("shared",)))
    assert second.kind == ALLOCATED and second.node == "a" and second.claims[0].devices == [f"{EX}/a/gpu-0"]
    assert s.cluster.usage.allocated == {(EX, "a", "gpu-0")}
    pinned = ClaimObject(
        "ns",
        "elsewhere",
        claim("ns", "elsewhere", exact()).spec,
        allocation=ClaimAllocation(
            (DeviceResult("gpu", (EX, "x", "gpu-0")),),
            {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["x"]}]}]},
            {},
        ),
    )
    s.claims[("ns", "elsewhere")] = pinned
    stuck = s.schedule(pod("p3", claims=("elsewhere",)))
    assert stuck.kind == UNSCHEDULABLE and "resourceclaim not available on the node" in " ".join(stuck.reasons)


def test_an_allocator_error_on_any_node_is_an_error_for_the_pod():
    """Filter: an error other than ErrFailedAllocationOnNode is statusError, which aborts the attempt even when
    another node would fit (the first node's devices lack the attribute the selector reads)."""
    from dra_gpu_platform.dra.claims import DeviceClassSpec

    classes = {"flag": DeviceClassSpec("flag", ("device.attributes['gpu.example.com'].flag == true",))}
    s = scheduler(
        slice_doc("a", [device("gpu-0")]),
        slice_doc("b", [device("gpu-0", flag=True)]),
        templates=[claim("ns", "t", exact(device_class="flag"))],
        classes=classes,
    )
    outcome = s.schedule(pod("p", "t"))
    assert outcome.kind == ERROR and "node a" in outcome.errors[0] and "CEL runtime error" in outcome.errors[0]


def test_the_prioritized_list_score_prefers_the_node_of_the_first_subrequest():
    """Score/computeScore: Σ 8 - index of the chosen subrequest; the best score wins over node order."""
    s = scheduler(
        slice_doc("a", gpus(1, "20Gi")),
        slice_doc("b", gpus(1, "80Gi")),
        templates=[claim("ns", "t", first_available("g", ("big", "big", 1), ("any", "any", 1)))],
    )
    outcome = s.schedule(pod("p", "t"))
    assert outcome.node == "b" and outcome.claims[0].subrequests == {"g": "big"} and outcome.feasible_nodes == 2


def test_only_invalid_pools_say_so():
    """Allocate: no solution and an invalid pool is ErrFailedAllocationOnNode `invalid resource pools were
    encountered` (unschedulable on that node, with that message)."""
    s = scheduler(
        slice_doc("n", gpus(1), pool="p", count=2, name="one"),
        slice_doc("n", gpus(1), pool="p", count=2, name="two"),
        templates=[claim("ns", "t", exact())],
    )
    outcome = s.schedule(pod("p", "t"))
    assert outcome.kind == UNSCHEDULABLE and "invalid resource pools were encountered" in outcome.reasons[0]


def test_a_rejected_template_makes_its_pods_rejected():
    s = scheduler(slice_doc("n", gpus(1)), templates=[claim("ns", "t", exact())])
    s.templates[("ns", "t")].rejected = ["spec.devices.constraints[0].matchAttribute: Required value"]
    outcome = s.schedule(pod("p", "t"))
    assert outcome.kind == REJECTED and "rejected by the API server" in outcome.reasons[0]


def test_pinned_pods_only_consider_their_nodes():
    s = scheduler(slice_doc("a", gpus(1)), slice_doc("b", gpus(1)), templates=[claim("ns", "t", exact())])
    assert s.schedule(pod("p", "t", nodes=("b",))).node == "b"
    assert s.schedule(pod("q", "t", nodes=("gone",))).kind == UNSCHEDULABLE


# --- one claim alone: where it fits and how many at once -----------------------------------------------------


def test_fill_counts_copies_node_by_node_as_first_fit_would():
    s = scheduler(slice_doc("a", gpus(8)), slice_doc("b", gpus(8)), slice_doc("c", gpus(3)))
    assert s.place(claim("ns", "x", exact(count=3))).max_concurrent == 2 + 2 + 1
    assert s.place(claim("ns", "x", exact(count=1))).max_concurrent == 19
    assert s.place(claim("ns", "x", exact(count=1)), single=True).max_concurrent == 1
    assert s.cluster.usage.allocated == set()  # fill leaves the usage as it found it


def test_place_reports_the_first_node_of_each_pool_and_why_not():
    s = scheduler(slice_doc("a", gpus(4)), slice_doc("b", gpus(4)))
    fits = s.place(claim("ns", "x", exact(count=4)))
    assert fits.satisfiable and [n.name for n, _ in fits.fits] == ["a", "b"]
    miss = s.place(claim("ns", "x", exact(count=5)))
    assert not miss.satisfiable and miss.errors == []
    assert miss.reasons == [
        "pools a, b (2 nodes): request gpu: needs 5 devices of DeviceClass any on one node, "
        "a node of this pool has 4 that match"
    ]


def test_the_why_names_the_selector_that_fails_and_what_the_devices_publish():
    s = scheduler(slice_doc("a", gpus(2, "20Gi")))
    [reason] = s.place(claim("ns", "x", exact(device_class="big"))).reasons
    assert "DeviceClass big selector #0" in reason and "is false for 2 of 2 devices per node" in reason
    assert f"{EX}/memory=20Gi" in reason


def test_in_use_devices_of_a_dump_lower_what_fits():
    s = scheduler(slice_doc("a", gpus(2)), usage=Usage({(EX, "a", "gpu-0")}))
    assert s.place(claim("ns", "x", exact())).max_concurrent == 1
    assert not s.place(claim("ns", "x", exact(count=2))).satisfiable


def test_node_classes_keep_results_per_node():
    """Nodes of one class are evaluated once; the pod lands on a concrete node with that node's devices."""
    s = scheduler(*(slice_doc(f"n{i}", gpus(1)) for i in range(3)), templates=[claim("ns", "t", exact())])
    placed = [s.schedule(pod(f"p{i}", "t")) for i in range(3)]
    assert [(p.node, p.claims[0].devices) for p in placed] == [(f"n{i}", [f"{EX}/n{i}/gpu-0"]) for i in range(3)]
    assert s.schedule(pod("p3", "t")).kind == UNSCHEDULABLE
