"""Speed by structure gives the exhaustive search's answers (hypothesis, random small inventories):
- on one node, the engine `allocate` picks (the class engine, one device per class of interchangeable devices
  with failed states remembered, unless the claims need device-by-device bookkeeping) finds exactly the first
  solution, error or miss of the device-by-device port of allocateOne;
- on a cluster, pods scheduled with node classes (identical nodes evaluated once) get the same nodes,
  devices and outcomes as with every node evaluated on its own."""

from __future__ import annotations

import hypothesis.strategies as st
from hypothesis import HealthCheck, assume, given, settings

from dra_gpu_platform.dra.allocator import allocate
from dra_gpu_platform.dra.claims import DeviceClassSpec, parse_claim_spec
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.model import AllocationError, FailedOnNode, Features, NodeInfo, PodClaim, Selectors, Usage
from dra_gpu_platform.dra.scheduler import ClaimObject, PodClaimRef, PodSpec, Scheduler

DRIVER = "d.io"
ATTRIBUTE = "d.io/root"
LIMIT = "device.capacity['d.io'].mem.compareTo(quantity('4Gi')) < 0"
CLASSES = {
    "any": DeviceClassSpec("any", ()),
    "a": DeviceClassSpec("a", ("device.attributes['d.io'].type == 'a'",)),
    "b": DeviceClassSpec("b", ("device.attributes['d.io'].type == 'b'",)),
    "big": DeviceClassSpec("big", ("device.capacity['d.io'].mem.compareTo(quantity('2Gi')) >= 0",)),
    "err": DeviceClassSpec("err", ("device.attributes['d.io'].missing == 'x'",)),  # an error where it is absent
}
EXPRESSIONS = {e for c in CLASSES.values() for e in c.selectors} | {LIMIT}


@st.composite
def devices(draw, prefix: str, most: int) -> list[dict]:
    result = []
    for i in range(draw(st.integers(0, most))):
        attributes = {"type": {"string": draw(st.sampled_from("ab"))}, "uuid": {"string": f"{prefix}-{i}"}}
        if draw(st.integers(0, 4)):
            attributes["root"] = {"string": draw(st.sampled_from(["r0", "r1", "r2"]))}
        if draw(st.integers(0, 6)) == 0:
            attributes["missing"] = {"string": "x"}
        device = {
            "name": f"d{i}",
            "attributes": attributes,
            "capacity": {"mem": {"value": draw(st.sampled_from(["1Gi", "2Gi", "4Gi"]))}},
        }
        if draw(st.integers(0, 5)) == 0:
            device["taints"] = [
                {
                    "key": draw(st.sampled_from(["k1", "k2"])),
                    "value": "v",
                    "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"])),
                }
            ]
        result.append(device)
    return result


@st.composite
def claim_spec(draw):
    requests, names = [], []
    for r in range(draw(st.integers(1, 2))):

        def body():
            mode = draw(st.sampled_from(["ExactCount", "ExactCount", "ExactCount", "All"]))
            value = {"deviceClassName": draw(st.sampled_from(sorted(CLASSES))), "allocationMode": mode}
            if mode == "ExactCount":
                value["count"] = draw(st.integers(1, 3))
            if draw(st.integers(0, 3)) == 0:
                value["tolerations"] = [{"key": draw(st.sampled_from(["k1", "k2", ""])), "operator": "Exists"}]
            if draw(st.integers(0, 4)) == 0:
                value["selectors"] = [{"cel": {"expression": LIMIT}}]
            return value

        names.append(f"r{r}")
        if draw(st.booleans()):
            requests.append({"name": f"r{r}", "exactly": body()})
        else:
            requests.append(
                {
                    "name": f"r{r}",
                    "firstAvailable": [{"name": f"s{i}", **body()} for i in range(draw(st.integers(1, 3)))],
                }
            )
    constraints = []
    if draw(st.booleans()):
        kind = "distinctAttribute" if draw(st.integers(0, 3)) == 0 else "matchAttribute"
        constraints.append({"requests": draw(st.sampled_from([[], names[:1], names])), kind: ATTRIBUTE})
    spec, problems = parse_claim_spec({"requests": requests, "constraints": constraints})
    assert not problems, problems
    return spec


def features(draw) -> Features:
    # minor 36 with consumable capacity: v0.36's combinations (startLocation) in the exact engine
    return Features(
        device_taints=draw(st.booleans()),
        consumable_capacity=draw(st.booleans()),
        minor=draw(st.sampled_from([35, 36])),
    )


@st.composite
def one_node(draw):
    pools = [draw(devices(f"p{p}", 5)) for p in range(draw(st.integers(1, 2)))]
    claims = [PodClaim("ns", f"c{c}", draw(claim_spec())) for c in range(draw(st.integers(1, 2)))]
    in_use = draw(st.sets(st.tuples(st.integers(0, 1), st.integers(0, 4)), max_size=4))
    return pools, claims, in_use, features(draw)


def slices(pools_by_node: dict[str, list[list[dict]]]) -> list[dict]:
    docs = []
    for node, pools in pools_by_node.items():
        for p, devices_ in enumerate(pools):
            docs.append(
                {
                    "metadata": {"name": f"{node}-s{p}"},
                    "spec": {
                        "driver": DRIVER,
                        "nodeName": node,
                        "pool": {"name": f"{node}-p{p}", "generation": 1, "resourceSliceCount": 1},
                        "devices": devices_,
                    },
                }
            )
    return docs


def outcome(call):
    try:
        return "ok", call()
    except AllocationError as error:
        return "error", str(error)
    except FailedOnNode as error:
        return "failed", str(error)


@settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
@given(one_node())
def test_the_class_engine_finds_what_the_exhaustive_search_finds(case):
    pools, claims, in_use, flags = case
    usage = Usage({(DRIVER, f"n-p{p}", f"d{i}") for p, i in in_use})
    cluster = build_cluster(
        slices({"n": pools}), usage=usage, expressions=EXPRESSIONS, constraint_attributes=[ATTRIBUTE]
    )
    node = NodeInfo("n")

    def run(engine):
        return outcome(
            lambda: allocate(node, cluster.pools(node), claims, CLASSES, usage, flags, Selectors(), engine=engine)
        )

    exact = run("exact")
    assume(not (exact[0] == "failed" and "timed out" in exact[1]))  # the exhaustive search ran out of steps
    assert run("auto") == exact  # the class engine wherever auto picks it


@st.composite
def a_cluster(draw):
    kinds = [
        draw(devices(f"k{k}", 4)) for k in range(draw(st.integers(1, 2)))
    ]  # node kinds: most clusters repeat a few
    nodes = {f"n{i}": [draw(st.sampled_from(kinds))] for i in range(draw(st.integers(1, 5)))}
    in_use = draw(st.sets(st.tuples(st.sampled_from(sorted(nodes)), st.integers(0, 3)), max_size=3))
    templates = [draw(claim_spec()) for _ in range(draw(st.integers(1, 2)))]
    pods = [
        tuple(draw(st.lists(st.integers(0, len(templates) - 1), min_size=1, max_size=2)))
        for _ in range(draw(st.integers(1, 6)))
    ]
    return nodes, in_use, templates, pods, features(draw)


def schedule_all(case, group_nodes: bool):
    nodes, in_use, templates, pods, flags = case
    usage = Usage({(DRIVER, f"{node}-p0", f"d{i}") for node, i in in_use})
    cluster = build_cluster(slices(nodes), usage=usage, expressions=EXPRESSIONS, constraint_attributes=[ATTRIBUTE])
    scheduler = Scheduler(
        cluster,
        CLASSES,
        flags,
        Selectors(),
        group_nodes=group_nodes,
        templates={("ns", f"t{i}"): ClaimObject("ns", f"t{i}", spec) for i, spec in enumerate(templates)},
    )
    fills = [scheduler.place(PodClaim("ns", f"t{i}", spec)) for i, spec in enumerate(templates)]
    results = [(f.kind, f.max_concurrent, [(n.name, a) for n, a in f.fits], f.errors) for f in fills]
    for p, refs in enumerate(pods):
        placed = scheduler.schedule(
            PodSpec("ns", f"p{p}", tuple(PodClaimRef(f"c{j}", template=f"t{t}") for j, t in enumerate(refs)))
        )
        results.append(
            (placed.kind, placed.node, [(c.claim, c.devices, c.subrequests) for c in placed.claims], placed.errors)
        )
    return results


@settings(max_examples=80, deadline=None, suppress_health_check=list(HealthCheck))
@given(a_cluster())
def test_node_classes_give_what_every_node_on_its_own_gives(case):
    assert schedule_all(case, group_nodes=True) == schedule_all(case, group_nodes=False)
