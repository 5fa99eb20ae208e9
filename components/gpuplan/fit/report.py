"""`gpuplan fit` evaluation: the inventory as a cluster, the claims and pods through the scheduler model
(dra_gpu_platform/dra/scheduler.py), and the report (its JSON is the contract of architecture.md: `claims`, and
`pods` beside it).

Order of evaluation: first every claim row on the inventory as it is (a dump's allocations count): where it
fits, how many fit at once; then the pods in the order of the files, each workload's pods one after the
other, each taking its devices for the pods that follow. A claim used by a pod that cannot be placed is
`satisfiable: false` with the pod's reason.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dra_gpu_platform.cel import compile_selector
from dra_gpu_platform.dra import gates as g
from dra_gpu_platform.dra.claims import parse_claim_spec
from dra_gpu_platform.dra.cluster import Cluster, allocated_devices, slice_record
from dra_gpu_platform.dra.dump import ClusterDump, read_cluster_dump
from dra_gpu_platform.dra.model import Features, NodeInfo, PodClaim, Selectors
from dra_gpu_platform.dra.pod_resources import amount
from dra_gpu_platform.dra.quota import quota_limit
from dra_gpu_platform.dra.scheduler import (
    ALLOCATED,
    ERROR,
    REJECTED,
    UNSCHEDULABLE,
    ClaimObject,
    Scheduler,
)
from dra_gpu_platform.dra.shapes import ReadSet, Shapes
from dra_gpu_platform.dra.tolerations import Taint, apply_taint_rules
from dra_gpu_platform.facts import versions
from dra_gpu_platform.facts.node_labels import POOL_LABEL
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.plans.cluster_nodes import ClusterNodes, cluster_nodes
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.fit.admission import StackAdmission, create_claims
from gpuplan.fit.fixes import Fixes
from gpuplan.fit.inputs import (
    ClaimEntry,
    FitInputs,
    add_claim_files,
    add_stack_objects,
    check_admin_namespaces,
    read_documents,
)
from gpuplan.fit.pod_notes import annotate
from gpuplan.fit.provisioning import Trial, provisioning
from gpuplan.fit.stack import chart_classes, stack_documents
from gpuplan.fit.workloads import capacity_left, schedule_workload

CLAIM_KEYS = (
    "source",
    "namespace",
    "name",
    "satisfiable",
    "allocations",
    "maxConcurrent",
    "quotaLimit",
    "reasons",
    "errors",
    "kind",
    "outcome",
    "usedBy",
    "apiServer",
    "fix",
)
_POOL_LABELS = (POOL_LABEL, "eks.amazonaws.com/nodegroup", "kubernetes.azure.com/agentpool")


def features(gates: g.FeatureGates) -> Features:
    """dynamicresources.go AllocatorFeatures."""
    return Features.of(gates)


def at_kubernetes_version(plan: StackPlan, version: str | None) -> StackPlan:
    """`--kubernetes-version`: the stack as its cluster would be at another minor (gates, allocator, API server,
    claim-file schemas). Raises InputError for a minor this package does not know."""
    if version is None or version == plan.kubernetes_version:
        return plan
    if version not in versions.SUPPORTED_KUBERNETES:
        raise InputError(
            [
                Problem(
                    "--kubernetes-version",
                    "",
                    version,
                    f"fit models Kubernetes {', '.join(versions.SUPPORTED_KUBERNETES)}",
                    f"use one of {', '.join(versions.SUPPORTED_KUBERNETES)}, e.g. --kubernetes-version 1.36",
                )
            ],
            "--kubernetes-version",
        )
    return dataclasses.replace(plan, kubernetes_version=version)


def feature_gates(plan: StackPlan, flag: str | None) -> g.FeatureGates:
    """The stack's Kubernetes minor, the gates the stack sets on its cluster, then --feature-gates. Raises
    InputError."""
    try:
        return g.parse(flag, plan.kubernetes_version, base=dict(plan.feature_gates))
    except g.GateError as error:
        raise InputError(
            [
                Problem(
                    "--feature-gates",
                    "",
                    flag,
                    problem,
                    f"use gates of Kubernetes {plan.kubernetes_version}, e.g. DRADeviceTaints=true",
                )
                for problem in error.problems
            ],
            "--feature-gates",
        ) from None


# ---------------------------------------------------------------------------------------------------
# the inventory


@dataclass
class Inventory:
    source: str
    cluster: Cluster
    shapes: Shapes
    dump: ClusterDump | None
    notes: list[str] = field(default_factory=list)

    def node_pool(self, node: str) -> str:
        return self.cluster.pool_labels.get(node, node)


def _read_dump(path: Path) -> ClusterDump:
    documents, problems = read_documents(path)
    if problems:
        raise InputError(problems, str(path))
    return read_cluster_dump(documents, str(path))


def dump_nodes(dump: ClusterDump) -> ClusterNodes:
    """A dump's Node objects as the scheduler sees them (labels, taints, spec.unschedulable, status.allocatable), or
    the slices' nodeName values when it holds none; nodes are named after their node-pool label where they carry one."""
    nodes: list[NodeInfo] = []
    for document in dump.nodes:
        metadata, spec = document.get("metadata") or {}, document.get("spec") or {}
        allocatable = (document.get("status") or {}).get("allocatable") or {}
        nodes.append(
            NodeInfo(
                str(metadata["name"]),
                dict(metadata.get("labels") or {}),
                tuple(
                    Taint(str(t.get("key", "")), str(t.get("value") or ""), str(t.get("effect", "")))
                    for t in spec.get("taints") or ()
                    if isinstance(t, Mapping)
                ),
                spec.get("unschedulable") is True,
                {str(k): amount(str(k), v) for k, v in allocatable.items()},
            )
        )
    if not dump.nodes:
        names = dict.fromkeys(s["spec"].get("nodeName") for s in dump.slices if s["spec"].get("nodeName"))
        nodes = [NodeInfo(name) for name in names]
    pools = {}
    for node in nodes:
        label = next((k for k in _POOL_LABELS if k in node.labels), None)
        if label is not None:
            pools[node.name] = node.labels[label]
    return ClusterNodes(tuple(nodes), pools)


def build_inventory(plan: StackPlan, inputs: FitInputs, dump: ClusterDump | None, nodes: ClusterNodes) -> Inventory:
    gates = inputs.gates
    selectors = []
    for expression in sorted(inputs.expressions()):
        try:
            selectors.append(compile_selector(expression))
        except Exception:
            continue
    shapes = Shapes(
        ReadSet.of(selectors, inputs.constraint_attributes()), consumable_capacity=gates.consumable_capacity
    )
    notes: list[str] = []
    rules = [*inputs.taint_rules, *(dump.taint_rules if dump else [])] if gates.device_taint_rules else []
    if (inputs.taint_rules or (dump and dump.taint_rules)) and not gates.device_taint_rules:
        notes.append(
            f"DeviceTaintRules are ignored: the scheduler applies them only with "
            f"{g.DEVICE_TAINT_RULES if gates.minor >= 35 else g.DEVICE_TAINTS} on"
        )
    if dump is None:
        simulated = plan.inventory()
        slices = apply_taint_rules(list(simulated.slices), rules)
        source, usage = simulated.source, allocated_devices(())
        notes += list(simulated.notes)
    else:
        slices = apply_taint_rules(dump.slices, rules)
        source = dump.source
        usage = allocated_devices(dump.claims, consumable_capacity=gates.consumable_capacity)
        if not dump.nodes:
            if any(s["spec"].get("nodeSelector") for s in slices):
                notes.append("the inventory has no Node objects, so slices that select nodes by label match none")
            notes.append("no Node objects in the inventory: the nodes are the slices' nodeName values")
        notes += dump.notes
        unplaced = sorted(
            {s["spec"]["nodeName"] for s in slices if s["spec"].get("nodeName")} - {n.name for n in nodes.nodes}
        )
        if dump.nodes and unplaced:
            notes.append(
                f"ResourceSlices of {len(unplaced)} node(s) without a Node object are unusable: {', '.join(unplaced[:5])}"
            )
    pool_of = dict(nodes.pools)
    records, problems = [], []
    for i, document in enumerate(slices):
        try:
            records.append(slice_record(document, i, shapes))
        except (ValueError, TypeError) as error:  # attribute values no API server would have stored
            name = (document.get("metadata") or {}).get("name") or f"#{i}"
            problems.append(
                Problem(
                    source,
                    f"ResourceSlice {name}",
                    MISSING,
                    str(error),
                    "attributes are {string|int|bool|version: value}, capacities {value: <quantity>}",
                )
            )
    if problems:
        raise InputError(problems, source)
    allocator = features(gates)
    cluster = Cluster(
        list(nodes.nodes),
        records,
        usage,
        minor=gates.minor,
        partitionable_devices=gates.partitionable_devices,
        pool_labels=pool_of,
        sorted_pools=allocator.sorted_pools,
        binding_last=allocator.experimental,
    )
    if dump is not None:
        # Nodes without a node-pool label are grouped by what the scheduler sees: identical nodes form one
        # pool in the report, named after its first node (results stay per node; rows stay few).
        for group in cluster.node_classes():
            for node in group:
                if node.name not in cluster.pool_labels:
                    cluster.pool_labels[node.name] = group[0].name
    return Inventory(source, cluster, shapes, dump, notes)


# ---------------------------------------------------------------------------------------------------
# evaluation


def fit_report(
    plan: StackPlan,
    stack: str,
    claim_files: list[Path] | None = None,
    inventory_file: Path | None = None,
    feature_gate_flag: str | None = None,
    kubernetes_version: str | None = None,
) -> dict[str, Any]:
    """Evaluate the stack (and claim files) on its simulated inventory or a cluster dump, at the stack's
    Kubernetes minor or `kubernetes_version`. Raises InputError."""
    plan = at_kubernetes_version(plan, kubernetes_version)
    gates = feature_gates(plan, feature_gate_flag)
    source = f"stack:{stack}"
    dump = _read_dump(inventory_file) if inventory_file is not None else None
    nodes = cluster_nodes(plan) if dump is None else dump_nodes(dump)
    inputs = FitInputs(gates, plugin_pools=tuple(p.name for p in plan.pools if not p.dra))
    for node in nodes.nodes:
        for resource, count in node.allocatable.items():
            if count and "/" in resource:
                pools = inputs.advertised.setdefault(resource, [])
                if nodes.pools.get(node.name, node.name) not in pools:
                    pools.append(nodes.pools.get(node.name, node.name))
    add_stack_objects(
        inputs, stack_documents(plan), chart_classes(plan), source, cluster_classes=dump.classes if dump else []
    )
    cluster_claims = _dump_claims(inputs, dump)  # before the claim files: their pods may use these claims
    # A shared claim of the stack that the dump already holds is the dump's (its allocation is the real one).
    held = {(c.namespace, c.name) for c in cluster_claims}
    inputs.entries = [
        e
        for e in inputs.entries
        if e.origin != "stack" or e.kind != "ResourceClaim" or (e.namespace, e.name) not in held
    ]
    problems = add_claim_files(inputs, list(claim_files or []), plan.kubernetes_version, source)
    if problems:
        raise InputError(problems, "the claim files")
    check_admin_namespaces(inputs)
    inventory = build_inventory(plan, inputs, dump, nodes)
    inventory.notes += list(nodes.notes)
    extended_names = {c.name: c.extended_resource_name for c in inputs.classes.values() if c.extended_resource_name}

    def new_admission() -> StackAdmission:
        """The API server's admission with fresh quota usage (one per run: provisioning trials run again), holding
        the claims that exist before the pods: `kubectl apply` creates them, controllers follow. A claim refused the
        first time stays refused and out of the count (create_claims skips it)."""
        fresh = StackAdmission.of(
            plan,
            gates.minor,
            inputs.namespaces,
            inputs.quota_objects,
            extended_names,
            gates.extended_resource,
            inputs.quota_scopes,
        )
        create_claims(fresh, inputs.entries)
        return fresh

    admission = new_admission()
    inputs.notes += admission.notes
    inputs.api_server += [
        {"object": f"ResourceClaim {e.namespace}/{e.name}", "source": e.source, "dropped": [], "rejected": [m]}
        for e in inputs.entries
        if e.refusal is not None
        for m in [e.refusal.message]
    ]
    selectors = Selectors()
    templates = {(e.namespace, e.name): _claim_object(e) for e in inputs.entries if e.kind == "ResourceClaimTemplate"}
    objects = [_claim_object(e) for e in inputs.entries if e.kind == "ResourceClaim" and e.origin != "cluster"]
    scheduler = Scheduler(
        inventory.cluster,
        inputs.classes,
        features(gates),
        selectors,
        claims=[*cluster_claims, *objects],
        templates=templates,
    )
    if gates.extended_resource:
        scheduler.extended_classes = {name: cls for cls, name in extended_names.items()}
    in_use = len(inventory.cluster.usage.allocated)  # what the dump's claims hold, before this run places pods
    classes = len(inventory.cluster.node_classes())
    rows = [evaluate_entry(scheduler, inventory, entry, inputs) for entry in inputs.entries]
    pods = []
    fixes = Fixes(plan, gates.minor, inventory.cluster.nodes, inventory.cluster.pool_labels)
    for row, entry in zip(rows, inputs.entries, strict=True):
        if entry.refusal is not None:
            row["fix"] = fixes.for_refusals(entry.namespace, [entry.refusal])
    before = capacity_left(scheduler, inventory.cluster.pool_labels) if inputs.workloads else []
    for workload in inputs.workloads:
        report = schedule_workload(scheduler, workload, inputs, admission, fixes)
        report["capacityLeft"] = capacity_left(scheduler, inventory.cluster.pool_labels)
        pods.append(report)
    inputs.notes += annotate(inputs.workloads, pods, dump.slices if dump else (), templates, inputs.classes)
    _merge_pods(rows, pods)
    if inputs.workloads:
        # what the stack's provisioner does for each workload the pools at minNodes cannot hold
        trial = Trial(
            build_inventory=lambda at, nodes: build_inventory(at, inputs, None, nodes),
            claims=lambda: copy.deepcopy(objects),
            templates=templates,
            admission=new_admission,
            features=features(gates),
            inputs=inputs,
        )
        answers = provisioning(plan, trial, inputs.workloads, plan.provisioner, plan.provisioner_version)
        for pod, answer in zip(pods, answers, strict=True):
            pod["provisioning"] = answer
    services = [service_row(admission, fixes, file, service) for file, service in inputs.services]
    drivers = sorted({r.driver for r in inventory.cluster.slices})
    return {
        "claims": rows,
        "pods": pods,
        "services": services,
        "featureGates": {
            "kubernetes": gates.kubernetes,
            "allocator": gates.allocator_variant(),
            "changed": gates.changed(),
            "gates": gates.as_dict(),
            "notModelled": sorted(k for k, v in gates.as_dict().items() if v and k not in g.MODELLED),
        },
        "apiServer": inputs.api_server,
        "inventory": {
            "source": inventory.source,
            "nodes": len(inventory.cluster.nodes),
            "devices": inventory.cluster.device_count(),
            "drivers": drivers,
            "shapes": len(inventory.shapes),
            "nodeClasses": classes,
            "allocatedDevices": in_use,
            "notes": inventory.notes,
        },
        "notes": inputs.notes,
        "capacityBefore": before,  # for the text's "what each workload took" (the JSON has capacityLeft per workload)
        "stats": {
            "selectorEvaluations": selectors.stats.evaluations,
            "selectorLookups": selectors.stats.lookups,
            "searchSteps": selectors.stats.steps,
            "allocations": selectors.stats.searches,
        },
    }


def _claim_object(entry: ClaimEntry) -> ClaimObject:
    return ClaimObject(entry.namespace, entry.name, entry.spec, entry.source, rejected=list(entry.rejected))


def _dump_claims(inputs: FitInputs, dump: ClusterDump | None) -> list[ClaimObject]:
    """The dump's ResourceClaims as stored (no dropping): allocated ones pin and hold devices, pending ones
    are rows."""
    from dra_gpu_platform.dra.model import ClaimAllocation, DeviceResult

    objects = []
    for document in dump.claims if dump else []:
        metadata = document.get("metadata") or {}
        namespace, name = str(metadata.get("namespace") or "default"), str(metadata.get("name") or "")
        spec, problems = parse_claim_spec((document.get("spec") or {}).get("devices"), "spec.devices")
        claim = ClaimObject(namespace, name, spec, dump.source)  # type: ignore[union-attr]
        allocation = (document.get("status") or {}).get("allocation")
        if isinstance(allocation, Mapping):
            results = (allocation.get("devices") or {}).get("results") or []
            claim.allocation = ClaimAllocation(
                tuple(
                    DeviceResult(
                        str(r.get("request")),
                        (str(r.get("driver")), str(r.get("pool")), str(r.get("device"))),
                        bool(r.get("adminAccess")),
                    )
                    for r in results
                    if isinstance(r, Mapping)
                ),
                allocation.get("nodeSelector"),
                {},
            )
            claim.reserved_for = [
                f"{namespace}/{r.get('name')}" for r in (document.get("status") or {}).get("reservedFor") or []
            ]
        entry = ClaimEntry(
            dump.source,
            namespace,
            name,
            "ResourceClaim",
            spec,
            origin="cluster",  # type: ignore[union-attr]
            status=document.get("status") or {},
        )
        if problems:
            entry.errors = [f"{p}: {rule}" for p, _, rule, _ in problems]
        inputs.entries.append(entry)
        objects.append(claim)
    return objects


def _allocation_rows(inventory: Inventory, node: str, claim: PodClaim, allocation: Any) -> list[dict[str, Any]]:
    rows = []
    for request in claim.spec.requests:
        mine = [d for d in allocation.devices if d.request.split("/")[0] == request.name]
        subrequest = allocation.subrequests.get(request.name)
        rows.append(
            {
                "pool": inventory.node_pool(node),
                "node": node,
                "request": request.name,
                "subrequest": subrequest,
                "devices": ["/".join(d.device) for d in mine],
            }
        )
    return rows


def evaluate_entry(scheduler: Scheduler, inventory: Inventory, entry: ClaimEntry, inputs: FitInputs) -> dict[str, Any]:
    row: dict[str, Any] = {
        "source": entry.source,
        "namespace": entry.namespace,
        "name": entry.name,
        "satisfiable": False,
        "allocations": [],
        "maxConcurrent": 0,
        "quotaLimit": None,
        "reasons": list(entry.reasons),
        "errors": list(entry.errors),
        "kind": entry.kind,
        "outcome": UNSCHEDULABLE,
        "usedBy": [],
        "apiServer": {"dropped": list(entry.dropped), "rejected": list(entry.rejected)},
        "fix": [],
    }
    if entry.rejected:
        row["outcome"] = REJECTED
        row["reasons"] = [f"rejected by the API server: {r}" for r in entry.rejected]
        return row
    spec = entry.spec
    if spec is None or entry.errors:
        row["outcome"] = ERROR if entry.errors else UNSCHEDULABLE
        return row
    row["quotaLimit"] = quota_limit(spec, inputs.quotas.get(entry.namespace, []))
    if entry.origin == "cluster" and (entry.status or {}).get("allocation"):
        claim = scheduler.claims.get((entry.namespace, entry.name))
        allocation = claim.allocation if claim else None
        node = _allocated_node(allocation.node_selector if allocation else None)
        row.update(satisfiable=True, outcome=ALLOCATED, maxConcurrent=1)
        row["allocations"] = (
            [
                {
                    "pool": inventory.node_pool(node) if node else None,
                    "node": node,
                    "request": r,
                    "subrequest": r.split("/", 1)[1] if "/" in r else None,
                    "devices": ["/".join(d.device) for d in allocation.devices if d.request == r],
                }
                for r in dict.fromkeys(d.request for d in allocation.devices)
            ]
            if allocation
            else []
        )
        return row
    blockers = []
    if entry.kind == "extended-resources" and spec.requests and not inputs.gates.extended_resource:
        resources = ", ".join(dict.fromkeys(entry.extended_resources))
        blockers.append(
            f"DRA serves extended resources ({resources}) only with the DRAExtendedResource feature gate "
            f"(off at Kubernetes {inputs.gates.kubernetes} unless the stack or --feature-gates turns it on)"
        )
    outcome = place_claim(scheduler, inventory, PodClaim(entry.namespace, entry.name, spec), single=entry.single)
    row["errors"] += outcome["errors"]
    if blockers:
        fits = sorted({a["pool"] for a in outcome["allocations"]})
        row["reasons"] = [
            blockers[0] + (f"; with the gate the claim would fit on pool(s) {', '.join(fits)}" if fits else "")
        ]
        return row
    row.update(outcome)
    return row


def _allocated_node(selector: Mapping[str, Any] | None) -> str | None:
    for term in (selector or {}).get("nodeSelectorTerms") or []:
        for field_ in term.get("matchFields") or []:
            if field_.get("key") == "metadata.name" and field_.get("values"):
                return str(field_["values"][0])
    return None


def place_claim(scheduler: Scheduler, inventory: Inventory, claim: PodClaim, *, single: bool) -> dict[str, Any]:
    placement = scheduler.place(claim, single=single)
    allocations = [
        row for node, allocation in placement.fits for row in _allocation_rows(inventory, node.name, claim, allocation)
    ]
    return {
        "satisfiable": placement.satisfiable,
        "allocations": allocations,
        "maxConcurrent": placement.max_concurrent,
        "reasons": placement.reasons,
        "errors": placement.errors,
        "outcome": placement.kind,
    }


def _merge_pods(rows: list[dict[str, Any]], pods: list[dict[str, Any]]) -> None:
    by_ref = {
        f"{r['namespace']}/{r['name']}": r for r in rows if r["kind"] in ("ResourceClaimTemplate", "ResourceClaim")
    }
    for pod in pods:
        label = f"{pod['kind']} {pod['namespace']}/{pod['name']}"
        for ref in pod["claims"]:
            row = by_ref.get(ref)
            if row is None:
                continue
            row["usedBy"].append(label)
            if pod["outcome"] == ALLOCATED:
                continue
            why = "; ".join(pod["errors"] or pod["reasons"]) or "the pod cannot be placed"
            if row["satisfiable"]:
                row["satisfiable"] = False
                row["outcome"] = pod["outcome"] if pod["outcome"] != REJECTED else UNSCHEDULABLE
            row["reasons"].append(f"{label}: {pod['placed']} of {pod['replicas']} pod(s) placed: {why}")


def service_row(admission: StackAdmission, fixes: Fixes, source: str, service: Mapping[str, Any]) -> dict[str, Any]:
    """A Service of the claim files as the stack's API server admits it (its admission policies on Services, then
    ResourceQuota), in file order."""
    metadata = service.get("metadata") or {}
    namespace = str(metadata.get("namespace") or "default")
    refusal = admission.admit_service(service)
    return {
        "namespace": namespace,
        "name": str(metadata.get("name") or metadata.get("generateName") or ""),
        "source": source,
        "type": str((service.get("spec") or {}).get("type") or "ClusterIP"),
        "outcome": "admitted" if refusal is None else REJECTED,
        "reasons": [] if refusal is None else [refusal.message],
        "fix": [] if refusal is None else fixes.for_refusals(namespace, [refusal]),
    }


def failing(report: dict[str, Any]) -> bool:
    return (
        any(not c["satisfiable"] or c["errors"] for c in report["claims"])
        or any(p["outcome"] != ALLOCATED for p in report["pods"])
        or any(s["outcome"] != "admitted" for s in report.get("services", []))
    )


def document(report: dict[str, Any]) -> dict[str, Any]:
    """The fit.json document."""
    return {
        "claims": [{key: claim[key] for key in CLAIM_KEYS} for claim in report["claims"]],
        "pods": report["pods"],
        "services": report["services"],
        "featureGates": report["featureGates"],
        "apiServer": report["apiServer"],
        "inventory": report["inventory"],
        "stats": report["stats"],
    }
