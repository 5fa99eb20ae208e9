"""A device as a DRA selector sees it: attributes and capacities converted to CEL values."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from dra_gpu_platform.cel.rewrite import _Projection
from dra_gpu_platform.cel.values import Version, _encode_quantity, _encode_version
from dra_gpu_platform.facts.quantity import Quantity, QuantityError, parse_quantity

# ---------------------------------------------------------------------------------------------------------
# Devices


def _split_qualified_name(qualified: str, driver: str) -> tuple[str, str]:
    # resource.k8s.io QualifiedName: "<domain>/<name>", or a bare name in the driver's domain.
    domain, separator, name = qualified.partition("/")
    return (domain, name) if separator else (driver, qualified)


_ATTRIBUTE_KINDS: dict[str, type[bool | int | str]] = {"bool": bool, "int": int, "string": str, "version": str}


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
    if kind == "version" and isinstance(raw, str):  # (a version that is no string was refused above)
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
    # Derived in __post_init__ (object.__setattr__ on the frozen instance); no dataclass fields at run time, so
    # equality, repr and replace() see the published device only.
    if TYPE_CHECKING:
        _key: Hashable = field(init=False, repr=False, compare=False)
        _selector_input: dict[str, Any] = field(init=False, repr=False, compare=False)  # CEL values by variable
        _projected_inputs: dict[_Projection, dict[str, Any]] = field(init=False, repr=False, compare=False)
        _projected_keys: dict[int, int] = field(init=False, repr=False, compare=False)

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
    def from_slice_device(cls, driver: str, device: Mapping[str, Any]) -> Device:
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
            described: Hashable
            if any(domains is None for _, domains in projection):
                described = ("full", self._key)
            else:
                parts: list[Any] = [self.driver, self.allow_multiple_allocations]
                for map_name, domains in projection:
                    maps = self.attributes if map_name == "device.attributes" else self.capacity
                    for domain, names in domains or ():  # (none is None here)
                        values = maps.get(domain, {})
                        parts.append(
                            (
                                map_name,
                                domain,
                                tuple(
                                    (name, type(values[name]).__name__, values[name]) if name in values else (name,)
                                    for name in names
                                ),
                            )
                        )
                described = ("projected", tuple(parts))
            # A small int: cache lookups would otherwise re-hash the nested tuple every time.
            key = _PROJECTED_KEY_IDS.setdefault(described, len(_PROJECTED_KEY_IDS))
            self._projected_keys[projection_id] = key
        return key

    def __hash__(self) -> int:
        return hash((self.name, self._key))
