"""Taints and tolerations: the one implementation of "does this toleration tolerate that taint", for node taints
(pod tolerations) and device taints (DeviceTolerations of a claim request) alike, and the device taints that
DeviceTaintRules add to published devices. Pure: no Pulumi imports, no I/O.

Both upstream functions have the same rules: DRA's `resourceclaim.ToleratesTaint` says it was copied from core/v1's
`Toleration.ToleratesTaint`. An empty effect or key matches every effect or key; Equal (or no operator) compares the
value, Exists matches any value; Lt/Gt compare decimal integers only where the TaintTolerationComparisonOperators gate
is on (node taints from 1.35, alpha; DeviceTolerations have no such operators, so callers leave it off).
docs/references.md#kubernetes-toleration-matching.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

EXISTS, EQUAL, LESS_THAN, GREATER_THAN = "Exists", "Equal", "Lt", "Gt"
# Effects that keep a pod off a node (PreferNoSchedule only scores) or a device from an allocation (None is ignored).
HARD_EFFECTS = ("NoSchedule", "NoExecute")
# content.IsDecimalInteger: canonical decimal integers ("0", no leading zeros, no "+", no "-0")
_DECIMAL_INTEGER = re.compile(r"^(0|-?[1-9][0-9]*)$")
_INT64 = (-(2**63), 2**63 - 1)


class TaintLike(Protocol):
    """A node taint or a DRA device taint: both have key, value and effect."""

    @property
    def key(self) -> str: ...

    @property
    def value(self) -> str: ...

    @property
    def effect(self) -> str: ...


@dataclass(frozen=True)
class Taint:
    """A node taint (core/v1 Taint without timeAdded)."""

    key: str
    value: str = ""
    effect: str = "NoSchedule"


@dataclass(frozen=True)
class Toleration:
    """A pod toleration or a DRA DeviceToleration (without tolerationSeconds, which only delays NoExecute)."""

    key: str = ""
    operator: str = EQUAL
    value: str = ""
    effect: str = ""

    @classmethod
    def of(cls, raw: Mapping[str, Any]) -> Toleration:
        """From a manifest's toleration object (missing fields empty, a missing operator Equal)."""
        return cls(
            str(raw.get("key") or ""),
            str(raw.get("operator") or EQUAL),
            str(raw.get("value") or ""),
            str(raw.get("effect") or ""),
        )

    def tolerates(self, taint: TaintLike, *, comparison_operators: bool = False) -> bool:
        """core/v1 Toleration.ToleratesTaint = resourceclaim.ToleratesTaint."""
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        if self.operator in ("", EQUAL):
            return self.value == taint.value
        if self.operator == EXISTS:
            return True
        if self.operator in (LESS_THAN, GREATER_THAN) and comparison_operators:
            if not (_DECIMAL_INTEGER.match(self.value) and _DECIMAL_INTEGER.match(taint.value)):
                return False
            bound, have = int(self.value), int(taint.value)
            if not (_INT64[0] <= bound <= _INT64[1] and _INT64[0] <= have <= _INT64[1]):
                return False  # ParseInt fails beyond int64
            return have < bound if self.operator == LESS_THAN else have > bound
        return False


def tolerated(tolerations: Iterable[Toleration], taint: TaintLike, *, comparison_operators: bool = False) -> bool:
    """TolerationsTolerateTaint (component-helpers scheduling/corev1/helpers.go): any toleration tolerates it."""
    return any(t.tolerates(taint, comparison_operators=comparison_operators) for t in tolerations)


_Taint = TypeVar("_Taint", bound=TaintLike)


def untolerated(
    tolerations: Iterable[Toleration], taints: Iterable[_Taint], effects: tuple[str, ...] = HARD_EFFECTS
) -> list[_Taint]:
    """The taints with one of `effects` that no toleration tolerates (FindMatchingUntoleratedTaint, all of them)."""
    tolerations = tuple(tolerations)
    return [t for t in taints if t.effect in effects and not tolerated(tolerations, t)]


# ---------------------------------------------------------------------------------------------------
# device taints and DeviceTaintRules


@dataclass(frozen=True)
class DeviceTaint:
    """A DRA device taint (resource.k8s.io/v1 DeviceTaint without timeAdded)."""

    key: str
    value: str
    effect: str  # NoSchedule | NoExecute | None


def apply_taint_rules(slices: list[dict[str, Any]], rules: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Slices with the taints of matching DeviceTaintRules added (resourceslice/tracker applyPatches: a rule
    selects by driver, pool and device; an unset field matches all)."""
    if not rules:
        return slices
    patched = []
    for s in slices:
        spec = s["spec"]
        devices = []
        for device in spec.get("devices") or []:
            extra = [
                (r.get("spec") or {}).get("taint")
                for r in rules
                if _taint_rule_matches(r, spec["driver"], spec["pool"]["name"], device["name"])
            ]
            if extra:
                device = {
                    **device,
                    "taints": [*(device.get("taints") or []), *[t for t in extra if isinstance(t, Mapping)]],
                }
            devices.append(device)
        patched.append({**s, "spec": {**spec, "devices": devices}})
    return patched


def _taint_rule_matches(rule: Mapping[str, Any], driver: str, pool: str, name: str) -> bool:
    selector = (rule.get("spec") or {}).get("deviceSelector") or {}
    return all(
        selector.get(key) in (None, value) for key, value in (("driver", driver), ("pool", pool), ("device", name))
    )
