"""Consumable capacity (DRAConsumableCapacity, alpha in 1.34/1.35): what a request takes of a shareable
device's capacities. Pure: no Pulumi imports, no I/O.

A port of kubernetes/dynamic-resource-allocation v0.35.6 `structured/internal/experimental/consumable_capacity.go`
(CmpRequestOverCapacity, calculateConsumedCapacity, roundUpRange, roundUpValidValues, violatesPolicy).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

from dra_gpu_platform.dra.claims import SubRequest
from dra_gpu_platform.dra.model import CapacityPolicy, Shape


def _round_up(requested: Fraction, policy: CapacityPolicy) -> Fraction:
    if policy.range_min is not None:
        if requested < policy.range_min:
            return policy.range_min
        if policy.range_step is None:
            return requested
        # Value() of both quantities: integers, rounded up.
        req, step, low = _ceil(requested), _ceil(policy.range_step), _ceil(policy.range_min)
        n, mod = divmod(req - low, step)
        return Fraction(low + step * (n + (1 if mod else 0)))
    if policy.valid_values:
        for value in policy.valid_values:
            if requested <= value:
                return value
    return requested


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


def consumed_capacity(requested: Fraction | None, capacity: tuple[Fraction, CapacityPolicy | None]) -> Fraction:
    """calculateConsumedCapacity."""
    value, policy = capacity
    if requested is None:
        return policy.default if policy is not None and policy.default is not None else value
    if policy is None:
        return requested
    if (policy.range_min is not None) or policy.valid_values:
        return _round_up(requested, policy)
    return requested


def _violates(amount: Fraction, policy: CapacityPolicy | None) -> bool:
    if policy is None:
        return False
    if policy.default is not None and amount == policy.default:
        return False
    if policy.range_min is not None or policy.range_max is not None:
        if policy.range_max is not None and amount > policy.range_max:
            return True
        if policy.range_step is not None:
            low = _ceil(policy.range_min) if policy.range_min is not None else 0
            return (_ceil(amount) - low) % _ceil(policy.range_step) != 0
        return False
    if policy.valid_values:
        return amount not in policy.valid_values
    return False


def capacity_fits(
    sub: SubRequest, shape: Shape, used: Mapping[str, Fraction], allocating: Mapping[str, Fraction]
) -> bool | None:
    """CmpRequestOverCapacity: True/False, None for its error (a requested capacity the device lacks)."""
    requests = dict(sub.capacity or ())
    if any(name not in shape.capacity for name in requests):
        return None
    for name, capacity in shape.capacity.items():
        amount = consumed_capacity(requests.get(name), capacity)
        if _violates(amount, capacity[1]):
            return False
        total = used.get(name, Fraction(0)) + amount + allocating.get(name, Fraction(0))
        if total > capacity[0]:
            return False
    return True
