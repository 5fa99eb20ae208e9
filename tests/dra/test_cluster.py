"""Pools per node as the scheduler gathers them (kubernetes/dynamic-resource-allocation v0.35.6
structured/internal/incubating/pools_incubating.go), cluster dumps, devices in use, node classes."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra.cluster import allocated_devices, build_cluster
from dra_gpu_platform.dra.dump import read_cluster_dump
from dra_gpu_platform.dra.model import NodeInfo
from dra_gpu_platform.dra.tolerations import apply_taint_rules
from dra_gpu_platform.inputs.problems import InputError
from tests.dra.builders import EX, cluster, device, gpus, slice_doc


def pools(built, node="n"):
    return [
        (p.pool, p.incomplete, p.invalid, [d.name for s in p.slices for d in s.devices])
        for p in built.pools(NodeInfo(node))
    ]


def test_a_slice_reaches_a_node_by_name_all_nodes_or_node_selector():
    """GatherPools/NodeMatches: nodeName equal, allNodes, or nodeSelector (labels, metadata.name fields)."""
    a, b = NodeInfo("a", {"zone": "z1"}), NodeInfo("b", {"zone": "z2"})
    selector = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["z1"]}]}]}
    by_field = {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["b"]}]}]}
    built = cluster(
        slice_doc("a", gpus(1), pool="local"),
        slice_doc(None, gpus(1), pool="everywhere", allNodes=True),
        slice_doc(None, gpus(1), pool="zone1", nodeSelector=selector),
        slice_doc(None, gpus(1), pool="only-b", nodeSelector=by_field),
        nodes=[a, b],
    )
    assert [p.pool for p in built.pools(a)] == ["local", "everywhere", "zone1"]
    assert [p.pool for p in built.pools(b)] == ["everywhere", "only-b"]


def test_per_device_node_selection_needs_the_partitionable_gate():
    """GatherPools skips slices with perDeviceNodeSelection set when PartitionableDevices is off; with it, a
    slice joins when one of its devices matches, and isSelectable checks each device's own selection."""
    per_device = [dict(device("gpu-0"), nodeName="a"), dict(device("gpu-1"), nodeName="b")]
    doc = slice_doc(None, per_device, pool="p", perDeviceNodeSelection=True)
    nodes = [NodeInfo("a"), NodeInfo("b")]
    assert cluster(doc, nodes=nodes).pools(nodes[0]) == ()
    from dra_gpu_platform.dra.model import Features

    on = cluster(doc, nodes=nodes, features=Features(partitionable_devices=True))
    [pool] = on.pools(nodes[0])
    assert [d.name for s in pool.slices for d in s.devices] == [
        "gpu-0",
        "gpu-1",
    ]  # both listed; gpu-1 fails its own selection


def test_an_incomplete_pool_is_marked_and_its_devices_are_not_used():
    """GatherPools: fewer slices than resourceSliceCount (also counting slices of other nodes) is incomplete;
    more slices than the count as well."""
    built = cluster(slice_doc("n", gpus(2), pool="p", count=2, name="p-0"))
    assert pools(built) == [("p", True, None, [])]
    spread = cluster(
        slice_doc("n", gpus(2), pool="p", count=2, name="p-0"),
        slice_doc("other", gpus(2, start=2), pool="p", count=2, name="p-1"),
        nodes=[NodeInfo("n"), NodeInfo("other")],
    )
    assert pools(spread) == [("p", False, None, ["gpu-0", "gpu-1"])]
    doubled = cluster(
        slice_doc("n", gpus(2), pool="p", name="p-0"), slice_doc("n", gpus(2, start=2), pool="p", name="p-1")
    )
    assert pools(doubled) == [("p", True, None, [])]


def test_only_the_newest_generation_counts_and_an_obsolete_pool_is_dropped():
    """addSlice keeps the highest generation; checkSlicesInPool drops the pool when a newer generation
    exists on another node."""
    built = cluster(
        slice_doc("n", gpus(2), pool="p", generation=1, name="old"),
        slice_doc("n", gpus(1, start=5), pool="p", generation=2, name="new"),
    )
    assert pools(built) == [("p", False, None, ["gpu-5"])]
    moving = cluster(
        slice_doc("n", gpus(1), pool="p", generation=1, count=2, name="old"),
        slice_doc("m", gpus(1, start=1), pool="p", generation=2, count=2, name="new"),
        nodes=[NodeInfo("n"), NodeInfo("m")],
    )
    assert pools(moving) == []


def test_duplicate_device_names_make_the_pool_invalid():
    """buildPool/validateDeviceNames: a duplicated device (e.g. the same slice twice under two names) never
    counts twice; the pool is invalid."""
    built = cluster(
        slice_doc("n", gpus(2), pool="p", count=2, name="p-0"),
        slice_doc("n", gpus(2), pool="p", count=2, name="p-copy"),
    )
    assert pools(built) == [("p", False, "duplicate device name gpu-0", [])]


def test_devices_of_allocated_claims_are_in_use_except_admin_access_ones():
    """allocateddevices.go foreachAllocatedDevice skips results with adminAccess: true."""
    claims = [
        {
            "status": {
                "allocation": {
                    "devices": {
                        "results": [
                            {"request": "r", "driver": EX, "pool": "n", "device": "gpu-0"},
                            {"request": "r", "driver": EX, "pool": "n", "device": "gpu-1", "adminAccess": True},
                        ]
                    }
                }
            }
        },
        {"status": {}},
    ]
    assert allocated_devices(claims).allocated == {(EX, "n", "gpu-0")}


def test_nodes_with_the_same_devices_form_one_class_until_a_device_is_taken():
    built = cluster(*(slice_doc(f"n{i}", gpus(2)) for i in range(4)))
    assert [len(group) for group in built.node_classes()] == [4]
    built.usage.allocated.add((EX, "n2", "gpu-0"))
    built.changed([(EX, "n2", "gpu-0")])
    assert [[n.name for n in group] for group in built.node_classes()] == [["n0", "n1", "n3"], ["n2"]]


def test_uuids_do_not_split_node_classes_unless_a_selector_reads_them():
    docs = [slice_doc(f"n{i}", [dict(device("gpu-0"), attributes={"uuid": {"string": f"u{i}"}})]) for i in range(3)]
    assert len(build_cluster(docs).node_classes()) == 1
    reads_uuid = build_cluster(docs, expressions=["device.attributes['gpu.example.com'].uuid == 'u1'"])
    assert len(reads_uuid.node_classes()) == 3


# --- cluster dumps --------------------------------------------------------------------------------------------


def test_a_cluster_dump_reads_slices_claims_nodes_and_classes_and_ignores_other_kinds():
    items = [
        slice_doc("n", gpus(1)),
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n", "labels": {"a": "b"}}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": "c", "namespace": "ns"}},
        {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": "k"}},
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}},
    ]
    dump = read_cluster_dump([{"apiVersion": "v1", "kind": "List", "items": items}], "dump.json")
    assert (len(dump.slices), len(dump.nodes), len(dump.claims), len(dump.classes)) == (1, 1, 1, 1)
    assert dump.notes == [
        "1 object(s) of kind Pod ignored (fit reads ResourceSlice, ResourceClaim, Node, DeviceClass, DeviceTaintRule)"
    ]


def test_a_slice_listed_twice_counts_once_and_two_different_ones_with_one_name_are_invalid_input():
    """The API server stores one object per name."""
    one = slice_doc("n", gpus(2), name="s")
    dump = read_cluster_dump([one, one], "dump.yaml")
    assert len(dump.slices) == 1 and "listed twice" in dump.notes[0]
    with pytest.raises(InputError) as error:
        read_cluster_dump([one, slice_doc("n", gpus(3), name="s")], "dump.yaml")
    assert "a second, different ResourceSlice named s" in str(error.value)


def test_a_dump_without_slices_or_with_broken_slices_is_invalid_input():
    with pytest.raises(InputError, match="holds no ResourceSlice"):
        read_cluster_dump([{"apiVersion": "v1", "kind": "List", "items": []}], "empty.json")
    broken = slice_doc("n", gpus(1))
    broken["spec"]["pool"]["resourceSliceCount"] = 0
    with pytest.raises(InputError, match="resourceSliceCount"):
        read_cluster_dump([broken], "broken.json")


def test_device_taint_rules_add_their_taint_to_matching_devices():
    """resourceslice/tracker applyPatches: driver, pool and device select; unset fields match all."""
    rule = {"spec": {"deviceSelector": {"pool": "n", "device": "gpu-1"}, "taint": {"key": "k", "effect": "NoSchedule"}}}
    [patched] = apply_taint_rules([slice_doc("n", gpus(2))], [rule])
    assert [d.get("taints") for d in patched["spec"]["devices"]] == [None, [{"key": "k", "effect": "NoSchedule"}]]
