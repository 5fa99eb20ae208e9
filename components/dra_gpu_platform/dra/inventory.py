"""DRA inventories: the ResourceSlices a node's drivers publish, from the catalog for one node (`catalog_inventory`,
`gpuplan inventory --gpu H100 --count 8`) or an NVML snapshot (`nvml_inventory`; dra_gpu_platform/dra/nvml.py, also
what --live reads). A stack's node pools are inventoried by dra_gpu_platform/plans/stack_inventory.py, a cluster
dump read by dra_gpu_platform/dra/dump.py. Pure: no Pulumi imports, no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.devices import (
    PhysicalGpu,
    catalog_gpus,
    gpu_device,
    mig_device,
    nvidia_node_devices,
    resource_slices,
)
from dra_gpu_platform.dra.mig import catalog_mig_shapes, snapshot_mig_shapes
from dra_gpu_platform.dra.nvml import NvmlSnapshot
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.catalog import NVIDIA_DRIVER


@dataclass(frozen=True)
class Inventory:
    source: str  # "stack:<name>", "catalog", an NVML snapshot or a dump file
    slices: tuple[dict[str, Any], ...]
    node_pools: Mapping[str, str] = field(default_factory=dict)  # node -> stack node pool
    notes: tuple[str, ...] = ()

    def device_count(self) -> int:
        return sum(len(s["spec"].get("devices") or []) for s in self.slices)


def catalog_inventory(
    gpu: str, count: int, node: str, *, mig: str | None = None, per_root: int = 1, naming: str = "current"
) -> Inventory:
    """One node with `count` GPUs of a catalog model (raises KeyError/ValueError for unknown GPU or layout)."""
    model = catalog.gpu_model(gpu)
    if mig is not None and not model.supports_mig:
        raise ValueError(f"{gpu} has no MIG profiles")
    gpus = catalog_gpus(model, count, node, per_root)
    devices = nvidia_node_devices(gpus, node, catalog_mig_shapes(model), mig, naming)
    return Inventory("catalog", tuple(resource_slices(node, NVIDIA_DRIVER, devices)), {node: node})


def snapshot_gpus(snapshot: NvmlSnapshot) -> list[PhysicalGpu]:
    return [
        PhysicalGpu(
            minor=gpu.minor,
            uuid=gpu.uuid,
            product_name=gpu.name,
            brand=gpu.brand_name,
            architecture=gpu.architecture_name,
            compute_capability=gpu.compute_capability_version,
            driver_version=snapshot.driver_semver,
            cuda_driver_version=snapshot.cuda_driver_semver,
            memory_bytes=gpu.memory_total_bytes,
            bus_id=gpu.bus_id,
            pcie_root=gpu.pcie_root_name,
            addressing_mode=gpu.addressing_mode,
        )
        for gpu in snapshot.devices
    ]


def nvml_inventory(snapshot: NvmlSnapshot, node: str, *, mig: str | None = None, naming: str = "current") -> Inventory:
    """What the driver publishes on the snapshot's machine. `mig` partitions every GPU as that layout would
    (see mig_layout), using NVML's own profile data; without it, GPUs in MIG mode publish their MIG devices."""
    devices: list[dict[str, Any]] = []
    notes: list[str] = []
    for info, gpu in zip(snapshot.devices, snapshot_gpus(snapshot), strict=False):
        shapes = snapshot_mig_shapes(info)
        if mig is not None:
            devices += nvidia_node_devices([gpu], node, shapes, mig, naming)
        elif not info.mig_enabled:
            devices.append(gpu_device(gpu, naming))
        else:
            by_id = {s.profile_id: s for s in shapes}
            for existing in info.mig_devices:
                shape = by_id.get(existing.profile_id)
                if shape is not None:
                    devices.append(mig_device(gpu, shape, existing.placement_start, existing.uuid, naming))
            if not info.mig_devices:
                notes.append(
                    f"gpu-{info.minor}: MIG mode is on but no MIG device exists; the driver publishes nothing for it"
                )
    return Inventory(snapshot.source, tuple(resource_slices(node, NVIDIA_DRIVER, devices)), {node: node}, tuple(notes))
