"""ResourceQuota keys for DRA claims and what one claim is charged, as the quota evaluator counts it.

Source: kubernetes `pkg/quota/v1/evaluator/core/resource_claims.go` and the `ResourceClaimsPerClass` suffix in
`k8s.io/api/core/v1/types.go` (release-1.34/1.35); docs/references.md#dra-quota-keys,
docs/references.md#dra-quota-charge, docs/references.md#dra-quota-extended-resource-keys. Pure: no Pulumi imports.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from dra_gpu_platform.dra.claims import ClaimSpec
from dra_gpu_platform.facts.naming import QUOTA_DEVICES_DOMAIN
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

CLAIMS_KEY = "count/resourceclaims.resource.k8s.io"
LEGACY_GPU_KEY = "requests.nvidia.com/gpu"
DEVICES_SUFFIX = f"{QUOTA_DEVICES_DOMAIN}/devices"
# allocationMode: All is charged as the API maximum of devices per request (AllocationResultsMaxSize).
ALL_MODE_CHARGE = 32


def devices_key(device_class: str) -> str:
    return f"{device_class}{DEVICES_SUFFIX}"


def claim_charge(spec: ClaimSpec) -> dict[str, int]:
    """Devices one claim is charged per DeviceClass: Σ counts, All = 32, firstAvailable = the maximum per
    class over its subrequests."""
    charge: dict[str, int] = {}
    for request in spec.requests:
        per_class: dict[str, int] = {}
        for sub in request.alternatives:
            amount = ALL_MODE_CHARGE if sub.mode == "All" else sub.count
            per_class[sub.device_class] = max(per_class.get(sub.device_class, 0), amount)
        for device_class, amount in per_class.items():
            charge[device_class] = charge.get(device_class, 0) + amount
    return charge


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
    return min(limits) if limits else None
