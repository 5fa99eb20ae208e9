"""Partitionable devices: what the NVIDIA DRA driver publishes with its DynamicMIG gate on (KEP-4815 shared
counters). Pure: no Pulumi imports, no I/O.

Per dynamic-MIG-capable GPU (Hopper and newer: MIG mode toggles without a reset) the driver publishes the full GPU
and every MIG profile at every placement as abstract devices, all consuming from one counter set of that GPU
(`gpu-<minor>-counter-set`): one counter per capacity (the largest value any profile has, named as a DNS label:
`multiprocessors`, `copy-engines`, ..., `memory`) and one counter of value 1 per memory slice (`memory-slice-<i>`).
A MIG device consumes its profile's capacities and the memory slices of its placement; the full GPU consumes every
counter, so it excludes every partition and one partition excludes it. The full GPU's `memory` capacity is then the
largest profile's (7g) memory, not NVML's total. MIG devices carry no `uuid` (they do not exist until a claim is
prepared). From Kubernetes 1.35 the counter sets go into a slice of their own, before one slice of devices per GPU;
on 1.34 each GPU's slice carries its counter set. Devices in a slice are sorted by name.

Sources: kubernetes-sigs/dra-driver-nvidia-gpu v0.4.1 `cmd/gpu-kubelet-plugin/partitions.go`, `driver.go`
(generateSplitResourceSlices, generateCombinedResourceSlices, shouldUseSplitResourceSlices), `nvlib.go`
(inspectMigProfilesAndPlacements, isDynamicMIGCapable), `mig.go` (CommonCapacitiesMig, CommonAttributesMig,
ToCanonicalName); docs/references.md#nvidia-dra-dynamic-mig-slices. The simulation takes the catalog's profiles and
capacities (dra_gpu_platform/dra/mig.py catalog_mig_shapes) and aligned placements (MigShape.starts).
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.dra.devices import PhysicalGpu, gpu_device, mig_device_name, pool_slices
from dra_gpu_platform.dra.mig import MigShape
from dra_gpu_platform.facts import driver_features
from dra_gpu_platform.facts.quantity import format_binary_si


def _quantity(value: int) -> dict[str, Any]:
    return {"value": format_binary_si(value)}


def dynamic_mig_capable(gpu: PhysicalGpu, shapes: list[MigShape]) -> bool:
    """isDynamicMIGCapable for a GPU with MIG mode off: MIG hardware that toggles MIG mode without a reset."""
    return bool(shapes) and gpu.architecture in driver_features.DYNAMIC_MIG_ARCHITECTURES


def max_capacities(gpu: PhysicalGpu, shapes: list[MigShape]) -> dict[str, int]:
    """The largest value of each capacity over every profile (setMax), the full GPU's capacities and the counter
    set's. The catalog lacks NVML figures for some profiles; the full GPU then keeps NVML's total memory."""
    found: dict[str, int] = {}
    for shape in shapes:
        for name, value in shape.capacity:
            found[name] = max(found.get(name, 0), value)
    found.setdefault("memory", gpu.memory_bytes)
    return dict(sorted(found.items()))


def memory_slice_count(shapes: list[MigShape]) -> int:
    """The largest placement size (the 7g profile takes every memory slice)."""
    return max(s.memory_slices for s in shapes)


def _counters(capacities: dict[str, int], start: int, size: int) -> dict[str, dict[str, str]]:
    counters = {driver_features.counter_name(name): format_binary_si(value) for name, value in capacities.items()}
    for index in range(start, start + size):
        counters[driver_features.memory_slice_counter(index)] = format_binary_si(1)
    return {name: {"value": value} for name, value in sorted(counters.items())}


def counter_set(gpu: PhysicalGpu, shapes: list[MigShape]) -> dict[str, Any]:
    return {
        "name": driver_features.counter_set_name(gpu.minor),
        "counters": _counters(max_capacities(gpu, shapes), 0, memory_slice_count(shapes)),
    }


def partitionable_devices(gpu: PhysicalGpu, shapes: list[MigShape]) -> list[dict[str, Any]]:
    """The full GPU and every profile at every placement, each consuming from the GPU's counter set."""
    capacities = max_capacities(gpu, shapes)
    full = gpu_device(gpu, "current")
    full["capacity"] = {name: _quantity(value) for name, value in capacities.items()}
    full["consumesCounters"] = [
        {
            "counterSet": driver_features.counter_set_name(gpu.minor),
            "counters": _counters(capacities, 0, memory_slice_count(shapes)),
        }
    ]
    devices = [full]
    parent = {k: v for k, v in full["attributes"].items() if k != "uuid"}
    for shape in shapes:
        for start in shape.starts():
            attributes = {
                **parent,
                "type": {"string": "mig"},
                "parentUUID": {"string": gpu.uuid},
                "profile": {"string": shape.profile},
            }
            own = dict(shape.capacity)
            devices.append(
                {
                    "name": mig_device_name(gpu.minor, shape, start, "current"),
                    "attributes": dict(sorted(attributes.items())),
                    "capacity": {name: _quantity(value) for name, value in sorted(own.items())},
                    "consumesCounters": [
                        {
                            "counterSet": driver_features.counter_set_name(gpu.minor),
                            "counters": _counters(own, start, shape.memory_slices),
                        }
                    ],
                }
            )
    return sorted(devices, key=lambda d: d["name"])


def dynamic_mig_slices(
    node: str, driver: str, gpus: list[PhysicalGpu], shapes: list[MigShape], minor: int
) -> list[dict[str, Any]]:
    """The node's pool as the driver publishes it with DynamicMIG: one slice per GPU (partitionable devices for
    dynamic-MIG-capable GPUs, the plain full GPU otherwise), and from Kubernetes 1.35 the counter sets in a slice
    of their own, first."""
    per_gpu: list[tuple[list[dict[str, Any]], dict[str, Any] | None]] = []
    for gpu in sorted(gpus, key=lambda g: g.minor):
        if dynamic_mig_capable(gpu, shapes):
            per_gpu.append((partitionable_devices(gpu, shapes), counter_set(gpu, shapes)))
        else:
            per_gpu.append(([gpu_device(gpu, "current")], None))
    split = minor >= driver_features.SPLIT_COUNTER_SLICES_SINCE_MINOR and any(c for _, c in per_gpu)
    specs: list[dict[str, Any]] = []
    if split:
        specs.append({"sharedCounters": [c for _, c in per_gpu if c is not None]})
    for devices, counters in per_gpu:
        spec: dict[str, Any] = {"devices": devices}
        if counters is not None and not split:
            spec["sharedCounters"] = [counters]
        specs.append(spec)
    return pool_slices(node, driver, specs)
