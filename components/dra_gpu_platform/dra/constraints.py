"""The allocator's claim constraints: matchAttribute (every device of the named requests has the same value of an
attribute) and, with the experimental gates, distinctAttribute (every device a different one). A port of
kubernetes/dynamic-resource-allocation v0.35.6 `structured/internal/incubating/allocator_incubating.go`
matchAttributeConstraint and `internal/experimental/constraint.go` distinctAttributeConstraint; the allocator
(dra_gpu_platform/dra/allocator.py) adds and removes devices as its search goes. Pure: no Pulumi imports, no I/O.
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.dra.claims import Constraint
from dra_gpu_platform.dra.model import Shape, lookup_attribute


class MatchAttribute:
    __slots__ = ("attribute", "count", "names", "value")

    def __init__(self, constraint: Constraint, attribute: str):
        self.names = frozenset(constraint.requests)
        self.attribute = attribute  # constraint.attribute, once an empty constraint was refused
        self.value: tuple[str, Any] | None = None
        self.count = 0

    def _applies(self, request: str, sub: str | None) -> bool:
        return not self.names or request in self.names or (sub is not None and f"{request}/{sub}" in self.names)

    def add(self, request: str, sub: str | None, shape: Shape) -> bool:
        if not self._applies(request, sub):
            return True
        value = lookup_attribute(shape, self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.value, self.count = value, 1
            return True
        if value[0] not in ("string", "int", "bool", "version") or value != self.value:
            return False
        self.count += 1
        return True

    def remove(self, request: str, sub: str | None, shape: Shape) -> None:
        if self._applies(request, sub):
            self.count -= 1

    def state(self) -> Any:
        return self.value if self.count else None


class DistinctAttribute(MatchAttribute):
    """Upstream keeps one value per request name, so a device is only compared with the last device of each
    request (constraint.go distinctAttributeConstraint) - replicated, see docs/gpuplan/fit.md."""

    __slots__ = ("values",)

    def __init__(self, constraint: Constraint, attribute: str):
        super().__init__(constraint, attribute)
        self.values: dict[str, tuple[str, Any]] = {}

    def add(self, request: str, sub: str | None, shape: Shape) -> bool:
        if not self._applies(request, sub):
            return True
        value = lookup_attribute(shape, self.attribute)
        if value is None:
            return False
        if self.count == 0:
            self.values[request], self.count = value, 1
            return True
        if value[0] not in ("string", "int", "bool", "version") or value in self.values.values():
            return False
        self.values[request] = value
        self.count += 1
        return True

    def remove(self, request: str, sub: str | None, shape: Shape) -> None:
        if self._applies(request, sub):
            self.values.pop(request, None)
            self.count -= 1

    def state(self) -> Any:
        return (tuple(sorted(self.values.items())), self.count)


def claim_constraint(constraint: Constraint, attribute: str) -> MatchAttribute:
    """The constraint's bookkeeping: distinctAttribute's or matchAttribute's."""
    return (DistinctAttribute if constraint.distinct else MatchAttribute)(constraint, attribute)
