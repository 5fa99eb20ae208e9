"""Compiled DRA device selectors, the selector policy check, and generic evaluation (admission policies)."""

from __future__ import annotations

import functools
from collections.abc import Collection, Hashable, Mapping
from typing import Any

from cel_expr_python import cel

from dra_gpu_platform.cel.base import KNOWN_CAPACITY_NAMES, MAX_SELECTOR_BYTES, CelCompileError, CelEvaluationError
from dra_gpu_platform.cel.checks import _capacity_reads_through_attributes
from dra_gpu_platform.cel.devices import _PROJECTION_IDS, Device, _to_cel
from dra_gpu_platform.cel.environment import _T, _engine_message, _shorten, _type_name
from dra_gpu_platform.cel.rewrite import _Projection, _runtime_program, _selector_projection
from dra_gpu_platform.cel.syntax import _typecheck
from dra_gpu_platform.cel.values import _QUANTITY_TAG, _SEMVER_TAG, Version, _fraction, _tag, _to_quantity

# ---------------------------------------------------------------------------------------------------------
# Selectors

_BOOL_OR_UNKNOWN = (_T.BOOL, _T.DYN)


class DeviceSelector:
    """A compiled CEL device selector; `matches(device)` evaluates it as the scheduler would."""

    __slots__ = ("_program", "_projection", "_projection_id", "expression")

    def __init__(self, expression: str, program: cel.Expression, projection: _Projection) -> None:
        self.expression = expression
        self._program = program
        self._projection = projection
        self._projection_id = _PROJECTION_IDS.setdefault(projection, len(_PROJECTION_IDS))

    def matches(self, device: Device) -> bool:
        result = self._program.eval(data=device._input_for(self._projection))
        result_type = result.type()
        if result_type == _T.BOOL:
            verdict: bool = result.value()
            return verdict
        if result_type == _T.ERROR:
            raise CelEvaluationError(
                f"selector {_shorten(self.expression)} failed on device {device.driver}/{device.name}: "
                f"{_engine_message(result.value())} (Kubernetes aborts the allocation)"
            )
        raise CelEvaluationError(
            f"selector {_shorten(self.expression)} returned {_type_name(result_type)}, not bool, "
            f"on device {device.driver}/{device.name} (Kubernetes aborts the allocation)"
        )

    def reads(self) -> tuple[tuple[str, str, str], ...] | None:
        """("attributes" | "capacity", domain, name) of every entry the expression reads (besides
        device.driver), or None when that is not statically known (a map is iterated, tested with `in`,
        bound, or indexed by a computed key)."""
        if any(domains is None for _, domains in self._projection):
            return None
        return tuple(
            (map_name.removeprefix("device."), domain, name)
            for map_name, domains in self._projection
            for domain, names in domains or ()  # (none is None here)
            for name in names
        )

    def device_key(self, device: Device) -> Hashable:
        """Equal for two devices this selector cannot tell apart: the device projected onto its driver and
        the attributes/capacities the expression reads, or the whole Device.key() when `reads()` is None.
        A cache keyed on it evaluates devices that differ only in, say, uuid or pcieRoot once."""
        return device._key_for(self._projection, self._projection_id)

    def __repr__(self) -> str:
        return f"DeviceSelector({self.expression!r})"


def _length_problem(expression: str) -> str | None:
    size = len(expression.encode("utf-8"))
    if size > MAX_SELECTOR_BYTES:
        return (
            f"selector is too long: {size} bytes, Kubernetes allows at most {MAX_SELECTOR_BYTES} "
            "(CELSelectorExpressionMaxLength)"
        )
    return None


@functools.lru_cache(maxsize=4096)
def _compile_selector(expression: str) -> DeviceSelector:
    result_type = _typecheck(expression, None).result_type
    if result_type not in _BOOL_OR_UNKNOWN:  # Kubernetes also accepts the unknown type: a bool attribute
        raise CelCompileError(f"selector {_shorten(expression)} must evaluate to bool, not {_type_name(result_type)}")
    checked = _typecheck(expression, None)
    return DeviceSelector(expression, _runtime_program(expression, None), _selector_projection(checked.ast))


def compile_selector(expression: str) -> DeviceSelector:
    """Compile a DeviceClass/ResourceClaim CEL selector (cached by text); raises CelCompileError."""
    problem = _length_problem(expression)
    if problem is not None:
        raise CelCompileError(problem)
    return _compile_selector(expression)


def check_selector(expression: str, capacity_names: Collection[str] = KNOWN_CAPACITY_NAMES) -> list[str]:
    """Problems a policy should report for a selector; an empty list means it is fine."""
    problems = []
    length_problem = _length_problem(expression)
    if length_problem is not None:
        problems.append(length_problem)
    try:
        _compile_selector(expression)
    except CelCompileError as error:
        problems.append(str(error))
        return problems
    problems.extend(_capacity_reads_through_attributes(_typecheck(expression, None).ast, capacity_names))
    return problems


# ---------------------------------------------------------------------------------------------------------
# Generic evaluation (ValidatingAdmissionPolicy expressions and the like)


def _from_cel(value: Any) -> Any:
    tag = _tag(value)
    if tag is _QUANTITY_TAG:
        return _to_quantity(_fraction(value[2]))
    if tag is _SEMVER_TAG:
        return Version.parse(value[5])
    if isinstance(value, list):
        return [_from_cel(item) for item in value]
    if isinstance(value, dict):
        return {key: _from_cel(item) for key, item in value.items()}
    if isinstance(value, bytearray):
        return bytes(value)
    return value


def evaluate(expression: str, variables: Mapping[str, Any]) -> Any:
    """Evaluate a CEL expression over JSON-like variables (Quantity and Version values may appear and come
    back as such), with the same libraries as selectors. Raises CelCompileError or CelEvaluationError."""
    program = _runtime_program(expression, tuple(sorted(variables)))
    result = program.eval(data={name: _to_cel(value) for name, value in variables.items()})
    if result.type() == _T.ERROR:
        raise CelEvaluationError(f"{_shorten(expression)} failed: {_engine_message(result.value())}")
    return _from_cel(result.plain_value())
