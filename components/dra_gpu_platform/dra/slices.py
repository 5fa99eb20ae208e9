"""DRA inventory: ResourceSlices (resource.k8s.io/v1) as the drivers publish them, and the devices they
carry per node. Pure: no Pulumi imports, no I/O.

Sources of an inventory:
- a stack's node pools (dra_gpu_platform/plans/stack_inventory.py `pools_inventory`): every DRA node pool at maxNodes, devices per node from the instance type or
  gpusPerNode, full GPUs or the MIG devices of the pool's profile (max instances per GPU), NVML-published
  memory from the catalog; dra-example-driver devices on kind with gpuDriver: example;
- the catalog for one node (`catalog_inventory`, `gpuplan inventory --gpu H100 --count 8`);
- an NVML snapshot (`nvml_inventory`; dra_gpu_platform/dra/nvml.py, also what --live reads);
- a cluster dump (`dump_inventory`, `kubectl get resourceslices -o json`).

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
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.nvml import GpuInfo, NvmlSnapshot
from dra_gpu_platform.facts import catalog, driver_charts
from dra_gpu_platform.facts.catalog import EXAMPLE_DEVICE, NVIDIA_DRIVER, STANDARD_DOMAIN, GpuModel
from dra_gpu_platform.facts.quantity import format_binary_si, parse_quantity
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem

RESOURCE_API = "resource.k8s.io/v1"
PCIE_ROOT = f"{STANDARD_DOMAIN}/pcieRoot"
PCI_BUS_ID = f"{STANDARD_DOMAIN}/pciBusID"
LEGACY_PCI_BUS_ID = "pcieBusID"  # driver-domain attribute up to v25.8.x
MAX_DEVICES_PER_SLICE = 128  # resource.k8s.io/v1 ResourceSliceMaxDevices
MEMORY_SLICES = 8

# The host NVIDIA driver is not part of a stack; simulated slices carry the one of the real H200 dump.
SIMULATED_DRIVER_VERSION = "580.159.4"
SIMULATED_CUDA_DRIVER_VERSION = "13.0.0"
SIMULATED_BRAND = "Nvidia"  # go-nvlib name of NVML_BRAND_NVIDIA, the H200 dump's brand
_UUID_NAMESPACE = uuidlib.UUID("6b1f3c52-7d0e-4f7a-9a43-1c2b5e8d9f60")

# NVML GPU-instance profile IDs (`nvidia-smi mig -lgip`, fixture mig-lgip.txt) by (GPU slices, memory
# slices, media extensions): the same IDs on A100, H100 and H200.
_PROFILE_IDS = {
    (1, 1, False): 19,
    (1, 1, True): 20,
    (1, 2, False): 15,
    (2, 2, False): 14,
    (3, 4, False): 9,
    (4, 4, False): 5,
    (7, 8, False): 0,
}
ALL_BALANCED = (
    "all-balanced"  # mig-parted: 2x 1g + 1x 2g + 1x 3g of one family (docs/references.md#gpu-operator-mig-profiles)
)


def nvidia_naming(driver_version: str) -> str:
    """ "current" or "legacy" device naming of an NVIDIA DRA driver version (dra_gpu_platform/facts/driver_charts.py)."""
    return driver_charts.attribute_naming(driver_version)


# ---------------------------------------------------------------------------------------------------
# MIG shapes and layouts


@dataclass(frozen=True)
class MigShape:
    profile: str  # e.g. 3g.40gb, 1g.18gb+me
    profile_id: int
    slices: int
    memory_slices: int  # placement size
    max_count: int
    capacity: tuple[tuple[str, int], ...]  # published capacities besides memorySlice<N>

    def starts(self) -> list[int]:
        # Placements are aligned to their size; max_count of them fit (1g: 0..6, 2g: 0,2,4, 3g: 0,4, ...).
        return [i * self.memory_slices for i in range(self.max_count)]


def catalog_mig_shapes(model: GpuModel) -> list[MigShape]:
    """The catalog's MIG profiles as the driver would publish them. A capacity the catalog has no NVML figure for
    (memory, multiprocessors of the newer GPUs) is left out rather than guessed."""
    shapes = []
    for profile in model.mig_profiles:
        me = profile.name.endswith("+me")
        profile_id = _PROFILE_IDS.get((profile.slices, profile.memory_slices, me), -1)
        capacity = []
        if profile.memory is not None:
            capacity.append(("memory", parse_quantity(profile.memory).as_integer()))
        if profile.multiprocessors is not None:
            capacity.append(("multiprocessors", profile.multiprocessors))
        shapes.append(
            MigShape(
                profile.name, profile_id, profile.slices, profile.memory_slices, profile.max_count, tuple(capacity)
            )
        )
    return shapes


def snapshot_mig_shapes(gpu: GpuInfo) -> list[MigShape]:
    total = gpu.memory_total_bytes
    return [
        MigShape(
            p.name(total),
            p.profile_id,
            p.slice_count,
            p.memory_slices(total),
            p.instance_count,
            (
                ("copyEngines", p.copy_engines),
                ("decoders", p.decoders),
                ("encoders", p.encoders),
                ("jpegEngines", p.jpeg_engines),
                ("memory", p.memory_mb * 1024 * 1024),
                ("multiprocessors", p.multiprocessors),
                ("ofaEngines", p.ofa_engines),
            ),
        )
        for p in gpu.mig_profiles
    ]


def mig_layout(shapes: list[MigShape], spec: str) -> list[tuple[MigShape, int]]:
    """(shape, placement start) of every MIG device on one GPU for a layout: a profile name (as many as fit,
    like mig-parted's all-<profile>), all-balanced, or "1g.5gb=2,2g.10gb=1"; raises ValueError."""
    by_name = {s.profile: s for s in shapes}
    wanted: list[MigShape] = []
    if spec == ALL_BALANCED:
        for slices, count in ((1, 2), (2, 1), (3, 1)):
            candidates = [
                s
                for s in shapes
                if s.slices == slices and s.memory_slices == slices + (slices == 3) and not s.profile.endswith("+me")
            ]
            if not candidates:
                raise ValueError(
                    f"{ALL_BALANCED} needs a {slices}g profile; this GPU has {', '.join(by_name) or 'none'}"
                )
            wanted += [candidates[0]] * count
    elif "=" in spec or "," in spec:
        for part in spec.split(","):
            name, _, number = part.partition("=")
            if name.strip() not in by_name or not number.strip().isdigit():
                raise ValueError(f"{part!r}: expected PROFILE=COUNT with a profile of this GPU ({', '.join(by_name)})")
            wanted += [by_name[name.strip()]] * int(number)
    elif spec in by_name:
        wanted = [by_name[spec]] * by_name[spec].max_count
    else:
        raise ValueError(
            f"{spec!r} is not a MIG profile of this GPU; use one of {', '.join(by_name) or '(none)'} or {ALL_BALANCED}"
        )
    placed = _place(sorted(wanted, key=lambda s: -s.memory_slices), [], 0)
    if placed is None:
        raise ValueError(f"MIG layout {spec!r} does not fit on one GPU ({MEMORY_SLICES} memory slices)")
    return sorted(placed, key=lambda item: (item[1], item[0].profile))


def _place(wanted: list[MigShape], placed: list[tuple[MigShape, int]], used: int) -> list[tuple[MigShape, int]] | None:
    if not wanted:
        return placed
    shape, rest = wanted[0], wanted[1:]
    for start in shape.starts():
        mask = ((1 << shape.memory_slices) - 1) << start
        if start + shape.memory_slices <= MEMORY_SLICES and not used & mask:
            result = _place(rest, [*placed, (shape, start)], used | mask)
            if result is not None:
                return result
    return None


# ---------------------------------------------------------------------------------------------------
# published devices


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
# inventories


@dataclass(frozen=True)
class DeviceTaint:
    key: str
    value: str
    effect: str  # NoSchedule | NoExecute | None


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


# ---------------------------------------------------------------------------------------------------
# cluster dumps

_SLICE_APIS = ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")
DUMP_KINDS = ("ResourceSlice", "ResourceClaim", "Node", "DeviceClass", "DeviceTaintRule")


@dataclass
class ClusterDump:
    """`kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json` (or any mix of those objects,
    single or in Lists): slices in v1 shape and in input order, every generation kept (pool validity is the
    allocator's judgement, dra_gpu_platform/dra/cluster.py)."""

    source: str
    slices: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    classes: list[dict[str, Any]] = field(default_factory=list)
    taint_rules: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_cluster_dump(documents: list[Any], source: str) -> ClusterDump:
    """Raises InputError listing every problem (structure the API server would never have stored)."""
    dump = ClusterDump(source)
    problems: list[Problem] = []
    ignored: dict[str, int] = {}
    seen: dict[tuple[str, str, str], tuple[str, Any]] = {}  # (kind, namespace, name) -> (path, object)
    items: list[tuple[str, Any]] = []
    for d, document in enumerate(documents):
        at = f"[{d}]" if len(documents) > 1 else ""
        if document is None:
            continue
        if isinstance(document, Mapping) and (
            document.get("kind") in ("List", "ResourceSliceList") or ("items" in document and "kind" not in document)
        ):
            values = document.get("items")
            if not isinstance(values, list):
                problems.append(
                    Problem(
                        source,
                        f"{at}items".lstrip("."),
                        values,
                        "a List needs items",
                        "pass `kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json` output",
                    )
                )
                continue
            items += [(f"{at}items[{i}]", item) for i, item in enumerate(values)]
        else:
            items.append((at, document))
    for at, item in items:
        if not isinstance(item, Mapping):
            problems.append(
                Problem(source, at, item, "not a Kubernetes object", "pass `kubectl get ... -o json` output")
            )
            continue
        kind = item.get("kind")
        if kind not in DUMP_KINDS:
            ignored[str(kind)] = ignored.get(str(kind), 0) + 1
            continue
        metadata = item.get("metadata") or {}
        key = (str(kind), str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        if key[2] and key in seen:
            if seen[key][1] == item:
                dump.notes.append(
                    f"{kind} {key[2]} is listed twice ({seen[key][0]} and {at}); the API server stores one "
                    "object per name, so it counts once"
                )
                continue
            problems.append(
                Problem(
                    source,
                    at,
                    key[2],
                    f"a second, different {kind} named {key[2]} (first at {seen[key][0]}); "
                    "a cluster holds one object per name",
                    "dump the cluster once; do not concatenate dumps",
                )
            )
            continue
        seen[key] = (at, item)
        if kind == "ResourceSlice":
            _read_slice(item, at, source, dump.slices, problems)
        elif kind == "ResourceClaim":
            dump.claims.append(dict(item))
        elif kind == "Node":
            if not metadata.get("name"):
                problems.append(
                    Problem(source, f"{at}.metadata.name", MISSING, "a Node needs a name", "dump the full object")
                )
                continue
            dump.nodes.append(dict(item))
        elif kind == "DeviceClass":
            dump.classes.append(dict(item))
        else:
            dump.taint_rules.append(dict(item))
    for kind, count in sorted(ignored.items()):
        dump.notes.append(f"{count} object(s) of kind {kind} ignored (fit reads {', '.join(DUMP_KINDS)})")
    if not problems and not dump.slices:
        problems.append(
            Problem(
                source,
                "",
                MISSING,
                "the inventory holds no ResourceSlice",
                "dump a cluster whose DRA drivers run: kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json",
            )
        )
    if problems:
        raise InputError(problems, source)
    return dump


def _read_slice(item: Any, at: str, source: str, out: list[dict[str, Any]], problems: list[Problem]) -> None:
    def bad(path: str, value: Any, rule: str, fix: str) -> None:
        problems.append(Problem(source, f"{at}.{path}" if at else path, value, rule, fix))

    if item.get("apiVersion") not in _SLICE_APIS:
        bad(
            "apiVersion",
            item.get("apiVersion", MISSING),
            f"must be one of {', '.join(_SLICE_APIS)}",
            "dump with a kubectl of Kubernetes 1.32 or newer",
        )
        return
    spec = item.get("spec")
    if not isinstance(spec, Mapping):
        bad("spec", spec if spec is not None else MISSING, "a ResourceSlice needs a spec", "dump the full object")
        return
    driver, pool = spec.get("driver"), spec.get("pool")
    if not isinstance(driver, str) or not driver:
        bad("spec.driver", driver if driver is not None else MISSING, "required driver name", "e.g. gpu.nvidia.com")
    if not isinstance(pool, Mapping) or not isinstance(pool.get("name"), str):
        bad(
            "spec.pool.name",
            pool.get("name", MISSING) if isinstance(pool, Mapping) else MISSING,
            "required pool name",
            "dump the full object",
        )
        return
    for key in ("generation", "resourceSliceCount"):
        value = pool.get(key, 0 if key == "generation" else None)
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if key == "generation" else 1):
            bad(
                f"spec.pool.{key}",
                value if value is not None else MISSING,
                "an integer (generation >= 0, resourceSliceCount >= 1)",
                "dump the full object",
            )
    devices = spec.get("devices") or []
    if not isinstance(devices, list):
        bad("spec.devices", devices, "must be a list", "dump the full object")
        return
    if not isinstance(driver, str) or not driver:
        return
    converted = []
    for j, device in enumerate(devices):
        if not isinstance(device, Mapping) or not isinstance(device.get("name"), str):
            bad(f"spec.devices[{j}].name", device, "each device needs a name", "dump the full object")
            continue
        if "basic" in device:  # v1beta1
            device = {"name": device["name"], **(device.get("basic") or {})}
        for kind in ("attributes", "capacity"):
            values = device.get(kind)
            if values is not None and not isinstance(values, dict):
                bad(f"spec.devices[{j}].{kind}", values, f"{kind} map names to objects", "dump the full object")
        converted.append(device)
    out.append(
        {
            "apiVersion": RESOURCE_API,
            "kind": "ResourceSlice",
            "metadata": dict(item.get("metadata") or {}),
            "spec": {**spec, "devices": converted},
        }
    )


def apply_taint_rules(slices: list[dict[str, Any]], rules: list[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Slices with the taints of matching DeviceTaintRules added (resourceslice/tracker applyPatches: a rule
    selects by driver, pool and device; an unset field matches all)."""
    if not rules:
        return slices
    patched = []
    for s in slices:
        spec = s["spec"]
        devices = []
        for device in spec.get("devices") or []:
            extra = [
                (r.get("spec") or {}).get("taint")
                for r in rules
                if _taint_rule_matches(r, spec["driver"], spec["pool"]["name"], device["name"])
            ]
            if extra:
                device = {
                    **device,
                    "taints": [*(device.get("taints") or []), *[t for t in extra if isinstance(t, Mapping)]],
                }
            devices.append(device)
        patched.append({**s, "spec": {**spec, "devices": devices}})
    return patched


def _taint_rule_matches(rule: Mapping[str, Any], driver: str, pool: str, name: str) -> bool:
    selector = (rule.get("spec") or {}).get("deviceSelector") or {}
    return all(
        selector.get(key) in (None, value) for key, value in (("driver", driver), ("pool", pool), ("device", name))
    )


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
