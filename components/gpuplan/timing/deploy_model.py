"""How long `pulumi up` of a stack takes, modelled: typical provisioning durations per resource type and the
critical path through the stack's dependency graph. Pure: no Pulumi imports.

The model assumes what the Pulumi engine does on a first `pulumi up` with unbounded `--parallel`: a resource
starts as soon as everything it waits for has finished, and takes its type's typical duration. A resource
waits for
- its dependencies (explicit `depends_on` and Outputs used as inputs, as the SDK records them),
- its provider (an explicit provider resource is created like any other resource),
- whatever its parent waits for (a child cannot start before its parent's own dependencies are satisfied).
A component takes no time itself: it is finished when its last child is.
"""

from __future__ import annotations

import itertools
from collections import defaultdict, deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.facts.type_tokens import Component, Upstream

MINUTE = 60.0

ROLE_CLUSTER = "cluster"
ROLE_NODE_POOL = "node-pool"  # any node group or agent pool: GPU pools, and the system nodes releases wait for
ROLE_RELEASE = "release"

# Components whose node groups / agent pools are GPU pools (the system node group is not).
GPU_POOL_COMPONENTS = frozenset(
    {
        Component.EKS_GPU_NODE_POOL,
        Component.AKS_GPU_NODE_POOL,
    }
)
KIND_CLUSTER_COMPONENT = Component.KIND_CLUSTER
HELM_RELEASE_TYPES = frozenset({Upstream.HELM_RELEASE})


@dataclass(frozen=True)
class StepDuration:
    key: str
    label: str  # how the critical path names this kind of step
    seconds: float  # typical duration
    p90_seconds: float | None
    source: str


def _minutes(key: str, label: str, typical: float, p90: float | None, source: str) -> StepDuration:
    return StepDuration(key, label, typical * MINUTE, None if p90 is None else p90 * MINUTE, source)


# Typical provisioning durations. Cloud and chart numbers: the duration-* entries of docs/references.md (each
# source below names its entry, which a test checks); the rest are marked as estimates.
DURATIONS: dict[str, StepDuration] = {
    d.key: d
    for d in (
        _minutes(
            "eks-cluster",
            "EKS cluster",
            12,
            20,
            "docs/references.md#duration-eks-cluster: AWS '9 minutes or less on average' (aws-samples/eks-workshop#1101), users report "
            "~14 min (aws/containers-roadmap#1227); model 12 min, p90 20",
        ),
        _minutes(
            "eks-gpu-node-group",
            "EKS GPU node group",
            8,
            20,
            "docs/references.md#duration-eks-node-group: GPU node group 8 min, p90 20 (more for p5 with EFA); GPU instance types boot "
            "slower than a c5's ~39 s (awslabs/amazon-eks-ami#1099)",
        ),
        _minutes(
            "eks-node-group",
            "EKS node group",
            5,
            8,
            "docs/references.md#duration-eks-node-group: managed node group 3-8 min for CPU instances (estimate); middle of the range",
        ),
        _minutes(
            "aks-cluster",
            "AKS cluster",
            10,
            25,
            "docs/references.md#duration-aks-cluster: 5-15 min expected, 20-30 seen (Azure/AKS#1017, #585, #711); model 10 min, p90 25",
        ),
        _minutes(
            "aks-pool",
            "AKS node pool",
            8,
            15,
            "docs/references.md#duration-aks-pool: AKS pool 8 min, p90 15; cluster+pool acceptance tests 750-1190 s with destroy "
            "(hashicorp/terraform-provider-azurerm)",
        ),
        _minutes(
            "kind-cluster",
            "kind create cluster",
            1,
            5,
            "`kind create cluster --wait` was 'Ready after' 33 s to 63 s in Istio CI (kubernetes-sigs/kind#2282); "
            "p90 = the component's --wait 300s",
        ),
        _minutes(
            "gpu-operator",
            "GPU Operator",
            5,
            15,
            "docs/references.md#duration-gpu-operator: ~5 min to ready with a host driver (canonical/data-science-stack#131); model 5, p90 15",
        ),
        _minutes(
            "gpu-operator-driver-build",
            "GPU Operator (driver build)",
            15,
            30,
            "docs/references.md#duration-gpu-operator: up to ~30 min when the driver container compiles the module (red-hat ods-ci#3001 "
            "waits 1800 s); model choice 15, p90 30",
        ),
        _minutes(
            "dra-driver",
            "DRA driver",
            2,
            3,
            "docs/references.md#duration-dra-driver: DRA driver chart ~1 min (install.md example output); model 1-3 min, middle 2",
        ),
        _minutes(
            "dra-example-driver",
            "DRA example driver",
            1,
            3,
            "docs/references.md#duration-dra-driver: a DRA driver chart takes ~1 min (install.md example output)",
        ),
        _minutes(
            "helm-release", "Helm release", 3, 10, "estimate: a chart whose pods must become ready (no measured source)"
        ),
        StepDuration(
            "cloud-object",
            "",
            10.0,
            30.0,
            "estimate: one cloud API call that returns when done (IAM role, policy attachment, KMS key, "
            "launch template, tag, resource group)",
        ),
        StepDuration("kubernetes-object", "", 2.0, 5.0, "estimate: one server-side apply against the API server"),
        StepDuration("command", "", 10.0, None, "estimate: a local command"),
        StepDuration("provider", "", 0.0, 0.0, "a provider resource is configuration: no cloud call"),
        StepDuration("component", "", 0.0, 0.0, "a ComponentResource groups its children and takes no time itself"),
    )
}


# Durations keys of GPU node pools (AKS agent pools of the stack are its GPU pools; the system pool is inline).
GPU_POOL_KEYS = frozenset({"eks-gpu-node-group", "aks-pool"})


def _chart_name(chart: Any) -> str:
    # A repository chart name or a full oci:// reference: the last path segment names the chart.
    return str(chart or "").rstrip("/").rsplit("/", 1)[-1]


def _operator_builds_driver(inputs: Mapping[str, Any]) -> bool:
    # The chart's default is driver.enabled=true: the driver container compiles the kernel module.
    driver = (inputs.get("values") or {}).get("driver") or {}
    return driver.get("enabled", True) is not False


def classify(type_: str, custom: bool, parent_type: str, inputs: Mapping[str, Any]) -> tuple[str, str]:
    """(DURATIONS key, lower-bound role) of one registered resource."""
    if not custom:
        return "component", ""
    if type_.startswith("pulumi:providers:"):
        return "provider", ""
    if type_ == Upstream.EKS_CLUSTER:
        return "eks-cluster", ROLE_CLUSTER
    if type_ == Upstream.EKS_NODE_GROUP:
        if parent_type in GPU_POOL_COMPONENTS:
            return "eks-gpu-node-group", ROLE_NODE_POOL
        return "eks-node-group", ROLE_NODE_POOL
    if type_ == Upstream.AKS_MANAGED_CLUSTER:
        return "aks-cluster", ROLE_CLUSTER
    if type_ == Upstream.AKS_AGENT_POOL:
        return "aks-pool", ROLE_NODE_POOL
    if type_ == Upstream.COMMAND:
        return ("kind-cluster", ROLE_CLUSTER) if parent_type == KIND_CLUSTER_COMPONENT else ("command", "")
    if type_ in HELM_RELEASE_TYPES:
        chart = _chart_name(inputs.get("chart"))
        if chart == "gpu-operator":
            return ("gpu-operator-driver-build" if _operator_builds_driver(inputs) else "gpu-operator"), ROLE_RELEASE
        if chart in ("dra-driver-nvidia-gpu", "nvidia-dra-driver-gpu"):
            return "dra-driver", ROLE_RELEASE
        if chart == "dra-example-driver":
            return "dra-example-driver", ROLE_RELEASE
        return "helm-release", ROLE_RELEASE
    if type_.startswith("kubernetes:"):
        return "kubernetes-object", ""
    return "cloud-object", ""


@dataclass(frozen=True)
class Node:
    """One resource of the graph. `id` is its URN; dependencies and provider name other nodes' ids."""

    id: str
    name: str
    type: str
    key: str  # a DURATIONS key
    role: str = ""
    parent: str = ""
    dependencies: tuple[str, ...] = ()
    provider: str = ""

    @property
    def seconds(self) -> float:
        return DURATIONS[self.key].seconds

    @property
    def label(self) -> str:
        return DURATIONS[self.key].label or self.type.rsplit(":", 1)[-1]


@dataclass(frozen=True)
class PathStep:
    node: Node
    start: float  # seconds after `pulumi up` starts
    finish: float
    via: str  # what held it back: start, dependency, provider, or the parent's dependency or provider

    @property
    def seconds(self) -> float:
        return self.finish - self.start


@dataclass(frozen=True)
class LowerBound:
    """The slowest chain of at most one cluster, one node pool and one Helm release in which each waits for the
    one before it (through dependencies, providers or parents). The node pool may be a GPU pool or the system node
    group whose pods the releases wait for. Only waiting adds up: a release that runs while the GPU pools come up
    is not added to them. A chain's steps run one after the other, so their sum can never
    exceed the modelled `pulumi up` (path >= bound; tests/gpuplan/test_deploy_model.py checks it on random
    graphs). A role with no term in the slowest chain is None."""

    cluster: Node | None
    node_pool: Node | None
    release: Node | None

    @property
    def terms(self) -> tuple[Node, ...]:
        return tuple(n for n in (self.cluster, self.node_pool, self.release) if n is not None)

    @property
    def gpu_pool(self) -> Node | None:
        """The chain's node pool when it is a GPU pool."""
        return self.node_pool if self.node_pool is not None and self.node_pool.key in GPU_POOL_KEYS else None

    @property
    def seconds(self) -> float:
        return sum(n.seconds for n in self.terms)


@dataclass(frozen=True)
class DeployModel:
    seconds: float  # modelled `pulumi up` duration
    path: tuple[PathStep, ...]
    lower_bound: LowerBound
    finish: Mapping[str, float] = field(repr=False, default_factory=dict)  # node id -> modelled finish

    @property
    def ratio(self) -> float | None:
        bound = self.lower_bound.seconds
        return self.seconds / bound if bound else None


class CycleError(ValueError):
    """The graph has a dependency cycle (the engine would refuse it too)."""


# Events: ("R", id) = the node may start, ("F", id) = the node is finished.
_READY, _FINISHED = "R", "F"


def _ancestors(nodes: Mapping[str, Node], node_id: str) -> set[str]:
    seen: set[str] = set()
    parent = nodes[node_id].parent
    while parent in nodes and parent not in seen:
        seen.add(parent)
        parent = nodes[parent].parent
    return seen


def _event_graph(nodes: Mapping[str, Node]) -> dict[tuple[str, str], list[tuple[tuple[str, str], float, str]]]:
    """event -> [(successor event, delay seconds, edge kind)]."""
    edges: dict[tuple[str, str], list[tuple[tuple[str, str], float, str]]] = defaultdict(list)
    for node in nodes.values():
        ready, finished = (_READY, node.id), (_FINISHED, node.id)
        edges[ready].append((finished, node.seconds, "runs"))
        if node.parent in nodes:
            edges[(_READY, node.parent)].append((ready, 0.0, "parent's dependency"))
            edges[finished].append(((_FINISHED, node.parent), 0.0, "child"))
        ancestors = _ancestors(nodes, node.id)
        waits = [(d, "dependency") for d in node.dependencies] + (
            [(node.provider, "provider")] if node.provider else []
        )
        for dep, kind in waits:
            # Waiting for an ancestor (or a descendant) is not a real ordering: a component finishes with its
            # children, so that edge could never be satisfied. The engine orders neither.
            if dep not in nodes or dep == node.id or dep in ancestors or node.id in _ancestors(nodes, dep):
                continue
            edges[(_FINISHED, dep)].append((ready, 0.0, kind))
    return edges


def _longest_paths(nodes: Mapping[str, Node], edges) -> tuple[dict, dict]:
    """Earliest time of every event and the edge that set it (Kahn order over the event DAG)."""
    events = [(kind, n) for n in sorted(nodes) for kind in (_READY, _FINISHED)]
    indegree = dict.fromkeys(events, 0)
    for successors in edges.values():
        for successor, _, _ in successors:
            indegree[successor] += 1
    time = dict.fromkeys(events, 0.0)
    came_from: dict = {}
    queue = deque(e for e in events if indegree[e] == 0)
    done = 0
    while queue:
        event = queue.popleft()
        done += 1
        for successor, delay, kind in edges.get(event, ()):
            candidate = time[event] + delay
            # Ties keep the first edge seen: events are visited in a fixed order, so the path is stable.
            if successor not in came_from or candidate > time[successor]:
                time[successor] = candidate
                came_from[successor] = (event, kind)
            indegree[successor] -= 1
            if indegree[successor] == 0:
                queue.append(successor)
    if done != len(events):
        stuck = sorted({n for (_, n), d in indegree.items() if d > 0})
        raise CycleError("dependency cycle among: " + ", ".join(stuck[:10]))
    return time, came_from


def _via(came_from, ready_event) -> str:
    """How a step was held back: by a dependency or its provider, its own or inherited from a parent."""
    inherited = False
    event = ready_event
    while True:
        previous = came_from.get(event)
        if previous is None:
            return "start"
        event, kind = previous
        if kind != "parent's dependency":
            return f"parent's {kind}" if inherited else kind
        inherited = True


def _critical_path(nodes: Mapping[str, Node], time, came_from) -> tuple[PathStep, ...]:
    if not nodes:
        return ()
    # The last event to finish; among equals prefer a custom resource over the component that wraps it.
    end = max(nodes, key=lambda n: (time[(_FINISHED, n)], nodes[n].key != "component", n))
    steps: list[PathStep] = []
    event: tuple[str, str] | None = (_FINISHED, end)
    while event is not None:
        kind, node_id = event
        previous = came_from.get(event)
        if (
            kind == _FINISHED
            and previous is not None
            and previous[0] == (_READY, node_id)
            and nodes[node_id].key != "component"
        ):
            ready = (_READY, node_id)
            steps.append(PathStep(nodes[node_id], time[ready], time[event], _via(came_from, ready)))
        event = previous[0] if previous is not None else None
    return tuple(reversed(steps))


def _reachable(edges, source: str) -> set[str]:
    """Ids of the nodes that cannot start before `source` finishes."""
    start = (_FINISHED, source)
    seen = {start}
    queue = deque([start])
    while queue:
        event = queue.popleft()
        for successor, _, _ in edges.get(event, ()):
            if successor not in seen:
                seen.add(successor)
                queue.append(successor)
    return {node for kind, node in seen if kind == _READY}


def _lower_bound(nodes: Mapping[str, Node], edges, finish: Mapping[str, float]) -> LowerBound:
    by_role = {
        role: sorted((n for n in nodes.values() if n.role == role), key=lambda n: (-n.seconds, n.id))
        for role in (ROLE_CLUSTER, ROLE_NODE_POOL, ROLE_RELEASE)
    }
    after = {n.id: _reachable(edges, n.id) for members in by_role.values() for n in members}
    best: tuple[float, tuple[Node | None, ...]] = (0.0, (None, None, None))
    for cluster in (None, *by_role[ROLE_CLUSTER]):
        for pool in (None, *by_role[ROLE_NODE_POOL]):
            for release in (None, *by_role[ROLE_RELEASE]):
                chosen = (cluster, pool, release)
                # A chain finishes in order; ties keep the table's order (cluster, pool, release).
                terms = sorted((n for n in chosen if n is not None), key=lambda n: finish[n.id])
                if all(later.id in after[earlier.id] for earlier, later in itertools.pairwise(terms)):
                    total = sum(n.seconds for n in terms)
                    if total > best[0] + 1e-9:
                        best = (total, chosen)
    return LowerBound(*best[1])


def model(graph: Sequence[Node]) -> DeployModel:
    """The modelled `pulumi up`: its duration, its critical path and the lower bound it is compared with."""
    nodes = {n.id: n for n in graph}
    if len(nodes) != len(graph):
        raise ValueError("duplicate node ids")
    edges = _event_graph(nodes)
    time, came_from = _longest_paths(nodes, edges)
    path = _critical_path(nodes, time, came_from)
    finish = {n: time[(_FINISHED, n)] for n in nodes}
    bound = _lower_bound(nodes, edges, finish)
    total = max(finish.values(), default=0.0)
    return DeployModel(total, path, bound, finish)


def format_duration(seconds: float) -> str:
    if seconds >= MINUTE:
        minutes = seconds / MINUTE
        return f"{minutes:.0f} min" if abs(minutes - round(minutes)) < 0.05 else f"{minutes:.1f} min"
    return f"{seconds:.0f} s"


def describe_step(node: Node) -> str:
    return f"{node.label} {node.name} {format_duration(node.seconds)}"


def render_path(path: Sequence[PathStep], *, shortest: float = MINUTE) -> str:
    """'EKS cluster gpu-prod-eks-eks 12 min → … → GPU Operator gpu-operator 5 min (+ 3 quick steps, 22 s)'.
    Steps shorter than `shortest` (API calls, Kubernetes objects) are summed at the end, not listed."""
    listed = [s for s in path if s.seconds >= shortest]
    quick = [s for s in path if 0 < s.seconds < shortest]
    text = " → ".join(describe_step(s.node) for s in listed)
    if quick:
        plural = "s" if len(quick) > 1 else ""
        text += f" (+ {len(quick)} quick step{plural}, {format_duration(sum(s.seconds for s in quick))})"
    return text.strip()
