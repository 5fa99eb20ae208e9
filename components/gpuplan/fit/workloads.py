"""Pods and workloads of the claim files, judged in file order as the cluster would: the controller creates the pods
(a Deployment's or Job's one after the other, a StatefulSet's in order, a DaemonSet's on every node it may run on),
the API server admits each pod (gpuplan/fit/admission.py), the resourceclaim controller creates its template claims
(quota), then the scheduler places it (dra_gpu_platform/dra/scheduler.py: default filters, then DynamicResources) and a
placed pod keeps its devices and its requests for the pods that follow. A workload's report says how many pods were
created, admitted and placed, why the rest were not, and the capacity left per pool afterwards.

Controllers (docs/references.md#workload-controllers): ReplicaSet `slowStartBatch` stops creating pods at the first
refused create (pods of one template are refused alike, so none is created when the first is); a StatefulSet with
OrderedReady creates pod i+1 only once pod i runs; a Job keeps min(parallelism, completions) pods; the DaemonSet
controller creates a pod only on nodes whose taints (NoSchedule, NoExecute) the pod tolerates and whose labels its
selector and affinity match (`NodeShouldRunDaemonPod`), pinned there by a `metadata.name` node affinity, with its
default tolerations added (node.kubernetes.io/unschedulable among them).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from dra_gpu_platform.dra.nodefilters import PodConstraints, static_filters
from dra_gpu_platform.dra.scheduler import ALLOCATED, EXTENDED_CLAIM, REJECTED, UNSCHEDULABLE, PodSpec, Scheduler
from gpuplan.fit.admission import Refusal, StackAdmission
from gpuplan.fit.fixes import Fixes, PodFacts
from gpuplan.fit.inputs import FitInputs, Workload

NOT_CREATED = "not-created"
DAEMON_TOLERATIONS = (
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute"},
    {"key": "node.kubernetes.io/disk-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/memory-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/pid-pressure", "operator": "Exists", "effect": "NoSchedule"},
    {"key": "node.kubernetes.io/unschedulable", "operator": "Exists", "effect": "NoSchedule"},
)
CONTROLLER_OF = {"Deployment": "ReplicaSet", "ReplicaSet": "ReplicaSet", "Job": "Job", "CronJob": "Job"}
# Where a workload's pod spec sits in the object the user wrote (the Pod Security fixes name the field there).
SPEC_PATH = {"Pod": "spec", "CronJob": "spec.jobTemplate.spec.template.spec"}


def spec_path(kind: str) -> str:
    return SPEC_PATH.get(kind, "spec.template.spec")


def _pod_object(workload: Workload, name: str, spec: Mapping[str, Any]) -> dict[str, Any]:
    metadata = dict(workload.template.get("metadata") or {})
    metadata.update({"name": name, "namespace": workload.namespace})
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": copy.deepcopy(dict(spec))}


def _daemon_spec(spec: Mapping[str, Any], node: str) -> dict[str, Any]:
    """What the DaemonSet controller adds: its default tolerations and the node pin (replacing matchFields terms)."""
    pinned = copy.deepcopy(dict(spec))
    tolerations = list(pinned.get("tolerations") or [])
    tolerations += [t for t in DAEMON_TOLERATIONS if t not in tolerations]
    pinned["tolerations"] = tolerations
    affinity = pinned.setdefault("affinity", {})
    node_affinity = affinity.setdefault("nodeAffinity", {})
    required = node_affinity.get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    pin = {"key": "metadata.name", "operator": "In", "values": [node]}
    terms = [
        {**term, "matchFields": [pin]}
        for term in required.get("nodeSelectorTerms") or [{}]
        if isinstance(term, Mapping)
    ]
    node_affinity["requiredDuringSchedulingIgnoredDuringExecution"] = {
        "nodeSelectorTerms": terms or [{"matchFields": [pin]}]
    }
    return pinned


def _instances(workload: Workload, scheduler: Scheduler) -> list[tuple[str, str, dict[str, Any]]]:
    """(pod name, the name the API server reports, spec) of every pod the controller would create."""
    spec = dict(workload.template.get("spec") or {})
    if workload.replicas is None:  # DaemonSet
        found = []
        for node in scheduler.cluster.nodes:
            pinned = _daemon_spec(spec, node.name)
            if static_filters(PodConstraints.of(pinned, {}), node) is None:
                found.append((f"{workload.name}-{node.name}", f"{workload.name}-", pinned))
        return found
    if workload.kind == "Pod":
        return [(workload.name, workload.name, spec)]
    if workload.kind == "StatefulSet":
        return [(f"{workload.name}-{i}", f"{workload.name}-{i}", spec) for i in range(workload.replicas)]
    return [(f"{workload.name}-{i}", f"{workload.name}-", spec) for i in range(workload.replicas)]


def _instance_row(name: str, outcome: str, **extra: Any) -> dict[str, Any]:
    row: dict[str, Any] = {
        "name": name,
        "outcome": outcome,
        "node": None,
        "feasibleNodes": 0,
        "reasons": [],
        "errors": [],
        "claims": [],
        "event": None,
        "admission": [],
        "fix": [],
        "podSecurity": None,
    }
    row.update(extra)
    return row


def _refusal_fix(fixes: Fixes | None, namespace: str, refusals: list[Refusal]) -> list[str]:
    return fixes.for_refusals(namespace, refusals) if fixes is not None else []


def schedule_workload(
    scheduler: Scheduler,
    workload: Workload,
    inputs: FitInputs,
    admission: StackAdmission,
    fixes: Fixes | None = None,
) -> dict[str, Any]:
    extended = workload.extended
    use_extended = extended is not None and extended.spec is not None and inputs.gates.extended_resource
    instances: list[dict[str, Any]] = []
    stopped: str | None = None  # why the controller creates no more pods
    created = admitted = 0
    refusals: list[Refusal] = []  # every refusal of the API server, for the workload's fix
    for name, reported, spec in _instances(workload, scheduler):
        if stopped is not None:
            instances.append(_instance_row(name, NOT_CREATED, reasons=[stopped]))
            continue
        created += 1
        pod = _pod_object(workload, name, spec)
        verdict = admission.admit_pod(pod, reported, spec_path(workload.kind))
        security = verdict.pod_security.as_json() if verdict.pod_security and verdict.pod_security.evaluated else None
        if verdict.rejected or workload.rejected:
            why = verdict.rejected or "; ".join(workload.rejected)
            refusal = verdict.refusal or Refusal(why, fix="; ".join(workload.rejected_fix) or None)
            refusals.append(refusal)
            fix = _refusal_fix(fixes, workload.namespace, [refusal])
            row = _instance_row(name, REJECTED, reasons=[why], admission=verdict.changes, fix=fix, podSecurity=security)
            instances.append(row)
            if workload.kind in CONTROLLER_OF or workload.kind == "StatefulSet":
                controller = CONTROLLER_OF.get(workload.kind, workload.kind)
                stopped = f"not created: the {controller} stops at the refused create (FailedCreate: {why})"
            continue
        admitted += 1
        refused = _create_claims(scheduler, workload, name, admission)
        refusals += [r for _, r in refused]
        if refused:
            instances.append(
                _instance_row(
                    name,
                    UNSCHEDULABLE,
                    reasons=[why for why, _ in refused],
                    admission=verdict.changes + verdict.warnings,
                    fix=_refusal_fix(fixes, workload.namespace, [r for _, r in refused]),
                    podSecurity=security,
                )
            )
        else:
            row, refusal = _place(scheduler, workload, name, verdict.object, verdict, use_extended, admission, fixes)
            row["podSecurity"] = security
            instances.append(row)
            refusals += [refusal] if refusal is not None else []
        if workload.ordered and instances[-1]["outcome"] != ALLOCATED:
            stopped = f"not created: OrderedReady waits for {name} to be Running and Ready"
    report = _report(workload, instances, created, admitted, extended)
    # the controller object itself: admitted, with Pod Security's warnings (enforce judges the pods it creates)
    controller = (
        admission.admit_controller(workload.namespace, workload.template, spec_path(workload.kind))
        if workload.kind != "Pod"
        else None
    )
    report["warnings"] = list(controller.warnings) if controller is not None else []
    # filter fixes as the instances say them, refusals summed over the instances (what all of them need)
    report["fix"] = list(
        dict.fromkeys(
            [
                *(f for i in instances if i["outcome"] != ALLOCATED for f in i["fix"] if i.get("filters")),
                *_refusal_fix(fixes, workload.namespace, refusals),
            ]
        )
    )
    return report


def _create_claims(
    scheduler: Scheduler, workload: Workload, pod: str, admission: StackAdmission
) -> list[tuple[str, Refusal]]:
    """The resourceclaim controller creates the pod's template claims (each through quota); the refusals, each with
    the pod's reason."""
    refused = []
    for ref in workload.claims:
        if ref.template is None:
            continue
        template = scheduler.templates.get((workload.namespace, ref.template))
        if template is None or template.spec is None or template.rejected:
            continue  # no claim is created; the scheduler says why the pod waits
        error = admission.admit_claim(workload.namespace, f"{pod}-{ref.name}-", template.spec)
        if error:
            refused.append(
                (
                    f"FailedResourceClaimCreation: PodResourceClaim {ref.name}: create ResourceClaim: "
                    f"{error.message}; the pod stays Pending until the quota frees",
                    error,
                )
            )
    return refused


def _place(
    scheduler: Scheduler,
    workload: Workload,
    name: str,
    pod: Mapping[str, Any],
    verdict: Any,
    use_extended: bool,
    admission: StackAdmission,
    fixes: Fixes | None,
) -> tuple[dict[str, Any], Refusal | None]:
    """The instance's row, and the API server's refusal of the scheduler's extended-resource claim at PreBind."""
    spec = pod.get("spec") or {}
    extended = workload.extended
    facts = PodFacts(
        workload.namespace,
        PodConstraints.of(spec, verdict.requests),
        bool(spec.get("resourceClaims")),
        template=workload.kind != "Pod",
    )
    pod_spec = PodSpec(
        workload.namespace,
        name,
        workload.claims,
        workload.source,
        None,
        [],
        extended.spec if use_extended and extended is not None else None,
        PodConstraints.of(spec, verdict.requests),
        dict(extended.request_resources) if use_extended and extended is not None else {},
    )
    outcome = scheduler.schedule(pod_spec, reserve=pod_spec.extended is None)
    if pod_spec.extended is not None and outcome.kind == ALLOCATED:
        placed = next((c for c in outcome.claims if c.pod_claim == EXTENDED_CLAIM), None)
        error = None
        if placed is not None and extended is not None and extended.spec is not None:
            error = admission.admit_claim(
                workload.namespace, f"{name}-extended-resources-", extended.spec, verdict.requests
            )
        if error:
            row = _instance_row(
                name,
                UNSCHEDULABLE,
                reasons=[f"the scheduler's claim for extended resources is refused at PreBind: {error.message}"],
                admission=verdict.changes + verdict.warnings,
                fix=_refusal_fix(fixes, workload.namespace, [error]),
            )
            return row, error
        outcome = scheduler.schedule(pod_spec)
    filters = []
    for plugin, status, nodes in outcome.filters:
        fix = fixes.for_filter(status, nodes, facts) if fixes is not None else None
        filters.append(
            {
                "plugin": plugin,
                "nodes": len(nodes),
                "reason": "; ".join(status.reasons),
                "detail": status.detail,
                "pools": fixes.pools(nodes) if fixes is not None else [],
                "fix": fix,
            }
        )
    # one line per fix, naming every pool where a filter failed that this fix mends
    failing: dict[tuple[str, str], list[str]] = {}
    for entry, (_, _, nodes) in zip(filters, outcome.filters, strict=True):
        if entry["fix"]:
            failing.setdefault((entry["plugin"], entry["fix"]), []).extend(nodes)
    fix_lines = [
        f"{plugin} on {fixes.where(nodes)}: {fix}" for (plugin, fix), nodes in failing.items() if fixes is not None
    ]
    row = _instance_row(
        name,
        outcome.kind,
        node=outcome.node,
        feasibleNodes=outcome.feasible_nodes,
        reasons=outcome.reasons,
        errors=outcome.errors,
        claims=[
            {
                "name": c.pod_claim,
                "claim": c.claim,
                "outcome": c.kind,
                "devices": c.devices,
                "subrequests": c.subrequests,
                "reason": c.reason,
            }
            for c in outcome.claims
        ],
        event=outcome.event,
        admission=verdict.changes + verdict.warnings,
        filters=filters,
        fix=fix_lines,
    )
    return row, None


def _report(
    workload: Workload, instances: list[dict[str, Any]], created: int, admitted: int, extended: Any
) -> dict[str, Any]:
    kinds = [i["outcome"] for i in instances]
    placed = kinds.count(ALLOCATED)
    overall = next((k for k in (REJECTED, "error", UNSCHEDULABLE, NOT_CREATED) if k in kinds), ALLOCATED)
    if overall == NOT_CREATED:
        overall = UNSCHEDULABLE
    if not instances:
        overall = UNSCHEDULABLE
    rows = []
    for ref in workload.claims:
        if ref.template:
            rows.append(f"{workload.namespace}/{ref.template}")
        elif ref.claim:
            rows.append(f"{workload.namespace}/{ref.claim}")
    if extended is not None:
        rows.append(f"{extended.namespace}/{extended.name}")
    reasons = list(dict.fromkeys(r for i in instances if i["outcome"] != ALLOCATED for r in i["reasons"]))
    if extended is not None and extended.reasons:
        reasons += extended.reasons
    if workload.replicas is None and not instances:
        reasons.append(
            "the DaemonSet controller creates no pod: no node's taints are tolerated and labels matched by its pod "
            "template"
        )
    return {
        "source": workload.source,
        "kind": workload.kind,
        "namespace": workload.namespace,
        "name": workload.name,
        "replicas": len(instances),
        "created": created,
        "admitted": admitted,
        "placed": placed,
        "outcome": overall,
        "claims": rows,
        "reasons": reasons,
        "fix": [],
        "errors": list(dict.fromkeys(e for i in instances for e in i["errors"])),
        "instances": instances,
    }


def capacity_left(scheduler: Scheduler, pools: Mapping[str, str]) -> list[dict[str, Any]]:
    """Per pool: nodes, DRA devices free of all, and the allocatable left of what its nodes advertise."""
    cluster = scheduler.cluster
    found: dict[str, dict[str, Any]] = {}
    for node in cluster.nodes:
        pool = pools.get(node.name, node.name)
        row = found.setdefault(pool, {"pool": pool, "nodes": 0, "devices": {"free": 0, "total": 0}, "allocatable": {}})
        row["nodes"] += 1
        for view in cluster.pools(node):
            for slice_ in view.slices:
                for device in slice_.devices:
                    row["devices"]["total"] += 1
                    if (view.driver, view.pool, device.name) not in cluster.usage.allocated:
                        row["devices"]["free"] += 1
        requested = scheduler.requested.get(node.name, {})
        for resource, amount in node.allocatable.items():
            bucket = row["allocatable"].setdefault(resource, {"free": 0, "total": 0})
            used = scheduler.pods_on.get(node.name, 0) if resource == "pods" else requested.get(resource, 0)
            bucket["free"] += amount - used
            bucket["total"] += amount
    return list(found.values())
