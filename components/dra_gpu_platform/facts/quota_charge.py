"""What the ResourceQuota evaluator charges one ResourceClaim, per DeviceClass: the one implementation the config
rules (shared claims against a namespace's quota) and the DRA model (dra_gpu_platform/dra/quota.py) share. Pure.

Source: kubernetes `pkg/quota/v1/evaluator/core/resource_claims.go` (`Usage`); docs/references.md#dra-quota-charge.
"""

from __future__ import annotations

from collections.abc import Iterable

# allocationMode: All is charged as the API maximum of devices per request (AllocationResultsMaxSize).
ALL_MODE_CHARGE = 32

# (device class, allocation mode, count) of one request's alternatives: one entry for `exactly`, one per
# firstAvailable subrequest.
Alternative = tuple[str, str, int]


def devices_charged(requests: Iterable[Iterable[Alternative]]) -> dict[str, int]:
    """Devices per class: Σ over requests; within a request the largest amount any alternative asks of a class
    (All = 32)."""
    charge: dict[str, int] = {}
    for alternatives in requests:
        per_class: dict[str, int] = {}
        for device_class, mode, count in alternatives:
            amount = ALL_MODE_CHARGE if mode == "All" else count
            per_class[device_class] = max(per_class.get(device_class, 0), amount)
        for device_class, amount in per_class.items():
            charge[device_class] = charge.get(device_class, 0) + amount
    return charge
