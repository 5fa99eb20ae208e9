"""Kubernetes resource quantities (k8s.io/apimachinery/pkg/api/resource), exact and pure.

A quantity is `<sign><digits>[.<digits>]<suffix>` where the suffix is binary SI (Ki..Ei), decimal SI
(n, u, m, "", k, M, G, T, P, E) or a decimal exponent (e3, E-2). Values are kept as exact fractions so
comparisons such as `143771Mi >= 140Gi` never suffer from float rounding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from functools import total_ordering

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9),
    "u": Fraction(1, 10**6),
    "m": Fraction(1, 10**3),
    "": Fraction(1),
    "k": Fraction(10**3),
    "M": Fraction(10**6),
    "G": Fraction(10**9),
    "T": Fraction(10**12),
    "P": Fraction(10**15),
    "E": Fraction(10**18),
}
# Same grammar as apimachinery's parseQuantityString: number, then one optional suffix.
_QUANTITY_RE = re.compile(
    r"^(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(?P<suffix>Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]|[eE][+-]?[0-9]+)?$"
)


class QuantityError(ValueError):
    """Raised for a string that is not a Kubernetes quantity."""


@total_ordering
@dataclass(frozen=True)
class Quantity:
    """An exact Kubernetes quantity; `text` keeps the spelling the user wrote."""

    value: Fraction
    text: str

    @classmethod
    def parse(cls, text: str | int) -> Quantity:
        if isinstance(text, bool):
            raise QuantityError(f"{text!r} is not a quantity")
        if isinstance(text, int):
            return cls(Fraction(text), str(text))
        if not isinstance(text, str):
            raise QuantityError(f"{text!r} is not a quantity (expected a string such as '80Gi')")
        match = _QUANTITY_RE.match(text.strip())
        if not match or text.strip() != text or text == "":
            raise QuantityError(f"{text!r} is not a Kubernetes quantity (examples: '80Gi', '81559Mi', '500m', '1e3')")
        number = Fraction(match.group("number"))
        suffix = match.group("suffix") or ""
        if suffix in _BINARY:
            factor = Fraction(_BINARY[suffix])
        elif suffix in _DECIMAL:
            factor = _DECIMAL[suffix]
        else:
            factor = Fraction(10) ** int(suffix[1:])
        return cls(number * factor, text)

    @classmethod
    def from_bytes(cls, amount: int) -> Quantity:
        """Binary-SI spelling of a byte count, as the NVIDIA driver publishes `memory` (BinarySI)."""
        return cls(Fraction(amount), format_binary_si(amount))

    # comparisons use the exact value only
    def __eq__(self, other: object) -> bool:
        return isinstance(other, Quantity) and self.value == other.value

    def __lt__(self, other: Quantity) -> bool:
        return self.value < other.value

    def __hash__(self) -> int:
        return hash(self.value)

    def compare_to(self, other: Quantity) -> int:
        return (self.value > other.value) - (self.value < other.value)

    def is_integer(self) -> bool:
        return self.value.denominator == 1

    def as_integer(self) -> int:
        if not self.is_integer():
            raise QuantityError(f"quantity {self.text} is not an integer")
        return int(self.value)

    def sign(self) -> int:
        return (self.value > 0) - (self.value < 0)

    def __add__(self, other: Quantity) -> Quantity:
        total = self.value + other.value
        return Quantity(total, _format(total))

    def __sub__(self, other: Quantity) -> Quantity:
        total = self.value - other.value
        return Quantity(total, _format(total))

    def __str__(self) -> str:
        return self.text


def format_binary_si(amount: int) -> str:
    """Largest binary suffix that divides the amount exactly: 150754820096 -> '143771Mi'."""
    if amount == 0:
        return "0"
    for suffix, factor in sorted(_BINARY.items(), key=lambda kv: -kv[1]):
        if amount % factor == 0:
            return f"{amount // factor}{suffix}"
    return str(amount)


def _format(value: Fraction) -> str:
    if value.denominator == 1:
        return format_binary_si(int(value)) if int(value) % 1024 == 0 else str(int(value))
    milli = value * 1000
    if milli.denominator == 1:
        return f"{int(milli)}m"
    return str(float(value))


def parse_quantity(text: str | int) -> Quantity:
    return Quantity.parse(text)
