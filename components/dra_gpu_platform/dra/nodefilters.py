"""The kube-scheduler's default filter plugins that run before DynamicResources, the kubelet's admission of a pod
bound by `spec.nodeName`, and the FailedScheduling text. Pure: no Pulumi imports, no I/O.

Order and rules (docs/references.md#scheduler-default-filters): kubernetes `pkg/scheduler/apis/config/v1/
default_plugins.go` `getDefaultPlugins` (NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts,
NodeResourcesFit, …, DynamicResources last); `framework/runtime/framework.go` `RunFilterPlugins` (a node keeps the
status of the first plugin that fails). Per plugin, `pkg/scheduler/framework/plugins/`:
- nodeunschedulable `Filter`: `spec.unschedulable` unless the pod tolerates node.kubernetes.io/unschedulable:NoSchedule;
- nodename `Fits`: `spec.nodeName` set and not this node (a pod with nodeName never reaches the scheduler: see
  `kubelet_admission`);
- tainttoleration `Filter`: the first NoSchedule/NoExecute taint no toleration tolerates (component-helpers
  `FindMatchingUntoleratedTaint`); the reason carries no taint since 1.35 (kubernetes#134740, cherry-picked to 1.34);
- nodeaffinity `Filter` (component-helpers `RequiredNodeAffinity.Match`): nodeSelector, then the required terms;
- noderesources `fitsRequest`: pods, cpu, memory, ephemeral-storage, then each scalar resource not delegated to DRA
  (`shouldDelegateResourceToDRA`); every shortfall listed; unresolvable when a request exceeds allocatable.
FailedScheduling: `framework/types.go` `FitError.Error` (reasons counted per node, the "<count> <reason>" strings
sorted, PostFilter's message after), `RunPostFilterPlugins` (DynamicResources then DefaultPreemption).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.model import NodeInfo
from dra_gpu_platform.dra.node_selectors import labels_match, node_selector_matches
from dra_gpu_platform.dra.pod_resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS
from dra_gpu_platform.dra.tolerations import Taint, Toleration, untolerated

NODE_UNSCHEDULABLE = "NodeUnschedulable"
NODE_NAME = "NodeName"
TAINT_TOLERATION = "TaintToleration"
NODE_AFFINITY = "NodeAffinity"
NODE_RESOURCES_FIT = "NodeResourcesFit"
DYNAMIC_RESOURCES = "DynamicResources"
FILTER_ORDER = (NODE_UNSCHEDULABLE, NODE_NAME, TAINT_TOLERATION, NODE_AFFINITY, NODE_RESOURCES_FIT, DYNAMIC_RESOURCES)

UNSCHEDULABLE_TAINT = Taint("node.kubernetes.io/unschedulable", "", "NoSchedule")
REASON_UNSCHEDULABLE = "node(s) were unschedulable"
REASON_NODE_NAME = "node(s) didn't match the requested node name"
REASON_TAINTS = "node(s) had untolerated taint(s)"
REASON_AFFINITY = "node(s) didn't match Pod's node affinity/selector"
REASON_TOO_MANY_PODS = "Too many pods"
REASON_PREEMPTION_NOT_HELPFUL = "Preemption is not helpful for scheduling"
REASON_NO_VICTIMS = "No preemption victims found for incoming pod"
POSTFILTER_NO_CLAIMS = "no new claims to deallocate"
POSTFILTER_STILL = "still not schedulable"
EVENT_LIMIT = 1024  # recorder note limit; longer messages end in " ..."


@dataclass(frozen=True)
class PodConstraints:
    """What the default filters read of a pod (after admission and defaulting)."""

    node_name: str | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    affinity: Mapping[str, Any] | None = None  # requiredDuringSchedulingIgnoredDuringExecution (a NodeSelector)
    tolerations: tuple[Toleration, ...] = ()
    requests: Mapping[str, int] = field(default_factory=dict)  # PodRequests (dra_gpu_platform/dra/pod_resources.py)

    @classmethod
    def of(cls, spec: Mapping[str, Any], requests: Mapping[str, int]) -> PodConstraints:
        affinity = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
            "requiredDuringSchedulingIgnoredDuringExecution"
        )
        return cls(
            node_name=str(spec["nodeName"]) if spec.get("nodeName") else None,
            node_selector={str(k): str(v) for k, v in (spec.get("nodeSelector") or {}).items()},
            affinity=affinity if isinstance(affinity, Mapping) else None,
            tolerations=tuple(Toleration.of(t) for t in spec.get("tolerations") or () if isinstance(t, Mapping)),
            requests=dict(requests),
        )

    def static_key(self) -> str:
        """Equal for pods the first four filters treat alike."""
        return json.dumps(
            [
                self.node_name,
                sorted(self.node_selector.items()),
                self.affinity,
                [(t.key, t.operator, t.value, t.effect) for t in self.tolerations],
            ],
            sort_keys=True,
            default=str,
        )


@dataclass(frozen=True)
class FilterStatus:
    """A plugin's verdict on one node: the scheduler's reasons (its own words), whether more room could help, and
    fit's own line naming what failed."""

    plugin: str
    reasons: tuple[str, ...]
    unresolvable: bool = True
    detail: str = ""
    taint: Taint | None = None  # TaintToleration: the first taint no toleration tolerates
    resources: tuple[str, ...] = ()  # NodeResourcesFit: what the node lacks (`pods` for Too many pods)


# ---------------------------------------------------------------------------------------------------
# the plugins


def node_unschedulable(pod: PodConstraints, node: NodeInfo) -> FilterStatus | None:
    if not node.unschedulable or any(t.tolerates(UNSCHEDULABLE_TAINT) for t in pod.tolerations):
        return None
    return FilterStatus(NODE_UNSCHEDULABLE, (REASON_UNSCHEDULABLE,), detail="the node is cordoned (spec.unschedulable)")


def node_name(pod: PodConstraints, node: NodeInfo) -> FilterStatus | None:
    if not pod.node_name or pod.node_name == node.name:
        return None
    return FilterStatus(NODE_NAME, (REASON_NODE_NAME,), detail=f"spec.nodeName is {pod.node_name}")


def taint_toleration(pod: PodConstraints, node: NodeInfo) -> FilterStatus | None:
    found = untolerated(pod.tolerations, node.taints)
    if not found:
        return None
    taint = found[0]
    text = f"{taint.key}={taint.value}:{taint.effect}" if taint.value else f"{taint.key}:{taint.effect}"
    return FilterStatus(TAINT_TOLERATION, (REASON_TAINTS,), detail=f"untolerated taint {text}", taint=taint)


def node_affinity(pod: PodConstraints, node: NodeInfo) -> FilterStatus | None:
    if pod.node_selector and not labels_match(pod.node_selector, node.labels):
        wrong = sorted(f"{k}={v}" for k, v in pod.node_selector.items() if node.labels.get(k) != v)
        return FilterStatus(
            NODE_AFFINITY, (REASON_AFFINITY,), detail=f"nodeSelector {', '.join(wrong)} not on the node"
        )
    if pod.affinity is not None and not affinity_matches(pod.affinity, node):
        return FilterStatus(
            NODE_AFFINITY, (REASON_AFFINITY,), detail="required node affinity matches none of the node's labels"
        )
    return None


def affinity_matches(selector: Mapping[str, Any], node: NodeInfo) -> bool:
    """The required node affinity: NodeSelector.Match on the node's labels and name."""
    return node_selector_matches(selector, node.labels, node.name)


def amount_text(resource: str, value: int) -> str:
    """An amount of a resource for people: cpu in millicores, memory and storage in Mi or Gi."""
    if resource == CPU:
        return f"{value}m"
    if resource in (MEMORY, EPHEMERAL_STORAGE) or resource.startswith("hugepages-"):
        return f"{value / (1024**3):.1f}Gi" if value >= 1024**3 else f"{value // (1024**2)}Mi"
    return str(value)


def node_resources_fit(
    pod: PodConstraints,
    node: NodeInfo,
    requested: Mapping[str, int],
    pods_on_node: int,
    delegated: Callable[[str, NodeInfo], bool] = lambda _r, _n: False,
) -> FilterStatus | None:
    """fitsRequest. `requested`: what pods already on the node request; `delegated(resource, node)`: the resource
    goes to DRA on this node (shouldDelegateResourceToDRA). cpu, memory, ephemeral-storage and pods the node does not
    state (allocatable unknown) are not checked."""
    allocatable = node.allocatable
    reasons: list[str] = []
    details: list[str] = []
    lacking: list[str] = []
    unresolvable = False
    if PODS in allocatable and pods_on_node + 1 > allocatable[PODS]:
        reasons.append(REASON_TOO_MANY_PODS)
        lacking.append(PODS)
        details.append(f"{pods_on_node} of {allocatable[PODS]} pods on the node")
    for resource, wanted in sorted(pod.requests.items(), key=lambda item: _resource_order(item[0])):
        if not wanted:
            continue
        native = resource in (CPU, MEMORY, EPHEMERAL_STORAGE)
        if native and resource not in allocatable:
            continue
        if not native and delegated(resource, node):
            continue
        have = allocatable.get(resource, 0)
        free = have - requested.get(resource, 0)
        if wanted > free:
            reasons.append(f"Insufficient {resource}")
            lacking.append(resource)
            unresolvable = unresolvable or wanted > have
            details.append(
                f"{resource}: the pod requests {amount_text(resource, wanted)}, the node has {amount_text(resource, have)} "
                f"allocatable" + (f", {amount_text(resource, have - free)} of it requested" if have - free else "")
            )
    if not reasons:
        return None
    return FilterStatus(NODE_RESOURCES_FIT, tuple(reasons), unresolvable, "; ".join(details), resources=tuple(lacking))


def _resource_order(resource: str) -> tuple[int, str]:
    return ({CPU: 0, MEMORY: 1, EPHEMERAL_STORAGE: 2}.get(resource, 3), resource)


STATIC_FILTERS: tuple[Callable[[PodConstraints, NodeInfo], FilterStatus | None], ...] = (
    node_unschedulable,
    node_name,
    taint_toleration,
    node_affinity,
)


def static_filters(pod: PodConstraints, node: NodeInfo) -> FilterStatus | None:
    """The first failure of the filters that depend only on the pod and the node, in profile order."""
    for plugin in STATIC_FILTERS:
        status = plugin(pod, node)
        if status is not None:
            return status
    return None


# ---------------------------------------------------------------------------------------------------
# the kubelet's admission of a pod bound by spec.nodeName


def kubelet_admission(
    pod: PodConstraints, node: NodeInfo, requested: Mapping[str, int], pods_on_node: int
) -> FilterStatus | None:
    """lifecycle/predicate.go generalFilter: node name, affinity and selector, resources (extended resources the node
    does not advertise are dropped, removeMissingExtendedResources), and only NoExecute taints."""
    noexecute = untolerated(pod.tolerations, node.taints, ("NoExecute",))
    if noexecute:
        taint = noexecute[0]
        return FilterStatus(
            TAINT_TOLERATION, (REASON_TAINTS,), detail=f"untolerated NoExecute taint {taint.key}", taint=taint
        )
    status = node_affinity(pod, node)
    if status is not None:
        return status
    advertised = {
        r: v for r, v in pod.requests.items() if r in (CPU, MEMORY, EPHEMERAL_STORAGE) or r in node.allocatable
    }
    return node_resources_fit(PodConstraints(requests=advertised), node, requested, pods_on_node)


# ---------------------------------------------------------------------------------------------------
# the FailedScheduling message


def fit_error(
    total_nodes: int,
    statuses: Iterable[FilterStatus],
    *,
    has_claims: bool,
    prefilter: str | None = None,
) -> str:
    """FitError.Error plus the PostFilter message: `0/N nodes are available: <counted reasons>.` then
    DynamicResources' and DefaultPreemption's words, as the FailedScheduling event shows them."""
    statuses = list(statuses)
    head = f"0/{total_nodes} nodes are available:"
    if prefilter is not None:
        text = f"{head} {prefilter}."
    else:
        counts: dict[str, int] = {}
        for status in statuses:
            for reason in dict.fromkeys(status.reasons):
                counts[reason] = counts.get(reason, 0) + 1
        text = f"{head} " + ", ".join(sorted(f"{n} {reason}" for reason, n in counts.items())) + "."
    preemption: dict[str, int] = {}
    for status in statuses:
        reason = REASON_PREEMPTION_NOT_HELPFUL if status.unresolvable or prefilter else REASON_NO_VICTIMS
        preemption[reason] = preemption.get(reason, 0) + 1
    if prefilter is not None and not statuses:
        preemption[REASON_PREEMPTION_NOT_HELPFUL] = total_nodes
    post = POSTFILTER_STILL if has_claims else POSTFILTER_NO_CLAIMS
    victims = ", ".join(sorted(f"{n} {reason}" for reason, n in preemption.items()))
    return f"{text} {post}, preemption: {head} {victims}."


def event_message(message: str) -> str:
    """truncateMessage: the event recorder keeps 1024 bytes, cut with " ..."."""
    data = message.encode()
    if len(data) <= EVENT_LIMIT:
        return message
    return data[: EVENT_LIMIT - 4].decode(errors="ignore") + " ..."
