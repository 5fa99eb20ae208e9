"""The documents the DRA drivers publish: ResourceSlices (resource.k8s.io/v1) with their devices per node, and the
DeviceClasses the driver charts create. Pure: no Pulumi imports, no I/O.

Published shape (docs/references.md#nvidia-dra-gpu-attributes, docs/references.md#nvidia-dra-mig-devices;
kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/deviceinfo.go, mig.go): full GPUs are `gpu-<minor>`
with type/uuid/productName/brand/architecture, version attributes
cudaComputeCapability/driverVersion/cudaDriverVersion, resource.kubernetes.io/pcieRoot (when known),
resource.kubernetes.io/pciBusID (v25.12+; `pcieBusID` in the driver's domain before), addressingMode (when known,
v25.12+) and a BinarySI `memory` capacity. A GPU in MIG mode publishes only its MIG devices,
`gpu-<minor>-mig-<profile without dots>-<profileId>-<start>` (v25.12+; `gpu-<minor>-mig-<profileId>-<start>-<size>`
before) with parentUUID/profile added and multiprocessors/…/memory/memorySlice<N> capacities.
dra-example-driver (docs/references.md#example-driver-devices): `gpu-0`…`gpu-7` per node with
index/uuid/model/driverVersion and memory 80Gi.

What a simulation cannot know is marked as such: UUIDs are stable stand-ins (uuid5 of node and device), PCI bus IDs
and pcieRoot names follow the catalog's GPUs-per-root grouping, the host driver version is the one of a real H200's
NVML snapshot (docs/references.md#nvidia-published-memory), and catalog MIG devices carry the capacities the catalog
knows (memory, multiprocessors, memory slices); NVML snapshots carry every engine count.
"""

from __future__ import annotations

import re
import uuid as uuidlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra.mig import MigShape, mig_layout
from dra_gpu_platform.facts import driver_charts
from dra_gpu_platform.facts.catalog import EXAMPLE_DEVICE, STANDARD_DOMAIN, GpuModel
from dra_gpu_platform.facts.quantity import format_binary_si

RESOURCE_API = "resource.k8s.io/v1"
PCIE_ROOT = f"{STANDARD_DOMAIN}/pcieRoot"
PCI_BUS_ID = f"{STANDARD_DOMAIN}/pciBusID"
LEGACY_PCI_BUS_ID = "pcieBusID"  # driver-domain attribute up to v25.8.x
MAX_DEVICES_PER_SLICE = 128  # resource.k8s.io/v1 ResourceSliceMaxDevices

# The host NVIDIA driver is not part of a stack; simulated slices carry the one of the real H200 dump.
SIMULATED_DRIVER_VERSION = "580.159.4"
SIMULATED_CUDA_DRIVER_VERSION = "13.0.0"
SIMULATED_BRAND = "Nvidia"  # go-nvlib name of NVML_BRAND_NVIDIA, the H200 dump's brand
_UUID_NAMESPACE = uuidlib.UUID("6b1f3c52-7d0e-4f7a-9a43-1c2b5e8d9f60")


def nvidia_naming(driver_version: str) -> str:
    """ "current" or "legacy" device naming of an NVIDIA DRA driver version (dra_gpu_platform/facts/driver_charts.py)."""
    return driver_charts.attribute_naming(driver_version)


@dataclass(frozen=True)
class PhysicalGpu:
    """What the driver reads from NVML for one GPU."""

    minor: int
    uuid: str
    product_name: str
    brand: str
    architecture: str
    compute_capability: str  # semver
    driver_version: str  # semver
    cuda_driver_version: str  # semver
    memory_bytes: int
    bus_id: str | None = None
    pcie_root: str | None = None
    addressing_mode: str | None = None


def _string(value: str) -> dict[str, Any]:
    return {"string": value}


def _version(value: str) -> dict[str, Any]:
    return {"version": value}


def _capacity(value: int) -> dict[str, Any]:
    return {"value": format_binary_si(value)}


def _common_attributes(gpu: PhysicalGpu, naming: str) -> dict[str, dict[str, Any]]:
    attributes = {
        "productName": _string(gpu.product_name),
        "brand": _string(gpu.brand),
        "architecture": _string(gpu.architecture),
        "cudaComputeCapability": _version(gpu.compute_capability),
        "driverVersion": _version(gpu.driver_version),
        "cudaDriverVersion": _version(gpu.cuda_driver_version),
    }
    if gpu.bus_id is not None:
        attributes[PCI_BUS_ID if naming == "current" else LEGACY_PCI_BUS_ID] = _string(gpu.bus_id)
    if gpu.pcie_root is not None:
        attributes[PCIE_ROOT] = _string(gpu.pcie_root)
    if gpu.addressing_mode is not None and naming == "current":
        attributes["addressingMode"] = _string(gpu.addressing_mode)
    return attributes


def gpu_device(gpu: PhysicalGpu, naming: str = "current") -> dict[str, Any]:
    attributes = {"type": _string("gpu"), "uuid": _string(gpu.uuid), **_common_attributes(gpu, naming)}
    return {
        "name": f"gpu-{gpu.minor}",
        "attributes": dict(sorted(attributes.items())),
        "capacity": {"memory": _capacity(gpu.memory_bytes)},
    }


def mig_device_name(minor: int, shape: MigShape, start: int, naming: str = "current") -> str:
    if naming == "current":
        # mig.go ToCanonicalName: dots dropped, then lower-cased and anything but [a-z0-9-.] made "-".
        profile = re.sub(r"[^a-z0-9-.]", "-", shape.profile.replace(".", "").lower()).strip("-")
        return f"gpu-{minor}-mig-{profile}-{shape.profile_id}-{start}"
    return f"gpu-{minor}-mig-{shape.profile_id}-{start}-{shape.memory_slices}"


def mig_device(gpu: PhysicalGpu, shape: MigShape, start: int, mig_uuid: str, naming: str = "current") -> dict[str, Any]:
    attributes = {
        "type": _string("mig"),
        "uuid": _string(mig_uuid),
        "parentUUID": _string(gpu.uuid),
        "profile": _string(shape.profile),
        **_common_attributes(gpu, naming),
    }
    capacity = {name: _capacity(value) for name, value in shape.capacity}
    for memory_slice in range(start, start + shape.memory_slices):
        capacity[f"memorySlice{memory_slice}"] = _capacity(1)
    return {
        "name": mig_device_name(gpu.minor, shape, start, naming),
        "attributes": dict(sorted(attributes.items())),
        "capacity": dict(sorted(capacity.items())),
    }


def example_device(index: int, device_uuid: str) -> dict[str, Any]:
    return {
        "name": f"gpu-{index}",
        "attributes": {
            "driverVersion": _version(EXAMPLE_DEVICE.driver_version),
            "index": {"int": index},
            "model": _string(EXAMPLE_DEVICE.model),
            "uuid": _string(device_uuid),
        },
        "capacity": {"memory": {"value": EXAMPLE_DEVICE.memory}},
    }


def resource_slices(node: str, driver: str, devices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The node's pool for one driver; more than 128 devices are split over several slices of one pool."""
    chunks = [devices[i : i + MAX_DEVICES_PER_SLICE] for i in range(0, len(devices), MAX_DEVICES_PER_SLICE)] or [[]]
    return pool_slices(node, driver, [{"devices": chunk} for chunk in chunks])


def pool_slices(node: str, driver: str, specs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One ResourceSlice per spec (its devices and/or sharedCounters), all of the node's one pool for the driver.
    The API server completes generateName with a random suffix."""
    return [
        {
            "apiVersion": RESOURCE_API,
            "kind": "ResourceSlice",
            "metadata": {"generateName": f"{node}-{driver}-"},
            "spec": {
                "driver": driver,
                "nodeName": node,
                "pool": {"name": node, "generation": 1, "resourceSliceCount": len(specs)},
                **spec,
            },
        }
        for spec in specs
    ]


def stable_uuid(*parts: object) -> str:
    return str(uuidlib.uuid5(_UUID_NAMESPACE, "/".join(str(p) for p in parts)))


def simulated_pci(minor: int, per_root: int) -> tuple[str, str]:
    """(bus ID, pcieRoot) of GPU `minor` when `per_root` GPUs share a root: roots pci0000:10, pci0000:20, …
    and the GPUs on the buses right below them."""
    root = minor // max(1, per_root)
    domain, base = divmod(root, 15)
    bus = (base + 1) * 0x10
    return f"{domain:04x}:{bus + 1 + minor % max(1, per_root):02x}:00.0", f"pci{domain:04x}:{bus:02x}"


def catalog_gpus(model: GpuModel, count: int, node: str, per_root: int) -> list[PhysicalGpu]:
    gpus = []
    for minor in range(count):
        bus_id, root = simulated_pci(minor, per_root)
        gpus.append(
            PhysicalGpu(
                minor=minor,
                uuid=f"GPU-{stable_uuid(node, 'gpu', minor)}",
                product_name=model.product_name,
                brand=SIMULATED_BRAND,
                architecture=model.architecture,
                compute_capability=model.compute_capability,
                driver_version=SIMULATED_DRIVER_VERSION,
                cuda_driver_version=SIMULATED_CUDA_DRIVER_VERSION,
                memory_bytes=model.memory.as_integer(),
                bus_id=bus_id,
                pcie_root=root,
            )
        )
    return gpus


def nvidia_node_devices(
    gpus: list[PhysicalGpu],
    node: str,
    shapes: list[MigShape] | None = None,
    mig: str | None = None,
    naming: str = "current",
) -> list[dict[str, Any]]:
    devices = []
    for gpu in gpus:
        if mig is None:
            devices.append(gpu_device(gpu, naming))
            continue
        for shape, start in mig_layout(shapes or [], mig):
            mig_uuid = f"MIG-{stable_uuid(node, gpu.uuid, shape.profile_id, start)}"
            devices.append(mig_device(gpu, shape, start, mig_uuid, naming))
    return devices


# ---------------------------------------------------------------------------------------------------
# DeviceClasses the driver charts create (docs/references.md#nvidia-dra-deviceclasses,
# docs/references.md#example-driver-deviceclass)


def chart_device_classes(
    names: Iterable[str], dra_driver_version: str | None = None, extended_resource: bool | None = None
) -> list[dict[str, Any]]:
    """DeviceClass objects of the installed driver chart, as its templates render them for resource.k8s.io/v1.
    `extended_resource`: whether gpu.nvidia.com carries extendedResourceName (None: as the chart of that version
    does; a GPUCluster's class never does)."""
    classes = []
    release = driver_charts.dra_driver_release(dra_driver_version) if dra_driver_version else None
    if extended_resource is None:
        extended_resource = release is not None and release.gpu_class_extended_resource
    for name in names:
        spec: dict[str, Any] = {"selectors": [{"cel": {"expression": driver_charts.DEVICE_CLASS_SELECTORS[name]}}]}
        if name == "gpu.nvidia.com" and extended_resource:
            spec["extendedResourceName"] = driver_charts.GPU_CLASS_EXTENDED_RESOURCE
        classes.append({"apiVersion": RESOURCE_API, "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec})
    return classes
