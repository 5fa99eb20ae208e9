"""Exact DeviceClass CEL and opaque config built from the class sugar."""

from __future__ import annotations

from dra_gpu_platform.config.models import DeviceClassConfig
from dra_gpu_platform.plans.device_classes import plan_device_class

N = "device.attributes['gpu.nvidia.com']"


def plan(example: bool = False, **fields):
    return plan_device_class(DeviceClassConfig.model_validate({"name": "c", **fields}), example_driver=example)


def test_gpu_and_min_memory_read_product_name_attribute_and_memory_capacity():
    p = plan(gpu="H100", minMemory="79Gi")
    assert p.selectors == (
        "device.driver == 'gpu.nvidia.com' && "
        f"{N}.type == 'gpu' && "
        f"{N}.productName.matches('^NVIDIA H100( 80GB HBM3| PCIe)$') && "
        "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('79Gi')) >= 0",
    )
    assert "attributes['gpu.nvidia.com'].memory" not in p.selectors[0]  # memory is a capacity
    assert p.configs == () and p.feature_gates == ()


def test_mig_profile_selects_mig_devices_of_that_profile():
    p = plan(gpu="A100-80GB", migProfile="3g.40gb")
    assert p.selectors[0] == (
        f"device.driver == 'gpu.nvidia.com' && {N}.type == 'mig' && "
        f"{N}.productName.matches('^NVIDIA A100(-SXM4-80GB| 80GB PCIe)$') && {N}.profile == '3g.40gb'"
    )


def test_min_compute_capability_is_a_semver_compare():
    p = plan(minComputeCapability="8.0")
    assert p.selectors == (
        f"device.driver == 'gpu.nvidia.com' && {N}.type == 'gpu' && "
        f"{N}.cudaComputeCapability.compareTo(semver('8.0.0')) >= 0",
    )


def test_time_slicing_sharing_is_an_opaque_gpu_config_and_needs_the_gate():
    p = plan(gpu="T4", sharing={"strategy": "TimeSlicing", "interval": "Long"})
    assert p.configs == (
        (
            "gpu.nvidia.com",
            {
                "apiVersion": "resource.nvidia.com/v1beta1",
                "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}},
            },
        ),
    )
    assert p.feature_gates == ("TimeSlicingSettings",)


def test_mps_on_mig_is_a_mig_device_config():
    p = plan(gpu="H100", migProfile="1g.10gb", sharing={"strategy": "MPS", "defaultActiveThreadPercentage": 50})
    _driver, parameters = p.configs[0]
    assert parameters == {
        "apiVersion": "resource.nvidia.com/v1beta1",
        "kind": "MigDeviceConfig",
        "sharing": {"strategy": "MPS", "mpsConfig": {"defaultActiveThreadPercentage": 50}},
    }
    assert p.feature_gates == ("MPSSupport",)


def test_raw_selectors_are_kept_verbatim():
    raw = "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].brand == 'Nvidia'"
    assert plan(selectors=[raw]).selectors == (raw,)


def test_example_driver_drops_attributes_it_does_not_publish_with_a_note():
    p = plan(example=True, gpu="H100", minMemory="40Gi", minComputeCapability="9.0")
    assert p.selectors == (
        "device.driver == 'gpu.example.com' && device.capacity['gpu.example.com'].memory.compareTo(quantity('40Gi')) >= 0",
    )
    assert any("gpu=H100 dropped" in n for n in p.notes)
    assert any("minComputeCapability=9.0 dropped" in n for n in p.notes)


def test_example_driver_time_slicing_uses_its_own_config_api():
    p = plan(example=True, minMemory="1Gi", sharing={"strategy": "TimeSlicing", "interval": "Short"})
    assert p.configs == (
        (
            "gpu.example.com",
            {
                "apiVersion": "gpu.resource.example.com/v1alpha1",
                "kind": "GpuConfig",
                "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Short"}},
            },
        ),
    )
