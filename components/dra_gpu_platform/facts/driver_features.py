"""What the NVIDIA DRA driver's kubelet plugin does beyond its chart, per version: dynamic MIG (partitionable
devices), the device health taints, and what it does not publish (consumable capacity, binding conditions).
Pure data and functions; the chart facts themselves are in dra_gpu_platform/facts/driver_charts.py.

Sources (kubernetes-sigs/dra-driver-nvidia-gpu at the tags; docs/references.md#nvidia-dra-dynamic-mig,
docs/references.md#nvidia-dra-dynamic-mig-destroys-static-mig, docs/references.md#nvidia-dra-dynamic-mig-slices,
docs/references.md#nvidia-dra-health-taints, docs/references.md#nvidia-dra-no-consumable-capacity,
docs/references.md#nvidia-dra-no-binding-conditions):
- `pkg/featuregates/featuregates.go`: the DynamicMIG and NVMLDeviceHealthCheck gates and their exclusions;
- `cmd/gpu-kubelet-plugin/driver.go`, `partitions.go`, `nvlib.go`, `mig.go`: what dynamic MIG publishes;
- `cmd/gpu-kubelet-plugin/device_health.go`: the health taints.
"""

from __future__ import annotations

from packaging.version import Version

from dra_gpu_platform.facts import driver_charts

DYNAMIC_MIG = "DynamicMIG"
HEALTH_CHECK = "NVMLDeviceHealthCheck"

# The first release of each chart lineage whose driver has the DynamicMIG gate (alpha, off by default): 25.12.0 in
# NVIDIA's CalVer line (absent in 25.8.1), every kubernetes-sigs release (0.4.0 on).
DYNAMIC_MIG_SINCE: dict[str, str] = {"nvidia-calver": "25.12.0", "kubernetes-sigs": "0.4.0"}

# ValidateFeatureGates: the driver refuses to start with DynamicMIG and any of these on.
DYNAMIC_MIG_EXCLUSIVE = ("PassthroughSupport", HEALTH_CHECK, "MPSSupport")

# isDynamicMIGCapable / supportsMIGModeToggle: Hopper and newer toggle MIG mode without a GPU reset, so the driver
# publishes the full GPU beside its MIG partitions; an Ampere GPU with MIG mode off stays a full GPU only.
DYNAMIC_MIG_ARCHITECTURES = ("Hopper", "Blackwell")

# shouldUseSplitResourceSlices: from Kubernetes 1.35 the shared counters go into a slice of their own (one slice
# of counter sets, then one slice of devices per GPU); on 1.34 each GPU's slice carries its counter set.
SPLIT_COUNTER_SLICES_SINCE_MINOR = 35

# device_health.go: the taints the health monitor (NVMLDeviceHealthCheck) puts on a device.
HEALTH_TAINT_XID = "gpu.nvidia.com/xid"  # value: the XID; NoSchedule, or None for XIDs on the skip list
HEALTH_TAINT_GPU_LOST = "gpu.nvidia.com/gpu-lost"  # NoSchedule, on every device of the GPU
HEALTH_TAINT_UNMONITORED = "gpu.nvidia.com/unmonitored"  # None: health events could not be watched
HEALTH_TAINTS = (
    (HEALTH_TAINT_XID, "NoSchedule or None", "an XID error; the value is the XID number (None for skipped XIDs)"),
    (HEALTH_TAINT_GPU_LOST, "NoSchedule", "the GPU fell off the bus or NVML lost it"),
    (HEALTH_TAINT_UNMONITORED, "None", "the monitor cannot watch the device's health events"),
)

# No NVIDIA DRA driver release publishes devices with allowMultipleAllocations / capacity requestPolicy (main adds
# the alpha gate ConsumableShares after v0.4.1, unreleased in the snapshot), nor bindingConditions at any tag.
CONSUMABLE_CAPACITY_RELEASES: tuple[str, ...] = ()
BINDING_CONDITIONS_RELEASES: tuple[str, ...] = ()


def has_dynamic_mig(driver_version: str) -> bool:
    """Whether the driver of this chart version knows the DynamicMIG gate (an unlisted version: per its lineage)."""
    release = driver_charts.dra_driver_release(driver_version)
    if release is None:
        return False
    return Version(release.version) >= Version(DYNAMIC_MIG_SINCE[release.lineage])


def counter_set_name(minor: int) -> str:
    """GpuInfo.GetSharedCounterSetName: `<canonical name>-counter-set`, the GPU's one counter set."""
    return f"gpu-{minor}-counter-set"


def counter_name(capacity: str) -> str:
    """capacitiesToCounters / camelToDNSName: a capacity name as a counter name (copyEngines -> copy-engines)."""
    out = []
    for i, char in enumerate(capacity):
        if char.isupper() and i and (capacity[i - 1].islower() or capacity[i - 1].isdigit()):
            out.append("-")
        out.append(char.lower())
    return "".join(out)


def memory_slice_counter(index: int) -> str:
    """memsliceCounterName: one counter of value 1 per memory slice."""
    return f"memory-slice-{index}"
