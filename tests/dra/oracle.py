"""The real Kubernetes allocator as a differential oracle (../shared/tools/dra-oracle, see its README), random
DRA inventories and claims for it (hypothesis), and the comparison with dra_gpu_platform/dra.

A case is a few nodes, their ResourceSlices (node-local pools, shared pools, counters, taints, shareable devices,
binding conditions, incomplete and invalid pools), DeviceClasses with CEL selectors, devices already in use and
one to three claims. Both sides judge the claims together (one pod) on every node, then how many copies of the
first claim fit at once (claim after claim, each result in use for the next: `Scheduler.fill`). One oracle process
judges all nodes of a step (`nodes`), so a case costs one process plus one per fill step.

Features are those of the minor's default gates (dra_gpu_platform/dra/gates.py, dynamicresources.go
AllocatorFeatures). What the oracle does not mirror (its README): DeviceTaintRules, extended-resource claims and
the API server's dropping of fields; cases hold none of the first two, and the objects go to both sides as
stored (a dump's objects keep their fields, the allocator's own gate checks apply).
"""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import hypothesis.strategies as st

from dra_gpu_platform.dra import gates as g
from dra_gpu_platform.dra.allocator import allocate
from dra_gpu_platform.dra.claims import parse_claim_spec, parse_device_class
from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.model import AllocationError, FailedOnNode, Features, NodeInfo, PodClaim, Selectors, Usage
from dra_gpu_platform.dra.scheduler import Scheduler
from dra_gpu_platform.facts.quantity import parse_quantity
from tests.conftest import SHARED

ORACLE_DIR = SHARED / "tools" / "dra-oracle"
# The tag each minor's kube-scheduler builds against (dra_gpu_platform/facts/kubernetes.py MINORS[...].allocator_module).
BINARIES = {35: "dra-oracle-v0.35.6", 36: "dra-oracle-v0.36.2", 37: "dra-oracle-v0.37.0-alpha.2"}
# Examples per minor in `make test`; ORACLE_EXAMPLES=2000 for a large run (`make oracle`).
EXAMPLES = int(os.environ.get("ORACLE_EXAMPLES", "40"))

D = "dra.example.com"
D2 = "other.example.com"
ROOT = "resource.kubernetes.io/pcieRoot"
COUNTER_SET = "gpu-memory"
ZONE_A = {"nodeSelectorTerms": [{"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}


def rare(draw, n: int) -> bool:
    """True once in n+1 draws; false for the simplest draw, so the first and the shrunk examples are plain ones."""
    return draw(st.integers(0, n)) == n


def binary(minor: int) -> Path:
    return ORACLE_DIR / "bin" / BINARIES[minor]


def skip_reason(minor: int) -> str | None:
    path = binary(minor)
    if not path.exists():
        return (
            f"{path} is absent: the differential tests run the real allocator from ../shared/tools/dra-oracle "
            "next to the checkout, which is never copied into this repository"
        )
    return None


def oracle_features(minor: int) -> dict[str, bool]:
    """structured.Features of the minor's default gates, as the oracle's `features` input."""
    return dict.fromkeys(sorted(g.defaults(f"1.{minor}").allocator_features()), True)


# ---------------------------------------------------------------------------------------------------
# cases


@dataclass
class Case:
    minor: int
    nodes: list[dict[str, Any]]
    slices: list[dict[str, Any]]
    classes: list[dict[str, Any]]
    claims: list[dict[str, Any]]
    allocated: list[str] = field(default_factory=list)
    # capacity already given out by shareable devices (allocatedSharedDevices, 1.36+)
    shared: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> str:
        return json.dumps(
            {
                "minor": self.minor,
                "nodes": self.nodes,
                "slices": self.slices,
                "classes": self.classes,
                "claims": self.claims,
                "allocated": self.allocated,
                "shared": self.shared,
            },
            sort_keys=True,
        )

    def shares_pools(self) -> bool:
        return any(not s["spec"].get("nodeName") or s["spec"].get("sharedCounters") for s in self.slices)


SELECTORS = (
    f"device.driver == '{D}'",
    f"device.attributes['{D}'].model == 'a'",
    f"device.attributes['{D}'].model != 'a'",
    f"device.capacity['{D}'].memory.compareTo(quantity('16Gi')) >= 0",
    f"device.attributes['{D}'].numa == 1",  # a runtime error on a device without numa
    f"'numa' in device.attributes['{D}'] && device.attributes['{D}'].numa == 0",
    f"device.attributes['{D}'].ver.isGreaterThan(semver('1.5.0'))",
)
REQUEST_SELECTORS = (*SELECTORS[:4], *SELECTORS[:4], *SELECTORS[4:])
CONSTRAINT_ATTRIBUTES = (f"{D}/model", f"{D}/numa", ROOT, "model")  # the last is not qualified: never matches
CLASS_NAMES = ("any", "a", "big", "numa1", "numa0", "new")
CLASS_WEIGHTS = (*["any"] * 6, *["a"] * 4, *["big"] * 4, "new", "new", "numa0", "numa0", "numa1", "missing")


def device_class(name: str) -> dict[str, Any]:
    expressions = {
        "any": [],
        "a": [SELECTORS[1]],
        "big": [SELECTORS[3]],
        "numa1": [SELECTORS[4]],
        "numa0": [SELECTORS[5]],
        "new": [SELECTORS[0], SELECTORS[6]],
    }[name]
    spec = {"selectors": [{"cel": {"expression": e}} for e in expressions]}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


@st.composite
def a_device(draw, name: str, *, features: dict[str, bool], counters: bool, node: str | None) -> dict[str, Any]:
    attributes: dict[str, Any] = {"model": {"string": draw(st.sampled_from("ab"))}}
    if not rare(draw, 4):
        attributes["numa"] = {"int": draw(st.integers(0, 1))}
    if rare(draw, 2):
        attributes[ROOT] = {"string": draw(st.sampled_from(["pci0", "pci1"]))}
    attributes["ver"] = {"version": draw(st.sampled_from(["1.0.0", "2.0.0"]))}
    device: dict[str, Any] = {
        "name": name,
        "attributes": attributes,
        "capacity": {"memory": {"value": draw(st.sampled_from(["8Gi", "16Gi", "40Gi"]))}},
    }
    if rare(draw, 4):
        device["taints"] = [
            {
                "key": draw(st.sampled_from(["k1", "k2"])),
                "value": draw(st.sampled_from(["v", "w"])),
                "effect": draw(st.sampled_from(["NoSchedule", "NoExecute", "None"])),
            }
        ]
    if counters and not rare(draw, 2):
        device["consumesCounters"] = [
            {"counterSet": COUNTER_SET, "counters": {"mem": {"value": draw(st.sampled_from(["16Gi", "24Gi", "40Gi"]))}}}
        ]
    if rare(draw, 6):
        device["allowMultipleAllocations"] = True
        policy = draw(
            st.sampled_from(
                [
                    None,
                    {"default": "8Gi", "validRange": {"min": "4Gi", "step": "4Gi"}},
                    {"default": "8Gi", "validValues": ["8Gi", "16Gi"]},
                ]
            )
        )
        if policy is not None:
            device["capacity"]["memory"]["requestPolicy"] = policy
    if rare(draw, 7):
        device["bindingConditions"] = ["ready"]
        device["bindingFailureConditions"] = ["failed"]
        if draw(st.booleans()):
            device["bindsToNode"] = True
    return device


def slice_doc(name: str, driver: str, pool: str, devices: list, *, generation: int = 1, count: int = 1, **where):
    spec: dict[str, Any] = {
        "driver": driver,
        "pool": {"name": pool, "generation": generation, "resourceSliceCount": count},
        **where,
    }
    if devices:
        spec["devices"] = devices
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice", "metadata": {"name": name}, "spec": spec}


@st.composite
def slices_of(draw, minor: int, nodes: list[dict[str, Any]], features: dict[str, bool]) -> list[dict[str, Any]]:
    docs = []
    for node in nodes:
        name = node["name"]
        partitioned = rare(draw, 3)
        slice_count = 1 + rare(draw, 3)
        devices = []
        for s in range(slice_count):
            part = [
                draw(a_device(f"dev-{s}-{i}", features=features, counters=partitioned, node=name))
                for i in range(draw(st.integers(1, 5)) if s == 0 else draw(st.integers(0, 3)))
            ]
            devices.append(part)
        if rare(draw, 9) and devices[0]:  # a duplicate device name: the pool is invalid
            devices[-1] = [*devices[-1], dict(devices[0][0])]
        declared = slice_count + partitioned
        if rare(draw, 9):  # fewer slices than declared: incomplete
            declared += 1
        # slice names out of list order: sorted by name from 1.36 (buildPool)
        names = [f"{name}-s{chr(ord('z') - s)}" for s in range(slice_count)]
        for s, part in enumerate(devices):
            docs.append(slice_doc(names[s], D, f"pool-{name}", part, count=declared, nodeName=name))
        if partitioned:
            counter_slice = slice_doc(
                f"{name}-counters",
                D,
                f"pool-{name}",
                [],
                count=declared,
                nodeName=name,
                sharedCounters=[{"name": COUNTER_SET, "counters": {"mem": {"value": "40Gi"}}}],
            )
            docs.append(counter_slice)
        if rare(draw, 9):  # an older generation of the pool, ignored
            docs.append(slice_doc(f"{name}-old", D, f"pool-{name}", devices[0][:1], generation=0, nodeName=name))
        # 1.35 walks a node's pools in Go map order: one pool per node keeps its result deterministic.
        if minor >= 36 and rare(draw, 3):
            extra = [
                draw(a_device(f"x-{i}", features=features, counters=False, node=name))
                for i in range(draw(st.integers(1, 2)))
            ]
            docs.append(slice_doc(f"{name}-other", draw(st.sampled_from([D, D2])), f"a-{name}", extra, nodeName=name))
    if minor >= 36 and features.get("PartitionableDevices") and rare(draw, 4):
        # per-device node selection: each device names where it is available
        chosen = []
        for i in range(draw(st.integers(1, 3))):
            device = draw(a_device(f"pd-{i}", features=features, counters=False, node=None))
            device.update(
                draw(
                    st.sampled_from(
                        [
                            {"nodeName": draw(st.sampled_from([n["name"] for n in nodes]))},
                            {"allNodes": True},
                            {"nodeSelector": ZONE_A},
                        ]
                    )
                )
            )
            chosen.append(device)
        docs.append(slice_doc("per-device", D, "per-device", chosen, perDeviceNodeSelection=True))
    if minor >= 36 and rare(draw, 3):
        shared = [
            draw(a_device(f"net-{i}", features=features, counters=False, node=None))
            for i in range(draw(st.integers(1, 3)))
        ]
        where = draw(
            st.sampled_from(
                [
                    {"allNodes": True},
                    {"nodeSelector": ZONE_A},
                    {"nodeSelector": ZONE_A},
                    # two terms: createNodeSelector cannot merge them (an error where it is allocated)
                    {
                        "nodeSelector": {
                            "nodeSelectorTerms": [
                                *ZONE_A["nodeSelectorTerms"],
                                {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n0"]}]},
                            ]
                        }
                    },
                ]
            )
        )
        docs.append(slice_doc("shared", D, "shared", shared, **where))
    return docs


@st.composite
def a_request_body(draw, *, exact: bool) -> dict[str, Any]:
    # mostly classes that select cleanly; now and then one whose selector fails on a device, or none at all
    body: dict[str, Any] = {"deviceClassName": draw(st.sampled_from(CLASS_WEIGHTS))}
    if rare(draw, 5):
        body["allocationMode"] = "All"
    else:
        body["count"] = draw(st.sampled_from([1, 1, 1, 2, 3]))  # 1 is the simplest draw
    if rare(draw, 3):
        body["selectors"] = [{"cel": {"expression": draw(st.sampled_from(REQUEST_SELECTORS))}}]
    if rare(draw, 3):
        toleration: dict[str, Any] = {"key": draw(st.sampled_from(["k1", "k2", ""]))}
        if draw(st.booleans()) or not toleration["key"]:
            toleration["operator"] = "Exists"
        else:
            toleration["value"] = draw(st.sampled_from(["v", "w"]))
        if draw(st.booleans()):
            toleration["effect"] = draw(st.sampled_from(["NoSchedule", "NoExecute"]))
        body["tolerations"] = [toleration]
    if exact and rare(draw, 7):
        body["adminAccess"] = True
    if rare(draw, 6):
        body["capacity"] = {"requests": {"memory": draw(st.sampled_from(["4Gi", "8Gi", "10Gi"]))}}
    return body


@st.composite
def a_claim(draw, index: int) -> dict[str, Any]:
    requests = []
    for r in range(1 + rare(draw, 2) + rare(draw, 4)):
        if not rare(draw, 3):
            requests.append({"name": f"r{r}", "exactly": draw(a_request_body(exact=True))})
        else:
            subs = [{"name": f"s{i}", **draw(a_request_body(exact=False))} for i in range(draw(st.integers(2, 3)))]
            requests.append({"name": f"r{r}", "firstAvailable": subs})
    devices: dict[str, Any] = {"requests": requests}
    if rare(draw, 2):
        names = [r["name"] for r in requests]
        subs = [f"{r['name']}/{x['name']}" for r in requests for x in r.get("firstAvailable") or ()]
        named = draw(st.sampled_from([[], names, names[:1], *([[names[0], subs[0]], subs[:1]] if subs else [])]))
        kind = "distinctAttribute" if rare(draw, 3) else "matchAttribute"
        devices["constraints"] = [{"requests": named, kind: draw(st.sampled_from(CONSTRAINT_ATTRIBUTES[:3]))}]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": f"c{index}", "namespace": "ns", "uid": f"uid-{index}"},
        "spec": {"devices": devices},
    }


@st.composite
def cases(draw, minor: int) -> Case:
    features = oracle_features(minor)
    nodes = [
        {"name": f"n{i}", "labels": {"kubernetes.io/hostname": f"n{i}", "zone": draw(st.sampled_from("ab"))}}
        for i in range(draw(st.integers(1, 3)))
    ]
    slices = draw(slices_of(minor, nodes, features))
    classes = [device_class(name) for name in CLASS_NAMES]
    claims = [draw(a_claim(i)) for i in range(1 + rare(draw, 3))]
    ids = [
        f"{s['spec']['driver']}/{s['spec']['pool']['name']}/{d['name']}"
        for s in slices
        for d in s["spec"].get("devices") or ()
    ]
    allocated = sorted(draw(st.sets(st.sampled_from(ids), max_size=2))) if ids and draw(st.booleans()) else []
    shareable = [
        f"{s['spec']['driver']}/{s['spec']['pool']['name']}/{d['name']}"
        for s in slices
        for d in s["spec"].get("devices") or ()
        if d.get("allowMultipleAllocations")
    ]
    shared = []
    if minor >= 36 and shareable and draw(st.booleans()):
        for i, device in enumerate(sorted(draw(st.sets(st.sampled_from(shareable), max_size=2)))):
            driver, pool, name = device.split("/")
            amount = draw(st.sampled_from(["4Gi", "8Gi"]))
            shared.append(
                {"driver": driver, "pool": pool, "device": name, "shareID": f"s-{i}", "capacity": {"memory": amount}}
            )
    return Case(minor, nodes, slices, classes, claims, allocated, shared)


# ---------------------------------------------------------------------------------------------------
# the two sides


def run_oracle(minor: int, payload: dict[str, Any]) -> dict[str, Any]:
    payload = {"features": oracle_features(minor), **payload}
    done = subprocess.run(
        [str(binary(minor)), "-"], input=json.dumps(payload), capture_output=True, text=True, timeout=60, check=False
    )
    if done.returncode not in (0, 2):
        raise RuntimeError(f"oracle exited {done.returncode}: {done.stderr[-2000:]}")
    result = json.loads(done.stdout)
    if result.get("status") == "input-error":
        raise RuntimeError(f"oracle input error: {result.get('error')}")
    return result


def _qty(value: Any) -> Fraction:
    return parse_quantity(str(value)).value


def _quantity_text(value: Fraction) -> str:
    return str(value.numerator) if value.denominator == 1 else f"{int(value * 1000)}m"


def _device_key(device: tuple[str, str, str]) -> str:
    return "/".join(device)


@dataclass
class Ours:
    cluster: Any
    classes: dict
    claims: list[PodClaim]
    features: Features
    selectors: Selectors

    def judge(self, nodes: list[dict[str, Any]], usage: Usage) -> dict[str, Any]:
        """Per node: (status, results) as the oracle reports them."""
        verdicts = {}
        for raw in nodes:
            node = NodeInfo(raw["name"], raw["labels"])
            pools = self.cluster.pools(node)
            try:
                found = allocate(node, pools, self.claims, self.classes, usage, self.features, self.selectors)
            except AllocationError:
                verdicts[node.name] = ("error", None)
                continue
            except FailedOnNode:
                verdicts[node.name] = ("unschedulable", None)
                continue
            if found is None:
                verdicts[node.name] = ("unschedulable", None)
                continue
            verdicts[node.name] = ("allocated", [_our_allocation(a) for a in found])
        return verdicts


def _our_allocation(allocation) -> dict[str, Any]:
    return {
        "devices": [
            (
                d.request,
                _device_key(d.device),
                bool(d.admin_access),
                tuple(sorted((k, v) for k, v in d.consumed)) if d.shared else None,
            )
            for d in allocation.devices
        ],
        "nodeSelector": _normal_selector(allocation.node_selector),
    }


def _oracle_allocation(allocation: dict[str, Any]) -> dict[str, Any]:
    results = (allocation.get("devices") or {}).get("results") or []
    return {
        "devices": [
            (
                r["request"],
                f"{r['driver']}/{r['pool']}/{r['device']}",
                bool(r.get("adminAccess")),
                tuple(sorted((k, _qty(v)) for k, v in (r.get("consumedCapacity") or {}).items()))
                if r.get("shareID")
                else None,
            )
            for r in results
        ],
        "nodeSelector": _normal_selector(allocation.get("nodeSelector")),
    }


def _normal_selector(selector: Any) -> Any:
    if not selector:
        return None
    terms = []
    for term in selector.get("nodeSelectorTerms") or []:
        terms.append(
            tuple(
                (kind, r.get("key"), r.get("operator"), tuple(sorted(r.get("values") or [])))
                for kind in ("matchFields", "matchExpressions")
                for r in term.get(kind) or []
            )
        )
    return tuple(terms)


def ours_for(case: Case) -> Ours:
    gates = g.defaults(f"1.{case.minor}")
    features = Features.of(gates)
    classes = {}
    for document in case.classes:
        spec, problems = parse_device_class(document)
        assert spec is not None and not problems, problems
        classes[spec.name] = spec
    claims = []
    for document in case.claims:
        spec, problems = parse_claim_spec(document["spec"]["devices"])
        assert spec is not None, problems
        claims.append(PodClaim("ns", document["metadata"]["name"], spec))
    expressions = {e for c in classes.values() for e in c.selectors}
    expressions |= {e for c in claims for r in c.spec.requests for s in r.alternatives for e in s.selectors}
    attributes = {k.attribute for c in claims for k in c.spec.constraints if k.attribute}
    nodes = [NodeInfo(n["name"], n["labels"]) for n in case.nodes]
    usage = Usage({tuple(d.split("/")) for d in case.allocated})  # type: ignore[misc]
    for share in case.shared:
        bucket = usage.consumed.setdefault((share["driver"], share["pool"], share["device"]), {})
        for name, amount in share["capacity"].items():
            bucket[name] = bucket.get(name, Fraction(0)) + _qty(amount)
    cluster = build_cluster(
        case.slices,
        nodes=nodes,
        usage=usage,
        expressions=expressions,
        constraint_attributes=attributes,
        minor=case.minor,
        partitionable_devices=features.partitionable_devices,
        consumable_capacity=features.consumable_capacity,
        sorted_pools=features.sorted_pools,
        binding_last=features.experimental,
    )
    return Ours(cluster, classes, claims, features, Selectors())


@dataclass
class Comparison:
    ours: dict[str, Any]
    oracle: dict[str, Any]
    fill_ours: int | None = None
    fill_oracle: int | None = None
    calls: int = 0

    @property
    def same(self) -> bool:
        return self.ours == self.oracle and self.fill_ours == self.fill_oracle


def oracle_verdicts(
    case: Case,
    claims: list[dict[str, Any]],
    nodes: list[dict[str, Any]],
    allocated: list[str],
    shared: list[dict[str, Any]] = (),  # type: ignore[assignment]
) -> dict[str, Any]:
    """One oracle process: Allocate of `claims` on each of `nodes`, per node (status, allocations)."""
    result = run_oracle(
        case.minor,
        {
            "nodes": nodes,
            "slices": case.slices,
            "classes": case.classes,
            "claims": claims,
            "allocatedDevices": allocated,
            "allocatedSharedDevices": list(shared),
        },
    )
    per_node = result.get("perNode") or [{**result, "node": nodes[0]["name"]}]
    return {
        entry["node"]: (
            entry["status"],
            [_oracle_allocation(r["allocation"]) for r in entry["results"]] if entry["status"] == "allocated" else None,
        )
        for entry in per_node
    }


def compare(case: Case) -> Comparison:
    ours = ours_for(case)
    comparison = Comparison(
        ours.judge(case.nodes, ours.cluster.usage),
        oracle_verdicts(case, case.claims, case.nodes, case.allocated, case.shared),
    )
    comparison.calls = 1
    if comparison.ours != comparison.oracle:
        return comparison
    # how many copies of the first claim fit at once (Scheduler.fill), claim after claim
    first = ours.claims[0]
    scheduler = Scheduler(ours.cluster, ours.classes, ours.features, ours.selectors, group_nodes=False)
    comparison.fill_ours = scheduler.fill(first)
    comparison.fill_oracle, calls = oracle_fill(case)
    comparison.calls += calls
    return comparison


def oracle_fill(case: Case) -> tuple[int, int]:
    """Scheduler.fill on the oracle: every node filled with copies of the first claim until the next one does
    not fit, each copy's devices in use for the next. Node-local pools: all nodes step together (one process a
    step); pools shared between nodes: node after node."""
    claim = case.claims[0]
    allocated = list(case.allocated)
    shared_use: list[dict[str, Any]] = list(case.shared)
    calls = total = 0
    groups = [[n] for n in case.nodes] if case.shares_pools() else [list(case.nodes)]
    for group in groups:
        active = list(group)
        while active:
            verdicts = oracle_verdicts(case, [claim], active, allocated, shared_use)
            calls += 1
            still = []
            for node in active:
                status, allocations = verdicts[node["name"]]
                if status != "allocated":
                    continue
                total += 1
                taken = [d for d in allocations[0]["devices"] if not d[2] and d[3] is None]
                shares = [d for d in allocations[0]["devices"] if d[3] is not None and any(v for _, v in d[3])]
                if not (taken or shares):
                    continue
                allocated += [d[1] for d in taken]
                for _request, device, _admin, consumed in shares:
                    driver, pool, name = device.split("/")
                    shared_use.append(
                        {
                            "driver": driver,
                            "pool": pool,
                            "device": name,
                            "shareID": f"share-{len(shared_use)}",
                            "capacity": {k: _quantity_text(v) for k, v in consumed},
                        }
                    )
                still.append(node)
            active = still
    return total, calls
