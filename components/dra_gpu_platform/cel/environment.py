"""The typing and runtime CEL environments with Kubernetes' declarations of the quantity and semver libraries."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Collection
from typing import Any, NamedTuple

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings

from dra_gpu_platform.cel.values import (
    _NO_SUCH_OVERLOAD,
    _cel_add,
    _cel_as_approximate_float,
    _cel_as_integer,
    _cel_is_integer,
    _cel_is_quantity,
    _cel_is_semver,
    _cel_no_such_overload,
    _cel_quantity,
    _cel_semver,
    _cel_sub,
)

# ---------------------------------------------------------------------------------------------------------
# Environments

_T = cel.Type
_QUANTITY = _T.AbstractType("kubernetes.Quantity")
_SEMVER = _T.AbstractType("kubernetes.Semver")
_ENCODED = _T.List(_T.DYN)


class _Overload(NamedTuple):
    name: str
    overload_id: str
    result: cel.Type
    params: tuple[cel.Type, ...]
    member: bool = False
    implementation: Callable[..., Any] | None = None


# The Kubernetes declarations, for type-checking only. `sign` is global upstream but documented as
# `<Quantity>.sign()`, so both spellings type-check.
_TYPED_OVERLOADS = (
    _Overload("quantity", "string_to_quantity", _QUANTITY, (_T.STRING,)),
    _Overload("isQuantity", "is_quantity_string", _T.BOOL, (_T.STRING,)),
    _Overload("sign", "quantity_sign", _T.INT, (_QUANTITY,)),
    _Overload("sign", "quantity_sign_member", _T.INT, (_QUANTITY,), True),
    _Overload("isGreaterThan", "quantity_is_greater_than", _T.BOOL, (_QUANTITY, _QUANTITY), True),
    _Overload("isLessThan", "quantity_is_less_than", _T.BOOL, (_QUANTITY, _QUANTITY), True),
    _Overload("compareTo", "quantity_compare_to", _T.INT, (_QUANTITY, _QUANTITY), True),
    _Overload("asApproximateFloat", "quantity_get_float", _T.DOUBLE, (_QUANTITY,), True),
    _Overload("asInteger", "quantity_get_int", _T.INT, (_QUANTITY,), True),
    _Overload("isInteger", "quantity_is_integer", _T.BOOL, (_QUANTITY,), True),
    _Overload("add", "quantity_add", _QUANTITY, (_QUANTITY, _QUANTITY), True),
    _Overload("add", "quantity_add_int", _QUANTITY, (_QUANTITY, _T.INT), True),
    _Overload("sub", "quantity_sub", _QUANTITY, (_QUANTITY, _QUANTITY), True),
    _Overload("sub", "quantity_sub_int", _QUANTITY, (_QUANTITY, _T.INT), True),
    _Overload("semver", "string_to_semver", _SEMVER, (_T.STRING,)),
    _Overload("semver", "string_bool_to_semver", _SEMVER, (_T.STRING, _T.BOOL)),
    _Overload("isSemver", "is_semver_string", _T.BOOL, (_T.STRING,)),
    _Overload("isSemver", "is_semver_string_bool", _T.BOOL, (_T.STRING, _T.BOOL)),
    _Overload("isGreaterThan", "semver_is_greater_than", _T.BOOL, (_SEMVER, _SEMVER), True),
    _Overload("isLessThan", "semver_is_less_than", _T.BOOL, (_SEMVER, _SEMVER), True),
    _Overload("compareTo", "semver_compare_to", _T.INT, (_SEMVER, _SEMVER), True),
    _Overload("major", "semver_major", _T.INT, (_SEMVER,), True),
    _Overload("minor", "semver_minor", _T.INT, (_SEMVER,), True),
    _Overload("patch", "semver_patch", _T.INT, (_SEMVER,), True),
)

# Python implementations over the encoded values, for what the rewrite leaves as calls.
_RUNTIME_OVERLOADS = (
    _Overload("quantity", "quantity", _ENCODED, (_T.STRING,), False, _cel_quantity),
    _Overload("isQuantity", "isQuantity", _T.BOOL, (_T.STRING,), False, _cel_is_quantity),
    _Overload("semver", "semver", _ENCODED, (_T.STRING,), False, _cel_semver),
    _Overload("semver", "semver_normalize", _ENCODED, (_T.STRING, _T.BOOL), False, _cel_semver),
    _Overload("isSemver", "isSemver", _T.BOOL, (_T.STRING,), False, _cel_is_semver),
    _Overload("isSemver", "isSemver_normalize", _T.BOOL, (_T.STRING, _T.BOOL), False, _cel_is_semver),
    _Overload("asApproximateFloat", "asApproximateFloat", _T.DOUBLE, (_ENCODED,), True, _cel_as_approximate_float),
    _Overload("asInteger", "asInteger", _T.INT, (_ENCODED,), True, _cel_as_integer),
    _Overload("isInteger", "isInteger", _T.BOOL, (_ENCODED,), True, _cel_is_integer),
    _Overload("add", "add", _ENCODED, (_ENCODED, _ENCODED), True, _cel_add),
    _Overload("add", "add_int", _ENCODED, (_ENCODED, _T.INT), True, _cel_add),
    _Overload("sub", "sub", _ENCODED, (_ENCODED, _ENCODED), True, _cel_sub),
    _Overload("sub", "sub_int", _ENCODED, (_ENCODED, _T.INT), True, _cel_sub),
    _Overload(_NO_SUCH_OVERLOAD, _NO_SUCH_OVERLOAD, _T.BOOL, (_T.STRING, _ENCODED), False, _cel_no_such_overload),
)


def _function_decls(overloads: Collection[_Overload]) -> list[cel.FunctionDecl]:
    by_name: dict[str, list[cel.Overload]] = {}
    for overload in overloads:
        implementation = {"impl": overload.implementation} if overload.implementation else {}
        by_name.setdefault(overload.name, []).append(
            cel.Overload(
                overload.overload_id,
                return_type=overload.result,
                parameters=list(overload.params),
                is_member=overload.member,
                **implementation,
            )
        )
    return [cel.FunctionDecl(name, decls) for name, decls in by_name.items()]


def _extensions() -> list[cel.CelExtensionBase]:
    return [ext_strings.ExtStrings(), ext_optional.ExtOptional(), ext_bindings.ExtBindings()]


# Dotted names give each device field its own type; the checker resolves `device.capacity` to the longest
# declared name. A bare `device` (e.g. `has(device.driver)`, `cel.bind(d, device, ...)`) is not declared.
_SELECTOR_VARIABLES = {
    "device.driver": _T.STRING,
    "device.allowMultipleAllocations": _T.BOOL,
    "device.attributes": _T.Map(_T.STRING, _T.Map(_T.STRING, _T.DYN)),
    "device.capacity": _T.Map(_T.STRING, _T.Map(_T.STRING, _QUANTITY)),
}


@functools.lru_cache(maxsize=64)
def _typing_env(generic_variables: tuple[str, ...] | None) -> cel.Env:
    """The selector environment for None, else one where each named variable has an unknown (dyn) type."""
    variables = _SELECTOR_VARIABLES if generic_variables is None else dict.fromkeys(generic_variables, _T.DYN)
    return cel.NewEnv(variables=variables, functions=_function_decls(_TYPED_OVERLOADS), extensions=_extensions())


@functools.lru_cache(maxsize=1)
def _runtime_env() -> cel.Env:
    return cel.NewEnv(functions=_function_decls(_RUNTIME_OVERLOADS), extensions=_extensions())


_STATUS_PREFIX_RE = re.compile(r"^[A-Z_]+: ")
_STATUS_SUFFIX_RE = re.compile(r"\s*\[[A-Z_]+\]$")


def _engine_message(text: object) -> str:
    """cel-cpp wraps messages in absl status codes; users need the message and the caret line."""
    text = _STATUS_SUFFIX_RE.sub("", _STATUS_PREFIX_RE.sub("", str(text).strip()))
    return text.replace("ERROR: <input>:", "at ")


def _shorten(expression: str, limit: int = 120) -> str:
    return repr(expression if len(expression) <= limit else expression[: limit - 3] + "...")


def _type_name(cel_type: cel.Type) -> str:
    name: str = cel_type.name()
    return name.lower() if name.isupper() else name  # STRING -> string; kubernetes.Quantity stays
