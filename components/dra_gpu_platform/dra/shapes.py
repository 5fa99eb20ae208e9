"""Device shapes: what the allocator and the selectors can see of a device, projected onto the attributes and
capacities the run's selectors and constraints read (so uuids and bus IDs drop out unless something reads them),
interned once per distinct projection with its CEL Device built once. Pure: no Pulumi imports, no I/O.

dra_gpu_platform/dra/cluster.py groups nodes by the shapes of their pools; gpuplan fit reads the same shapes for its
report.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from dra_gpu_platform.cel import Device, DeviceSelector
from dra_gpu_platform.dra.model import CapacityPolicy, Shape, SliceDevice
from dra_gpu_platform.dra.tolerations import DeviceTaint
from dra_gpu_platform.facts.quantity import parse_quantity

# The keys a shape reads from a driver's devices: (qualified name, bare name for the driver's own domain or None).
_Keys = tuple[tuple[str, str | None], ...]

_VALUE_KINDS = ("string", "int", "bool", "version")


@dataclass(frozen=True)
class ReadSet:
    """What the run's selectors and constraints read of a device. `full`: some selector reads whole maps."""

    attributes: frozenset[tuple[str, str]] = frozenset()
    capacity: frozenset[tuple[str, str]] = frozenset()
    constraints: frozenset[str] = frozenset()  # qualified attribute names
    full: bool = False

    @classmethod
    def of(cls, selectors: Iterable[DeviceSelector], constraint_attributes: Iterable[str]) -> ReadSet:
        attributes: set[tuple[str, str]] = set()
        capacity: set[tuple[str, str]] = set()
        for selector in selectors:
            reads = selector.reads()
            if reads is None:
                return cls(full=True, constraints=frozenset(constraint_attributes))
            for map_name, domain, name in reads:
                (attributes if map_name == "attributes" else capacity).add((domain, name))
        return cls(frozenset(attributes), frozenset(capacity), frozenset(constraint_attributes))


def attribute_value(raw: Any) -> tuple[str, Any]:
    """{"string": "x"} -> ("string", "x"); the first known kind wins (the API allows exactly one)."""
    if isinstance(raw, Mapping):
        for kind in _VALUE_KINDS:
            if kind in raw:
                return kind, raw[kind]
    return ("unknown", json.dumps(raw, sort_keys=True, default=str))


def quantity_value(raw: Any) -> Fraction:
    """A published quantity (a capacity or counter value) as an exact number."""
    return parse_quantity(str(raw)).value


class Shapes:
    """Interns devices into Shapes. One per distinct projection; the CEL Device is built once per shape."""

    def __init__(self, reads: ReadSet, *, consumable_capacity: bool = False):
        self.reads = reads
        self.consumable_capacity = consumable_capacity
        self._by_key: dict[Any, Shape] = {}
        self._lookups: dict[str, tuple[_Keys, _Keys, _Keys]] = {}  # driver -> (attributes, capacity, constraints)
        self._layouts: dict[Any, tuple[SliceDevice, ...]] = {}  # one tuple per distinct slice layout

    def __len__(self) -> int:
        return len(self._by_key)

    def layout(self, devices: list[SliceDevice]) -> tuple[SliceDevice, ...]:
        """The slice's devices, shared by every slice with the same names, shapes and node selections (the
        nodes of a pool publish the same layout), so memory grows with layouts and shapes, not devices."""
        key = tuple(
            (
                d.name,
                d.shape.id,
                None
                if d.selection is None
                else json.dumps(
                    [d.selection.node_name, d.selection.all_nodes, d.selection.node_selector], sort_keys=True
                ),
            )
            for d in devices
        )
        found = self._layouts.get(key)
        if found is None:
            found = self._layouts[key] = tuple(devices)
        return found

    def _keys_for(self, driver: str) -> tuple[_Keys, _Keys, _Keys]:
        found = self._lookups.get(driver)
        if found is None:

            def keys(pairs: Iterable[tuple[str, str]]) -> _Keys:
                return tuple((f"{d}/{n}", n if d == driver else None) for d, n in sorted(pairs))

            constraint_pairs = [
                (domain, name) for domain, _, name in (q.partition("/") for q in sorted(self.reads.constraints))
            ]
            found = (keys(self.reads.attributes), keys(self.reads.capacity), keys(constraint_pairs))
            self._lookups[driver] = found
        return found

    def shape(self, driver: str, device: Mapping[str, Any]) -> Shape:
        """The device's shape. The key is built from the raw values it reads (cheap: devices are many, shapes
        few); the Shape itself only for a new key."""
        attributes = device.get("attributes") or {}
        capacity = device.get("capacity") or {}
        attribute_keys, capacity_keys, constraint_keys = self._keys_for(driver)
        if self.reads.full:
            view_key: Any = json.dumps([attributes, capacity], sort_keys=True, default=str)
        else:
            view_key = (_projection(attributes, attribute_keys), _projection(capacity, capacity_keys))
        compared_key = _projection(attributes, constraint_keys) if constraint_keys else ()
        extras = None
        if (
            "taints" in device
            or "consumesCounters" in device
            or "bindingConditions" in device
            or "bindsToNode" in device
            or "allowMultipleAllocations" in device
        ):
            extras = json.dumps(
                {
                    k: device.get(k)
                    for k in (
                        "taints",
                        "consumesCounters",
                        "bindingConditions",
                        "bindsToNode",
                        "allowMultipleAllocations",
                    )
                },
                sort_keys=True,
                default=str,
            )
        # With consumable capacity every device's capacities (and request policies) decide whether a request fits
        # (CmpRequestOverCapacity runs for shareable and exclusive devices alike).
        capacity_key = json.dumps(capacity, sort_keys=True, default=str) if self.consumable_capacity else None
        key = (driver, view_key, compared_key, extras, capacity_key)
        found_shape = self._by_key.get(key)
        if found_shape is None:
            found_shape = self._by_key[key] = self._build(len(self._by_key), driver, device, attributes, capacity)
        return found_shape

    def _build(
        self,
        index: int,
        driver: str,
        device: Mapping[str, Any],
        attributes: Mapping[str, Any],
        capacity: Mapping[str, Any],
    ) -> Shape:
        attribute_keys, capacity_keys, constraint_keys = self._keys_for(driver)
        if self.reads.full:
            projected_attributes, projected_capacity = dict(attributes), dict(capacity)
        else:
            projected_attributes = {
                k: attributes[k] for k in (_raw_key(attributes, q, b) for q, b in attribute_keys) if k
            }
            projected_capacity = {k: capacity[k] for k in (_raw_key(capacity, q, b) for q, b in capacity_keys) if k}
        compared = {}
        for qualified, bare in constraint_keys:
            raw_key = _raw_key(attributes, qualified, bare)
            if raw_key:
                compared[raw_key] = attribute_value(attributes[raw_key])
        taints = tuple(
            DeviceTaint(str(t.get("key", "")), str(t.get("value", "")), str(t.get("effect", "")))
            for t in device.get("taints") or ()
            if isinstance(t, Mapping)
        )
        consumes = tuple(
            (
                str(c.get("counterSet")),
                tuple(
                    sorted(
                        (str(n), quantity_value((v or {}).get("value"))) for n, v in (c.get("counters") or {}).items()
                    )
                ),
            )
            for c in device.get("consumesCounters") or ()
            if isinstance(c, Mapping)
        )
        binding = tuple(str(b) for b in device.get("bindingConditions") or ())
        multiple = bool(device.get("allowMultipleAllocations"))
        cel_device = Device.from_slice_device(
            driver,
            {
                "name": str(device.get("name", "")),
                "attributes": projected_attributes,
                "capacity": projected_capacity,
                "allowMultipleAllocations": multiple,
            },
        )
        return Shape(
            index,
            cel_device,
            compared,
            taints,
            consumes,
            binding,
            bool(device.get("bindsToNode")),
            multiple,
            _capacities(capacity) if self.consumable_capacity else {},
        )


def _raw_key(values: Mapping[str, Any], qualified: str, bare: str | None) -> str | None:
    if qualified in values:
        return qualified
    if bare is not None and bare in values:
        return bare
    return None


def _raw_value(values: Mapping[str, Any], qualified: str, bare: str | None) -> str | None:
    value = values.get(qualified)
    if value is None and bare is not None:
        value = values.get(bare)
    if value is None:
        return None
    return json.dumps(value, sort_keys=True, default=str)


# One value of a projection: absent, a published {kind: scalar} as its one item, anything else as its JSON.
_Projected = tuple[str, str | int | float | bool] | str | None


def _projection(values: Mapping[str, Any], keys: _Keys) -> tuple[_Projected, ...]:
    """The raw values at `keys` as a hashable tuple; a published value is {kind: scalar}, which hashes as its
    one item, anything else as its JSON."""
    found: list[_Projected] = []
    for qualified, bare in keys:
        value = values.get(qualified)
        if value is None and bare is not None:
            value = values.get(bare)
        if value is None:
            found.append(None)
        elif type(value) is dict and len(value) == 1:
            item = next(iter(value.items()))
            found.append(item if isinstance(item[1], (str, int, float, bool)) else _raw_value(values, qualified, bare))
        else:
            found.append(json.dumps(value, sort_keys=True, default=str))
    return tuple(found)


def _capacities(raw: Mapping[str, Any]) -> dict[str, tuple[Fraction, CapacityPolicy | None]]:
    result = {}
    for name, value in raw.items():
        policy_raw = (value or {}).get("requestPolicy") if isinstance(value, Mapping) else None
        policy = None
        if isinstance(policy_raw, Mapping):
            valid_range = policy_raw.get("validRange") or {}
            policy = CapacityPolicy(
                default=quantity_value(policy_raw["default"]) if policy_raw.get("default") is not None else None,
                valid_values=tuple(sorted(quantity_value(v) for v in policy_raw.get("validValues") or ())),
                range_min=quantity_value(valid_range["min"]) if valid_range.get("min") is not None else None,
                range_max=quantity_value(valid_range["max"]) if valid_range.get("max") is not None else None,
                range_step=quantity_value(valid_range["step"]) if valid_range.get("step") is not None else None,
            )
        result[name] = (quantity_value((value or {}).get("value") if isinstance(value, Mapping) else value), policy)
    return result
