"""Kubernetes' semver and quantity values as the runtime environment carries them (tagged lists), and the
library functions that still call Python (apiserver pkg/cel/library/{quantity,semverlib}.go)."""

from __future__ import annotations

import functools
import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dra_gpu_platform.cel.base import _INT64_MAX, _INT64_MIN
from dra_gpu_platform.facts.quantity import Quantity, QuantityError, parse_quantity

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
    def parse(cls, text: str, normalize: bool = False) -> Version:
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

    def _precedence(self) -> tuple[int, int, int, int, tuple[tuple[int, int, str], ...]]:
        # A release sorts after its prereleases; numeric identifiers sort before alphanumeric ones.
        if not self.prerelease:
            return (self.major, self.minor, self.patch, 1, ())
        identifiers = tuple(
            (0, int(part), "") if part.isdigit() else (1, 0, part) for part in self.prerelease.split(".")
        )
        return (self.major, self.minor, self.patch, 0, identifiers)

    def __lt__(self, other: Version) -> bool:
        if not isinstance(other, Version):
            return NotImplemented
        return self._precedence() < other._precedence()

    def compare_to(self, other: Version) -> int:
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
def _encode_quantity_value(value: Fraction) -> tuple[bytes, str, str]:
    return (_QUANTITY_TAG, _quantity_order_key(value), str(value))


def _encode_quantity(value: Fraction) -> list[bytes | str]:
    return list(_encode_quantity_value(value))


@functools.lru_cache(maxsize=1024)
def _encode_version_value(version: Version) -> tuple[bytes, str, int, int, int, str]:
    return (_SEMVER_TAG, _semver_order_key(version), version.major, version.minor, version.patch, version.canonical())


def _encode_version(version: Version) -> list[bytes | str | int]:
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


def _cel_quantity(text: str) -> list[bytes | str]:
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


def _cel_semver(text: str, normalize: bool = False) -> list[bytes | str | int]:
    return _encode_version(Version.parse(text, normalize=normalize))


def _cel_is_semver(text: str, normalize: bool = False) -> bool:
    try:
        Version.parse(text, normalize=normalize)
    except ValueError:
        return False
    return True


def _fits_int64(value: Fraction) -> bool:
    return value.denominator == 1 and _INT64_MIN <= value.numerator <= _INT64_MAX


def _cel_is_integer(receiver: list[Any]) -> bool:
    return _fits_int64(_quantity_operand(receiver, "isInteger"))


def _cel_as_integer(receiver: list[Any]) -> int:
    value = _quantity_operand(receiver, "asInteger")
    if not _fits_int64(value):
        raise ValueError("cannot convert value to integer")
    return int(value)


def _cel_as_approximate_float(receiver: list[Any]) -> float:
    value = _quantity_operand(receiver, "asApproximateFloat")
    try:
        return float(value)
    except OverflowError:
        return math.copysign(math.inf, value)


def _cel_add(receiver: list[Any], other: list[Any] | int) -> list[bytes | str]:
    addend = Fraction(other) if isinstance(other, int) else _quantity_operand(other, "add")
    return _encode_quantity(_quantity_operand(receiver, "add") + addend)


def _cel_sub(receiver: list[Any], other: list[Any] | int) -> list[bytes | str]:
    subtrahend = Fraction(other) if isinstance(other, int) else _quantity_operand(other, "sub")
    return _encode_quantity(_quantity_operand(receiver, "sub") - subtrahend)


_NO_SUCH_OVERLOAD = "_k8s_no_such_overload"  # not declared for type-checking, so users cannot call it


def _cel_no_such_overload(function: str, operands: list[Any]) -> bool:
    raise TypeError(f"no such overload: {function}({', '.join(_cel_type_name(value) for value in operands)})")
