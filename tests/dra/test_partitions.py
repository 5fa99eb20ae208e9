"""Dynamic MIG's partitionable devices (dra_gpu_platform/dra/partitions.py): the slices the NVIDIA driver publishes with
DynamicMIG, judged by fit's allocator and, where ../shared has it, by the real allocator of 1.36 and 1.37 (the
dra-oracle commands): the same verdict, devices and number of claims at once."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra.devices import catalog_gpus, chart_device_classes
from dra_gpu_platform.dra.mig import catalog_mig_shapes
from dra_gpu_platform.dra.partitions import dynamic_mig_slices, max_capacities
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.catalog import NVIDIA_DRIVER
from dra_gpu_platform.facts.quantity import parse_quantity
from tests.dra import oracle

NODE = "h100-0"


def _slices(gpu: str = "H100", count: int = 2, minor: int = 36) -> list[dict]:
    model = catalog.gpu_model(gpu)
    return dynamic_mig_slices(
        NODE, NVIDIA_DRIVER, catalog_gpus(model, count, NODE, 2), catalog_mig_shapes(model), minor
    )


def _mig_class(name: str, profile: str) -> dict:
    expression = (
        f"device.driver == '{NVIDIA_DRIVER}' && device.attributes['{NVIDIA_DRIVER}'].type == 'mig' && "
        f"device.attributes['{NVIDIA_DRIVER}'].profile == '{profile}'"
    )
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name},
            "spec": {"selectors": [{"cel": {"expression": expression}}]}}  # fmt: skip


def _claim(name: str, device_class: str, count: int = 1) -> dict:
    request = {
        "name": "gpu",
        "exactly": {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": count},
    }
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim", "metadata": {"name": name},
            "spec": {"devices": {"requests": [request]}}}  # fmt: skip


def test_from_1_35_the_counters_have_a_slice_of_their_own_and_1_34_keeps_them_per_gpu():
    split, combined = _slices(minor=35), _slices(minor=34)
    assert [bool(s["spec"].get("sharedCounters")) for s in split] == [True, False, False]
    assert [len(s["spec"].get("devices") or []) for s in split] == [0, 20, 20]
    assert [s["spec"]["pool"]["resourceSliceCount"] for s in split] == [3, 3, 3]
    assert [len(s["spec"]["sharedCounters"]) for s in combined] == [1, 1]
    assert {s["spec"]["pool"]["name"] for s in split} == {NODE}  # the pool is the node


def test_the_full_gpu_consumes_every_counter_and_a_mig_device_only_its_placement():
    devices = {d["name"]: d for d in _slices()[1]["spec"]["devices"]}
    full, slice3g = devices["gpu-0"], devices["gpu-0-mig-3g40gb-9-4"]
    counters = full["consumesCounters"][0]["counters"]
    assert {f"memory-slice-{i}" for i in range(8)} <= set(counters)
    assert set(slice3g["consumesCounters"][0]["counters"]) == {
        "memory",
        "multiprocessors",
        "memory-slice-4",
        "memory-slice-5",
        "memory-slice-6",
        "memory-slice-7",
    }
    assert "uuid" not in slice3g["attributes"] and slice3g["attributes"]["profile"] == {"string": "3g.40gb"}
    # the full GPU's memory is the largest profile's (7g.80gb), not NVML's 81559Mi
    assert parse_quantity(full["capacity"]["memory"]["value"]) == parse_quantity("80896Mi")
    assert list(devices) == sorted(devices)


def test_an_ampere_gpu_with_mig_off_stays_a_full_gpu_without_counters():
    slices = _slices("A100-80GB", count=1)
    assert [s["spec"].get("sharedCounters") for s in slices] == [None]
    assert [d["name"] for d in slices[0]["spec"]["devices"]] == ["gpu-0"]


def test_max_capacities_keep_nvml_memory_when_the_catalog_has_no_profile_figure():
    model = catalog.gpu_model("B200")
    (gpu,) = catalog_gpus(model, 1, NODE, 1)
    assert max_capacities(gpu, catalog_mig_shapes(model)) == {"memory": gpu.memory_bytes}


CASES = {
    "two 3g per GPU": ("mig-3g", "3g.40gb", 1),
    "seven 1g per GPU": ("mig-1g", "1g.10gb", 1),
    "two 1g.20gb at once": ("mig-1g20", "1g.20gb", 2),
    "a full GPU": ("gpu.nvidia.com", None, 1),
}


# every case at 1.36; 1.37's allocator has the same features, one case checks it
@pytest.mark.parametrize(("case", "minor"), [*((c, 36) for c in sorted(CASES)), ("two 3g per GPU", 37)])
def test_fit_and_the_real_allocator_agree_on_the_partitionable_devices(case, minor):
    reason = oracle.skip_reason(minor)
    if reason:
        pytest.skip(reason)
    name, profile, count = CASES[case]
    classes = chart_device_classes(["gpu.nvidia.com", "mig.nvidia.com"], "0.4.1")
    for document in classes:
        document["spec"].pop("extendedResourceName", None)  # the oracle takes v1 classes without the bridge
    if profile is not None:
        classes.append(_mig_class(name, profile))
    found = oracle.Case(
        minor, [{"name": NODE, "labels": {}}], _slices(minor=minor), classes, [_claim("c", name, count)]
    )
    comparison = oracle.compare(found)
    assert comparison.same, (comparison.ours, comparison.oracle, comparison.fill_ours, comparison.fill_oracle)
    expected = {"two 3g per GPU": 4, "seven 1g per GPU": 14, "two 1g.20gb at once": 4, "a full GPU": 2}[case]
    assert comparison.fill_ours == expected
