"""What a change costs a running stack, for `gpuplan diff`: the safety verdicts that refuse a replace, delete or
node roll of a protected resource, a node pool, a cluster (kind: the cluster Command, every node), a resource group
or a namespace that has claim templates, unless `--allow-replace` names it; the control-plane version steps one
`pulumi up` cannot take (dra_gpu_platform/facts/kubernetes.py version_step); and the rename hints that pair a
deleted resource with a created one of the same type (keep its identity with an alias).
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.facts import replacements as rules
from dra_gpu_platform.facts.kubernetes import version_step
from dra_gpu_platform.facts.node_labels import POOL_LABEL
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.recorded import pools as recorded
from gpuplan.diff.engine import (
    CLAIM_TEMPLATE,
    CLUSTER_TYPES,
    COMMAND,
    GPU_POOL_COMPONENTS,
    KIND_CLUSTER_COMPONENT,
    LAUNCH_TEMPLATE,
    NAMESPACE,
    NODE_POOL_TYPES,
    RESOURCE_GROUP,
    Change,
)
from gpuplan.engine.outputs import clean
from gpuplan.engine.runtime import ProgramRun, Registration
from gpuplan.output.layout import common_ends

# ------------------------------------------------------------------------------------------------ verdicts


@dataclass(frozen=True)
class _Verdict:
    why: str
    how: str


def _gpu_pool(resource: Registration, before: ProgramRun) -> PoolPlan | None:
    """The GPU pool a node group or agent pool declares, read back by the policy pack's adapter (with the EKS node
    group's launch template, its sibling)."""
    template = next(
        (
            clean(sibling.inputs)
            for sibling in before.resources
            if sibling.type == LAUNCH_TEMPLATE and resource.parent and sibling.parent == resource.parent
        ),
        None,
    )
    pools = recorded.pools_of(resource.type, resource.name, clean(resource.inputs), template)
    return pools[0] if pools else None


def _claim_templates(before: ProgramRun, namespace: str) -> list[str]:
    return sorted(
        (clean(r.inputs).get("metadata") or {}).get("name", r.name)
        for r in before.of_type(CLAIM_TEMPLATE)
        if (clean(r.inputs).get("metadata") or {}).get("namespace") == namespace
    )


def _verdict(resource: Registration, op: str, before: ProgramRun) -> _Verdict | None:
    """Why a replace, delete or node roll of this resource is refused, or None when it is not critical.
    op: replace | delete | roll."""
    verb = {"replace": "replacing", "delete": "deleting", "roll": "rolling"}[op]
    inputs = clean(resource.inputs)
    reasons: list[str] = []
    how: list[str] = []
    if resource.type in NODE_POOL_TYPES:
        gpu = any(c in resource.urn for c in GPU_POOL_COMPONENTS)
        gpu_pool = _gpu_pool(resource, before) if gpu else None
        pool = gpu_pool.name if gpu_pool else None
        if op == "roll" and not gpu:
            return None
        size = (inputs.get("scalingConfig") or {}).get("maxSize") or inputs.get("maxCount")
        what = (f"GPU pool `{pool}`" if pool else "this GPU pool") if gpu else "the system node pool"
        pods = "training and inference jobs on its GPUs stop" if gpu else "the pods on it are evicted"
        if op == "roll":
            batch = (inputs.get("updateConfig") or {}).get("maxUnavailable") or 1
            reasons.append(
                f"the change rolls every node of {what} (up to {size}): EKS replaces each node with a new one, "
                f"{batch} at a time, draining its pods first, so {pods}"
            )
        else:
            reasons.append(f"{verb} {what} terminates every node in it (up to {size}): {pods}")
        reservation = gpu_pool.capacity_reservation_id if gpu_pool else None
        if reservation:
            reasons.append(
                f"capacity reservation {reservation} is bound to this pool: new nodes only start on it while the "
                "reservation is active, for its instance type, in its zone"
            )
        label = pool or "<pool>"
        how.append(
            "add a new pool beside this one in nodePools (a new name, the new settings), `pulumi up`, then "
            f"cordon and drain the old nodes (`kubectl drain -l {POOL_LABEL}={label} --ignore-daemonsets "
            "--delete-emptydir-data`) when their jobs allow it, and only then remove the old pool from the stack "
            "file in a second `pulumi up`"
        )
    elif resource.type in CLUSTER_TYPES:
        reasons.append(
            f"{verb} the cluster loses everything in it: every node pool, every workload and every Kubernetes "
            "object (namespaces, claims, quotas, DeviceClasses, Helm releases)"
        )
        how.append(
            "build the new cluster beside the old one (another stack), move the workloads, then retire the old "
            "stack; never let one `pulumi up` replace a running cluster"
        )
    elif resource.type == COMMAND and KIND_CLUSTER_COMPONENT in resource.urn:
        reasons.append(
            "the kind cluster is deleted (`kind delete cluster`) and created again: every node of it and "
            "everything running in it is gone"
        )
        how.append(
            "recreate the dev cluster on purpose (`pulumi destroy`, then `pulumi up`), or accept it with --allow-replace"
        )
    elif resource.type == RESOURCE_GROUP:
        reasons.append(f"{verb} the resource group deletes every resource in it, the AKS cluster included")
        how.append("keep the resource group; create a new one beside it for a new cluster, move, then retire the old")
    elif resource.type == NAMESPACE:
        namespace = (inputs.get("metadata") or {}).get("name", resource.name)
        templates = _claim_templates(before, namespace)
        if templates:
            reasons.append(
                f"{verb} namespace `{namespace}` deletes everything in it: the ResourceClaims made from its claim "
                f"templates ({', '.join(templates)}) and the pods that use them"
            )
            how.append(
                "create the new namespace beside the old one, move the workloads and their claims, then remove the "
                "old namespace; to change only labels or the migration state, edit the namespace in place"
            )
    if resource.protect and op != "roll":
        reasons.append("protect is set on it: `pulumi up` refuses to delete it and stops part way")
        how.append("if this is intended, lift protect first (cluster.protect: false) in its own `pulumi up`")
    if not reasons:
        return None
    return _Verdict(why="; ".join(reasons), how="; ".join(how))


# ------------------------------------------------------------------------------------------------ renames


def _qualified_type(urn: str) -> str:
    return urn.split("::")[2]


def _similarity(a: str, b: str) -> float:
    """How much of the longer name the two share at their ends (`gpu-a100` and `gpu-a100-new`: 8 of 12)."""
    prefix, suffix = common_ends(a, b)
    return (prefix + suffix) / max(len(a), len(b))


def pair_renames(changes: list[Change]) -> None:
    deleted = [c for c in changes if c.op == "delete"]
    created = [c for c in changes if c.op == "create"]
    candidates = sorted(
        (
            (_similarity(d.name, c.name), d, c)
            for d in deleted
            for c in created
            if _qualified_type(d.urn) == _qualified_type(c.urn)
        ),
        key=lambda item: -item[0],
    )
    used: set[str] = set()
    for score, old, new in candidates:
        if score < 0.5 or old.urn in used or new.urn in used:
            continue
        used.update({old.urn, new.urn})
        old.renamed_to, new.renamed_from = new.name, old.name


def _alias_hint(change: Change) -> str:
    hint = (
        f"this looks like a rename of `{change.name}` to `{change.renamed_to}`: if it is the same thing under a new "
        f'name, keep its identity with `opts=pulumi.ResourceOptions(aliases=[pulumi.Alias(name="{change.name}")])` on '
        "the new resource (and the same on its parent component when that was renamed too), with a comment saying "
        "why; Pulumi then updates it in place instead of deleting and creating it"
    )
    if change.type.startswith("kubernetes:") and rules.kubernetes_kind(change.type):
        hint += "; a Kubernetes object's metadata.name cannot change in place, so an alias alone does not keep it"
    return hint


def apply_verdicts(before: ProgramRun, after: ProgramRun, changes: list[Change]) -> None:
    old_by, new_by = before.by_urn(), after.by_urn()
    for change in changes:
        resource = old_by.get(change.urn) or new_by.get(change.urn)
        if resource is None:
            continue
        verdict = None
        if change.op in ("replace", "delete"):
            verdict = _verdict(resource, change.op, before)
        elif change.op == "update" and change.type == COMMAND and KIND_CLUSTER_COMPONENT in change.urn:
            # No update script: create runs again, and kind cannot change a running cluster's nodes.
            found = _verdict(resource, "replace", before)
            verdict = _Verdict(
                why="updating the kind cluster Command re-runs `kind create cluster`, which cannot change a running "
                "cluster: it has to be deleted and created again. " + (found.why if found else ""),
                how=found.how if found else "",
            )
        elif change.op == "update" and change.may_replace:
            found = _verdict(resource, "replace", before)
            if found:
                verdict = _Verdict(
                    why=f"gpuplan cannot tell whether {', '.join(change.may_replace)} replaces it; if it does: {found.why}",
                    how=f"check with `pulumi preview --diff` before `pulumi up`; {found.how}",
                )
        if verdict is None and change.op == "update" and change.rolling:
            verdict = _verdict(resource, "roll", before)
        if verdict is None:
            if change.renamed_from:
                change.how = f"created as the counterpart of deleted `{change.renamed_from}`"
            continue
        how = verdict.how
        if change.renamed_to:
            how = f"{_alias_hint(change)}; otherwise {how}" if how else _alias_hint(change)
        change.why, change.how = verdict.why, how or None
        change.refused = True


# ------------------------------------------------------------------------------------------- version steps


def refuse_version_steps(before: ProgramRun, after: ProgramRun, changes: list[Change]) -> None:
    if before.config is None or after.config is None or before.config.platform != after.config.platform:
        return  # a different platform is a new cluster: refused as a replace already
    step = version_step(after.config.platform, before.config.cluster.minor, after.config.cluster.minor)
    if step is None:
        return
    why, how, allowable = step
    clusters = [c for c in changes if c.type in CLUSTER_TYPES and c.op in ("update", "replace")]
    if not clusters:
        return
    for change in clusters:
        change.why = f"{why}; {change.why}" if change.refused and change.why else why
        change.how = f"{how}; {change.how}" if change.refused and change.how else how
        change.refused = True
        change.allowable = change.allowable and allowable
