"""NVML snapshots: what NVML reports about a machine's GPUs, as a JSON file (the format
`gpuplan inventory --live --save-nvml` writes), and the values the NVIDIA DRA driver derives from it. Pure: no
Pulumi imports, no I/O (gpuplan/inventory/nvml_live.py reads a live machine into the same structure).

Derivations follow the driver (kubernetes-sigs/dra-driver-nvidia-gpu cmd/gpu-kubelet-plugin/nvlib.go,
deviceinfo.go, mig.go) and go-nvlib (pkg/nvlib/device): architecture and brand enum names, the CUDA driver
version "<v/1000>.<v%1000/10>", the PCI bus ID without the leading "0000" of NVML's 8-digit domain, MIG
profile names "<g>g.<gb>gb" with the memory rounded to eighths of the GPU, "+me" for the media-extension
profile.

File format (keys in camelCase; optional keys in brackets):
{"driverVersion": "580.159.04", "cudaDriverVersion": 13000, ["nvmlVersion"],
 "devices": [{"index": 0, ["minor": 0], "name": "NVIDIA H200", "uuid": "GPU-…", "memoryTotalBytes": 150754820096,
              "cudaComputeCapability": [9, 0], "architecture": 9, "brand": 14, "pciBusId": "00000000:00:06.0",
              ["pciDeviceId": "0x233510de"], ["migMode": [current, pending]], ["addressingMode": "None"],
              ["pcieRoot": "pci0000:00"],
              ["migProfiles": [{"profileId": 19, ["profileIndex": 0], "sliceCount": 1, "instanceCount": 7,
                                "memorySizeMB": 16384, "multiprocessorCount": 16, "copyEngineCount": 1,
                                "decoderCount": 1, "encoderCount": 0, "jpegCount": 1, "ofaCount": 0}, …]],
              ["migDevices": [{"uuid": "MIG-…", "profileId": 19, "placementStart": 0, "placementSize": 1}, …]]}]}
Unsupported NVML queries may appear as {"error": "NVMLError_NotSupported: …"} in place of a value.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem

# NVML enums (nvml.h; the same numbers in nvidia-ml-py) and go-nvlib's strings for them.
ARCHITECTURES = {
    2: "Kepler",
    3: "Maxwell",
    4: "Pascal",
    5: "Volta",
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
    0xFFFFFFFF: "Unknown",
}
BRANDS = {
    0: "Unknown",
    1: "Quadro",
    2: "Tesla",
    3: "NVS",
    4: "Grid",
    5: "GeForce",
    6: "Titan",
    7: "NvidiaVApps",
    8: "NvidiaVPC",
    9: "NvidiaVCS",
    10: "NvidiaVWS",
    11: "NvidiaCloudGaming",
    12: "QuadroRTX",
    13: "NvidiaRTX",
    14: "Nvidia",
    15: "GeForceRTX",
    16: "TitanRTX",
}
# NVML GPU-instance profile indices (NVML_GPU_INSTANCE_PROFILE_*) that carry a name suffix in go-nvlib.
PROFILE_INDEX_1_SLICE_REV1 = 7  # the "+me" (media extensions) 1-slice profile
# When a snapshot has no profileIndex: the GI profile IDs `nvidia-smi mig -lgip` prints on A100/H100/H200
# (fixture mig-lgip.txt) mapped to their NVML profile index.
_PROFILE_INDEX_BY_ID = {19: 0, 14: 1, 9: 2, 5: 3, 0: 4, 20: PROFILE_INDEX_1_SLICE_REV1, 15: 9}
MEMORY_SLICES = 8  # MIG memory slices of A100/H100/H200 (memorySlice0..7)
_MIB = 1024 * 1024
_GIB = 1024 * _MIB


@dataclass(frozen=True)
class MigProfileInfo:
    """One GPU-instance profile as NVML describes it (nvmlGpuInstanceProfileInfo_t)."""

    profile_id: int
    profile_index: int | None
    slice_count: int
    instance_count: int
    memory_mb: int
    multiprocessors: int
    copy_engines: int
    decoders: int
    encoders: int
    jpeg_engines: int
    ofa_engines: int

    def name(self, total_memory_bytes: int) -> str:
        """go-nvlib's MigProfile.String() for a profile whose compute and GPU slices are equal."""
        index = self.profile_index if self.profile_index is not None else _PROFILE_INDEX_BY_ID.get(self.profile_id)
        suffix = "+me" if index == PROFILE_INDEX_1_SLICE_REV1 else ""
        return f"{self.slice_count}g.{mig_memory_gb(total_memory_bytes, self.memory_mb)}gb{suffix}"

    def memory_slices(self, total_memory_bytes: int) -> int:
        """Memory slices one instance occupies (placement size): its eighths of the GPU memory, rounded up."""
        return math.ceil(self.memory_mb * _MIB * MEMORY_SLICES / total_memory_bytes - 1e-9)


@dataclass(frozen=True)
class MigDeviceInfo:
    """A MIG device that exists on the GPU (MIG mode on)."""

    uuid: str
    profile_id: int
    placement_start: int
    placement_size: int


@dataclass(frozen=True)
class GpuInfo:
    index: int
    minor: int
    name: str
    uuid: str
    memory_total_bytes: int
    compute_capability: tuple[int, int]
    architecture: int
    brand: int
    pci_bus_id: str  # as NVML reports it, e.g. 00000000:00:06.0
    pci_device_id: str | None
    mig_enabled: bool
    addressing_mode: str | None
    pcie_root: str | None
    mig_profiles: tuple[MigProfileInfo, ...]
    mig_devices: tuple[MigDeviceInfo, ...]

    @property
    def architecture_name(self) -> str:
        return ARCHITECTURES.get(self.architecture, "Unknown")

    @property
    def brand_name(self) -> str:
        return BRANDS.get(self.brand, "Unknown")

    @property
    def compute_capability_version(self) -> str:
        return f"{self.compute_capability[0]}.{self.compute_capability[1]}.0"

    @property
    def bus_id(self) -> str:
        """go-nvlib GetPCIBusID: lower case, NVML's 8-digit domain shortened to 4 digits."""
        text = self.pci_bus_id.lower()
        return text[4:] if text.startswith("0000") and text != "0000" else text

    @property
    def pcie_root_name(self) -> str | None:
        """The PCIe root complex: given in the snapshot, or evident when the GPU sits on bus 00 (its sysfs
        path is /sys/devices/pci<domain>:00/<bus id>). Otherwise unknown, and the driver's attribute absent."""
        if self.pcie_root:
            return self.pcie_root
        match = re.fullmatch(r"([0-9a-f]{4}):([0-9a-f]{2}):[0-9a-f]{2}\.[0-7]", self.bus_id)
        if match and match[2] == "00":
            return f"pci{match[1]}:00"
        return None

    def mig_profile(self, name: str) -> MigProfileInfo | None:
        return next((p for p in self.mig_profiles if p.name(self.memory_total_bytes) == name), None)

    def mig_profile_by_id(self, profile_id: int) -> MigProfileInfo | None:
        return next((p for p in self.mig_profiles if p.profile_id == profile_id), None)


@dataclass(frozen=True)
class NvmlSnapshot:
    source: str
    driver_version: str
    cuda_driver_version: int
    devices: tuple[GpuInfo, ...]

    @property
    def driver_semver(self) -> str:
        return lenient_semver(self.driver_version)

    @property
    def cuda_driver_semver(self) -> str:
        version = self.cuda_driver_version
        return lenient_semver(f"{version // 1000}.{(version % 1000) // 10}")


def lenient_semver(text: str) -> str:
    """Masterminds semver NewVersion(...).String() for plain numeric versions: "580.159.04" -> "580.159.4",
    "13.0" -> "13.0.0" (the driver publishes driverVersion/cudaDriverVersion this way)."""
    parts = text.strip().removeprefix("v").split(".")
    if not 1 <= len(parts) <= 3 or not all(part.isdigit() for part in parts):
        raise ValueError(f"{text!r} is not a numeric version like 580.159.04")
    numbers = [int(part) for part in parts] + [0] * (3 - len(parts))
    return ".".join(str(n) for n in numbers)


def mig_memory_gb(total_memory_bytes: int, memory_mb: int) -> int:
    """go-nvlib getMigMemorySizeGB: the fraction of GPU memory rounded up to eighths, times the GPU's GiB
    (rounded up), rounded half away from zero."""
    fraction = math.ceil(memory_mb * _MIB / total_memory_bytes * 8) / 8
    total_gb = -(-total_memory_bytes // _GIB)
    return math.floor(fraction * total_gb + 0.5)


# ---------------------------------------------------------------------------------------------------
# parsing


class _Reader:
    def __init__(self, source: str):
        self.source = source
        self.problems: list[Problem] = []

    def bad(self, path: str, value: Any, rule: str, fix: str) -> None:
        self.problems.append(Problem(self.source, path, value, rule, fix))

    def get(
        self,
        data: Mapping[str, Any],
        key: str,
        path: str,
        kind: type | tuple[type, ...],
        *,
        required: bool = True,
        fix: str = "write the value NVML reports",
        minimum: int | None = None,
    ) -> Any:
        if key not in data or _is_error(data[key]):
            if required:
                self.bad(
                    f"{path}.{key}" if path else key, data.get(key, MISSING), f"required {_kind_name(kind)} value", fix
                )
            return None
        value = data[key]
        if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
            self.bad(f"{path}.{key}" if path else key, value, f"must be {_kind_name(kind)}", fix)
            return None
        if minimum is not None and isinstance(value, int) and value < minimum:
            # NVML's counts, indices and sizes are unsigned: a negative (or zero) one was not read from NVML.
            self.bad(
                f"{path}.{key}" if path else key, value, f"must be at least {minimum} (NVML reports it unsigned)", fix
            )
            return None
        return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _kind_name(kind: type | tuple[type, ...]) -> str:
    names = {int: "an integer", str: "a string", list: "a list", dict: "an object", bool: "a boolean"}
    return " or ".join(names.get(k, k.__name__) for k in _as_tuple(kind))


def _is_error(value: Any) -> bool:
    return isinstance(value, Mapping) and set(value) == {"error"}


def parse_snapshot(data: Any, source: str) -> NvmlSnapshot:
    """Validate a snapshot document; every problem at once as InputError."""
    reader = _Reader(source)
    if not isinstance(data, Mapping):
        raise InputError(
            [
                Problem(
                    source,
                    "",
                    data,
                    "an NVML snapshot is a JSON object",
                    "use the nvml.json format (see gpuplan inventory --help)",
                )
            ],
            source,
        )
    driver_version = reader.get(data, "driverVersion", "", str)
    if driver_version is not None:
        try:
            lenient_semver(driver_version)
        except ValueError as error:
            reader.bad("driverVersion", driver_version, str(error), "write the NVIDIA driver version, e.g. 580.159.04")
    cuda = reader.get(
        data, "cudaDriverVersion", "", int, fix="write NVML's integer, e.g. 13000 for CUDA 13.0", minimum=1
    )
    devices_raw = reader.get(data, "devices", "", list)
    devices: list[GpuInfo] = []
    positions: list[int] = []
    for i, raw in enumerate(devices_raw or []):
        gpu = _parse_gpu(reader, raw, f"devices[{i}]")
        if gpu is not None:
            devices.append(gpu)
            positions.append(i)
    if devices_raw is not None and not devices_raw:
        reader.bad("devices", [], "the snapshot lists no GPU", "take the snapshot on a machine whose NVML sees a GPU")
    _check_unique(reader, list(zip(positions, devices, strict=False)))
    if reader.problems:
        raise InputError(reader.problems, source)
    return NvmlSnapshot(source, driver_version, cuda, tuple(devices))


def _parse_gpu(reader: _Reader, raw: Any, path: str) -> GpuInfo | None:
    if not isinstance(raw, Mapping):
        reader.bad(path, raw, "each device is an object", "use the nvml.json format")
        return None
    before = len(reader.problems)
    index = reader.get(raw, "index", path, int, minimum=0)
    minor = reader.get(raw, "minor", path, int, required=False, minimum=0)
    name = reader.get(raw, "name", path, str)
    uuid = reader.get(raw, "uuid", path, str)
    if uuid is not None and not uuid.startswith("GPU-"):
        reader.bad(f"{path}.uuid", uuid, "a GPU UUID from NVML starts with GPU-", "write the UUID nvidia-smi -L prints")
    memory = reader.get(
        raw, "memoryTotalBytes", path, int, minimum=1, fix="write NVML's total memory in bytes, e.g. 150754820096"
    )
    cc = reader.get(raw, "cudaComputeCapability", path, list, fix="write [major, minor], e.g. [9, 0]")
    if cc is not None and (
        len(cc) != 2 or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in cc)
    ):
        reader.bad(
            f"{path}.cudaComputeCapability", cc, "must be [major, minor] of non-negative integers", "e.g. [9, 0]"
        )
    arch = reader.get(
        raw, "architecture", path, int, fix="write NVML's nvmlDeviceArchitecture_t number, e.g. 9 for Hopper", minimum=0
    )
    brand = reader.get(raw, "brand", path, int, fix="write NVML's nvmlBrandType_t number, e.g. 14", minimum=0)
    bus = reader.get(raw, "pciBusId", path, str)
    if bus is not None and not re.fullmatch(r"[0-9a-fA-F]{4,8}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]", bus):
        reader.bad(f"{path}.pciBusId", bus, "not a PCI bus ID", "e.g. 00000000:00:06.0")
    device_id = reader.get(raw, "pciDeviceId", path, str, required=False)
    mig_mode = raw.get("migMode")
    mig_enabled = isinstance(mig_mode, list) and bool(mig_mode) and mig_mode[0] == 1
    addressing = reader.get(raw, "addressingMode", path, str, required=False)
    root = reader.get(raw, "pcieRoot", path, str, required=False)
    profiles = []
    for j, profile in enumerate(reader.get(raw, "migProfiles", path, list, required=False) or []):
        parsed = _parse_profile(reader, profile, f"{path}.migProfiles[{j}]")
        if parsed is not None:
            profiles.append(parsed)
    mig_devices = []
    mig_positions: list[int] = []
    for j, device in enumerate(reader.get(raw, "migDevices", path, list, required=False) or []):
        at = f"{path}.migDevices[{j}]"
        if not isinstance(device, Mapping):
            reader.bad(at, device, "each MIG device is an object", "use the nvml.json format")
            continue
        values = [
            reader.get(device, k, at, kind, minimum=low)
            for k, kind, low in (
                ("uuid", str, None),
                ("profileId", int, 0),
                ("placementStart", int, 0),
                ("placementSize", int, 1),
            )
        ]
        if None not in values:
            mig_devices.append(MigDeviceInfo(*values))
            mig_positions.append(j)
            if profiles and not any(p.profile_id == values[1] for p in profiles):
                reader.bad(
                    f"{at}.profileId",
                    values[1],
                    "names no profile in migProfiles",
                    "list the GPU's profiles in migProfiles",
                )
            if values[2] + values[3] > MEMORY_SLICES:
                reader.bad(
                    f"{at}.placementStart",
                    values[2],
                    f"the placement ends past the GPU's {MEMORY_SLICES} slices",
                    "write the placement NVML reports",
                )
    for j, profile in enumerate(profiles):
        if memory is not None and profile.memory_mb * _MIB > memory:
            reader.bad(
                f"{path}.migProfiles[{j}].memorySizeMB",
                profile.memory_mb,
                "a profile larger than the GPU's memory",
                "write the memory NVML reports for the profile",
            )
    _check_unique(
        reader,
        list(zip(mig_positions, mig_devices, strict=False)),
        path=f"{path}.migDevices",
        keys=(("uuid", "MIG device UUID"),),
    )
    if len(reader.problems) > before:
        return None
    return GpuInfo(
        index=index,
        minor=minor if minor is not None else index,
        name=name,
        uuid=uuid,
        memory_total_bytes=memory,
        compute_capability=(cc[0], cc[1]),
        architecture=arch,
        brand=brand,
        pci_bus_id=bus,
        pci_device_id=device_id,
        mig_enabled=mig_enabled,
        addressing_mode=addressing or None,
        pcie_root=root,
        mig_profiles=tuple(profiles),
        mig_devices=tuple(mig_devices),
    )


_PROFILE_FIELDS = (
    ("profileId", "profile_id"),
    ("sliceCount", "slice_count"),
    ("instanceCount", "instance_count"),
    ("memorySizeMB", "memory_mb"),
    ("multiprocessorCount", "multiprocessors"),
    ("copyEngineCount", "copy_engines"),
    ("decoderCount", "decoders"),
    ("encoderCount", "encoders"),
    ("jpegCount", "jpeg_engines"),
    ("ofaCount", "ofa_engines"),
)


def _parse_profile(reader: _Reader, raw: Any, path: str) -> MigProfileInfo | None:
    if not isinstance(raw, Mapping):
        reader.bad(path, raw, "each MIG profile is an object", "use the nvml.json format")
        return None
    values = {
        field: reader.get(
            raw, key, path, int, minimum=1 if key in ("sliceCount", "instanceCount", "memorySizeMB") else 0
        )
        for key, field in _PROFILE_FIELDS
    }
    if None in values.values():
        return None
    return MigProfileInfo(profile_index=reader.get(raw, "profileIndex", path, int, required=False), **values)


_GPU_KEYS = (
    ("index", "GPU index"),
    ("minor", "device minor number"),
    ("uuid", "GPU UUID"),
    ("pci_bus_id", "PCI bus ID"),
)


def _check_unique(
    reader: _Reader,
    items: list[tuple[int, Any]],
    *,
    path: str = "devices",
    keys: tuple[tuple[str, str], ...] = _GPU_KEYS,
) -> None:
    """Each GPU has its own index, minor, UUID and bus ID (the driver names devices gpu-<minor>: two GPUs with
    one minor would publish one device twice)."""
    for attribute, what in keys:
        seen: dict[Any, int] = {}
        for position, item in items:
            value = getattr(item, attribute)
            if isinstance(value, str):
                value = value.lower()
            if value in seen:
                key = "pciBusId" if attribute == "pci_bus_id" else attribute
                reader.bad(
                    f"{path}[{position}].{key}",
                    getattr(item, attribute),
                    f"the same {what} as {path}[{seen[value]}]: two GPUs cannot share it",
                    "take a fresh snapshot; each GPU appears once",
                )
            else:
                seen[value] = position


def snapshot_document(snapshot: NvmlSnapshot) -> dict[str, Any]:
    """The JSON document of a snapshot (what `gpuplan inventory --live --save-nvml` writes)."""
    devices = []
    for gpu in snapshot.devices:
        device: dict[str, Any] = {
            "index": gpu.index,
            "minor": gpu.minor,
            "name": gpu.name,
            "uuid": gpu.uuid,
            "memoryTotalBytes": gpu.memory_total_bytes,
            "cudaComputeCapability": list(gpu.compute_capability),
            "architecture": gpu.architecture,
            "brand": gpu.brand,
            "pciBusId": gpu.pci_bus_id,
            "migMode": [1 if gpu.mig_enabled else 0, 1 if gpu.mig_enabled else 0],
        }
        for key, value in (
            ("pciDeviceId", gpu.pci_device_id),
            ("addressingMode", gpu.addressing_mode),
            ("pcieRoot", gpu.pcie_root),
        ):
            if value is not None:
                device[key] = value
        if gpu.mig_profiles:
            device["migProfiles"] = [
                {key: getattr(p, field) for key, field in _PROFILE_FIELDS}
                | ({"profileIndex": p.profile_index} if p.profile_index is not None else {})
                for p in gpu.mig_profiles
            ]
        if gpu.mig_devices:
            device["migDevices"] = [
                {
                    "uuid": m.uuid,
                    "profileId": m.profile_id,
                    "placementStart": m.placement_start,
                    "placementSize": m.placement_size,
                }
                for m in gpu.mig_devices
            ]
        devices.append(device)
    return {
        "driverVersion": snapshot.driver_version,
        "cudaDriverVersion": snapshot.cuda_driver_version,
        "devices": devices,
    }
