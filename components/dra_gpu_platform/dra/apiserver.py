"""What the API server does to a new DRA object when feature gates are off: it drops the fields of the disabled
features on write. Pure: no Pulumi imports, no I/O.

Sources (kubernetes, 1.35): `pkg/api/resourceclaimspec/util.go` DropDisabledFields (ResourceClaim and
ResourceClaimTemplate specs), `pkg/registry/resource/resourceslice/strategy.go` dropDisabledFields (mirrored by
dynamic-resource-allocation v0.35.6 `resourceslice/resourceslicecontroller_test.go` dropDisabledFields),
`pkg/registry/resource/deviceclass/strategy.go` (extendedResourceName). Fields already stored in an existing
object are kept on update ("in use in the old object"), so this applies to objects that are created: claim
files, the stack's own objects, simulated slices, never to a cluster dump. Validation of what is left
(`pkg/apis/resource/validation`) is the claim parser's (dra_gpu_platform/dra/claims.py). 1.36 adds two gated slice
fields, both alpha in 1.36 and 1.37 (kubernetes/api v0.36.2 and v0.37.0-beta.0 `resource/v1/types.go`
+featureGate markers; docs/references.md#apiserver-drop-disabled-fields); the other fields' gates are on at the
1.36 and 1.37 defaults, so nothing else is dropped there unless --feature-gates turns a gate off.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from dra_gpu_platform.dra import gates as g


def _drop(holder: Any, key: str, path: str, gate: str, dropped: list[tuple[str, str]]) -> None:
    if isinstance(holder, dict) and key in holder:
        del holder[key]
        dropped.append((path, gate))


def drop_claim_spec_fields(devices: Any, path: str, gates: g.FeatureGates) -> tuple[Any, list[tuple[str, str]]]:
    """`spec.devices` of a ResourceClaim (`spec.spec.devices` of a template) after dropping; returns the copy
    and (field path, gate) of every dropped field."""
    dropped: list[tuple[str, str]] = []
    if not isinstance(devices, Mapping):
        return devices, dropped
    devices = copy.deepcopy(dict(devices))
    requests = devices.get("requests") if isinstance(devices.get("requests"), list) else []
    if not gates.prioritized_list:  # dropDisabledDRAPrioritizedListFields
        for i, request in enumerate(requests):
            _drop(request, "firstAvailable", f"{path}.requests[{i}].firstAvailable", g.PRIORITIZED_LIST, dropped)
    if not gates.device_taints:  # dropDisabledDRADeviceTaintsFields (after the prioritized list)
        for i, request in enumerate(requests):
            if isinstance(request, dict):
                _drop(
                    request.get("exactly"),
                    "tolerations",
                    f"{path}.requests[{i}].exactly.tolerations",
                    g.DEVICE_TAINTS,
                    dropped,
                )
                for j, sub in enumerate(request.get("firstAvailable") or []):
                    _drop(
                        sub,
                        "tolerations",
                        f"{path}.requests[{i}].firstAvailable[{j}].tolerations",
                        g.DEVICE_TAINTS,
                        dropped,
                    )
    if not gates.admin_access:  # dropDisabledDRAAdminAccessFields
        for i, request in enumerate(requests):
            if isinstance(request, dict):
                _drop(
                    request.get("exactly"),
                    "adminAccess",
                    f"{path}.requests[{i}].exactly.adminAccess",
                    g.ADMIN_ACCESS,
                    dropped,
                )
    if not gates.consumable_capacity:  # dropDisabledDRAResourceClaimConsumableCapacityFields
        for i, constraint in enumerate(devices.get("constraints") or []):
            _drop(
                constraint,
                "distinctAttribute",
                f"{path}.constraints[{i}].distinctAttribute",
                g.CONSUMABLE_CAPACITY,
                dropped,
            )
        for i, request in enumerate(requests):
            if isinstance(request, dict):
                _drop(
                    request.get("exactly"),
                    "capacity",
                    f"{path}.requests[{i}].exactly.capacity",
                    g.CONSUMABLE_CAPACITY,
                    dropped,
                )
                for j, sub in enumerate(request.get("firstAvailable") or []):
                    _drop(
                        sub,
                        "capacity",
                        f"{path}.requests[{i}].firstAvailable[{j}].capacity",
                        g.CONSUMABLE_CAPACITY,
                        dropped,
                    )
    return devices, dropped


def drop_slice_fields(
    document: Mapping[str, Any], gates: g.FeatureGates
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """A new ResourceSlice after dropping (resourceslice strategy dropDisabledFields)."""
    copied: dict[str, Any] = copy.deepcopy(dict(document))
    dropped: list[tuple[str, str]] = []
    spec = copied.get("spec")
    if not isinstance(spec, dict):
        return copied, dropped
    listed = spec.get("devices")
    devices: list[Any] = listed if isinstance(listed, list) else []
    if not gates.device_taints:
        for i, device in enumerate(devices):
            _drop(device, "taints", f"spec.devices[{i}].taints", g.DEVICE_TAINTS, dropped)
    if not gates.partitionable_devices:
        _drop(spec, "sharedCounters", "spec.sharedCounters", g.PARTITIONABLE_DEVICES, dropped)
        _drop(spec, "perDeviceNodeSelection", "spec.perDeviceNodeSelection", g.PARTITIONABLE_DEVICES, dropped)
        for i, device in enumerate(devices):
            for key in ("consumesCounters", "nodeName", "nodeSelector", "allNodes"):
                _drop(device, key, f"spec.devices[{i}].{key}", g.PARTITIONABLE_DEVICES, dropped)
    if not gates.enabled(g.BINDING_CONDITIONS):
        for i, device in enumerate(devices):
            for key in ("bindingConditions", "bindingFailureConditions", "bindsToNode"):
                _drop(device, key, f"spec.devices[{i}].{key}", g.BINDING_CONDITIONS, dropped)
    if not gates.consumable_capacity:
        for i, device in enumerate(devices):
            _drop(
                device,
                "allowMultipleAllocations",
                f"spec.devices[{i}].allowMultipleAllocations",
                g.CONSUMABLE_CAPACITY,
                dropped,
            )
    # Fields new in 1.36, alpha there and in 1.37 (kubernetes/api v0.36.2 resource/v1/types.go +featureGate).
    if gates.minor >= 36 and not gates.enabled(g.NODE_ALLOCATABLE_RESOURCES):
        for i, device in enumerate(devices):
            _drop(
                device,
                "nodeAllocatableResourceMappings",
                f"spec.devices[{i}].nodeAllocatableResourceMappings",
                g.NODE_ALLOCATABLE_RESOURCES,
                dropped,
            )
    if gates.minor >= 36 and not gates.enabled(g.LIST_TYPE_ATTRIBUTES):
        for i, device in enumerate(devices):
            attributes = device.get("attributes") if isinstance(device, dict) else None
            for name, value in (attributes or {}).items():
                for key in ("ints", "bools", "strings", "versions"):
                    _drop(value, key, f"spec.devices[{i}].attributes.{name}.{key}", g.LIST_TYPE_ATTRIBUTES, dropped)
    return copied, dropped


def slice_problems(document: Mapping[str, Any]) -> list[tuple[str, Any, str, str]]:
    """validateResourceSliceSpec's node selection rule, the one dropping can break: exactly one of nodeName,
    nodeSelector, allNodes, perDeviceNodeSelection (sharedCounters-only slices excepted)."""
    spec = document.get("spec") or {}
    chosen = [
        key
        for key in ("nodeName", "nodeSelector", "allNodes", "perDeviceNodeSelection")
        if spec.get(key) not in (None, "", False)
    ]
    if len(chosen) == 1 or (not chosen and spec.get("sharedCounters") and not spec.get("devices")):
        return []
    if not chosen:
        return [
            (
                "spec",
                "(none)",
                "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required",
                "publish the slice for a node (nodeName) or for all nodes (allNodes: true)",
            )
        ]
    return [
        (
            "spec",
            chosen,
            "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is "
            "required, but multiple fields are set",
            "keep one of them",
        )
    ]


def drop_device_class_fields(
    document: Mapping[str, Any], gates: g.FeatureGates
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    copied: dict[str, Any] = copy.deepcopy(dict(document))
    dropped: list[tuple[str, str]] = []
    if not gates.extended_resource:
        _drop(copied.get("spec"), "extendedResourceName", "spec.extendedResourceName", g.EXTENDED_RESOURCE, dropped)
    return copied, dropped


def describe(dropped: list[tuple[str, str]]) -> list[str]:
    return [f"{path} dropped by the API server: feature gate {gate} is off" for path, gate in dropped]
