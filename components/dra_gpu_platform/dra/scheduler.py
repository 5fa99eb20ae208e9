"""The kube-scheduler's DynamicResources plugin over a whole cluster: pods one after the other, each pod's claims
together on one node. Pure: no Pulumi imports, no I/O.

Follows kubernetes `pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go` (1.35):
- PreFilter: every `spec.resourceClaims` entry must resolve to a claim (a template's claim is created per pod);
  a missing claim or template, a missing DeviceClass (validateDeviceClass) or a firstAvailable request with
  DRAPrioritizedList off leaves the pod unschedulable (it waits); an empty class name is an error; an
  allocated claim pins the pod to the nodes of its `allocation.nodeSelector`;
- Filter, per node: `Allocate` for all unallocated claims of the pod (dra_gpu_platform/dra/allocator.py); an
  allocator error is an error for the pod (the scheduling attempt aborts), ErrFailedAllocationOnNode and "no
  solution" are unschedulable on that node; an allocated claim whose node selector does not match makes the
  node unavailable;
- Score: the prioritized-list score (computeScore); among the best nodes the first in node order is taken
  (the real scheduler also weighs other score plugins and breaks ties at random);
- Reserve: the chosen allocation is in use for the pods that follow, claims become allocated.
Nodes are evaluated once per equivalence class (cluster.node_classes).

Before DynamicResources the default filters run per node (dra_gpu_platform/dra/nodefilters.py: NodeUnschedulable,
NodeName, TaintToleration, NodeAffinity, NodeResourcesFit), the first failure per node counts, and an unplaced pod
gets the FailedScheduling text. A pod with `spec.nodeName` never reaches the scheduler: the kubelet admits it
(NoExecute taints, affinity, resources) and nothing allocates its unallocated claims.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.allocator import allocate
from dra_gpu_platform.dra.claims import ClaimSpec, DeviceClassSpec
from dra_gpu_platform.dra.cluster import Cluster
from dra_gpu_platform.dra.explain import Explanations
from dra_gpu_platform.dra.model import (
    AllocationError,
    ClaimAllocation,
    DeviceResult,
    FailedOnNode,
    Features,
    NodeInfo,
    PodClaim,
    Selectors,
)
from dra_gpu_platform.dra.node_selectors import node_selector_matches
from dra_gpu_platform.dra.nodefilters import (
    DYNAMIC_RESOURCES,
    FilterStatus,
    PodConstraints,
    event_message,
    fit_error,
    kubelet_admission,
    node_resources_fit,
    static_filters,
)

ALLOCATED, UNSCHEDULABLE, ERROR, REJECTED = "allocated", "unschedulable", "error", "rejected"
FIRST_AVAILABLE_MAX = 8  # resourceapi.FirstAvailableDeviceRequestMaxSize (scoring)
EXTENDED_CLAIM = "extended-resources"  # the pod claim name fit shows for the scheduler's extended-resource claim


@dataclass
class ClaimObject:
    """A ResourceClaim: from a cluster dump, a claim file, or created from a template for one pod."""

    namespace: str
    name: str
    spec: ClaimSpec | None
    source: str = ""
    allocation: ClaimAllocation | None = None
    node: str | None = None  # where it was allocated in this run
    rejected: list[str] = field(default_factory=list)  # why the API server refuses the object
    template: str | None = None  # the template it was created from
    reserved_for: list[str] = field(default_factory=list)

    @property
    def ref(self) -> str:
        return f"{self.namespace}/{self.name}"


@dataclass(frozen=True)
class PodClaimRef:
    name: str  # spec.resourceClaims[].name
    claim: str | None = None  # resourceClaimName
    template: str | None = None  # resourceClaimTemplateName


EXTENDED_REF = PodClaimRef(EXTENDED_CLAIM)


@dataclass
class PodSpec:
    namespace: str
    name: str
    claims: tuple[PodClaimRef, ...]
    source: str = ""
    node_names: tuple[str, ...] | None = None  # pinned (spec.nodeName, a DaemonSet's node)
    rejected: list[str] = field(default_factory=list)
    extended: ClaimSpec | None = None  # the claim for extended resources (DRAExtendedResource)
    constraints: PodConstraints | None = None  # what the default filters read; None: DynamicResources only
    extended_resources: Mapping[str, str] = field(default_factory=dict)  # extended claim request -> its resource


@dataclass
class ClaimOutcome:
    pod_claim: str
    claim: str  # namespace/name
    kind: str
    devices: list[str] = field(default_factory=list)
    subrequests: dict[str, str] = field(default_factory=dict)
    requests: dict[str, list[str]] = field(default_factory=dict)  # request label -> devices
    node_selector: Mapping[str, Any] | None = None
    reason: str | None = None


@dataclass
class PodOutcome:
    namespace: str
    name: str
    kind: str
    node: str | None = None
    claims: list[ClaimOutcome] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    feasible_nodes: int = 0
    score: int = 0
    event: str | None = None  # the FailedScheduling message, as `kubectl describe pod` shows it
    filters: list[tuple[str, FilterStatus, list[str]]] = field(default_factory=list)  # (plugin, status, nodes)


@dataclass
class Placement:
    """One claim alone on the cluster as it is: the first fitting node of each node pool, how many copies fit
    at once, why not."""

    kind: str  # allocated | unschedulable | error
    fits: list[tuple[NodeInfo, ClaimAllocation]] = field(default_factory=list)
    max_concurrent: int = 0
    reasons: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)

    @property
    def satisfiable(self) -> bool:
        return self.kind == ALLOCATED


@dataclass
class _Verdict:
    kind: str  # ok | none | failed | error
    allocations: list[ClaimAllocation] | None = None
    message: str = ""
    score: int = 0
    node: str = ""  # the node it was computed on (a representative of its class)


class Scheduler(Explanations):
    """Schedules pods on a cluster in order; keeps the devices and claims each placement takes."""

    def __init__(
        self,
        cluster: Cluster,
        classes: Mapping[str, DeviceClassSpec],
        features: Features,
        selectors: Selectors | None = None,
        *,
        claims: Iterable[ClaimObject] = (),
        templates: Mapping[tuple[str, str], ClaimObject] | None = None,
        group_nodes: bool = True,
    ):
        self.cluster = cluster
        self.classes = dict(classes)
        self.features = features
        self.selectors = selectors or Selectors()
        self.claims: dict[tuple[str, str], ClaimObject] = {(c.namespace, c.name): c for c in claims}
        self.templates = dict(templates or {})
        self.group_nodes = group_nodes  # False: every node on its own (the reference the property test compares with)
        self._verdicts: dict[Any, _Verdict] = {}
        self._nodes_by_name = {n.name: n for n in cluster.nodes}
        # extended resource -> DeviceClass serving it (DRAExtendedResource on; empty when off)
        self.extended_classes: dict[str, str] = {}
        self.requested: dict[str, dict[str, int]] = {}  # node -> what its pods request (NodeResourcesFit)
        self.pods_on: dict[str, int] = {}
        self._static: dict[tuple[str, str], FilterStatus | None] = {}
        self._extended_specs: dict[tuple[int, frozenset[str]], ClaimSpec | None] = {}

    # -- one pod ---------------------------------------------------------------------------------------
    def schedule(self, pod: PodSpec, *, reserve: bool = True) -> PodOutcome:
        outcome = PodOutcome(pod.namespace, pod.name, UNSCHEDULABLE)
        if pod.rejected:
            outcome.kind = REJECTED
            outcome.reasons = list(pod.rejected)
            return outcome
        claims: list[tuple[PodClaimRef, ClaimObject]] = []
        for ref in pod.claims:  # foreachPodResourceClaim
            claim, problem = self._resolve(pod, ref)
            if claim is None:
                kind, reason = problem
                outcome.kind = kind
                outcome.reasons.append(reason)
                outcome.claims.append(
                    ClaimOutcome(ref.name, f"{pod.namespace}/{ref.claim or ref.template}", kind, reason=reason)
                )
                return self._finish(outcome, claims)
            claims.append((ref, claim))
        if pod.constraints is not None and pod.constraints.node_name:
            return self._bound(pod, pod.constraints, claims, outcome, reserve)
        extended = None
        if pod.extended is not None:
            extended = ClaimObject(pod.namespace, f"{pod.name}-extended-resources", pod.extended, pod.source)
        pending: list[tuple[PodClaimRef, ClaimObject]] = []
        pins: list[tuple[ClaimObject, Mapping[str, Any]]] = []
        checked = [*claims, *([(EXTENDED_REF, extended)] if extended is not None else [])]
        for ref, claim in checked:  # PreFilter
            if claim.allocation is not None:
                if claim.allocation.node_selector is not None:
                    pins.append((claim, claim.allocation.node_selector))
                continue
            refused = self._prefilter(claim)
            if refused is not None:
                kind, reason = refused
                outcome.kind = kind
                (outcome.errors if kind == ERROR else outcome.reasons).append(reason)
                return self._finish(outcome, checked)
            if claim is not extended:
                pending.append((ref, claim))
        candidates = self._candidates(pod)
        statuses: list[tuple[NodeInfo, FilterStatus]] = []
        passing = candidates
        if pod.constraints is not None:
            passing = []
            for node in candidates:
                status = self._default_filters(pod, pod.constraints, node)
                if status is None:
                    passing.append(node)
                else:
                    statuses.append((node, status))
        delegable = set(pod.extended_resources.values())
        by_delegated: dict[frozenset[str], list[NodeInfo]] = {}
        for node in passing:  # filterExtendedResources: what the node's device plugins do not serve goes to DRA
            key = frozenset(r for r in delegable if not node.allocatable.get(r, 0))
            by_delegated.setdefault(key, []).append(node)
        feasible: list[tuple[NodeInfo, _Verdict, ClaimObject | None]] = []
        reasons: dict[str, list[str]] = {}
        for delegated, nodes in by_delegated.items():
            spec = self._extended_for(pod, delegated) if extended is not None else None
            with_extended = extended if spec is not None else None
            # A pending claim has a spec: _prefilter refused those without one.
            to_allocate = [PodClaim(c.namespace, c.name, c.spec) for _, c in pending]  # type: ignore[arg-type]
            if with_extended is not None and spec is not None:
                to_allocate.append(PodClaim(with_extended.namespace, with_extended.name, spec))
            for group in self._groups(nodes):
                representative = group[0]
                verdict = self._filter(representative, to_allocate)
                if verdict.kind == "error":
                    outcome.kind = ERROR
                    outcome.errors.append(f"node {representative.name}: {verdict.message}")
                    return self._finish(outcome, checked)
                for node in group:
                    unavailable = [
                        c for c, selector in pins if not node_selector_matches(selector, node.labels, node.name)
                    ]
                    if verdict.kind != "ok":
                        reasons.setdefault(verdict.message, []).append(node.name)
                        scheduler_reason = "cannot allocate all claims" if verdict.kind == "none" else verdict.message
                        statuses.append(
                            (node, FilterStatus(DYNAMIC_RESOURCES, (scheduler_reason,), True, verdict.message))
                        )
                    elif unavailable:
                        message = (
                            "resourceclaim not available on the node (allocated to "
                            f"{', '.join(c.ref for c in unavailable)} elsewhere)"
                        )
                        reasons.setdefault(message, []).append(node.name)
                        statuses.append(
                            (
                                node,
                                FilterStatus(
                                    DYNAMIC_RESOURCES, ("resourceclaim not available on the node",), True, message
                                ),
                            )
                        )
                    else:
                        feasible.append((node, verdict, with_extended))
        outcome.feasible_nodes = len(feasible)
        if not feasible:
            outcome.kind = UNSCHEDULABLE
            if not candidates:
                outcome.reasons.append(
                    "no node in the inventory"
                    if pod.node_names is None
                    else f"the pod's node {', '.join(pod.node_names)} is not in the inventory"
                )
            if pod.constraints is not None:
                outcome.event = event_message(
                    fit_error(len(self.cluster.nodes), [s for _, s in statuses], has_claims=bool(checked))
                )
                outcome.reasons.append(f"FailedScheduling: {outcome.event}")
                outcome.filters = self._filter_lines(statuses)  # the callers word these per node pool
            for message, names in reasons.items():
                outcome.reasons.append(f"{_nodes_text(names)}: {message}")
            return self._finish(outcome, checked)
        best = max(v.score for _, v, _ in feasible)
        node, verdict, with_extended = next((n, v, e) for n, v, e in feasible if v.score == best)
        outcome.kind = ALLOCATED
        outcome.node = node.name
        outcome.score = best
        representative = self._representative(node, verdict)
        allocations = [self._translate(a, representative, node) for a in verdict.allocations or []]
        placed = [*pending, *([(EXTENDED_REF, with_extended)] if with_extended is not None else [])]
        for (ref, claim), allocation in zip(placed, allocations, strict=False):
            if reserve:
                self._reserve(claim, allocation, node, pod)
            outcome.claims.append(_claim_outcome(ref, claim, ALLOCATED, allocation))
        for ref, claim in claims:
            if claim.allocation is not None and all(claim is not c for _, c in pending):
                if reserve and f"{pod.namespace}/{pod.name}" not in claim.reserved_for:
                    claim.reserved_for.append(f"{pod.namespace}/{pod.name}")
                outcome.claims.append(_claim_outcome(ref, claim, ALLOCATED, claim.allocation))
        if reserve:
            self._take(node, pod)
        order = {ref.name: i for i, (ref, _) in enumerate(placed if with_extended is not None else claims)}
        outcome.claims.sort(key=lambda c: order.get(c.pod_claim, len(order)))
        return outcome

    # -- the default filters, nodeName pods -----------------------------------------------------------
    def _default_filters(self, pod: PodSpec, constraints: PodConstraints, node: NodeInfo) -> FilterStatus | None:
        key = (constraints.static_key(), node.name)
        if key not in self._static:
            self._static[key] = static_filters(constraints, node)
        status = self._static[key]
        if status is not None:
            return status
        delegable = set(pod.extended_resources.values())
        return node_resources_fit(
            constraints,
            node,
            self.requested.get(node.name, {}),
            self.pods_on.get(node.name, 0),
            lambda resource, n: resource in delegable and not n.allocatable.get(resource, 0),
        )

    def _extended_for(self, pod: PodSpec, delegated: frozenset[str]) -> ClaimSpec | None:
        """The extended-resource claim on a node where `delegated` resources go to DRA (createDeviceRequests)."""
        assert pod.extended is not None
        key = (id(pod.extended), delegated)
        if key not in self._extended_specs:
            requests = tuple(r for r in pod.extended.requests if pod.extended_resources.get(r.name) in delegated)
            self._extended_specs[key] = ClaimSpec(requests) if requests else None
        return self._extended_specs[key]

    def _take(self, node: NodeInfo, pod: PodSpec) -> None:
        """The pod's requests are in use on its node for the pods that follow."""
        self.pods_on[node.name] = self.pods_on.get(node.name, 0) + 1
        if pod.constraints is not None:
            bucket = self.requested.setdefault(node.name, {})
            for resource, amount in pod.constraints.requests.items():
                bucket[resource] = bucket.get(resource, 0) + amount

    def _filter_lines(self, statuses: list[tuple[NodeInfo, FilterStatus]]) -> list[tuple[str, FilterStatus, list[str]]]:
        grouped: dict[tuple[str, str], tuple[FilterStatus, list[str]]] = {}
        for node, status in statuses:
            grouped.setdefault((status.plugin, status.detail), (status, []))[1].append(node.name)
        return [(plugin, status, nodes) for (plugin, _), (status, nodes) in grouped.items()]

    def _bound(
        self,
        pod: PodSpec,
        constraints: PodConstraints,
        claims: list[tuple[PodClaimRef, ClaimObject]],
        outcome: PodOutcome,
        reserve: bool,
    ) -> PodOutcome:
        """A pod with spec.nodeName: no scheduler; claims not allocated stay so; the kubelet admits or rejects it."""
        name = constraints.node_name or ""
        node = self._nodes_by_name.get(name)
        outcome.feasible_nodes = 0
        waiting = [c for _, c in claims if c.allocation is None]
        elsewhere = [
            c
            for _, c in claims
            if c.allocation is not None
            and c.allocation.node_selector is not None
            and node is not None
            and not node_selector_matches(c.allocation.node_selector, node.labels, node.name)
        ]
        if node is None:
            outcome.reasons.append(f"spec.nodeName {name} is not a node of the inventory: the pod stays Pending")
        elif waiting:
            outcome.reasons.append(
                f"spec.nodeName {name} bypasses the scheduler, so nothing allocates "
                f"{', '.join(c.ref for c in waiting)}: the pod stays Pending and the kubelet reports "
                "FailedPrepareDynamicResources; drop spec.nodeName and select the node with nodeSelector "
                "(kubernetes.io/hostname) instead"
            )
        elif elsewhere:
            outcome.reasons.append(
                f"spec.nodeName {name}: {', '.join(c.ref for c in elsewhere)} is allocated on another node, so the "
                "kubelet cannot prepare it (FailedPrepareDynamicResources)"
            )
        else:
            status = kubelet_admission(constraints, node, self.requested.get(name, {}), self.pods_on.get(name, 0))
            if status is not None:
                outcome.reasons.append(
                    f"spec.nodeName {name}: the kubelet rejects the pod ({status.plugin}: {status.detail}); it fails "
                    "instead of waiting"
                )
            else:
                outcome.kind = ALLOCATED
                outcome.node = name
                for ref, claim in claims:
                    if reserve and f"{pod.namespace}/{pod.name}" not in claim.reserved_for:
                        claim.reserved_for.append(f"{pod.namespace}/{pod.name}")
                    # Every claim is allocated here: those that are not were `waiting` above.
                    outcome.claims.append(_claim_outcome(ref, claim, ALLOCATED, claim.allocation))  # type: ignore[arg-type]
                if reserve:
                    self._take(node, pod)
                return outcome
        return self._finish(outcome, claims)

    def _finish(self, outcome: PodOutcome, claims: list[tuple[PodClaimRef, ClaimObject]]) -> PodOutcome:
        why = "; ".join(outcome.errors or outcome.reasons) or "the pod cannot be placed"
        listed = {c.pod_claim for c in outcome.claims}
        for ref, claim in claims:
            if ref.name in listed:
                continue
            if claim.allocation is not None:
                outcome.claims.append(_claim_outcome(ref, claim, ALLOCATED, claim.allocation))
            else:
                outcome.claims.append(ClaimOutcome(ref.name, claim.ref, outcome.kind, reason=why))
        return outcome

    def _resolve(self, pod: PodSpec, ref: PodClaimRef) -> tuple[ClaimObject | None, tuple[str, str]]:
        if ref.template is not None:
            template = self.templates.get((pod.namespace, ref.template))
            if template is None:
                return None, (
                    UNSCHEDULABLE,
                    f"spec.resourceClaims {ref.name}: ResourceClaimTemplate {pod.namespace}/"
                    f"{ref.template} does not exist, so no claim is created and the pod waits",
                )
            if template.rejected:
                return None, (
                    REJECTED,
                    f"spec.resourceClaims {ref.name}: ResourceClaimTemplate {template.ref} is rejected "
                    f"by the API server: {'; '.join(template.rejected)}",
                )
            created = ClaimObject(
                pod.namespace, f"{pod.name}-{ref.name}", template.spec, template.source, template=template.name
            )
            self.claims[(created.namespace, created.name)] = created
            return created, ("", "")
        claim = self.claims.get((pod.namespace, ref.claim or ""))
        if claim is None:
            return None, (
                UNSCHEDULABLE,
                f'spec.resourceClaims {ref.name}: resourceclaim "{ref.claim}" not found (the pod waits for it)',
            )
        if claim.rejected:
            return None, (
                REJECTED,
                f"spec.resourceClaims {ref.name}: ResourceClaim {claim.ref} is rejected by the API "
                f"server: {'; '.join(claim.rejected)}",
            )
        return claim, ("", "")

    def _prefilter(self, claim: ClaimObject) -> tuple[str, str] | None:
        spec = claim.spec
        if spec is None:
            return UNSCHEDULABLE, f"resource claim {claim.ref} has no device requests the scheduler understands"
        for request in spec.requests:
            if request.first_available and not self.features.prioritized_list:
                return UNSCHEDULABLE, (
                    f"resource claim {claim.ref}, request {request.name}: has subrequests, but the "
                    "DRAPrioritizedList feature is disabled"
                )
            for sub in request.alternatives:
                name = sub.label
                if not sub.device_class:
                    return ERROR, f"request {name}: unsupported request type"
                if sub.device_class not in self.classes:
                    return UNSCHEDULABLE, (
                        f"request {name}: device class {sub.device_class} does not exist (claim "
                        f"{claim.ref}; the pod waits until the DeviceClass is created)"
                    )
        return None

    def _candidates(self, pod: PodSpec) -> list[NodeInfo]:
        if pod.node_names is None:
            return self.cluster.nodes
        wanted = set(pod.node_names)
        return [n for n in self.cluster.nodes if n.name in wanted]

    def _groups(self, nodes: Sequence[NodeInfo] | None = None) -> list[list[NodeInfo]]:
        if not self.group_nodes:
            return [[n] for n in (self.cluster.nodes if nodes is None else nodes)]
        return self.cluster.node_classes(None if nodes is None or nodes is self.cluster.nodes else nodes)

    def _filter(self, node: NodeInfo, claims: list[PodClaim]) -> _Verdict:
        if not claims:
            return _Verdict("ok", [], score=0)
        key = (
            tuple((c.spec, c.namespace, c.name) for c in claims),
            self.cluster.node_key(node) if self.group_nodes else (node.name, self.cluster.node_key(node)),
        )
        found = self._verdicts.get(key)
        if found is not None:
            return found
        try:
            result = allocate(
                node, self.cluster.pools(node), claims, self.classes, self.cluster.usage, self.features, self.selectors
            )
        except AllocationError as error:
            verdict = _Verdict("error", message=str(error))
        except FailedOnNode as error:
            verdict = _Verdict("failed", message=str(error))
        else:
            if result is None:
                verdict = _Verdict("none", message=self.why_not(node, claims))
            else:
                verdict = _Verdict("ok", result, score=prioritized_score(claims, result))
        verdict.node = node.name
        self._verdicts[key] = verdict
        return verdict

    def _representative(self, node: NodeInfo, verdict: _Verdict) -> NodeInfo:
        if verdict.node in ("", node.name):
            return node
        return self._nodes_by_name.get(verdict.node, node)

    def _translate(self, allocation: ClaimAllocation, representative: NodeInfo, node: NodeInfo) -> ClaimAllocation:
        if representative.name == node.name:
            return allocation
        devices = tuple(
            DeviceResult(
                d.request, self.cluster.translate(d.device, representative, node), d.admin_access, d.consumed, d.shared
            )
            for d in allocation.devices
        )
        selector = allocation.node_selector
        if selector is not None and representative.name in str(selector):
            selector = _rename_node(selector, representative.name, node.name)
        return ClaimAllocation(devices, selector, allocation.subrequests)

    def _reserve(self, claim: ClaimObject, allocation: ClaimAllocation, node: NodeInfo, pod: PodSpec) -> None:
        claim.allocation = allocation
        claim.node = node.name
        claim.reserved_for.append(f"{pod.namespace}/{pod.name}")
        usage = self.cluster.usage
        for device in allocation.devices:
            if device.shared:
                bucket = usage.consumed.setdefault(device.device, {})
                for name, amount in device.consumed:
                    bucket[name] = bucket.get(name, 0) + amount
            elif not device.admin_access:
                usage.allocated.add(device.device)
        self.cluster.changed([d.device for d in allocation.devices])

    # -- one claim, no pod ---------------------------------------------------------------------------
    def place(self, claim: PodClaim, *, single: bool = False) -> Placement:
        """PreFilter's checks (a missing DeviceClass leaves it unschedulable, not an error), then Filter on
        every node class; an allocator error anywhere is the outcome."""
        placement = Placement(UNSCHEDULABLE)
        problem = self._prefilter(ClaimObject(claim.namespace, claim.name, claim.spec))
        if problem is not None:
            placement.kind, reason = problem
            (placement.errors if placement.kind == ERROR else placement.reasons).append(reason)
            return placement
        order = self.cluster.positions()
        firsts: dict[str, tuple[int, NodeInfo, NodeInfo, _Verdict]] = {}  # pool -> its first fitting node
        reasons: dict[str, list[list[NodeInfo]]] = {}
        for group in self._groups():
            verdict = self._filter(group[0], [claim])
            if verdict.kind == "error":
                placement.kind = ERROR
                placement.errors.append(f"node {group[0].name}: {verdict.message}")
                return placement
            if verdict.kind != "ok":
                if self.cluster.pools(group[0]):  # nodes without ResourceSlices (CPU, device-plugin) say nothing here
                    reasons.setdefault(verdict.message, []).append(group)
                continue
            representative = self._representative(group[0], verdict)
            for pool, node in self.cluster.pool_firsts(group):
                if pool not in firsts or order[node.name] < firsts[pool][0]:
                    firsts[pool] = (order[node.name], node, representative, verdict)
        for _, node, representative, verdict in sorted(firsts.values(), key=lambda first: first[0]):
            # An "ok" verdict always carries its allocations.
            placement.fits.append((node, self._translate(verdict.allocations[0], representative, node)))  # type: ignore[index]
        if placement.fits:
            placement.kind = ALLOCATED
            placement.max_concurrent = self.fill(claim, single=single)
            return placement
        if not self.cluster.nodes:
            placement.reasons.append(
                "the inventory has no DRA devices (no node pool with gpuStack: dra, or an empty dump)"
            )
        for message, groups in reasons.items():
            pools = sorted({pool for group in groups for pool, _ in self.cluster.pool_firsts(group)})
            count = sum(len(group) for group in groups)
            where = f"pool {pools[0]}" if len(pools) == 1 else f"pools {', '.join(pools)}"
            placement.reasons.append(f"{where} ({count} node{'s' if count != 1 else ''}): {message}")
        return placement

    # -- how many fit at once --------------------------------------------------------------------------
    def fill(self, claim: PodClaim, *, single: bool = False) -> int:
        """How many copies of the claim the nodes hold at once: each node filled until the next copy does not
        fit (first fit), from the current usage. Nodes of one class hold the same number; pools shared by
        several nodes are filled in node order instead."""
        usage = self.cluster.usage
        saved = usage.copy()
        total = 0
        try:
            groups = [[n] for n in self.cluster.nodes] if self.cluster.shares_pools() else self._groups()
            for group in groups:
                node = group[0]
                count = 0
                while True:
                    try:
                        result = allocate(
                            node, self.cluster.pools(node), [claim], self.classes, usage, self.features, self.selectors
                        )
                    except (AllocationError, FailedOnNode):
                        result = None
                    if result is None:
                        break
                    count += 1
                    taken = {d.device for d in result[0].devices if not d.admin_access and not d.shared}
                    # what shareable devices give out counts for the next copy (allocatedSharedDevices)
                    shares = [d for d in result[0].devices if d.shared and any(amount for _, amount in d.consumed)]
                    if single or not (taken or shares):
                        break
                    usage.allocated |= taken
                    for share in shares:
                        bucket = usage.consumed.setdefault(share.device, {})
                        for name, amount in share.consumed:
                            bucket[name] = bucket.get(name, 0) + amount
                total += count * len(group)
                if single and total:
                    return 1
        finally:
            self.cluster.usage.allocated = saved.allocated
            self.cluster.usage.consumed = saved.consumed
        return total


def _claim_outcome(ref: PodClaimRef, claim: ClaimObject, kind: str, allocation: ClaimAllocation) -> ClaimOutcome:
    requests: dict[str, list[str]] = {}
    for device in allocation.devices:
        requests.setdefault(device.request, []).append("/".join(device.device))
    return ClaimOutcome(
        ref.name,
        claim.ref,
        kind,
        ["/".join(d.device) for d in allocation.devices],
        dict(allocation.subrequests),
        requests,
        allocation.node_selector,
    )


def _rename_node(selector: Mapping[str, Any], old: str, new: str) -> Mapping[str, Any]:
    terms = []
    for term in selector.get("nodeSelectorTerms") or []:
        fields = [
            {**r, "values": [new if v == old else v for v in r.get("values") or []]}
            if r.get("key") == "metadata.name"
            else r
            for r in term.get("matchFields") or []
        ]
        terms.append({**term, **({"matchFields": fields} if fields else {})})
    return {"nodeSelectorTerms": terms}


def _nodes_text(nodes: list[str]) -> str:
    if len(nodes) == 1:
        return f"node {nodes[0]}"
    shown = ", ".join(nodes[:3]) + (f", … ({len(nodes)} nodes)" if len(nodes) > 3 else "")
    return f"{len(nodes)} nodes ({shown})" if len(nodes) <= 3 else f"{shown}"


def prioritized_score(claims: Sequence[PodClaim], allocations: Sequence[ClaimAllocation]) -> int:
    """dynamicresources.go computeScore: Σ over firstAvailable requests of 8 - index of the chosen subrequest."""
    score = 0
    for claim, allocation in zip(claims, allocations, strict=False):
        for request in claim.spec.requests:
            if request.first_available and request.name in allocation.subrequests:
                names = [s.name for s in request.alternatives]
                score += FIRST_AVAILABLE_MAX - names.index(allocation.subrequests[request.name])
    return score
