"""How the Pulumi engine would see a config change: two offline runs of the program compared per URN, for
`gpuplan diff`.

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

What a change costs (refusals, rename hints, version steps) is judged afterwards: gpuplan/diff/safety.py.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.facts import replacements as rules
from dra_gpu_platform.facts.type_tokens import Upstream
from gpuplan.diff.paths import (
    MISSING,
    Path,
    compress,
    covers,
    has_prefix,
    ignored,
    leaves,
    parse_path,
    render_path,
    value_at,
)
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


def _classify(pair: _Pair, change: Change) -> None:
    rule = rules.rule_for(pair.new.type)
    options = pair.new.options
    ignore = [parse_path(p) for p in options.get("ignoreChanges", [])]
    replace_on = [parse_path(p) for p in options.get("replaceOnChanges", [])]
    paths = sorted((p for p in pair.changed | set(pair.unknown) if not ignored(p, ignore)), key=render_path)
    change.source = rule.source if rule else None
    replace: list[str] = []
    may: list[str] = []
    for path in paths:
        text = render_path(path)
        if replace_on and any(r == ("*",) or covers(r, path) for r in replace_on):
            replace.append(text)
        elif rule is None:
            may.append(text)
        elif _is_replace(rule, path, pair):
            replace.append(text)
        elif rule.complete or any(covers(parse_path(u), path) for u in rule.updatable):
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
    change.values = {
        render_path(p): (value_at(clean(pair.old.inputs), p), value_at(clean(pair.new.inputs), p)) for p in blocks
    }
    change.replace_reasons = replace
    change.may_replace = [] if replace else may
    rolling = rule.rolling_update if rule else ()
    change.rolling = (
        []
        if replace
        else _unique(reported[render_path(p)] for p in paths if any(covers(parse_path(r), p) for r in rolling))
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
    if any(covers(parse_path(r), path) for r in rule.replace):
        return True
    for block in rule.replace_if_removed:
        prefix = parse_path(block)
        if (
            path[: len(prefix)] == prefix
            and has_prefix(pair.old_leaves, prefix)
            and not has_prefix(pair.new_leaves, prefix)
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


# ------------------------------------------------------------------------------------------------ the runs


def classify_runs(before: ProgramRun, after: ProgramRun) -> list[Change]:
    """Every URN of either run with what the engine would do to it, sorted by URN."""
    old_by, new_by = before.by_urn(), after.by_urn()
    changes: dict[str, Change] = {}
    pairs: dict[str, _Pair] = {}
    for urn in sorted(set(old_by) | set(new_by)):
        old, new = old_by.get(urn), new_by.get(urn)
        resource = new or old
        assert resource is not None
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
                p for p in set(old_leaves) | set(new_leaves) if old_leaves.get(p, MISSING) != new_leaves.get(p, MISSING)
            }
            pairs[urn] = pair
            _classify(pair, change)

    _propagate(after, pairs, changes)
    _add_consequences(before, after, changes)
    return [changes[urn] for urn in sorted(changes)]


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
