"""What a config change does to a running stack: two offline runs of the program compared per URN.

The `before` run is the stack file as deployed (a git revision or another file), the `after` run is the
edited one. For each URN: create, delete, update (with the changed input paths) or replace (with the
path that forces it, from dra_gpu_platform/facts/replacements.py), the way the Pulumi engine decides:

- a resource's own inputs decide; options.ignoreChanges is honoured and options.replaceOnChanges too;
- a parent being replaced does not replace its children;
- an input fed by an output of a replaced resource is unknown in a real preview (the replacement has a new
  id, ARN, endpoint ...), so it counts as changed: that can replace the dependent (a node group whose
  launchTemplate.id comes from a replaced launch template) or update it;
- outputs a provider recomputes on update (a launch template's latestVersion) are unknown too;
- a resource whose Kubernetes provider is replaced is replaced (step_generator providerChanged).

Safety verdicts refuse a replace or delete of a protected resource, a node pool, a cluster (kind: the
cluster Command, every node) or a namespace that has claim templates, unless `--allow-replace` names it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.facts import replacements as rules
from dra_gpu_platform.facts.node_labels import POOL_LABEL
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.recorded import pools as recorded
from gpuplan.diff import names
from gpuplan.engine.outputs import SIG_KEY, clean
from gpuplan.engine.runtime import ProgramRun, Registration

OPS = ("create", "update", "replace", "delete", "same")

NODE_POOL_TYPES = frozenset({Upstream.EKS_NODE_GROUP, Upstream.AKS_AGENT_POOL})
CLUSTER_TYPES = frozenset({Upstream.EKS_CLUSTER, Upstream.AKS_MANAGED_CLUSTER})
RESOURCE_GROUP = Upstream.AZURE_RESOURCE_GROUP
COMMAND = Upstream.COMMAND
NAMESPACE = Upstream.NAMESPACE
CLAIM_TEMPLATE = Upstream.RESOURCE_CLAIM_TEMPLATE
LAUNCH_TEMPLATE = Upstream.EC2_LAUNCH_TEMPLATE
GPU_POOL_COMPONENTS = (":cluster:EksGpuNodePool", ":cluster:AksGpuPool")
KIND_CLUSTER_COMPONENT = ":cluster:KindCluster"

# Mock ids are "<name>-id" (gpuplan/engine/runtime.py _Mocks.new_resource); output strings shorter than this are
# status words ("ACTIVE"), not identities worth tracing into other resources' inputs.
MIN_TRACED_OUTPUT = 12

Path = tuple  # of str (map keys) and int (list indices)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_MISSING = object()


# ------------------------------------------------------------------------------------------------ paths


def render_path(path: Path) -> str:
    """`spec.hard["count/resourceclaims.resource.k8s.io"]`, `instanceTypes[0]`."""
    out = ""
    for token in path:
        if isinstance(token, int):
            out += f"[{token}]"
        elif _IDENT.match(token):
            out += f".{token}" if out else token
        else:
            out += '["' + token.replace('"', '\\"') + '"]'
    return out


def parse_path(text: str) -> Path:
    """Rule paths: `a.b`, `a[*].b`, `a["key"]`; `*` matches any list index or key."""
    tokens: list[Any] = []
    for match in re.finditer(r'\["((?:[^"\\]|\\.)*)"\]|\[(\*|\d+)\]|([^.\[\]]+)', text):
        quoted, index, name = match.groups()
        if quoted is not None:
            tokens.append(quoted.replace('\\"', '"'))
        elif index is not None:
            tokens.append("*" if index == "*" else int(index))
        else:
            tokens.append(name)
    return tuple(tokens)


def _covers(rule: Path, path: Path) -> bool:
    """The rule path equals the changed path or is an ancestor of it, or the changed path is an
    ancestor of the rule path (a whole block added or removed)."""
    return all(not (a not in ("*", b)) for a, b in zip(rule, path, strict=False))


def leaves(value: Any, prefix: Path = ()) -> dict[Path, Any]:
    out: dict[Path, Any] = {}
    if isinstance(value, dict) and value:
        for key, item in value.items():
            out.update(leaves(item, (*prefix, key)))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            out.update(leaves(item, (*prefix, index)))
    elif prefix:
        out[prefix] = value
    return out


def _get(tree: Any, path: Path) -> Any:
    for token in path:
        if (isinstance(tree, dict) and token in tree) or (
            isinstance(tree, list) and isinstance(token, int) and token < len(tree)
        ):
            tree = tree[token]
        else:
            return _MISSING
    return tree


def _has_prefix(paths: Iterable[Path], prefix: Path) -> bool:
    return any(p[: len(prefix)] == prefix for p in paths)


def compress(changed: Iterable[Path], old: dict[Path, Any], new: dict[Path, Any]) -> dict[Path, Path]:
    """Changed leaf → the path reported for it: a wholly added or removed block once (`launchTemplate`),
    not leaf by leaf."""
    out: dict[Path, Path] = {}
    for path in changed:
        out[path] = path
        for cut in range(1, len(path)):
            ancestor = path[:cut]
            if not _has_prefix(old, ancestor) or not _has_prefix(new, ancestor):
                out[path] = ancestor
                break
    return out


def _unwrap(value: Any) -> Any:
    """Inputs with secrets revealed (for tracing values only; never printed)."""
    if isinstance(value, dict):
        if SIG_KEY in value:
            return _unwrap(value.get("value"))
        return {k: _unwrap(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unwrap(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


# ----------------------------------------------------------------------------------------------- result


@dataclass
class Change:
    urn: str
    type: str
    name: str
    op: str
    custom: bool = True
    paths: list[str] = field(default_factory=list)
    replace_reasons: list[str] = field(default_factory=list)
    may_replace: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)  # paths fed by outputs that a real preview cannot know
    rolling: list[str] = field(default_factory=list)  # in-place changes that still replace every node
    source: str | None = None
    consequences: list[str] = field(default_factory=list)
    refused: bool = False
    allowable: bool = True  # False: no --allow-replace can make the change possible (a control plane downgrade)
    allowed: bool = False
    why: str | None = None
    how: str | None = None
    renamed_from: str | None = None
    renamed_to: str | None = None
    values: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # path -> (old, new), for text output

    def as_json(self) -> dict[str, Any]:
        return {
            "urn": self.urn,
            "type": self.type,
            "op": self.op,
            "paths": self.paths,
            "replaceReasons": self.replace_reasons,
            "mayReplace": self.may_replace,
            "unknownAfterApply": self.unknown,
            "rollsNodes": self.rolling,
            "source": self.source,
            "consequences": self.consequences,
            "refused": self.refused,
            "allowable": self.allowable,
            "allowed": self.allowed,
            "why": self.why,
            "howToDoItSafely": self.how,
        }


@dataclass
class DiffReport:
    stack: str
    against: str
    changes: list[Change]

    def summary(self) -> dict[str, int]:
        counts = dict.fromkeys(OPS, 0)
        for change in self.changes:
            counts[change.op] += 1
        counts["mayReplace"] = sum(1 for c in self.changes if c.op == "update" and c.may_replace)
        return counts

    @property
    def refused(self) -> list[Change]:
        return [c for c in self.changes if c.refused]

    def by_urn(self) -> dict[str, Change]:
        return {c.urn: c for c in self.changes}

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "against": self.against,
            "changes": [
                {**c.as_json(), "allowReplace": names.short_name(c, self.changes) if c.refused or c.allowed else None}
                for c in self.changes
            ],
            "summary": self.summary(),
            "refused": [c.urn for c in self.refused],
            "allowed": [c.urn for c in self.changes if c.allowed],
        }


# ---------------------------------------------------------------------------------------- classification


@dataclass
class _Pair:
    old: Registration
    new: Registration
    old_leaves: dict[Path, Any]
    new_leaves: dict[Path, Any]
    changed: set[Path] = field(default_factory=set)
    unknown: dict[Path, str] = field(default_factory=dict)  # path -> which replaced/updated resource feeds it
    provider_replaced: str | None = None


def _ignored(path: Path, ignore: list[Path]) -> bool:
    return any(len(path) >= len(i) and all(a in ("*", b) for a, b in zip(i, path, strict=False)) for i in ignore)


def _classify(pair: _Pair, change: Change) -> None:
    rule = rules.rule_for(pair.new.type)
    options = pair.new.options
    ignore = [parse_path(p) for p in options.get("ignoreChanges", [])]
    replace_on = [parse_path(p) for p in options.get("replaceOnChanges", [])]
    paths = sorted((p for p in pair.changed | set(pair.unknown) if not _ignored(p, ignore)), key=render_path)
    change.source = rule.source if rule else None
    replace: list[str] = []
    may: list[str] = []
    for path in paths:
        text = render_path(path)
        if replace_on and any(r == ("*",) or _covers(r, path) for r in replace_on):
            replace.append(text)
        elif rule is None:
            may.append(text)
        elif _is_replace(rule, path, pair):
            replace.append(text)
        elif rule.complete or any(_covers(parse_path(u), path) for u in rule.updatable):
            continue
        else:
            may.append(text)
    if pair.provider_replaced:
        replace.append("provider")
        change.consequences.append(
            f"its Kubernetes provider {pair.provider_replaced} is replaced: the object is recreated through the "
            "new provider (in the new cluster when the cluster itself is replaced)"
        )
    shown = compress([p for p in paths if p not in pair.unknown], pair.old_leaves, pair.new_leaves)
    reported = {render_path(p): render_path(shown.get(p, p)) for p in paths}
    replace = _unique(reported.get(p, p) for p in replace)
    may = _unique(reported[p] for p in may)
    blocks = _unique(shown.values())
    change.paths = [render_path(p) for p in blocks] + [render_path(p) for p in paths if p in pair.unknown]
    change.unknown = [f"{render_path(p)} (from {pair.unknown[p]})" for p in paths if p in pair.unknown]
    change.values = {render_path(p): (_get(clean(pair.old.inputs), p), _get(clean(pair.new.inputs), p)) for p in blocks}
    change.replace_reasons = replace
    change.may_replace = [] if replace else may
    rolling = rule.rolling_update if rule else ()
    change.rolling = (
        []
        if replace
        else _unique(reported[render_path(p)] for p in paths if any(_covers(parse_path(r), p) for r in rolling))
    )
    if replace:
        change.op = "replace"
    elif paths:
        change.op = "update"
    else:
        change.op = "same"


def _unique(items: Iterable[Any]) -> list[Any]:
    return list(dict.fromkeys(items))


def _is_replace(rule: rules.TypeRule, path: Path, pair: _Pair) -> bool:
    if pair.new.type == rules.KUBERNETES_PROVIDER and rules.KUBERNETES_PROVIDER_IDENTIFIER in pair.new.inputs:
        # With clusterIdentifier set, only a change of it replaces the provider (SDK docstring).
        return path[:1] == (rules.KUBERNETES_PROVIDER_IDENTIFIER,)
    if any(_covers(parse_path(r), path) for r in rule.replace):
        return True
    for block in rule.replace_if_removed:
        prefix = parse_path(block)
        if (
            path[: len(prefix)] == prefix
            and _has_prefix(pair.old_leaves, prefix)
            and not _has_prefix(pair.new_leaves, prefix)
        ):
            return True
    return False


# ------------------------------------------------------------------------------------- unknown outputs


def _computed_strings(resource: Registration) -> list[str]:
    """Values a real preview would not know for a replaced resource: its id and every output that is
    not one of its own inputs (ARNs, endpoints, generated names, kubeconfigs)."""
    inputs = leaves(_unwrap(resource.inputs))
    input_values = {v for v in inputs.values() if isinstance(v, str)}
    found = [f"{resource.name}-id"] if resource.custom else []
    for path, value in leaves(_unwrap(resource.state)).items():
        if path in inputs or not isinstance(value, str) or len(value) < MIN_TRACED_OUTPUT or value in input_values:
            continue
        found.append(value)
    return found


def _recomputed_on_update(resource: Registration, changed: Iterable[Path]) -> list[str]:
    rule = rules.rule_for(resource.type)
    if rule is None or not rule.outputs_changed_by_update:
        return []
    if all(path[:1] and path[0] in rule.outputs_kept_when_only for path in changed):
        return []
    state = _unwrap(resource.state)
    return [str(state[key]) for key in rule.outputs_changed_by_update if state.get(key) not in (None, "")]


def _traced_paths(dependent: Registration, source_urn: str, values: list[str], exact: list[str]) -> list[Path]:
    """Input paths of `dependent` that carry one of the source's unknown values. When the engine recorded
    per-property dependencies, only properties that depend on the source count."""
    deps = getattr(dependent, "property_dependencies", None) or {}
    fed = {prop for prop, urns in deps.items() if source_urn in urns}
    hits = []
    for path, value in leaves(_unwrap(dependent.inputs)).items():
        if not isinstance(value, str) or (deps and path[0] not in fed):
            continue
        if any(v in value for v in values) or value in exact:
            hits.append(path)
    return hits


# ------------------------------------------------------------------------------------------------ safety


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
    prefix = 0
    while prefix < min(len(a), len(b)) and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < min(len(a), len(b)) - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return (prefix + suffix) / max(len(a), len(b))


def _pair_renames(changes: list[Change]) -> None:
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


# ---------------------------------------------------------------------------------------------- the diff


def diff_runs(before: ProgramRun, after: ProgramRun, *, against: str = "") -> DiffReport:
    old_by, new_by = before.by_urn(), after.by_urn()
    changes: dict[str, Change] = {}
    pairs: dict[str, _Pair] = {}
    for urn in sorted(set(old_by) | set(new_by)):
        old, new = old_by.get(urn), new_by.get(urn)
        resource = new or old
        change = Change(urn=urn, type=resource.type, name=resource.name, op="same", custom=resource.custom)
        changes[urn] = change
        if old is None:
            change.op = "create"
        elif new is None:
            change.op = "delete"
        else:
            old_leaves, new_leaves = leaves(clean(old.inputs)), leaves(clean(new.inputs))
            pair = _Pair(old, new, old_leaves, new_leaves)
            pair.changed = {
                p
                for p in set(old_leaves) | set(new_leaves)
                if old_leaves.get(p, _MISSING) != new_leaves.get(p, _MISSING)
            }
            pairs[urn] = pair
            _classify(pair, change)

    _propagate(after, pairs, changes)
    _add_consequences(before, after, changes)
    ordered = [changes[urn] for urn in sorted(changes)]
    _pair_renames(ordered)
    _apply_verdicts(before, after, ordered)
    _refuse_version_steps(before, after, ordered)
    return DiffReport(stack=after.stack, against=against, changes=ordered)


def _propagate(after: ProgramRun, pairs: dict[str, _Pair], changes: dict[str, Change]) -> None:
    """Unknown outputs of replaced (or output-recomputing updated) resources flow into their dependents'
    inputs; a replaced Kubernetes provider replaces its objects. Repeat until nothing moves."""
    new_by = after.by_urn()
    traced: set[tuple[str, str, str]] = set()
    while True:
        moved = False
        for urn, pair in pairs.items():
            for source_urn in [*pair.new.dependencies, pair.new.provider]:
                source = changes.get(source_urn)
                registration = new_by.get(source_urn)
                if source is None or registration is None or source.op not in ("replace", "update"):
                    continue
                key = (urn, source_urn, source.op)
                if key in traced:
                    continue
                traced.add(key)
                if source_urn == pair.new.provider:
                    if source.op == "replace":
                        pair.provider_replaced = source.name
                        moved = True
                    continue
                values = _computed_strings(registration) if source.op == "replace" else []
                source_pair = pairs.get(source_urn)
                changed = (source_pair.changed | set(source_pair.unknown)) if source_pair else set()
                hits = _traced_paths(pair.new, source_urn, values, _recomputed_on_update(registration, changed))
                for path in hits:
                    if path not in pair.unknown:
                        pair.unknown[path] = f"{source.op}d {registration.type} {registration.name}"
                        moved = True
        if not moved:
            return
        for urn, pair in pairs.items():
            change = changes[urn]
            change.consequences = [c for c in change.consequences if not c.startswith("its Kubernetes provider")]
            _classify(pair, change)


def _add_consequences(before: ProgramRun, after: ProgramRun, changes: dict[str, Change]) -> None:
    old_by, new_by = before.by_urn(), after.by_urn()
    for change in changes.values():
        resource = new_by.get(change.urn) or old_by.get(change.urn)
        if change.op not in ("replace", "delete") or resource is None:
            continue
        if resource.type in CLUSTER_TYPES or (resource.type == COMMAND and KIND_CLUSTER_COMPONENT in resource.urn):
            component = resource.parent
            pools = sorted(
                r.name for r in before.resources if r.type in NODE_POOL_TYPES and _under(r, component, before)
            )
            objects = [r for r in before.resources if r.custom and _under_provider(r, component, before)]
            if pools:
                change.consequences.append(f"its node pools go with it: {', '.join(pools)}")
            if objects:
                change.consequences.append(
                    f"{len(objects)} Kubernetes objects and Helm releases are recreated in the new cluster, empty: "
                    "running pods, ResourceClaims and Helm-managed state are not carried over"
                )
    for change in changes.values():
        if change.op == "update" and change.rolling:
            change.consequences.append(
                f"{', '.join(change.rolling)} rolls every node of the pool: each is replaced by a new node, pods drained first"
            )
        if change.op == "update" and change.type == COMMAND:
            change.consequences.append(
                "the Command has no update script: Pulumi runs `create` again, and `kind create cluster` cannot change "
                "an existing cluster"
            )


def _under(resource: Registration, ancestor: str, run: ProgramRun) -> bool:
    by_urn = run.by_urn()
    parent = resource.parent
    while parent:
        if parent == ancestor:
            return True
        parent = by_urn[parent].parent if parent in by_urn else ""
    return False


def _under_provider(resource: Registration, cluster_component: str, run: ProgramRun) -> bool:
    provider = run.by_urn().get(resource.provider) if resource.provider else None
    return provider is not None and provider.parent == cluster_component


def _apply_verdicts(before: ProgramRun, after: ProgramRun, changes: list[Change]) -> None:
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

_EKS_UPDATE = "https://docs.aws.amazon.com/eks/latest/userguide/update-cluster.html"
_EKS_ROLLBACK = "https://docs.aws.amazon.com/eks/latest/userguide/rollback-cluster.html"
_AKS_UPGRADE = "https://learn.microsoft.com/en-us/azure/aks/upgrade-cluster"


def version_step(platform: str, old_minor: int, new_minor: int) -> tuple[str, str, bool] | None:
    """(why, how, allowable) when a managed control plane cannot go from 1.<old> to 1.<new> in one `pulumi up`;
    None when it can. EKS and AKS upgrade one minor at a time; AKS has no downgrade; EKS rolls back exactly one
    minor, and only within 7 days of an in-place upgrade (docs/references.md#eks-version-steps,
    docs/references.md#aks-version-steps)."""
    if platform not in ("eks", "aks") or new_minor == old_minor or new_minor == old_minor + 1:
        return None
    cloud = "EKS" if platform == "eks" else "AKS"
    change = f"Kubernetes 1.{old_minor} → 1.{new_minor}"
    steps = " → ".join(f"1.{m}" for m in range(old_minor, new_minor + 1))
    if new_minor > old_minor:
        source = _EKS_UPDATE if platform == "eks" else _AKS_UPGRADE
        return (
            f"{change} skips {new_minor - old_minor - 1} minor version(s): {cloud} upgrades a control plane one "
            f"minor at a time ({source}), so the update fails part way",
            f"upgrade in steps, one `pulumi up` per minor: {steps}",
            False,
        )
    if platform == "eks" and new_minor == old_minor - 1:
        return (
            f"{change} is a downgrade: EKS can only roll a control plane back one minor, within 7 days of an "
            f"in-place upgrade from 1.{new_minor} ({_EKS_ROLLBACK}); gpuplan cannot see when the upgrade was",
            f"if the cluster was upgraded from 1.{new_minor} in place in the last 7 days, roll back with EKS (then "
            f"--allow-replace the cluster to accept this diff); otherwise keep 1.{old_minor}",
            True,
        )
    rollback = (
        " EKS rolls a control plane back one minor at most"
        if platform == "eks"
        else " AKS has no control-plane downgrade, its upgrades only go forward, one minor at a time"
    )
    return (
        f"{change} is a downgrade:{rollback} ({_EKS_ROLLBACK if platform == 'eks' else _AKS_UPGRADE})",
        f'keep kubernetesVersion "1.{old_minor}"; to run 1.{new_minor}, build a new cluster (another stack) and move '
        "the workloads",
        False,
    )


def _refuse_version_steps(before: ProgramRun, after: ProgramRun, changes: list[Change]) -> None:
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


def allow(report: DiffReport, requested: Iterable[str]) -> list[str]:
    """Accept refused changes on purpose (--allow-replace): each value is a URN, or a logical name or `type::name`
    that names exactly one change (gpuplan/diff/names.py). Returns the values that matched nothing."""
    unmatched: list[str] = []
    for value in requested:
        found = names.matching(value, report.changes)
        if len(found) != 1:
            unmatched.append(value)
            continue
        change = report.by_urn()[found[0].urn]
        if change.refused and change.allowable:
            change.refused, change.allowed = False, True
    return unmatched
