"""Read this machine's GPUs through NVML (nvidia-ml-py, imported as `pynvml`) into an NVML snapshot
(dra_gpu_platform/dra/nvml.py), the same structure `--from-nvml FILE` reads. Queries a GPU does not support
are left out, as the driver leaves the matching attributes out."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from dra_gpu_platform.dra.nvml import NvmlSnapshot, parse_snapshot

# nvmlDeviceAddressingModeType_t -> go-nvlib GetAddressingModeAsString
_ADDRESSING_MODES = {0: "None", 1: "HMM", 2: "ATS"}


class NvmlUnavailable(RuntimeError):
    """NVML cannot be loaded or initialised, or it sees no GPU."""


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, (bytes, bytearray)) else str(value)


def pcie_root(bus_id: str, sysfs: Path = Path("/sys")) -> str | None:
    """The root complex in the device's sysfs path (/sys/devices/pci0000:00/...), as the driver resolves
    resource.kubernetes.io/pcieRoot; None when the path cannot be resolved."""
    link = sysfs / "bus" / "pci" / "devices" / bus_id
    if not link.exists():
        return None
    for part in Path(os.path.realpath(link)).parts:
        if part.startswith("pci") and ":" in part:
            return part
    return None


def read_live(nvml: Any = None, sysfs: Path = Path("/sys")) -> NvmlSnapshot:
    """Snapshot of every GPU NVML sees. Raises NvmlUnavailable without NVML or GPU."""
    if nvml is None:
        try:
            import pynvml as nvml  # nvidia-ml-py
        except ImportError as error:  # pragma: no cover - a pinned dependency
            raise NvmlUnavailable(f"nvidia-ml-py is not installed: {error}") from None
    try:
        nvml.nvmlInit()
    except nvml.NVMLError as error:
        raise NvmlUnavailable(f"NVML could not be initialised ({error}): no NVIDIA driver on this machine") from None
    try:
        count = nvml.nvmlDeviceGetCount()
        if not count:
            raise NvmlUnavailable("NVML sees no GPU on this machine")

        def optional(call: Callable[[], Any]) -> Any:
            try:
                return call()
            except nvml.NVMLError as error:
                return {"error": f"{type(error).__name__}: {error}"}

        devices = [_device(nvml, index, optional, sysfs) for index in range(count)]
        document = {
            "driverVersion": _text(nvml.nvmlSystemGetDriverVersion()),
            "cudaDriverVersion": nvml.nvmlSystemGetCudaDriverVersion(),
            "devices": devices,
        }
    finally:
        nvml.nvmlShutdown()
    return parse_snapshot(document, "live NVML")


def _device(nvml: Any, index: int, optional: Callable[[Callable[[], Any]], Any], sysfs: Path) -> dict[str, Any]:
    handle = nvml.nvmlDeviceGetHandleByIndex(index)
    pci = nvml.nvmlDeviceGetPciInfo(handle)
    bus = _text(pci.busId)
    short_bus = bus.lower()[4:] if bus.lower().startswith("0000") else bus.lower()
    device: dict[str, Any] = {
        "index": index,
        "minor": nvml.nvmlDeviceGetMinorNumber(handle),
        "name": _text(nvml.nvmlDeviceGetName(handle)),
        "uuid": _text(nvml.nvmlDeviceGetUUID(handle)),
        "memoryTotalBytes": int(nvml.nvmlDeviceGetMemoryInfo(handle).total),
        "cudaComputeCapability": list(nvml.nvmlDeviceGetCudaComputeCapability(handle)),
        "architecture": nvml.nvmlDeviceGetArchitecture(handle),
        "brand": nvml.nvmlDeviceGetBrand(handle),
        "pciBusId": bus,
        "pciDeviceId": f"0x{pci.pciDeviceId:08x}",
    }
    mode = optional(lambda: list(nvml.nvmlDeviceGetMigMode(handle)))
    device["migMode"] = mode if isinstance(mode, list) else [0, 0]
    addressing = optional(lambda: nvml.nvmlDeviceGetAddressingMode(handle))
    if isinstance(addressing, int):
        device["addressingMode"] = _ADDRESSING_MODES.get(addressing, str(addressing))
    root = pcie_root(short_bus, sysfs)
    if root:
        device["pcieRoot"] = root
    profiles = []
    for profile_index in range(nvml.NVML_GPU_INSTANCE_PROFILE_COUNT):
        info = optional(lambda index=profile_index: nvml.nvmlDeviceGetGpuInstanceProfileInfo(handle, index))
        if isinstance(info, dict):
            continue
        profiles.append(
            {
                "profileId": info.id,
                "profileIndex": profile_index,
                "sliceCount": info.sliceCount,
                "instanceCount": info.instanceCount,
                "memorySizeMB": info.memorySizeMB,
                "multiprocessorCount": info.multiprocessorCount,
                "copyEngineCount": info.copyEngineCount,
                "decoderCount": info.decoderCount,
                "encoderCount": info.encoderCount,
                "jpegCount": info.jpegCount,
                "ofaCount": info.ofaCount,
            }
        )
    if profiles:
        device["migProfiles"] = profiles
    if device["migMode"][0] == 1:
        migs = []
        for slot in range(nvml.nvmlDeviceGetMaxMigDeviceCount(handle)):
            mig = optional(lambda index=slot: nvml.nvmlDeviceGetMigDeviceHandleByIndex(handle, index))
            if isinstance(mig, dict):
                continue
            instance = nvml.nvmlDeviceGetGpuInstanceById(handle, nvml.nvmlDeviceGetGpuInstanceId(mig))
            info = nvml.nvmlGpuInstanceGetInfo(instance)
            migs.append(
                {
                    "uuid": _text(nvml.nvmlDeviceGetUUID(mig)),
                    "profileId": info.profileId,
                    "placementStart": info.placement.start,
                    "placementSize": info.placement.size,
                }
            )
        device["migDevices"] = migs
    return device
