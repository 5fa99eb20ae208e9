"""What to change so that a pod `gpuplan fit` cannot place, or the API server refuses, gets placed: one fix per failing
filter and per refusal, derived from the stack's plan (its pools' taints, labels, sizes and device-plugin resources, its
namespaces' quotas and GPU-toleration policy) and the Kubernetes minor it is judged at.

- TaintToleration: the toleration that tolerates the taint (the GPU pools' taint: the stack's own GPU toleration,
  dra_gpu_platform/plans/gpu_toleration.py), or, from the minor that serves MutatingAdmissionPolicy v1 (1.36), the
  namespace's `gpuToleration: auto` where it is off; a pod that claims no GPU needs no GPU toleration (the GPU guard
  refuses one without a claim);
- NodeAffinity: the labels the pools carry for the keys the pod selects, and the closest pool's own labels;
- NodeResourcesFit: which pools advertise the resource and how much per node;
- NodeUnschedulable: the cordon;
- a ResourceQuota's refusal: the quota key and the stack's `quota` entry of the namespace that sets it;
- a ValidatingAdmissionPolicy's denial: the policy's own message (it says what to do);
- Pod Security's refusal: each refused field (dra_gpu_platform/dra/pod_security_checks.py), and where the pod meets
  baseline, the namespace's `podSecurity: baseline` in the stack;
- a field the API server's validation refuses: the fix made where the refusal is (gpuplan/fit/inputs.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra import pod_security
from dra_gpu_platform.dra.model import NodeInfo
from dra_gpu_platform.dra.node_selectors import requirement_matches
from dra_gpu_platform.dra.nodefilters import (
    NODE_AFFINITY,
    NODE_RESOURCES_FIT,
    NODE_UNSCHEDULABLE,
    TAINT_TOLERATION,
    FilterStatus,
    PodConstraints,
    amount_text,
)
from dra_gpu_platform.dra.pod_resources import PODS
from dra_gpu_platform.dra.quota import (
    CLAIMS_KEY,
    DEVICES_SUFFIX,
    IMPLICIT_PREFIX,
    LEGACY_GPU_KEY,
    REQUESTS_PREFIX,
    QuotaRefusal,
)
from dra_gpu_platform.dra.tolerations import Taint
from dra_gpu_platform.facts import node_allocatable
from dra_gpu_platform.facts import pod_security as pod_security_labels
from dra_gpu_platform.plans import gpu_toleration
from dra_gpu_platform.plans.admission_policy import GPU_RESOURCE_PREFIX, IMPLICIT_RESOURCE_PREFIX
from dra_gpu_platform.plans.namespaces import QUOTA_NAME
from dra_gpu_platform.plans.node_pools import GPU_TAINT
from dra_gpu_platform.plans.quota import PRIORITY_QUOTA_NAME
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.fit.admission import Refusal

# Labels every node carries with a value of its own or of the cloud's: not what a pool is told apart by.
_NODE_OWN_LABELS = (node_allocatable.HOSTNAME_LABEL,)


@dataclass(frozen=True)
class PodFacts:
    """What the fixes read of a pod after admission."""

    namespace: str
    constraints: PodConstraints
    uses_claims: bool  # spec.resourceClaims is not empty
    template: bool = False  # a workload's pod (the fix goes into its pod template)

    @property
    def claims_gpu(self) -> bool:
        """What the GPU guard counts as claiming a GPU: resourceClaims, or a request of an nvidia.com/* or DeviceClass
        resource (dra_gpu_platform/plans/admission_policy.py `claimsGpu`)."""
        return self.uses_claims or any(
            amount and name.startswith((GPU_RESOURCE_PREFIX, IMPLICIT_RESOURCE_PREFIX))
            for name, amount in self.constraints.requests.items()
        )


def toleration_for(taint: Taint) -> dict[str, str]:
    """The toleration of a taint: the stack's own for the GPU pools' taint; Equal with the value for a taint with one,
    else Exists."""
    if (taint.key, taint.value, taint.effect) == (GPU_TAINT.key, GPU_TAINT.value, GPU_TAINT.effect):
        return gpu_toleration.toleration()
    if taint.value:
        return {"key": taint.key, "operator": "Equal", "value": taint.value, "effect": taint.effect}
    return {"key": taint.key, "operator": "Exists", "effect": taint.effect}


def flow(mapping: Mapping[str, Any]) -> str:
    """A small mapping as YAML flow text: {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}."""
    return "{" + ", ".join(f"{k}: {v}" for k, v in mapping.items()) + "}"


class Fixes:
    """The fixes of one fit run: the stack's plan, the minor, and the cluster's nodes by pool."""

    def __init__(self, plan: StackPlan, minor: int, nodes: Sequence[NodeInfo], pools: Mapping[str, str]):
        self.minor = minor
        self.pool_plans = {p.name: p for p in plan.pools}
        self.namespaces = {n.name: n for n in plan.namespaces}
        self.tolerating = set(plan.gpu_toleration.namespaces) if plan.gpu_toleration is not None else set()
        self.pool_of = {node.name: pools.get(node.name, node.name) for node in nodes}
        self.nodes_of: dict[str, list[NodeInfo]] = {}
        for node in nodes:
            self.nodes_of.setdefault(self.pool_of[node.name], []).append(node)

    # -- where -----------------------------------------------------------------------------------------
    def pools(self, nodes: Iterable[str]) -> list[str]:
        """The pools of these nodes, in cluster order."""
        wanted = {self.pool_of.get(n, n) for n in nodes}
        return [p for p in self.nodes_of if p in wanted]

    def where(self, nodes: Sequence[str]) -> str:
        pools = self.pools(nodes)
        label = f"pool {pools[0]}" if len(pools) == 1 else f"pools {', '.join(pools)}"
        return f"{label} ({len(nodes)} node{'s' if len(nodes) != 1 else ''})"

    def _labels(self, pool: str) -> dict[str, str]:
        first = self.nodes_of[pool][0]
        return {k: v for k, v in first.labels.items() if k not in _NODE_OWN_LABELS}

    # -- per filter ------------------------------------------------------------------------------------
    def for_filter(self, status: FilterStatus, nodes: Sequence[str], pod: PodFacts) -> str | None:
        """The fix for one failing filter on these nodes, or None where fit knows none (DynamicResources says why no
        device fits in its own words)."""
        if status.plugin == TAINT_TOLERATION and status.taint is not None:
            return self._taint(status.taint, pod)
        if status.plugin == NODE_AFFINITY:
            return self._affinity(nodes, pod.constraints)
        if status.plugin == NODE_RESOURCES_FIT and status.resources:
            return self._resources(status.resources, nodes, pod.constraints)
        if status.plugin == NODE_UNSCHEDULABLE:
            return (
                "the node is cordoned: uncordon it (kubectl uncordon) or drain it for good and let the pool replace it"
            )
        return None

    def _taint(self, taint: Taint, pod: PodFacts) -> str:
        where = "the pod template's" if pod.template else "the pod's"
        add = f"add the toleration {flow(toleration_for(taint))} to {where} spec.tolerations"
        if (taint.key, taint.effect) != (GPU_TAINT.key, GPU_TAINT.effect):
            return add
        namespace = self.namespaces.get(pod.namespace)
        if namespace is not None and not pod.claims_gpu:
            return (
                "none on the GPU nodes: the pod claims no GPU, so it belongs on nodes without the GPU taint (the GPU "
                "guard refuses a GPU-taint toleration without a claim); see why the other nodes refuse it"
            )
        auto = namespace is not None and namespace.migration in gpu_toleration.DRA_MODES and pod.uses_claims
        if auto and gpu_toleration.served(self.minor) and pod.namespace not in self.tolerating:
            return (
                f"{add}, or set gpuToleration: auto on namespace {pod.namespace} in the stack (its "
                f"MutatingAdmissionPolicy adds the toleration to pods with resourceClaims from Kubernetes 1.36)"
            )
        if auto and not gpu_toleration.served(self.minor):
            policy = (
                "the namespace's gpuToleration: auto adds it"
                if pod.namespace in self.tolerating
                else f"gpuToleration: auto on namespace {pod.namespace} adds it"
            )
            return f"{add} (Kubernetes 1.{self.minor} serves no MutatingAdmissionPolicy; from 1.36 {policy})"
        return add

    def _affinity(self, nodes: Sequence[str], pod: PodConstraints) -> str | None:
        pools = self.pools(nodes)
        if not pools:
            return None
        misses = {pool: _unmatched(pod, self._labels(pool)) for pool in pools}
        # fewest misses; among those, one that has the keys (another value is nearer than no label)
        closest = min(pools, key=lambda p: (len(misses[p]), sum(1 for k, _ in misses[p] if k not in self._labels(p))))
        missing = misses[closest]
        if not missing:
            return None  # only matchFields (metadata.name) fail: the pod is pinned to other nodes
        keys = list(dict.fromkeys(key for key, _ in missing))
        carried = []
        for key in keys:
            values: dict[str, list[str]] = {}
            for pool in self.nodes_of:
                value = self._labels(pool).get(key)
                if value is not None:
                    values.setdefault(value, []).append(pool)
            if values:
                carried.append(
                    "the pools carry "
                    + ", ".join(f"{key}={value} ({', '.join(where)})" for value, where in sorted(values.items()))
                )
            else:
                carried.append(f"no pool carries {key}")
        own = self.pool_plans[closest].labels if closest in self.pool_plans else self._labels(closest)
        text = (
            f"{', '.join(text for _, text in missing)} matches no node; {'; '.join(carried)}; the closest pool, "
            f"{closest}, carries {', '.join(f'{k}={v}' for k, v in own.items()) or 'no labels of its own'}"
        )
        if closest in self.pool_plans:
            text += f": select those, or give pool {closest} the labels in the stack (nodePools[].labels)"
        return text

    def _resources(self, resources: Sequence[str], nodes: Sequence[str], pod: PodConstraints) -> str:
        parts = []
        for resource in resources:
            wanted = 1 if resource == PODS else pod.requests.get(resource, 0)
            per_pool = {
                pool: group[0].allocatable[resource]
                for pool, group in self.nodes_of.items()
                if group[0].allocatable.get(resource)
            }
            if not per_pool:
                parts.append(
                    f"no pool advertises {resource}"
                    + (
                        "; GPUs of DRA pools come from resourceClaims (or, from 1.36, through the DeviceClass's "
                        "extendedResourceName)"
                        if resource.startswith(GPU_RESOURCE_PREFIX)
                        else ""
                    )
                )
                continue
            advertised = ", ".join(f"{amount_text(resource, a)} on {p}" for p, a in per_pool.items())
            most = max(per_pool.values())
            if resource != PODS and wanted > most:
                parts.append(
                    f"{resource}: the pod requests {amount_text(resource, wanted)}, a node advertises {advertised}: "
                    f"request at most {amount_text(resource, most)} per pod, or add a pool of a larger instance type"
                )
                continue
            full = self.pools(nodes)
            grow = [
                f"{p} (maxNodes {self.pool_plans[p].max_nodes})"
                for p in full
                if p in per_pool and p in self.pool_plans and per_pool[p] >= wanted
            ]
            parts.append(
                f"{resource}: per node {advertised}; the nodes of {', '.join(full)} are taken by the pods placed "
                "before" + (f": raise maxNodes of {', '.join(grow)} in the stack, or place fewer pods" if grow else "")
            )
        return "; ".join(parts)

    # -- refusals --------------------------------------------------------------------------------------
    def for_refusals(self, namespace: str, refusals: Iterable[Refusal]) -> list[str]:
        """One fix per refusal; a quota's refusals of several objects are one fix that admits them all (what they
        request together beside what the quota already counts)."""
        fixes: dict[str, None] = {}
        quotas: dict[tuple[str, tuple[str, ...]], QuotaRefusal] = {}
        for refusal in refusals:
            if refusal.pod_security is not None:
                fixes.update(dict.fromkeys(self._pod_security(namespace, refusal.pod_security)))
            elif refusal.fix is not None:
                fixes[refusal.fix] = None
            elif refusal.policy_message is not None:
                fixes[refusal.policy_message] = None
            elif refusal.quota is not None:
                key = (refusal.quota.quota, tuple(sorted(refusal.quota.limited)))
                before = quotas.get(key)
                quotas[key] = (
                    refusal.quota
                    if before is None
                    else QuotaRefusal(
                        before.quota,
                        {k: v + before.requested.get(k, 0) for k, v in refusal.quota.requested.items()},
                        refusal.quota.used,
                        refusal.quota.limited,
                    )
                )
        for quota in quotas.values():
            fixes[self._quota(namespace, quota)] = None
        return list(fixes)

    def _pod_security(self, namespace: str, decision: pod_security.Decision) -> list[str]:
        """Each field Pod Security refuses, and where the pod meets baseline, the namespace's level as the other way."""
        lines = [f"Pod Security {v.check}: {fix}" for v in decision.violations for fix in v.fixes]
        if decision.meets_baseline:
            where = (
                f"set podSecurity: baseline on namespace {namespace} in the stack"
                if namespace in self.namespaces
                else f"label namespace {namespace} {pod_security_labels.ENFORCE}=baseline"
            )
            lines.append(f"or, as the pod meets baseline, {where} (it enforces {decision.enforce})")
        return lines

    def _quota(self, namespace: str, refusal: QuotaRefusal) -> str:
        stack = namespace in self.namespaces
        if stack and refusal.quota == PRIORITY_QUOTA_NAME:
            return (
                f"ResourceQuota {PRIORITY_QUOTA_NAME} holds pods of the system-* priority classes at 0 in tenant "
                "namespaces: use a priority class of your platform team"
            )
        parts = []
        for key in sorted(refusal.limited):
            needed = refusal.used.get(key, 0) + refusal.requested.get(key, 0)
            now = refusal.limited[key]
            entry = _quota_entry(key) if stack and refusal.quota == QUOTA_NAME else None
            if entry is not None:
                parts.append(
                    f"{key}: raise {entry} of namespace {namespace} in the stack to at least {needed} (it allows {now})"
                )
            else:
                parts.append(
                    f"{key}: raise spec.hard[{key}] of ResourceQuota {namespace}/{refusal.quota} to at least "
                    f"{needed} (now {now}), or free what it counts"
                )
        return "; ".join(parts)


def _quota_entry(key: str) -> str | None:
    """The stack's `quota` entry that sets a key of the GPU quota (dra_gpu_platform/plans/quota.py quota_hard)."""
    if key == CLAIMS_KEY:
        return "quota.claims"
    if key == LEGACY_GPU_KEY:
        return "quota.legacyGpus"
    if key.endswith(DEVICES_SUFFIX):
        return f"quota.devices.{key[: -len(DEVICES_SUFFIX)]}"
    if key.startswith(IMPLICIT_PREFIX):
        return f"quota.devices.{key[len(IMPLICIT_PREFIX) :]}"
    if key.startswith(REQUESTS_PREFIX):
        return "quota.devices of the class whose extendedResourceName it is"
    return None


def _unmatched(pod: PodConstraints, labels: Mapping[str, str]) -> list[tuple[str, str]]:
    """(label key, text) of what the pod's nodeSelector and required node affinity (its best term) miss on these
    labels."""
    missing = [(k, f"nodeSelector {k}={v}") for k, v in pod.node_selector.items() if labels.get(k) != v]
    terms = [t for t in (pod.affinity or {}).get("nodeSelectorTerms") or () if isinstance(t, Mapping)]
    best: list[tuple[str, str]] | None = None
    for term in terms:
        found = [
            (str(r.get("key")), f"node affinity {r.get('key')} {r.get('operator')} {list(r.get('values') or [])}")
            for r in term.get("matchExpressions") or ()
            if isinstance(r, Mapping) and not requirement_matches(r, labels.get(str(r.get("key"))))
        ]
        if best is None or len(found) < len(best):
            best = found
    return missing + (best or [])
