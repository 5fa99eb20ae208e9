"""DeviceClass selectors and opaque configs built from the class sugar of the stack file. Pure.

NVIDIA attributes and capacities: docs/references.md#nvidia-dra-gpu-attributes,
docs/references.md#nvidia-memory-is-a-capacity (memory is a *capacity*; productName, type, profile and
cudaComputeCapability are attributes). Quantities are compared with `compareTo`, versions with `semver(...)`, as the
Kubernetes CEL libraries define (docs/references.md#cel-libraries). dra-example-driver devices (kind) publish only
index/uuid/model/driverVersion and a memory capacity (docs/references.md#example-driver-devices), so sugar that
needs other attributes is dropped there, with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.config.models import DeviceClassConfig, SharingConfig, StackConfig
from dra_gpu_platform.dra.devices import RESOURCE_API
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans.claim_templates import selectors_manifest

NVIDIA_CONFIG_API = "resource.nvidia.com/v1beta1"
EXAMPLE_CONFIG_API = "gpu.resource.example.com/v1alpha1"


@dataclass(frozen=True)
class DeviceClassPlan:
    name: str
    selectors: tuple[str, ...]
    # opaque configs: (driver, parameters) pairs, passed to the driver at prepare time
    configs: tuple[tuple[str, dict[str, Any]], ...] = ()
    notes: tuple[str, ...] = field(default=())
    feature_gates: tuple[str, ...] = ()  # NVIDIA DRA driver gates this class needs

    def manifest(self) -> dict[str, Any]:
        """The resource.k8s.io/v1 DeviceClass DeviceClasses creates (what `gpuplan fit` reads)."""
        spec: dict[str, Any] = {}
        if self.selectors:
            spec["selectors"] = selectors_manifest(self.selectors)
        if self.configs:
            spec["config"] = [
                {"opaque": {"driver": driver, "parameters": parameters}} for driver, parameters in self.configs
            ]
        return {"apiVersion": RESOURCE_API, "kind": "DeviceClass", "metadata": {"name": self.name}, "spec": spec}


def _attr(driver: str, name: str) -> str:
    return f"device.attributes['{driver}'].{name}"


def _cap(driver: str, name: str) -> str:
    return f"device.capacity['{driver}'].{name}"


def _cel_string(value: str) -> str:
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def nvidia_selector_terms(dc: DeviceClassConfig) -> list[str]:
    """The && terms of an NVIDIA class, in evaluation-safe order (driver, then type, then the rest)."""
    d = catalog.NVIDIA_DRIVER
    terms = [f"device.driver == {_cel_string(d)}"]
    wants_any = dc.gpu or dc.min_memory or dc.mig_profile or dc.min_compute_capability
    if wants_any:
        terms.append(f"{_attr(d, 'type')} == {_cel_string('mig' if dc.mig_profile else 'gpu')}")
    if dc.gpu:
        terms.append(f"{_attr(d, 'productName')}.matches({_cel_string(catalog.gpu_model(dc.gpu).product_name_regex)})")
    if dc.mig_profile:
        terms.append(f"{_attr(d, 'profile')} == {_cel_string(dc.mig_profile)}")
    if dc.min_memory:
        terms.append(f"{_cap(d, 'memory')}.compareTo(quantity({_cel_string(dc.min_memory)})) >= 0")
    if dc.min_compute_capability:
        version = dc.min_compute_capability + (".0" if dc.min_compute_capability.count(".") == 1 else "")
        terms.append(f"{_attr(d, 'cudaComputeCapability')}.compareTo(semver({_cel_string(version)})) >= 0")
    return terms


def example_selector_terms(dc: DeviceClassConfig) -> tuple[list[str], list[str]]:
    d = catalog.EXAMPLE_DRIVER
    terms = [f"device.driver == {_cel_string(d)}"]
    notes = []
    if dc.min_memory:
        terms.append(f"{_cap(d, 'memory')}.compareTo(quantity({_cel_string(dc.min_memory)})) >= 0")
    for key, value, what in (
        ("gpu", dc.gpu, "productName"),
        ("migProfile", dc.mig_profile, "profile"),
        ("minComputeCapability", dc.min_compute_capability, "cudaComputeCapability"),
    ):
        if value:
            notes.append(
                f"deviceClass {dc.name}: {key}={value} dropped: {d} publishes no {what} attribute "
                f"(it publishes index, uuid, model, driverVersion and memory)"
            )
    return terms, notes


def _nvidia_sharing(dc: DeviceClassConfig, sharing: SharingConfig) -> tuple[dict[str, Any], tuple[str, ...]]:
    block: dict[str, Any] = {"strategy": sharing.strategy}
    gates: tuple[str, ...] = ()
    if sharing.strategy == "TimeSlicing":
        if sharing.interval is not None:
            block["timeSlicingConfig"] = {"interval": sharing.interval}
        gates = ("TimeSlicingSettings",)
    else:
        mps: dict[str, Any] = {}
        if sharing.default_active_thread_percentage is not None:
            mps["defaultActiveThreadPercentage"] = sharing.default_active_thread_percentage
        if sharing.default_pinned_device_memory_limit is not None:
            mps["defaultPinnedDeviceMemoryLimit"] = sharing.default_pinned_device_memory_limit
        if mps:
            block["mpsConfig"] = mps
        gates = ("MPSSupport",)
    kind = "MigDeviceConfig" if dc.mig_profile else "GpuConfig"
    return {"apiVersion": NVIDIA_CONFIG_API, "kind": kind, "sharing": block}, gates


def plan_device_class(dc: DeviceClassConfig, *, example_driver: bool) -> DeviceClassPlan:
    notes: list[str] = []
    selectors: list[str] = []
    configs: list[tuple[str, dict[str, Any]]] = []
    gates: tuple[str, ...] = ()
    if example_driver:
        if dc.gpu or dc.min_memory or dc.mig_profile or dc.min_compute_capability or not dc.selectors:
            terms, notes = example_selector_terms(dc)
            selectors.append(" && ".join(terms))
        if dc.sharing is not None:
            parameters: dict[str, Any] = {
                "apiVersion": EXAMPLE_CONFIG_API,
                "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing"},
            }
            if dc.sharing.interval is not None:
                parameters["sharing"]["timeSlicingConfig"] = {"interval": dc.sharing.interval}
            configs.append((catalog.EXAMPLE_DRIVER, parameters))
    else:
        if dc.gpu or dc.min_memory or dc.mig_profile or dc.min_compute_capability or not dc.selectors:
            selectors.append(" && ".join(nvidia_selector_terms(dc)))
        if dc.sharing is not None:
            parameters, gates = _nvidia_sharing(dc, dc.sharing)
            configs.append((catalog.NVIDIA_DRIVER, parameters))
    for raw in dc.selectors:
        selectors.append(raw)
        if example_driver and "gpu.example.com" not in raw:
            notes.append(
                f"deviceClass {dc.name}: raw selector does not mention gpu.example.com, the only driver on this kind cluster"
            )
    return DeviceClassPlan(dc.name, tuple(selectors), tuple(configs), tuple(notes), gates)


def plan_device_classes(config: StackConfig) -> tuple[DeviceClassPlan, ...]:
    """Every DeviceClass of the stack, for the driver that serves it (the dra-example-driver on kind), by name."""
    return tuple(
        plan_device_class(dc, example_driver=config.uses_example_driver)
        for dc in sorted(config.device_classes, key=lambda c: c.name)
    )
