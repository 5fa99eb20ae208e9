"""CEL as Kubernetes evaluates it for DRA device selectors and admission policies. Pure (no Pulumi).

Engine: cel-expr-python 0.1.3 (cel-cpp) with its strings, optional and bindings extensions, plus the Kubernetes
quantity and semver libraries (apiserver pkg/cel/library/{quantity,semverlib}.go) re-implemented here.

How an expression runs:
1. A *typing* environment type-checks it with Kubernetes' declarations: `device.driver` string,
   `device.attributes` map(string, map(string, dyn)), `device.capacity` map(string, map(string, Quantity)),
   Quantity and Semver as opaque types. This yields the error messages and the result type, and rejects what
   Kubernetes rejects, e.g. `quantity('1') < quantity('2')`.
2. The checked syntax tree is rewritten and run unchecked in a *runtime* environment:
   - Python objects cannot be CEL values here, so values travel as tagged lists:
     Quantity [b"kubernetes.Quantity", order key, exact value "p/q"],
     Semver [b"kubernetes.Semver", order key, major, minor, patch, "major.minor.patch[-prerelease]"].
     Order keys are strings whose CEL `<` is the library's ordering, and every element is canonical, so `==`
     is value equality (quantity('1') == quantity('1000m')). Lists have no `<`, so ordering a Semver
     attribute with `>=` fails as in Kubernetes; JSON never holds bytes, so decoding results is unambiguous.
   - compareTo/isGreaterThan/isLessThan/sign/major/minor/patch become plain CEL on those lists, and
     quantity('..')/semver('..') of a literal become list literals. Reason: every call into a Python function
     leaks its arguments in cel-expr-python 0.1.3 (about 50-300 bytes per call), and is slower. The rarer
     functions (add, sub, asInteger, ...) and non-literal quantity(x)/semver(x) still call Python.
   - Kubernetes gives an unknown domain an empty map (dra.md §2); cel-cpp maps have no default, so
     `device.attributes[d]` becomes `device.attributes[?d].orValue({})`. An unknown *name* inside a known or
     empty domain stays an evaluation error, as in Kubernetes.

Not modelled: the CEL cost limits (estimated and runtime, 1,000,000 per selector); a bare `device` variable
(`has(device.driver)`, `cel.bind(d, device, ...)` do not compile here; Kubernetes accepts them);
the empty-map default when a domain map is reached other than by indexing `device.attributes`/`device.capacity`
directly (e.g. `cel.bind(m, device.attributes, m['other'])` is an error here).
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection, Hashable, Iterator, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from cel_expr_python import cel
from cel_expr_python.ext import ext_bindings, ext_optional, ext_strings
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from components.facts.quantity import Quantity, QuantityError, parse_quantity

__all__ = [
    "MAX_SELECTOR_BYTES",
    "KNOWN_CAPACITY_NAMES",
    "CelCompileError",
    "CelEvaluationError",
    "Version",
    "Device",
    "DeviceSelector",
    "compile_selector",
    "check_selector",
    "evaluate",
]

# resourceapi.CELSelectorExpressionMaxLength; Go's len() counts bytes.
MAX_SELECTOR_BYTES = 10 * 1024

# Capacities the NVIDIA driver (dra.md §4.4, plus memorySlice<N> on MIG devices) and dra-example-driver (§5)
# publish. Reading one through device.attributes is an evaluation error that aborts allocation.
KNOWN_CAPACITY_NAMES = frozenset(
    {
        "memory",
        "multiprocessors",
        "copyEngines",
        "decoders",
        "encoders",
        "jpegEngines",
        "ofaEngines",
        "addressableMemory",
    }
)
_MEMORY_SLICE_RE = re.compile(r"memorySlice[0-9]+")

_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


class CelCompileError(ValueError):
    """The expression does not compile: syntax, unknown name or function, wrong type, non-bool result, too long."""


class CelEvaluationError(RuntimeError):
    """The expression failed at run time; for a selector Kubernetes aborts the allocation."""


# ---------------------------------------------------------------------------------------------------------
# Semantic versions


_NUMERIC = r"0|[1-9][0-9]*"
_PRERELEASE_ID = r"0|[1-9][0-9]*|[0-9]*[a-zA-Z-][0-9a-zA-Z-]*"
_SEMVER_RE = re.compile(
    rf"(?P<major>{_NUMERIC})\.(?P<minor>{_NUMERIC})\.(?P<patch>{_NUMERIC})"
    rf"(?:-(?P<prerelease>(?:{_PRERELEASE_ID})(?:\.(?:{_PRERELEASE_ID}))*))?"
    r"(?:\+(?P<build>[0-9a-zA-Z-]+(?:\.[0-9a-zA-Z-]+)*))?"
)


@functools.total_ordering
@dataclass(frozen=True)
class Version:
    """A semantic version (semver.org 2.0.0), ordered by precedence; build metadata does not count."""

    major: int
    minor: int
    patch: int
    prerelease: str = ""
    build: str = field(default="", compare=False)

    @classmethod
    def parse(cls, text: str, normalize: bool = False) -> "Version":
        """Strict like blang/semver Parse. `normalize` is CEL's `semver(text, true)`: drop a leading "v",
        fill a missing minor/patch with 0 and strip leading zeros."""
        if not isinstance(text, str):
            raise ValueError(f"{text!r} is not a semantic version string")
        match = _SEMVER_RE.fullmatch(_normalize_semver(text) if normalize else text)
        if match is None:
            raise ValueError(f"{text!r} is not a semantic version (expected MAJOR.MINOR.PATCH, e.g. '580.159.4')")
        return cls(
            int(match["major"]),
            int(match["minor"]),
            int(match["patch"]),
            match["prerelease"] or "",
            match["build"] or "",
        )

    def _precedence(self) -> tuple:
        # A release sorts after its prereleases; numeric identifiers sort before alphanumeric ones.
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 1, ())
        identifiers = tuple(
            (0, int(part), "") if part.isdigit() else (1, 0, part) for part in self.prerelease.split(".")
        )
        return (self.major, self.minor, self.patch, 0, identifiers)

    def __lt__(self, other: "Version") -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._precedence() < other._precedence()

    def compare_to(self, other: "Version") -> int:
        mine, theirs = self._precedence(), other._precedence()
        return (mine > theirs) - (mine < theirs)

    def canonical(self) -> str:
        """The spelling without build metadata: equal for versions of equal precedence."""
        core = f"{self.major}.{self.minor}.{self.patch}"
        return f"{core}-{self.prerelease}" if self.prerelease else core

    def __str__(self) -> str:
        return f"{self.canonical()}+{self.build}" if self.build else self.canonical()


def _normalize_semver(text: str) -> str:
    # Port of apiserver semverlib normalizeAndParse (which deliberately does not trim whitespace).
    parts = text.removeprefix("v").split(".", 2)
    for index, part in enumerate(parts):
        if len(part) > 1:
            stripped = part.lstrip("0")
            if not stripped or not stripped[0].isdigit():
                stripped = "0" + stripped
            parts[index] = stripped
    if len(parts) < 3:
        if any(mark in parts[-1] for mark in "+-"):
            raise ValueError(f"{text!r}: a short version cannot carry prerelease or build metadata")
        parts += ["0"] * (3 - len(parts))
    return ".".join(parts)


# ---------------------------------------------------------------------------------------------------------
# Runtime encoding of Quantity and Semver values

_QUANTITY_TAG = b"kubernetes.Quantity"
_SEMVER_TAG = b"kubernetes.Semver"
_NINES_COMPLEMENT = str.maketrans("0123456789", "9876543210")


def _decimal_digits(fraction: Fraction) -> str:
    """Digits after the point of 0 <= fraction < 1; quantities are decimal, so the expansion ends."""
    digits = []
    while fraction:
        fraction *= 10
        digit = fraction.numerator // fraction.denominator
        digits.append(str(digit))
        fraction -= digit
    return "".join(digits)


def _quantity_order_key(value: Fraction) -> str:
    """A string whose lexicographic order is numeric order: sign class, digit count, digits, fraction.
    Negative values use nines' complements and a closing "~" so that longer fractions sort lower."""
    if value == 0:
        return "1"
    magnitude = abs(value)
    integer = magnitude.numerator // magnitude.denominator
    integer_digits = str(integer) if integer else ""
    if len(integer_digits) > 999:
        raise ValueError("quantity has more than 999 integer digits")
    length = f"{len(integer_digits):03d}"
    fraction_digits = _decimal_digits(magnitude - integer)
    if value > 0:
        return f"2{length}{integer_digits}.{fraction_digits}"
    complemented = (part.translate(_NINES_COMPLEMENT) for part in (length, integer_digits, fraction_digits))
    return "0{}{}.{}~".format(*complemented)


def _length_prefixed(number: int) -> str:
    digits = str(number)
    return f"{len(digits):02d}{digits}"


def _semver_order_key(version: Version) -> str:
    """A string whose lexicographic order is semver precedence. "~" (release) sorts after "-" (prerelease);
    identifiers are "0"+number or "1"+text, joined by " ", which sorts below every identifier character."""
    core = "".join(_length_prefixed(part) for part in (version.major, version.minor, version.patch))
    if not version.prerelease:
        return core + "~"
    identifiers = (
        "0" + _length_prefixed(int(part)) if part.isdigit() else "1" + part for part in version.prerelease.split(".")
    )
    return core + "-" + " ".join(identifiers)


@functools.lru_cache(maxsize=4096)
def _encode_quantity_value(value: Fraction) -> tuple:
    return (_QUANTITY_TAG, _quantity_order_key(value), str(value))


def _encode_quantity(value: Fraction) -> list:
    return list(_encode_quantity_value(value))


@functools.lru_cache(maxsize=1024)
def _encode_version_value(version: Version) -> tuple:
    return (_SEMVER_TAG, _semver_order_key(version), version.major, version.minor, version.patch, version.canonical())


def _encode_version(version: Version) -> list:
    return list(_encode_version_value(version))


def _tag(value: Any) -> bytes | None:
    if isinstance(value, list) and value and isinstance(value[0], (bytes, bytearray)):
        if value[0] == _QUANTITY_TAG and len(value) == 3:
            return _QUANTITY_TAG
        if value[0] == _SEMVER_TAG and len(value) == 6:
            return _SEMVER_TAG
    return None


_CEL_TYPE_NAMES = {
    bool: "bool",
    int: "int",
    float: "double",
    str: "string",
    bytes: "bytes",
    bytearray: "bytes",
    list: "list",
    dict: "map",
    type(None): "null",
}


def _cel_type_name(value: Any) -> str:
    tag = _tag(value)
    if tag is not None:
        return tag.decode()
    return _CEL_TYPE_NAMES.get(type(value), type(value).__name__)


@functools.lru_cache(maxsize=4096)
def _fraction(exact: str) -> Fraction:
    return Fraction(exact)


def _quantity_operand(value: Any, function: str) -> Fraction:
    if _tag(value) is not _QUANTITY_TAG:
        raise TypeError(f"no such overload: {function} on {_cel_type_name(value)}")
    return _fraction(value[2])


def _to_quantity(value: Fraction) -> Quantity:
    """A Quantity with a Kubernetes spelling for an exact value computed inside CEL."""
    if value.denominator == 1:
        return Quantity.from_bytes(int(value))
    for suffix, scale in (("m", 10**3), ("u", 10**6), ("n", 10**9)):
        if (value * scale).denominator == 1:
            return Quantity(value, f"{int(value * scale)}{suffix}")
    exponent = len(_decimal_digits(abs(value) - int(abs(value))))
    return Quantity(value, f"{int(value * 10**exponent)}e-{exponent}")


# --- library functions that stay in Python (rare in selectors; see the module docstring) ---------------


def _cel_quantity(text: str) -> list:
    try:
        return _encode_quantity(parse_quantity(text).value)
    except QuantityError as error:
        raise ValueError(str(error)) from None


def _cel_is_quantity(text: str) -> bool:
    try:
        parse_quantity(text)
    except QuantityError:
        return False
    return True


def _cel_semver(text: str, normalize: bool = False) -> list:
    return _encode_version(Version.parse(text, normalize=normalize))


def _cel_is_semver(text: str, normalize: bool = False) -> bool:
    try:
        Version.parse(text, normalize=normalize)
    except ValueError:
        return False
    return True


def _fits_int64(value: Fraction) -> bool:
    return value.denominator == 1 and _INT64_MIN <= value.numerator <= _INT64_MAX


def _cel_is_integer(receiver: list) -> bool:
    return _fits_int64(_quantity_operand(receiver, "isInteger"))


def _cel_as_integer(receiver: list) -> int:
    value = _quantity_operand(receiver, "asInteger")
    if not _fits_int64(value):
        raise ValueError("cannot convert value to integer")
    return int(value)


def _cel_as_approximate_float(receiver: list) -> float:
    value = _quantity_operand(receiver, "asApproximateFloat")
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _cel_add(receiver: list, other: list | int) -> list:
    addend = Fraction(other) if isinstance(other, int) else _quantity_operand(other, "add")
    return _encode_quantity(_quantity_operand(receiver, "add") + addend)


def _cel_sub(receiver: list, other: list | int) -> list:
    subtrahend = Fraction(other) if isinstance(other, int) else _quantity_operand(other, "sub")
    return _encode_quantity(_quantity_operand(receiver, "sub") - subtrahend)


_NO_SUCH_OVERLOAD = "_k8s_no_such_overload"  # not declared for type-checking, so users cannot call it


def _cel_no_such_overload(function: str, operands: list) -> bool:
    raise TypeError(f"no such overload: {function}({', '.join(_cel_type_name(value) for value in operands)})")


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


def _extensions() -> list:
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
    name = cel_type.name()
    return name.lower() if name.isupper() else name  # STRING -> string; kubernetes.Quantity stays


# ---------------------------------------------------------------------------------------------------------
# The checked syntax tree (wire-compatible subset of cel-spec cel/expr/syntax.proto and checked.proto).
# Fields not declared here (macro calls, most of Type) survive a round trip as unknown fields.

_STRING, _BYTES, _BOOL, _DOUBLE = "string", "bytes", "bool", "double"
_INT32, _INT64, _UINT64 = "int32", "int64", "uint64"
_AST_SCHEMA: dict[str, tuple[tuple, ...]] = {
    # message: (field, number, type, repeated, oneof)
    "Constant": (
        ("null_value", 1, _INT32, False, "kind"),
        ("bool_value", 2, _BOOL, False, "kind"),
        ("int64_value", 3, _INT64, False, "kind"),
        ("uint64_value", 4, _UINT64, False, "kind"),
        ("double_value", 5, _DOUBLE, False, "kind"),
        ("string_value", 6, _STRING, False, "kind"),
        ("bytes_value", 7, _BYTES, False, "kind"),
    ),
    "Ident": (("name", 1, _STRING, False, None),),
    "Select": (
        ("operand", 1, "Expr", False, None),
        ("field", 2, _STRING, False, None),
        ("test_only", 3, _BOOL, False, None),
    ),
    "Call": (
        ("target", 1, "Expr", False, None),
        ("function", 2, _STRING, False, None),
        ("args", 3, "Expr", True, None),
    ),
    "CreateList": (("elements", 1, "Expr", True, None), ("optional_indices", 2, _INT32, True, None)),
    "Entry": (
        ("id", 1, _INT64, False, None),
        ("field_key", 2, _STRING, False, "key"),
        ("map_key", 3, "Expr", False, "key"),
        ("value", 4, "Expr", False, None),
        ("optional_entry", 5, _BOOL, False, None),
    ),
    "CreateStruct": (("message_name", 1, _STRING, False, None), ("entries", 2, "Entry", True, None)),
    "Comprehension": (
        ("iter_var", 1, _STRING, False, None),
        ("iter_range", 2, "Expr", False, None),
        ("accu_var", 3, _STRING, False, None),
        ("accu_init", 4, "Expr", False, None),
        ("loop_condition", 5, "Expr", False, None),
        ("loop_step", 6, "Expr", False, None),
        ("result", 7, "Expr", False, None),
        ("iter_var2", 8, _STRING, False, None),
    ),
    "Expr": (
        ("id", 2, _INT64, False, None),
        ("const_expr", 3, "Constant", False, "kind"),
        ("ident_expr", 4, "Ident", False, "kind"),
        ("select_expr", 5, "Select", False, "kind"),
        ("call_expr", 6, "Call", False, "kind"),
        ("list_expr", 7, "CreateList", False, "kind"),
        ("struct_expr", 8, "CreateStruct", False, "kind"),
        ("comprehension_expr", 9, "Comprehension", False, "kind"),
    ),
    "PositionEntry": (("key", 1, _INT64, False, None), ("value", 2, _INT32, False, None)),
    "SourceInfo": (("line_offsets", 3, _INT32, True, None), ("positions", 4, "PositionEntry", True, None)),
    "AbstractType": (("name", 1, _STRING, False, None),),
    "Type": (("abstract_type", 14, "AbstractType", False, None),),
    "TypeEntry": (("key", 1, _INT64, False, None), ("value", 2, "Type", False, None)),
    "Reference": (("name", 1, _STRING, False, None), ("overload_id", 3, _STRING, True, None)),
    "ReferenceEntry": (("key", 1, _INT64, False, None), ("value", 2, "Reference", False, None)),
    "CheckedExpr": (
        ("reference_map", 2, "ReferenceEntry", True, None),
        ("type_map", 3, "TypeEntry", True, None),
        ("expr", 4, "Expr", False, None),
        ("source_info", 5, "SourceInfo", False, None),
    ),
    "ParsedExpr": (("expr", 2, "Expr", False, None), ("source_info", 3, "SourceInfo", False, None)),
    "Any": (("type_url", 1, _STRING, False, None), ("value", 2, _BYTES, False, None)),
}


def _ast_messages() -> dict[str, type]:
    kinds = descriptor_pb2.FieldDescriptorProto
    scalar = {
        _STRING: kinds.TYPE_STRING,
        _BYTES: kinds.TYPE_BYTES,
        _BOOL: kinds.TYPE_BOOL,
        _INT32: kinds.TYPE_INT32,
        _INT64: kinds.TYPE_INT64,
        _UINT64: kinds.TYPE_UINT64,
        _DOUBLE: kinds.TYPE_DOUBLE,
    }
    package = "dra_gpu_platform.cel_ast"
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3")
    for message_name, fields in _AST_SCHEMA.items():
        message = file.message_type.add(name=message_name)
        oneofs: dict[str, int] = {}
        for name, number, field_type, repeated, oneof in fields:
            descriptor = message.field.add(
                name=name,
                number=number,
                label=kinds.LABEL_REPEATED if repeated else kinds.LABEL_OPTIONAL,
            )
            if field_type in scalar:
                descriptor.type = scalar[field_type]
            else:
                descriptor.type = kinds.TYPE_MESSAGE
                descriptor.type_name = f".{package}.{field_type}"
            if oneof is not None:
                if oneof not in oneofs:
                    oneofs[oneof] = len(message.oneof_decl)
                    message.oneof_decl.add(name=oneof)
                descriptor.oneof_index = oneofs[oneof]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}")) for name in _AST_SCHEMA
    }


_AST = _ast_messages()
_Expr = _AST["Expr"]


def _children(node: Any) -> Iterator[Any]:
    kind = node.WhichOneof("kind")
    if kind == "select_expr":
        yield node.select_expr.operand
    elif kind == "call_expr":
        if node.call_expr.HasField("target"):
            yield node.call_expr.target
        yield from node.call_expr.args
    elif kind == "list_expr":
        yield from node.list_expr.elements
    elif kind == "struct_expr":
        for entry in node.struct_expr.entries:
            if entry.HasField("map_key"):
                yield entry.map_key
            yield entry.value
    elif kind == "comprehension_expr":
        loop = node.comprehension_expr
        yield from (loop.iter_range, loop.accu_init, loop.loop_condition, loop.loop_step, loop.result)


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in _children(node):
        yield from _walk(child)


def _string_constant(node: Any) -> str | None:
    if node.WhichOneof("kind") == "const_expr" and node.const_expr.WhichOneof("kind") == "string_value":
        return node.const_expr.string_value
    return None


def _bool_constant(node: Any) -> bool | None:
    if node.WhichOneof("kind") == "const_expr" and node.const_expr.WhichOneof("kind") == "bool_value":
        return node.const_expr.bool_value
    return None


def _ident_name(node: Any) -> str | None:
    return node.ident_expr.name if node.WhichOneof("kind") == "ident_expr" else None


class _Checked(NamedTuple):
    result_type: cel.Type
    ast: Any  # CheckedExpr; shared through caches, never mutated


@functools.lru_cache(maxsize=4096)
def _typecheck(expression: str, generic_variables: tuple[str, ...] | None) -> _Checked:
    try:
        compiled = _typing_env(generic_variables).compile(expression)
    except RuntimeError as error:
        raise CelCompileError(f"invalid CEL expression: {_engine_message(error)}") from None
    envelope = _AST["Any"].FromString(compiled.serialize())
    return _Checked(compiled.return_type(), _AST["CheckedExpr"].FromString(envelope.value))


# ---------------------------------------------------------------------------------------------------------
# Rewriting the checked tree into what the runtime environment runs (see the module docstring)

_ORDERING_FUNCTIONS = frozenset({"compareTo", "isGreaterThan", "isLessThan"})
_SEMVER_FIELDS = {"major": 2, "minor": 3, "patch": 4}
_DOMAIN_MAPS = frozenset({"device.attributes", "device.capacity"})
_ABSTRACT_TAGS = {"kubernetes.Quantity": _QUANTITY_TAG, "kubernetes.Semver": _SEMVER_TAG}


class _Rewriter:
    def __init__(self, checked: Any, empty_domain_default: bool) -> None:
        self._static_tags = {
            entry.key: _ABSTRACT_TAGS.get(entry.value.abstract_type.name)
            for entry in checked.type_map
            if entry.value.HasField("abstract_type")
        }
        self._next_id = max(node.id for node in _walk(checked.expr)) + 1
        self._bindings = 0
        self._empty_domain_default = empty_domain_default

    # --- node builders; every node gets a fresh id ---
    def _node(self, **kind: Any) -> Any:
        self._next_id += 1
        return _Expr(id=self._next_id, **kind)

    def _const(self, value: bool | int | str | bytes) -> Any:
        name = {bool: "bool_value", int: "int64_value", str: "string_value", bytes: "bytes_value"}[type(value)]
        return self._node(const_expr=_AST["Constant"](**{name: value}))

    def _ident(self, name: str) -> Any:
        return self._node(ident_expr=_AST["Ident"](name=name))

    def _call(self, function: str, *args: Any, target: Any = None) -> Any:
        call = _AST["Call"](function=function, args=list(args))
        if target is not None:
            call.target.CopyFrom(target)
        return self._node(call_expr=call)

    def _list(self, values: tuple) -> Any:
        return self._node(list_expr=_AST["CreateList"](elements=[self._const(value) for value in values]))

    def _copy(self, node: Any) -> Any:
        copy = _Expr()
        copy.CopyFrom(node)
        for part in _walk(copy):
            self._next_id += 1
            part.id = self._next_id
        return copy

    def _index(self, operand: Callable[[], Any], position: int) -> Any:
        return self._call("_[_]", operand(), self._const(position))

    def _conditional(self, condition: Any, then: Any, otherwise: Any) -> Any:
        return self._call("_?_:_", condition, then, otherwise)

    def _with_operands(self, operands: list[Any], build: Callable[..., Any]) -> Any:
        """build(*makers) where each maker returns a fresh node for an operand; operands other than
        identifiers and literals are evaluated once, through cel.bind's comprehension form."""
        makers: list[Callable[[], Any]] = []
        bindings: list[tuple[str, Any]] = []
        for operand in operands:
            if operand.WhichOneof("kind") in ("ident_expr", "const_expr", "list_expr") and all(
                part.WhichOneof("kind") in ("ident_expr", "const_expr", "list_expr") for part in _walk(operand)
            ):
                makers.append(functools.partial(self._copy, operand))
            else:
                name = f"@k8s{self._bindings}"
                self._bindings += 1
                bindings.append((name, operand))
                makers.append(functools.partial(self._ident, name))
        result = build(*makers)
        for name, operand in reversed(bindings):
            loop = _AST["Comprehension"](
                iter_var="#unused",
                iter_range=self._node(list_expr=_AST["CreateList"]()),
                accu_var=name,
                accu_init=operand,
                loop_condition=self._const(False),
                loop_step=self._ident(name),
                result=result,
            )
            result = self._node(comprehension_expr=loop)
        return result

    def _guarded(self, function: str, operands: list[tuple[Callable[[], Any], bytes | None]], result: Any) -> Any:
        """Type checks the checker could not do (dyn operands, e.g. attributes); else no such overload."""
        expected = next((tag for _, tag in operands if tag is not None), None)
        terms = []
        for make, static_tag in operands:
            if static_tag is not None:
                continue
            terms.append(self._call("_==_", self._call("type", make()), self._ident("list")))
            if expected is not None:
                terms.append(self._call("_==_", self._index(make, 0), self._const(expected)))
        if expected is None and len(operands) == 2:  # both dyn: same kind of value on both sides
            (left, _), (right, _) = operands
            terms.append(self._call("_==_", self._call("type", self._index(left, 0)), self._ident("bytes")))
            terms.append(self._call("_==_", self._index(left, 0), self._index(right, 0)))
        if not terms:
            return result
        condition = functools.reduce(lambda left, right: self._call("_&&_", left, right), terms)
        failure = self._call(
            _NO_SUCH_OVERLOAD,
            self._const(function),
            self._node(list_expr=_AST["CreateList"](elements=[make() for make, _ in operands])),
        )
        return self._conditional(condition, result, failure)

    # --- rewrites ---
    def rewrite(self, node: Any) -> Any:
        """Returns the rewritten node; children are rewritten in place first."""
        kind = node.WhichOneof("kind")
        if kind == "select_expr":
            self._replace(node.select_expr.operand)
        elif kind == "call_expr":
            call = node.call_expr
            if call.HasField("target"):
                self._replace(call.target)
            for argument in call.args:
                self._replace(argument)
            return self._rewrite_call(node)
        else:
            for child in _children(node):
                self._replace(child)
        return node

    def _replace(self, child: Any) -> None:
        rewritten = self.rewrite(child)
        if rewritten is not child:
            child.CopyFrom(rewritten)

    def _rewrite_call(self, node: Any) -> Any:
        call = node.call_expr
        function, args = call.function, list(call.args)
        has_target = call.HasField("target")
        operands = ([call.target] if has_target else []) + args

        if function in ("quantity", "semver", "isQuantity", "isSemver") and not has_target:
            return self._fold_literal(node, function, args)
        if function in _ORDERING_FUNCTIONS and has_target and len(args) == 1:
            return self._ordering(function, call.target, args[0])
        if function == "sign" and len(operands) == 1:
            return self._sign(operands[0])
        if function in _SEMVER_FIELDS and has_target and not args:
            return self._semver_field(function, call.target)
        if (
            self._empty_domain_default
            and function == "_[_]"
            and not has_target
            and _ident_name(args[0]) in _DOMAIN_MAPS
        ):
            present = self._call("_[?_]", args[0], args[1])
            empty_map = self._node(struct_expr=_AST["CreateStruct"]())
            return self._call("orValue", empty_map, target=present)
        return node

    def _fold_literal(self, node: Any, function: str, args: list[Any]) -> Any:
        text = _string_constant(args[0])
        normalize = _bool_constant(args[1]) if len(args) == 2 else False
        if text is None or normalize is None:
            return node  # computed at run time by the Python implementation
        try:
            if function == "quantity":
                return self._list(_encode_quantity_value(parse_quantity(text).value))
            if function == "semver":
                return self._list(_encode_version_value(Version.parse(text, normalize=normalize)))
        except (QuantityError, ValueError):
            return node  # keeps the runtime error, as Kubernetes reports it at evaluation
        check = _cel_is_quantity(text) if function == "isQuantity" else _cel_is_semver(text, normalize)
        return self._const(check)

    def _ordering(self, function: str, receiver: Any, argument: Any) -> Any:
        tags = (self._static_tags.get(receiver.id), self._static_tags.get(argument.id))

        def build(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
            def key(make: Callable[[], Any]) -> Any:
                return self._index(make, 1)

            if function == "isGreaterThan":
                result = self._call("_>_", key(left), key(right))
            elif function == "isLessThan":
                result = self._call("_<_", key(left), key(right))
            else:
                result = self._conditional(
                    self._call("_<_", key(left), key(right)),
                    self._const(-1),
                    self._conditional(self._call("_==_", key(left), key(right)), self._const(0), self._const(1)),
                )
            return self._guarded(function, [(left, tags[0]), (right, tags[1])], result)

        return self._with_operands([receiver, argument], build)

    def _sign(self, operand: Any) -> Any:
        static = self._static_tags.get(operand.id) is not None

        def build(value: Callable[[], Any]) -> Any:
            key = functools.partial(self._index, value, 1)
            result = self._conditional(
                self._call("_>=_", key(), self._const("2")),
                self._const(1),
                self._conditional(self._call("_<_", key(), self._const("1")), self._const(-1), self._const(0)),
            )
            return result if static else self._require("sign", value, _QUANTITY_TAG, result)

        return self._with_operands([operand], build)

    def _semver_field(self, function: str, operand: Any) -> Any:
        static = self._static_tags.get(operand.id) is not None

        def build(value: Callable[[], Any]) -> Any:
            result = self._index(value, _SEMVER_FIELDS[function])
            return result if static else self._require(function, value, _SEMVER_TAG, result)

        return self._with_operands([operand], build)

    def _require(self, function: str, value: Callable[[], Any], tag: bytes, result: Any) -> Any:
        """result if the dyn operand is the encoded type, else the no-such-overload error."""
        condition = self._call(
            "_&&_",
            self._call("_==_", self._call("type", value()), self._ident("list")),
            self._call("_==_", self._index(value, 0), self._const(tag)),
        )
        failure = self._call(
            _NO_SUCH_OVERLOAD, self._const(function), self._node(list_expr=_AST["CreateList"](elements=[value()]))
        )
        return self._conditional(condition, result, failure)


@functools.lru_cache(maxsize=4096)
def _runtime_program(expression: str, generic_variables: tuple[str, ...] | None) -> cel.Expression:
    checked = _typecheck(expression, generic_variables).ast
    tree = _Expr()
    tree.CopyFrom(checked.expr)
    rewriter = _Rewriter(checked, empty_domain_default=generic_variables is None)
    tree = rewriter.rewrite(tree)
    parsed = _AST["ParsedExpr"](expr=tree, source_info=checked.source_info)
    envelope = _AST["Any"](type_url="type.googleapis.com/cel.expr.ParsedExpr", value=parsed.SerializeToString())
    try:
        return _runtime_env().deserialize(envelope.SerializeToString())
    except RuntimeError as error:  # a rewrite bug, not a user error; say so
        raise CelCompileError(f"internal error preparing {_shorten(expression)}: {_engine_message(error)}") from None


# What a selector reads: converting a device's maps into CEL values dominates evaluation time, so a selector
# that only reads `device.attributes['<domain>'].<name>` (or `has(...)`, `.?name`, `['<name>']`) gets just those
# entries, which gives the same results. Any other use of a map (iteration, `in`, size, cel.bind of a domain
# map, a computed domain) gets the whole map.
_Projection = tuple[tuple[str, "tuple[tuple[str, tuple[str, ...]], ...] | None"], ...]


def _selector_projection(checked: Any) -> _Projection:
    wanted: dict[str, dict[str, set[str]] | None] = {name: {} for name in sorted(_DOMAIN_MAPS)}

    def field_read_from(node: Any, domain_index: Any) -> str | None:
        """The constant name `node` reads from the domain map `domain_index`, if that is what it does."""
        kind = node.WhichOneof("kind")
        if kind == "select_expr" and node.select_expr.operand.id == domain_index.id:
            return node.select_expr.field
        if kind == "call_expr" and node.call_expr.function in ("_[_]", "_[?_]", "_?._"):
            args = node.call_expr.args
            if len(args) == 2 and args[0].id == domain_index.id:
                return _string_constant(args[1])
        return None

    def visit(node: Any, parent: Any, grandparent: Any) -> None:
        name = _ident_name(node)
        if name in wanted and wanted[name] is not None:
            domain = None
            if parent is not None and parent.WhichOneof("kind") == "call_expr":
                call = parent.call_expr
                if call.function in ("_[_]", "_[?_]") and len(call.args) == 2 and call.args[0].id == node.id:
                    domain = _string_constant(call.args[1])
            field_name = None
            if domain is not None and grandparent is not None:
                field_name = field_read_from(grandparent, parent)
            if field_name is None:
                wanted[name] = None
            else:
                wanted[name].setdefault(domain, set()).add(field_name)
        for child in _children(node):
            visit(child, node, parent)

    visit(checked.expr, None, None)
    return tuple(
        (name, None if domains is None else tuple((domain, tuple(sorted(names))) for domain, names in domains.items()))
        for name, domains in wanted.items()
    )


# ---------------------------------------------------------------------------------------------------------
# Policy check: capacities read through device.attributes


def _is_capacity_name(name: str | None, capacity_names: Collection[str]) -> bool:
    return name is not None and (name in capacity_names or _MEMORY_SLICE_RE.fullmatch(name) is not None)


def _location(checked: Any, node_id: int) -> str:
    offsets = {entry.key: entry.value for entry in checked.source_info.positions}
    if node_id not in offsets:
        return ""
    offset = offsets[node_id]
    line_starts = [0, *checked.source_info.line_offsets]
    line = max(index for index, start in enumerate(line_starts) if start <= offset)
    return f" at {line + 1}:{offset - line_starts[line] + 1}"


def _capacity_reads_through_attributes(checked: Any, capacity_names: Collection[str]) -> list[str]:
    """`device.attributes[d].memory` (also `.?memory`, `['memory']`, and through `cel.bind`)."""
    problems = []

    def attributes_domain(node: Any, scope: Mapping[str, str | None]) -> tuple[bool, str | None]:
        """(True, domain) when node evaluates to one domain's attribute map."""
        name = _ident_name(node)
        if name is not None:
            return (name in scope, scope.get(name))
        if node.WhichOneof("kind") != "call_expr":
            return (False, None)
        call = node.call_expr
        if call.function in ("_[_]", "_[?_]") and _ident_name(call.args[0]) == "device.attributes":
            return (True, _string_constant(call.args[1]))
        if call.function == "orValue" and call.HasField("target"):
            return attributes_domain(call.target, scope)
        return (False, None)

    def visit(node: Any, scope: Mapping[str, str | None]) -> None:
        kind = node.WhichOneof("kind")
        read: tuple[Any, str | None] | None = None
        if kind == "select_expr":
            read = (node.select_expr.operand, node.select_expr.field)
        elif kind == "call_expr" and node.call_expr.function in ("_[_]", "_[?_]", "_?._"):
            args = node.call_expr.args
            read = (args[0], _string_constant(args[1])) if len(args) == 2 else None
        if read is not None and _is_capacity_name(read[1], capacity_names):
            is_domain_map, domain = attributes_domain(read[0], scope)
            if is_domain_map:
                shown = repr(domain) if domain is not None else "..."
                problems.append(
                    f"reads {read[1]!r} through device.attributes{_location(checked, node.id)}: drivers publish "
                    f"{read[1]} as a capacity, so the attribute is missing and reading it is an evaluation error "
                    f"that aborts allocation; use device.capacity[{shown}].{read[1]} with .compareTo(quantity('...'))"
                )
        if kind == "comprehension_expr":
            loop = node.comprehension_expr
            visit(loop.iter_range, scope)
            visit(loop.accu_init, scope)
            is_domain_map, domain = attributes_domain(loop.accu_init, scope)
            inner = {key: value for key, value in scope.items() if key not in (loop.iter_var, loop.accu_var)}
            if is_domain_map:  # cel.bind(name, device.attributes[d], ...)
                inner[loop.accu_var] = domain
            for part in (loop.loop_condition, loop.loop_step, loop.result):
                visit(part, inner)
            return
        for child in _children(node):
            visit(child, scope)

    visit(checked.expr, {})
    return problems


# ---------------------------------------------------------------------------------------------------------
# Devices


def _split_qualified_name(qualified: str, driver: str) -> tuple[str, str]:
    # resource.k8s.io QualifiedName: "<domain>/<name>", or a bare name in the driver's domain.
    domain, separator, name = qualified.partition("/")
    return (domain, name) if separator else (driver, qualified)


_ATTRIBUTE_KINDS = {"bool": bool, "int": int, "string": str, "version": str}


def _attribute_value(qualified: str, value: Mapping[str, Any]) -> bool | int | str | Version:
    kinds = [kind for kind in _ATTRIBUTE_KINDS if kind in value]
    if len(kinds) != 1 or len(value) != 1:
        raise ValueError(
            f"attribute {qualified!r} must set exactly one of bool, int, string, version; got {sorted(value)}"
        )
    kind = kinds[0]
    raw = value[kind]
    if not isinstance(raw, _ATTRIBUTE_KINDS[kind]) or (kind == "int" and isinstance(raw, bool)):
        raise ValueError(f"attribute {qualified!r}: {kind} value {raw!r} has the wrong type")
    if kind == "version":
        try:
            return Version.parse(raw)
        except ValueError as error:
            raise ValueError(f"attribute {qualified!r}: {error}") from None
    return raw


def _as_quantity(domain: str, name: str, amount: Quantity | str | int) -> Quantity:
    if isinstance(amount, Quantity):
        return amount
    try:
        return parse_quantity(amount)
    except QuantityError as error:
        raise ValueError(f"capacity {domain}/{name}: {error}") from None


def _to_cel(value: Any) -> Any:
    if isinstance(value, Mapping):
        return {key: _to_cel(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_to_cel(item) for item in value]
    if isinstance(value, Quantity):
        return _encode_quantity(value.value)
    if isinstance(value, Version):
        return _encode_version(value)
    return value


_PROJECTED_KEY_IDS: dict[Hashable, int] = {}  # projected device -> small int (DeviceSelector.device_key)
_PROJECTION_IDS: dict[Any, int] = {}  # what a selector reads -> small int


@dataclass(frozen=True)
class Device:
    """One device as published in a ResourceSlice (resource.k8s.io/v1), grouped by qualified-name domain.
    Capacities may be given as Quantity or as quantity strings."""

    driver: str
    name: str
    attributes: Mapping[str, Mapping[str, bool | int | str | Version]]
    capacity: Mapping[str, Mapping[str, Quantity]]
    allow_multiple_allocations: bool = False

    def __post_init__(self) -> None:
        attributes = {domain: dict(values) for domain, values in self.attributes.items()}
        for domain, values in attributes.items():
            for name, value in values.items():
                if not isinstance(value, (bool, int, str, Version)):
                    raise TypeError(f"attribute {domain}/{name}: {value!r} is not a bool, int, str or Version")
        capacity = {
            domain: {name: _as_quantity(domain, name, amount) for name, amount in values.items()}
            for domain, values in self.capacity.items()
        }
        object.__setattr__(self, "attributes", attributes)
        object.__setattr__(self, "capacity", capacity)
        # The type name keeps true and 1 apart: CEL says true != 1, Python says True == 1.
        key = (
            self.driver,
            self.allow_multiple_allocations,
            tuple(
                (domain, tuple(sorted((name, type(value).__name__, value) for name, value in values.items())))
                for domain, values in sorted(attributes.items())
            ),
            tuple((domain, tuple(sorted(values.items()))) for domain, values in sorted(capacity.items())),
        )
        object.__setattr__(self, "_key", key)
        # Built once because a device meets many selectors.
        selector_input = {
            "device.driver": self.driver,
            "device.allowMultipleAllocations": self.allow_multiple_allocations,
            "device.attributes": _to_cel(attributes),
            "device.capacity": _to_cel(capacity),
        }
        object.__setattr__(self, "_selector_input", selector_input)
        object.__setattr__(self, "_projected_inputs", {})
        object.__setattr__(self, "_projected_keys", {})

    @classmethod
    def from_slice_device(cls, driver: str, device: Mapping[str, Any]) -> "Device":
        """From a ResourceSlice `spec.devices[]` entry; bare names belong to the driver's domain."""
        attributes: dict[str, dict[str, bool | int | str | Version]] = {}
        for qualified, value in (device.get("attributes") or {}).items():
            domain, name = _split_qualified_name(qualified, driver)
            attributes.setdefault(domain, {})[name] = _attribute_value(qualified, value)
        capacity: dict[str, dict[str, Quantity]] = {}
        for qualified, value in (device.get("capacity") or {}).items():
            domain, name = _split_qualified_name(qualified, driver)
            if not isinstance(value, Mapping) or "value" not in value:
                raise ValueError(f"capacity {qualified!r} must be an object with a value, e.g. {{value: 80Gi}}")
            capacity.setdefault(domain, {})[name] = _as_quantity(domain, name, value["value"])
        return cls(
            driver=driver,
            name=device["name"],
            attributes=attributes,
            capacity=capacity,
            allow_multiple_allocations=bool(device.get("allowMultipleAllocations", False)),
        )

    def key(self) -> Hashable:
        """Equal for devices every selector treats alike (CEL cannot see the name)."""
        return self._key

    def _input_for(self, projection: _Projection) -> dict[str, Any]:
        projected = self._projected_inputs.get(projection)
        if projected is None:
            projected = dict(self._selector_input)
            for map_name, domains in projection:
                if domains is not None:
                    full = self._selector_input[map_name]
                    projected[map_name] = {
                        domain: {name: full[domain][name] for name in names if name in full[domain]}
                        for domain, names in domains
                        if domain in full
                    }
            self._projected_inputs[projection] = projected
        return projected

    def _key_for(self, projection: _Projection, projection_id: int) -> int:
        key = self._projected_keys.get(projection_id)
        if key is None:
            if any(domains is None for _, domains in projection):
                key = ("full", self._key)
            else:
                parts: list[Any] = [self.driver, self.allow_multiple_allocations]
                for map_name, domains in projection:
                    maps = self.attributes if map_name == "device.attributes" else self.capacity
                    for domain, names in domains:
                        values = maps.get(domain, {})
                        parts.append((map_name, domain, tuple(
                            (name, type(values[name]).__name__, values[name]) if name in values else (name,)
                            for name in names
                        )))
                key = ("projected", tuple(parts))
            # A small int: cache lookups would otherwise re-hash the nested tuple every time.
            key = _PROJECTED_KEY_IDS.setdefault(key, len(_PROJECTED_KEY_IDS))
            self._projected_keys[projection_id] = key
        return key

    def __hash__(self) -> int:
        return hash((self.name, self._key))


# ---------------------------------------------------------------------------------------------------------
# Selectors

_BOOL_OR_UNKNOWN = (_T.BOOL, _T.DYN)


class DeviceSelector:
    """A compiled CEL device selector; `matches(device)` evaluates it as the scheduler would."""

    __slots__ = ("expression", "_program", "_projection", "_projection_id")

    def __init__(self, expression: str, program: cel.Expression, projection: _Projection) -> None:
        self.expression = expression
        self._program = program
        self._projection = projection
        self._projection_id = _PROJECTION_IDS.setdefault(projection, len(_PROJECTION_IDS))

    def matches(self, device: Device) -> bool:
        result = self._program.eval(data=device._input_for(self._projection))
        result_type = result.type()
        if result_type == _T.BOOL:
            return result.value()
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
            for domain, names in domains
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
