"""ResourceQuota keys for DRA claims and what one claim is charged, as the quota evaluator counts it.

Source: kubernetes `pkg/quota/v1/evaluator/core/resource_claims.go` and the `ResourceClaimsPerClass` suffix in
`k8s.io/api/core/v1/types.go` (release-1.34/1.35); docs/references.md#dra-quota-keys,
docs/references.md#dra-quota-charge, docs/references.md#dra-quota-extended-resource-keys. Pure: no Pulumi imports.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.claims import ClaimSpec
from dra_gpu_platform.facts.naming import QUOTA_DEVICES_DOMAIN
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity
from dra_gpu_platform.facts.quota_charge import devices_charged

CLAIMS_KEY = "count/resourceclaims.resource.k8s.io"
LEGACY_GPU_KEY = "requests.nvidia.com/gpu"
DEVICES_SUFFIX = f"{QUOTA_DEVICES_DOMAIN}/devices"
REQUESTS_PREFIX = "requests."  # core/v1 DefaultResourceRequestsPrefix: requests.<extended resource name>
# Devices of a class requested through its implicit extended resource `deviceclass.resource.kubernetes.io/<class>`
# (KEP-5004): core/v1 ResourceImplicitExtendedClaimsPerClass, named from 1.35 (absent in kubernetes/api v0.34.0) and
# counted only with the DRAExtendedResource gate on; every claim of the class is charged it
# (docs/references.md#dra-quota-extended-resource-keys).
IMPLICIT_PREFIX = "requests.deviceclass.resource.kubernetes.io/"
IMPLICIT_KEYS_FROM_MINOR = 35


def devices_key(device_class: str) -> str:
    return f"{device_class}{DEVICES_SUFFIX}"


def implicit_key(device_class: str) -> str:
    return f"{IMPLICIT_PREFIX}{device_class}"


def extended_key(resource: str) -> str:
    """requests.<extended resource>: a device plugin's resource, and with DRAExtendedResource also every claim of
    the class whose `extendedResourceName` it is."""
    return f"{REQUESTS_PREFIX}{resource}"


def claim_charge(spec: ClaimSpec) -> dict[str, int]:
    """Devices one claim is charged per DeviceClass: Σ counts, All = 32, firstAvailable = the maximum per
    class over its subrequests."""
    return devices_charged(
        [(sub.device_class, sub.mode, sub.count) for sub in request.alternatives] for request in spec.requests
    )


def quota_limit(spec: ClaimSpec, hards: Iterable[Mapping[str, Any]]) -> int | None:
    """Claims of this spec the namespace's ResourceQuotas admit at once (None: no DRA limit)."""
    limits: list[int] = []
    charge = claim_charge(spec)
    for hard in hards:
        for key, raw in hard.items():
            try:
                amount = int(parse_quantity(str(raw)).value)
            except QuantityError:
                continue
            if key == CLAIMS_KEY:
                limits.append(amount)
            elif key.endswith(DEVICES_SUFFIX) and key[: -len(DEVICES_SUFFIX)] in charge:
                limits.append(amount // charge[key[: -len(DEVICES_SUFFIX)]])
            elif key.startswith(IMPLICIT_PREFIX) and key[len(IMPLICIT_PREFIX) :] in charge:
                limits.append(amount // charge[key[len(IMPLICIT_PREFIX) :]])
    return min(limits) if limits else None


def scope_matches(selector: Mapping[str, Any] | None, priority_class: str | None) -> bool:
    """Whether a quota's scopeSelector matches an object (kubernetes pkg/quota/v1/evaluator/core/pods.go
    podMatchesScopeFunc for PriorityClass; docs/references.md#resourcequota-admission): no selector matches every
    object; a PriorityClass expression matches only pods (`priority_class` None is a claim: the resourceclaims
    evaluator matches no scope); In / NotIn compare spec.priorityClassName, Exists / DoesNotExist its presence. Other
    scopes (Terminating, BestEffort, ...) are not modelled: such a quota is taken to match."""
    if not selector:
        return True
    for expression in selector.get("matchExpressions") or []:
        if expression.get("scopeName") != "PriorityClass":
            continue
        if priority_class is None:
            return False
        operator, values = expression.get("operator"), list(expression.get("values") or [])
        if operator == "In" and priority_class not in values:
            return False
        if operator == "NotIn" and priority_class in values:
            return False
        if operator == "Exists" and not priority_class:
            return False
        if operator == "DoesNotExist" and priority_class:
            return False
    return True


# ---------------------------------------------------------------------------------------------------
# ResourceQuota admission: a running tally per namespace
# Sources (docs/references.md#resourcequota-admission): kubernetes/apiserver v0.36.3
# `pkg/admission/plugin/resourcequota/controller.go` (:617-627 the message; prettyPrint :741-754; every quota of the
# namespace that tracks a key the object uses is checked and charged), kubernetes `pkg/quota/v1/evaluator/core/`
# `pods.go` (pods, count/pods, requests.<resource> and the bare cpu/memory keys) and `resource_claims.go`
# (count/resourceclaims, per-class devices; with DRAExtendedResource the implicit `requests.deviceclass.resource.
# kubernetes.io/<class>` and `requests.<extendedResourceName>` keys of classes that name one, minus what the owning
# pod is already charged for a pod's extended-resource claim).

_MILLI_KEYS = ("cpu", "requests.cpu", "limits.cpu")


def _hard_amount(key: str, raw: Any) -> int | None:
    try:
        value = parse_quantity(str(raw)).value
    except QuantityError:
        return None
    return math.ceil(value * 1000) if key in _MILLI_KEYS else math.ceil(value)


def _quantity_text(key: str, value: int) -> str:
    """resource.Quantity's String for the amounts the ledger keeps (cpu in millicores)."""
    if key in _MILLI_KEYS:
        return f"{value // 1000}" if value % 1000 == 0 else f"{value}m"
    for suffix, size in (("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
        if value and value % size == 0 and ("memory" in key or "storage" in key or "hugepages" in key):
            return f"{value // size}{suffix}"
    return str(value)


def pretty(usage: Mapping[str, int]) -> str:
    """prettyPrint: `key=value` sorted by key, comma-separated."""
    return ",".join(f"{key}={_quantity_text(key, usage[key])}" for key in sorted(usage))


def claim_usage(
    spec: ClaimSpec, extended_names: Mapping[str, str] | None = None, *, extended_resource: bool = False
) -> dict[str, int]:
    """What one ResourceClaim is charged at create. `extended_names`: class -> its extendedResourceName (the classes
    that name one); `extended_resource`: the DRAExtendedResource gate."""
    usage = {CLAIMS_KEY: 1}
    for device_class, amount in claim_charge(spec).items():
        usage[devices_key(device_class)] = usage.get(devices_key(device_class), 0) + amount
        name = (extended_names or {}).get(device_class)
        if extended_resource and name:
            usage[f"{IMPLICIT_PREFIX}{device_class}"] = amount
            usage[f"requests.{name}"] = usage.get(f"requests.{name}", 0) + amount
    return usage


def pod_usage(requests: Mapping[str, int]) -> dict[str, int]:
    """The pod evaluator's charge for a pod's requests (PodRequests): pods, count/pods, requests.<resource>, and cpu
    and memory also under their bare names."""
    usage = {"pods": 1, "count/pods": 1}
    for name, value in requests.items():
        usage[f"requests.{name}"] = value
        if name in ("cpu", "memory", "ephemeral-storage"):
            usage[name] = value
    return usage


def service_usage(service: Mapping[str, Any]) -> dict[str, int]:
    """The service evaluator's charge for a Service at create (kubernetes pkg/quota/v1/evaluator/core/services.go
    `Usage`; docs/references.md#resourcequota-admission): services and count/services 1; a NodePort Service one node
    port per port; a LoadBalancer one load balancer and a node port per port, or with allocateLoadBalancerNodePorts
    false only the ports that name a nodePort."""
    spec = service.get("spec") or {}
    ports = [p for p in spec.get("ports") or [] if isinstance(p, Mapping)]
    kind = spec.get("type")
    node_ports = 0
    if kind == "NodePort":
        node_ports = len(ports)
    elif kind == "LoadBalancer":
        allocated = spec.get("allocateLoadBalancerNodePorts") is not False
        node_ports = len(ports) if allocated else sum(1 for p in ports if p.get("nodePort"))
    return {
        "services": 1,
        "count/services": 1,
        "services.loadbalancers": int(kind == "LoadBalancer"),
        "services.nodeports": node_ports,
    }


@dataclass(frozen=True)
class QuotaRefusal:
    """A ResourceQuota that refuses an object: its name and, for the keys it exceeds only, what the object requests,
    what is used and the limit."""

    quota: str
    requested: Mapping[str, int]
    used: Mapping[str, int]
    limited: Mapping[str, int]

    @property
    def message(self) -> str:
        """The API server's words (controller.go: only the exceeded keys, sorted)."""
        return (
            f"exceeded quota: {self.quota}, requested: {pretty(self.requested)}, used: {pretty(self.used)}, "
            f"limited: {pretty(self.limited)}"
        )


@dataclass
class QuotaLedger:
    """The ResourceQuotas of each namespace and what objects admitted so far use of them."""

    quotas: Mapping[str, Sequence[tuple[str, Mapping[str, Any]]]]  # namespace -> (quota name, spec.hard)
    scopes: Mapping[tuple[str, str], Mapping[str, Any]] = field(default_factory=dict)  # (ns, name) -> scopeSelector
    used: dict[tuple[str, str], dict[str, int]] = field(default_factory=dict)

    def _hard(self, namespace: str) -> list[tuple[str, dict[str, int]]]:
        result = []
        for name, hard in sorted(self.quotas.get(namespace, ()), key=lambda item: item[0]):
            parsed = {key: amount for key, raw in hard.items() if (amount := _hard_amount(key, raw)) is not None}
            result.append((name, parsed))
        return result

    def admit(self, namespace: str, usage: Mapping[str, int], priority_class: str | None = None) -> QuotaRefusal | None:
        """Admit `usage` in the namespace and record it, or return the first quota it exceeds (nothing recorded).
        `priority_class`: a pod's spec.priorityClassName (None for a claim, which no PriorityClass scope matches)."""
        hards = [
            (name, hard)
            for name, hard in self._hard(namespace)
            if scope_matches(self.scopes.get((namespace, name)), priority_class)
        ]
        for name, hard in hards:
            used = self.used.get((namespace, name), {})
            requested = {key: value for key, value in usage.items() if key in hard and value}
            exceeded = [key for key, value in requested.items() if used.get(key, 0) + value > hard[key]]
            if exceeded:
                return QuotaRefusal(
                    name,
                    {k: requested[k] for k in exceeded},
                    {k: used.get(k, 0) for k in exceeded},
                    {k: hard[k] for k in exceeded},
                )
        self._charge(namespace, hards, usage)
        return None

    def record(self, namespace: str, usage: Mapping[str, int]) -> None:
        """An object that already exists (a cluster dump's claim): counted in what every quota of the namespace that
        tracks its keys uses, never refused (a claim matches no scope)."""
        self._charge(
            namespace,
            [(n, h) for n, h in self._hard(namespace) if scope_matches(self.scopes.get((namespace, n)), None)],
            usage,
        )

    def _charge(self, namespace: str, hards: Sequence[tuple[str, Mapping[str, int]]], usage: Mapping[str, int]) -> None:
        for name, hard in hards:
            bucket = self.used.setdefault((namespace, name), {})
            for key, value in usage.items():
                if key in hard:
                    bucket[key] = bucket.get(key, 0) + value

    def charge(self, namespace: str, usage: Mapping[str, int], priority_class: str | None = None) -> str | None:
        """`admit`, returning the refusal as the API server words it (`exceeded quota: …`), or None."""
        refusal = self.admit(namespace, usage, priority_class)
        return refusal.message if refusal is not None else None

    def left(self, namespace: str) -> dict[str, dict[str, int]]:
        """quota name -> key -> what is still free."""
        return {
            name: {key: limit - self.used.get((namespace, name), {}).get(key, 0) for key, limit in hard.items()}
            for name, hard in self._hard(namespace)
        }
