"""`provisioning` of each entry of fit's `pods`: what happens to a workload the running nodes cannot hold.

The running nodes are each pool at minNodes (a Capacity Block pool under the cluster autoscaler at the size its block
gives it; kind and existing pools as they are), or the cluster dump's nodes. The workloads are taken in file order,
as fit takes them: each is placed on the running nodes if it fits (`placed`), else the stack's provisioner decides
(`scale-up` with the pool, the instance type and how many nodes it launches, or `never` and why), and the nodes it
launches stay for the workloads that follow. How each provisioner decides:

- the cluster autoscaler grows a node group (or AKS agent pool) between minNodes and maxNodes whose template node
  holds the pod: its own simulation, so it picks only pools where the pod runs; its expander chooses among them
  (random on EKS, least-waste on AKS): fit names the cheapest and lists the others. A dra pool at 0 nodes has no
  template with devices (dra_gpu_platform/facts/provisioners.py).
- Karpenter (and EKS Auto Mode, AKS node auto-provisioning) tries its NodePools by weight, equal weights by name from
  the end (kubernetes-sigs/karpenter@v1.14.1 pkg/utils/nodepool/nodepool.go:161-171), and takes the first that can hold
  the pod by its own model (scheduler.go:705-761): a claim pod fits any NodePool whose instance types carry the NVIDIA
  DRA metadata (1.15.0), an `nvidia.com/gpu` pod any NodePool of GPU instance types, whatever runs on the nodes
  (website/content/en/preview/tasks/dra.md). Within the NodePool it launches the cheapest instance type that fits.
  Where the nodes of that NodePool cannot run the pod, the pod stays pending: `never`, with the nodeSelector that
  keeps it on the right pool.

Each trial runs the scheduler model on a fresh copy of the cluster with the candidate nodes added (the smallest count
that holds every pod of the workload, found by bisection up to the pool's room left).
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra.model import Features, Selectors
from dra_gpu_platform.dra.scheduler import ALLOCATED, ClaimObject, Scheduler
from dra_gpu_platform.facts import autoscaler as ca
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts import provisioners as p
from dra_gpu_platform.facts.node_labels import GPU_STACK_LABEL
from dra_gpu_platform.plans.capacity import pool_price
from dra_gpu_platform.plans.cluster_nodes import ClusterNodes, cluster_nodes
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.fit.admission import StackAdmission
from gpuplan.fit.inputs import DEVICE_PLUGIN_RESOURCE, FitInputs, Workload
from gpuplan.fit.workloads import schedule_workload

PLACED, SCALE_UP, NEVER = "placed", "scale-up", "never"


@dataclass(frozen=True)
class Trial:
    """What one simulation needs beside the plan: a fresh inventory per set of pools, fresh claims, admission."""

    build_inventory: Callable[[StackPlan, ClusterNodes], Any]  # -> gpuplan.fit.report.Inventory
    claims: Callable[[], list[ClaimObject]]  # fresh copies: reserving a shared claim changes it
    templates: dict[tuple[str, str], ClaimObject]
    admission: Callable[[], StackAdmission]  # fresh quota usage
    features: Features
    inputs: FitInputs

    def run(self, plan: StackPlan, workloads: Sequence[Workload]) -> list[dict[str, Any]]:
        inventory = self.build_inventory(plan, cluster_nodes(plan))
        scheduler = Scheduler(
            inventory.cluster,
            self.inputs.classes,
            self.features,
            Selectors(),
            claims=self.claims(),
            templates=copy.deepcopy(self.templates),
        )
        if self.inputs.gates.extended_resource:
            names = {c.name: c.extended_resource_name for c in self.inputs.classes.values() if c.extended_resource_name}
            scheduler.extended_classes = {name: cls for cls, name in names.items()}
        admission = self.admission()
        reports = [schedule_workload(scheduler, w, self.inputs, admission) for w in workloads]
        for report in reports:
            nodes = {i["node"] for i in report["instances"] if i["outcome"] == ALLOCATED and i["node"] is not None}
            report["pools"] = sorted({inventory.node_pool(node) for node in nodes})
        return reports


def _placed(report: dict[str, Any]) -> bool:
    return report["outcome"] == ALLOCATED and report["placed"] == report["replicas"] > 0


def pod_asks(workload: Workload) -> tuple[bool, bool]:
    """(asks by claims, asks for nvidia.com/gpu) of a workload's pods."""
    spec = workload.template.get("spec") or {}
    containers = [*(spec.get("containers") or []), *(spec.get("initContainers") or [])]
    claims = bool(workload.claims) or any((c.get("resources") or {}).get("claims") for c in containers)
    gpus = any(
        DEVICE_PLUGIN_RESOURCE in ((c.get("resources") or {}).get(kind) or {})
        for c in containers
        for kind in ("requests", "limits")
    )
    return claims, gpus


def running_nodes(pool: PoolPlan, provisioner: str | None) -> int:
    """The nodes a pool runs without pending pods."""
    if provisioner is None or not pool.autoscaled:
        # nodes the platform does not buy (kind's workers, an existing cluster's) all run
        return pool.desired_nodes if pool.profile.node_pools.bought else pool.max_nodes
    return pool.min_nodes


def _with_counts(plan: StackPlan, counts: dict[str, int], types: dict[str, str]) -> StackPlan:
    pools = []
    for pool in plan.pools:
        shape = pool.shape
        name = types.get(pool.name)
        if name and name != pool.instance_type:
            shape = catalog.instance_type(pool.platform, name) or shape
        pools.append(
            dataclasses.replace(
                pool, max_nodes=counts[pool.name], instance_type=name or pool.instance_type, shape=shape
            )
        )
    return dataclasses.replace(plan, pools=tuple(pools))


@dataclass(frozen=True)
class Candidate:
    pool: PoolPlan
    instance_type: str | None
    per_node_hour: float | None
    shape: catalog.InstanceType | None = None


def _candidates(plan: StackPlan, pool: PoolPlan) -> list[Candidate]:
    """The pool's instance types, cheapest first (unknown prices last): what a launch would pick among."""
    found = []
    for name in pool.types or (None,):
        shape = catalog.instance_type(pool.platform, name) if name else pool.shape
        priced = dataclasses.replace(pool, instance_type=name, shape=shape or pool.shape, instance_types=())
        price = pool_price(priced, plan.region)
        found.append(Candidate(pool, name, price.per_node_hour if price else None, shape or pool.shape))
    # cheapest first; where prices are unknown (spot, an unpriced region) the smallest type, as a stand-in
    return sorted(
        found,
        key=lambda c: (
            c.per_node_hour is None,
            c.per_node_hour or 0.0,
            (c.shape.vcpus, c.shape.memory_gib) if c.shape else (0, 0),
            c.instance_type or "",
        ),
    )


@dataclass
class Provisioner:
    plan: StackPlan
    trial: Trial
    provisioner: str | None
    version: str | None

    def __post_init__(self) -> None:
        self.counts = {pool.name: running_nodes(pool, self.provisioner) for pool in self.plan.pools}
        self.types: dict[str, str] = {}
        self.done: list[Workload] = []
        self.last_full: dict[str, Any] = {}

    # -- one workload
    def decide(self, workload: Workload) -> dict[str, Any]:
        reports = self.trial.run(_with_counts(self.plan, self.counts, self.types), [*self.done, workload])
        report = reports[-1]
        if _placed(report):
            self.done.append(workload)
            pool = self._pool_of(report)
            return self._answer(PLACED, pool, 0, 0.0, "the running nodes hold every pod")
        if workload.replicas is None:
            return self._answer(NEVER, None, 0, None, "a DaemonSet runs on the nodes that exist; it launches none")
        if self.provisioner is None:
            return self._answer(
                NEVER, None, 0, None, "no autoscaler runs here: the pools are the nodes that exist (autoscaler.enabled)"
            )
        if not self._fits_anywhere(workload, report):
            return self._answer(NEVER, None, 0, None, self._why_not(report))
        if self.provisioner in p.NODE_POOL_PROVISIONERS:
            return self._node_pools(workload)
        return self._autoscaler(workload)

    def _fits_anywhere(self, workload: Workload, report: dict[str, Any]) -> bool:
        """Whether the workload places with every growable pool at maxNodes: if not, no scale-up helps (a quota, an
        admission refusal, a claim no pool's devices satisfy)."""
        counts = {q.name: q.max_nodes if q.autoscaled else self.counts[q.name] for q in self.plan.pools}
        self.last_full = self.trial.run(_with_counts(self.plan, counts, self.types), [*self.done, workload])[-1]
        return _placed(self.last_full)

    def _why_not(self, report: dict[str, Any]) -> str:
        reasons = list(dict.fromkeys([*self.last_full["reasons"], *report["reasons"]]))[:2]
        text = "; ".join(reasons) or "its pods fit no node"
        return f"no scale-up helps: with every pool at maxNodes {self.last_full['placed']} of {self.last_full['replicas']} pod(s) place ({text})"

    def _pool_of(self, report: dict[str, Any]) -> PoolPlan | None:
        return next((self.plan.pool(name) for name in report["pools"] if self.plan.pool(name) is not None), None)

    def _answer(
        self,
        verdict: str,
        pool: PoolPlan | None,
        nodes: int,
        per_hour: float | None,
        why: str,
        type_: str | None = None,
    ) -> dict[str, Any]:
        return {
            "provisioner": self.provisioner or "none",
            "verdict": verdict,
            "pool": pool.name if pool else None,
            "instanceType": type_ or (self.types.get(pool.name) or pool.instance_type if pool else None),
            "nodes": nodes,
            "perHour": None if per_hour is None else round(per_hour, 6),
            "why": why,
        }

    def _room(self, pool: PoolPlan) -> int:
        return max(0, pool.max_nodes - self.counts[pool.name])

    def _fits_with(self, workload: Workload, candidate: Candidate, extra: int, pool_as: PoolPlan | None = None) -> bool:
        counts = dict(self.counts)
        counts[candidate.pool.name] += extra
        types = dict(self.types)
        if candidate.instance_type:
            types[candidate.pool.name] = candidate.instance_type
        plan = _with_counts(self.plan, counts, types)
        if pool_as is not None:  # the pool as the provisioner sees it (its own model of the pod's needs)
            plan = dataclasses.replace(
                plan,
                pools=tuple(
                    dataclasses.replace(pool_as, max_nodes=q.max_nodes, instance_type=q.instance_type, shape=q.shape)
                    if q.name == pool_as.name
                    else q
                    for q in plan.pools
                ),
            )
        return _placed(self.trial.run(plan, [*self.done, workload])[-1])

    def _smallest(self, workload: Workload, candidate: Candidate, pool_as: PoolPlan | None = None) -> int | None:
        """The fewest new nodes of the candidate that hold every pod of the workload, None when its room does not."""
        room = self._room(candidate.pool)
        if room == 0 or not self._fits_with(workload, candidate, room, pool_as):
            return None
        low, high = 1, room
        while low < high:
            middle = (low + high) // 2
            if self._fits_with(workload, candidate, middle, pool_as):
                high = middle
            else:
                low = middle + 1
        return low

    def _commit(self, workload: Workload, candidate: Candidate, nodes: int) -> None:
        self.counts[candidate.pool.name] += nodes
        if candidate.instance_type:
            self.types[candidate.pool.name] = candidate.instance_type
        self.done.append(workload)

    def _scale_up(self, workload: Workload, candidate: Candidate, nodes: int, why: str) -> dict[str, Any]:
        self._commit(workload, candidate, nodes)
        per_hour = None if candidate.per_node_hour is None else candidate.per_node_hour * nodes
        return self._answer(SCALE_UP, candidate.pool, nodes, per_hour, why, candidate.instance_type)

    # -- the cluster autoscaler
    def _autoscaler(self, workload: Workload) -> dict[str, Any]:
        claims, _ = pod_asks(workload)
        fitting: list[tuple[Candidate, int]] = []
        skipped = []
        for pool in self.plan.pools:
            if not pool.autoscaled:
                continue
            if pool.dra and claims and self.counts[pool.name] == 0:
                skipped.append(f"{pool.name} (a dra node group at 0 nodes has no template with devices)")
                continue
            for candidate in _candidates(self.plan, pool):
                nodes = self._smallest(workload, candidate)
                if nodes is not None:
                    fitting.append((candidate, nodes))
                    break
        if not fitting:
            why = "no autoscaled pool holds every pod within its maxNodes"
            return self._answer(
                NEVER, None, 0, None, why + (f"; not considered: {', '.join(skipped)}" if skipped else "")
            )
        fitting.sort(key=lambda f: (f[0].per_node_hour is None, (f[0].per_node_hour or 0.0) * f[1], f[0].pool.name))
        chosen, nodes = fitting[0]
        others = ", ".join(f"{c.pool.name} ({n} × {c.instance_type})" for c, n in fitting[1:])
        expander = ca.EXPANDER  # the same on EKS (the flag's default) and AKS (its profile)
        why = f"the cluster autoscaler grows {chosen.pool.name} by {nodes} node(s)"
        if others:
            why += f"; its {expander} expander may pick another pool that fits instead: {others} (cheapest shown)"
        return self._scale_up(workload, chosen, nodes, why)

    # -- Karpenter, EKS Auto Mode, AKS node auto-provisioning
    def _node_pools(self, workload: Workload) -> dict[str, Any]:
        claims, gpus = pod_asks(workload)
        name = p.NAMES[self.provisioner or p.KARPENTER]
        if claims:
            growth = p.claims_growth(self.provisioner or p.KARPENTER, self.plan.minor, self.version)
            if not growth.gets_a_node:
                return self._answer(
                    NEVER, None, 0, None, f"{name} never launches a node for a pod with claims: {growth.why}"
                )
        # the provisioner's own model of the pod: claims against DRA metadata, nvidia.com/gpu against GPU capacity
        seen_as = "dra" if claims else "device-plugin" if gpus else None
        order = sorted(self.plan.pools, key=lambda q: q.name, reverse=True)
        tried = []
        for pool in order:
            candidates = _candidates(self.plan, pool)
            model = dataclasses.replace(pool, gpu_stack=seen_as) if seen_as and pool.gpu_stack != seen_as else None
            chosen = None
            for candidate in candidates:
                nodes = self._smallest(workload, candidate, model)
                if nodes is not None:
                    chosen = (candidate, nodes)
                    break
            if chosen is None:
                tried.append(pool.name)
                continue
            candidate, nodes = chosen
            if model is not None and self._smallest(workload, candidate) is None:
                return self._answer(
                    NEVER,
                    pool,
                    0,
                    None,
                    f"{name} would launch {pool.name} ({candidate.instance_type}): the first NodePool by name from the "
                    f"end whose instance types hold the pod in its model, but {pool.name} is a {pool.gpu_stack} pool, "
                    f"where the pod never runs; add nodeSelector {GPU_STACK_LABEL}: {seen_as} to the pod",
                )
            why = f"{name} launches {nodes} × {candidate.instance_type} in NodePool {pool.name}"
            if candidate.per_node_hour is None and len(pool.types) > 1:
                why += " (the cheapest that fits; prices unknown here, so the smallest type is shown)"
            if tried:
                why += f" (NodePools tried first, by name from the end: {', '.join(tried)})"
            return self._scale_up(workload, candidate, nodes, why)
        return self._answer(
            NEVER, None, 0, None, f"no NodePool holds every pod within its limits (tried {', '.join(tried)})"
        )


def provisioning(
    plan: StackPlan, trial: Trial, workloads: Sequence[Workload], provisioner: str | None, version: str | None
) -> list[dict[str, Any]]:
    """One `provisioning` answer per workload, in order."""
    model = Provisioner(plan, trial, provisioner, version)
    return [model.decide(workload) for workload in workloads]
