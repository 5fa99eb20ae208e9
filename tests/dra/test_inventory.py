"""ResourceSlices as the drivers publish them (docs/references.md#nvidia-dra-gpu-attributes,
docs/references.md#example-driver-devices): from the real H200 dump, the catalog and a stack; valid
resource.k8s.io/v1 objects; the charts' DeviceClasses."""

from __future__ import annotations

import copy
import json
import re

import pytest

from dra_gpu_platform.cel import Version
from dra_gpu_platform.config.loading import load_stack_file, parse_config_map
from dra_gpu_platform.dra.devices import PCI_BUS_ID, PCIE_ROOT, chart_device_classes, nvidia_naming
from dra_gpu_platform.dra.inventory import catalog_inventory, nvml_inventory
from dra_gpu_platform.dra.mig import ALL_BALANCED, catalog_mig_shapes
from dra_gpu_platform.dra.nvml import parse_snapshot
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.quantity import parse_quantity
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.checks.kube_validate import validate_document
from tests.conftest import H200_NVML, KIND_BASE, ROOT, qualify, shared_path
from tests.dra.builders import nodes_of

H200_GPU_ATTRIBUTES = {
    "type",
    "uuid",
    "productName",
    "brand",
    "architecture",
    "cudaComputeCapability",
    "driverVersion",
    "cudaDriverVersion",
    PCI_BUS_ID,
    PCIE_ROOT,
}


@pytest.fixture(scope="module")
def snapshot():
    return parse_snapshot(json.loads(shared_path(H200_NVML / "nvml.json").read_text()), str(H200_NVML / "nvml.json"))


def devices_of(inventory):
    return [d for s in inventory.slices for d in s["spec"]["devices"]]


def lgip() -> dict[str, tuple[int, int]]:
    """name -> (profile id, instances) from the real `nvidia-smi mig -lgip`."""
    rows = re.findall(r"MIG (\S+)\s+(\d+)\s+\d+/(\d+)", shared_path(H200_NVML / "mig-lgip.txt").read_text())
    return {name: (int(pid), int(total)) for name, pid, total in rows}


# --- the real H200 -------------------------------------------------------------------------------------


def test_h200_full_gpu_is_published_as_the_driver_does(snapshot):
    [device] = devices_of(nvml_inventory(snapshot, "h200-node"))
    assert device["name"] == "gpu-0"
    assert set(device["attributes"]) == H200_GPU_ATTRIBUTES  # the dump has no addressing mode, so no addressingMode
    attributes = device["attributes"]
    assert attributes["type"] == {"string": "gpu"}
    assert attributes["uuid"] == {"string": "GPU-c7be645b-a576-a1ce-8747-18146ccc5fbf"}
    assert attributes["productName"] == {"string": "NVIDIA H200"}
    assert attributes["brand"] == {"string": "Nvidia"}
    assert attributes["architecture"] == {"string": "Hopper"}
    assert attributes["cudaComputeCapability"] == {"version": "9.0.0"}
    assert attributes["driverVersion"] == {"version": "580.159.4"}  # NVML 580.159.04, leading zero dropped
    assert attributes["cudaDriverVersion"] == {"version": "13.0.0"}  # NVML 13000
    assert attributes[PCI_BUS_ID] == {"string": "0000:00:06.0"}
    assert attributes[PCIE_ROOT] == {"string": "pci0000:00"}
    assert device["capacity"] == {"memory": {"value": "143771Mi"}}


def test_h200_matches_nvidia_smi_and_the_query(snapshot):
    xml = shared_path(H200_NVML / "nvidia-smi-q.xml").read_text()
    [device] = devices_of(nvml_inventory(snapshot, "n"))
    assert f"<product_name>{device['attributes']['productName']['string']}</product_name>" in xml
    assert f"<product_architecture>{device['attributes']['architecture']['string']}</product_architecture>" in xml
    assert (
        "<total>143771 MiB</total>" in xml
        and "143771 MiB, 9.0, 580.159.04" in shared_path(H200_NVML / "query.csv").read_text()
    )


def test_h200_mig_profile_names_equal_nvidia_smi(snapshot):
    gpu = snapshot.devices[0]
    names = {p.name(gpu.memory_total_bytes): (p.profile_id, p.instance_count) for p in gpu.mig_profiles}
    assert names == lgip()
    assert set(names) == {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}


# the catalog's H200 profiles; test_h200_profiles_match_lgip checks they are the real ones
@pytest.mark.parametrize("profile", sorted(p.name for p in catalog.gpu_model("H200").mig_profiles))
def test_h200_mig_layout_per_profile(snapshot, profile):
    gpu = snapshot.devices[0]
    info = gpu.mig_profile(profile)
    devices = devices_of(nvml_inventory(snapshot, "n", mig=profile))
    assert len(devices) == info.instance_count
    slices_used = []
    for device in devices:
        attributes, capacity = device["attributes"], device["capacity"]
        assert attributes["type"] == {"string": "mig"} and attributes["profile"] == {"string": profile}
        assert attributes["parentUUID"] == {"string": gpu.uuid}
        assert attributes["uuid"]["string"].startswith("MIG-")
        assert parse_quantity(capacity["memory"]["value"]).as_integer() == info.memory_mb * 2**20
        assert capacity["multiprocessors"] == {"value": str(info.multiprocessors)}
        assert {k for k in capacity if not k.startswith("memorySlice")} == {
            "memory",
            "multiprocessors",
            "copyEngines",
            "decoders",
            "encoders",
            "jpegEngines",
            "ofaEngines",
        }
        own = sorted(int(k.removeprefix("memorySlice")) for k in capacity if k.startswith("memorySlice"))
        start = own[0]
        assert own == list(range(start, start + len(own)))
        assert device["name"] == f"gpu-0-mig-{profile.replace('.', '').replace('+', '-')}-{info.profile_id}-{start}"
        slices_used += own
    assert len(slices_used) == len(set(slices_used)) and max(slices_used) < 8


def test_catalog_h200_agrees_with_the_real_h200(snapshot):
    real = {d["name"]: d for d in devices_of(nvml_inventory(snapshot, "n"))}["gpu-0"]
    simulated = devices_of(catalog_inventory("H200", 1, "n"))[0]
    for key in ("productName", "architecture", "cudaComputeCapability", "brand", "type"):
        assert simulated["attributes"][key] == real["attributes"][key], key
    assert simulated["capacity"] == real["capacity"]
    gpu = snapshot.devices[0]
    shapes = {s.profile: s for s in catalog_mig_shapes(catalog.gpu_model("H200"))}
    assert set(shapes) == set(lgip())
    for name, shape in shapes.items():
        info = gpu.mig_profile(name)
        assert (shape.profile_id, shape.max_count, shape.memory_slices) == (
            info.profile_id,
            info.instance_count,
            info.memory_slices(gpu.memory_total_bytes),
        )
        assert dict(shape.capacity) == {"memory": info.memory_mb * 2**20, "multiprocessors": info.multiprocessors}
        catalog_devices = devices_of(catalog_inventory("H200", 1, "n", mig=name))
        real_devices = devices_of(nvml_inventory(snapshot, "n", mig=name))
        assert [d["name"] for d in catalog_devices] == [d["name"] for d in real_devices]


# --- the catalog and stacks -------------------------------------------------------------------------------


def test_p5_node_pairs_gpus_under_pcie_roots():
    shape = catalog.instance_type("eks", "p5.48xlarge")
    devices = devices_of(catalog_inventory("H100", shape.gpus, "n", per_root=shape.gpus_per_pcie_root))
    assert [d["name"] for d in devices] == [f"gpu-{i}" for i in range(8)]
    roots = [d["attributes"][PCIE_ROOT]["string"] for d in devices]
    assert len(set(roots)) == 4 and all(roots.count(r) == 2 for r in roots)
    assert len({d["attributes"][PCI_BUS_ID]["string"] for d in devices}) == 8
    assert len({d["attributes"]["uuid"]["string"] for d in devices}) == 8
    assert {d["capacity"]["memory"]["value"] for d in devices} == {"81559Mi"}


def nvidia_kind(**pool) -> dict:
    return {
        "cluster": {"platform": "kind", "name": "inv", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "nvidia"}},
        "nodePools": [{"name": "pool", "gpu": "A100-40GB", "maxNodes": 2, "gpusPerNode": 4, **pool}],
    }


def config_of(raw: dict, stack: str = "inv"):
    return parse_config_map(qualify(raw), stack=stack, source=f"Pulumi.{stack}.yaml")


def stack_inventory(config):
    return plan_stack(config).inventory()


def test_mig_pool_publishes_only_mig_devices_of_its_profile():
    inventory = stack_inventory(config_of(nvidia_kind(mig={"profile": "3g.20gb"})))
    nodes = nodes_of(inventory.slices, inventory.node_pools)
    assert [n.name for n in nodes] == ["inv-worker", "inv-worker2"] and {n.node_pool for n in nodes} == {"pool"}
    for node in nodes:
        profiles = [shape.device.attributes["gpu.nvidia.com"]["profile"] for _, _, shape in node.devices]
        assert profiles == ["3g.20gb"] * 8  # 4 GPUs x 2 instances
        assert all(shape.device.attributes["gpu.nvidia.com"]["type"] == "mig" for _, _, shape in node.devices)
        parents = {shape.device.attributes["gpu.nvidia.com"]["parentUUID"] for _, _, shape in node.devices}
        assert len(parents) == 4
    names = [name for _, name, _ in nodes[0].devices]
    assert names[:2] == ["gpu-0-mig-3g20gb-9-0", "gpu-0-mig-3g20gb-9-4"]


def test_legacy_driver_versions_use_the_old_names():
    raw = nvidia_kind(mig={"profile": "1g.5gb"})
    raw["draDriver"] = {"version": "25.8.1"}
    assert nvidia_naming("25.8.1") == "legacy" and nvidia_naming("25.12.0") == nvidia_naming("0.4.1") == "current"
    [(_, name, first), *_] = nodes_of(stack_inventory(config_of(raw)).slices)[0].devices
    assert name == "gpu-0-mig-19-0-1"  # gpu-<minor>-mig-<profileId>-<start>-<size>
    assert "pcieBusID" in first.device.attributes["gpu.nvidia.com"]
    assert "pciBusID" not in first.device.attributes.get("resource.kubernetes.io", {})


def test_kind_example_driver_publishes_eight_fake_gpus_per_dra_worker():
    inventory = stack_inventory(config_of(copy.deepcopy(KIND_BASE), "test"))
    nodes = nodes_of(inventory.slices, inventory.node_pools)
    # plugin-pool runs the device plugin, so only dra-pool's two workers publish
    assert [(n.name, n.node_pool, len(n.devices)) for n in nodes] == [
        ("gpu-test-worker", "dra-pool", 8),
        ("gpu-test-worker2", "dra-pool", 8),
    ]
    driver, name, shape = nodes[0].devices[3]
    assert driver == "gpu.example.com" and name == "gpu-3"
    assert shape.device.attributes == {
        "gpu.example.com": {
            "index": 3,
            "uuid": shape.device.attributes["gpu.example.com"]["uuid"],
            "model": "LATEST-GPU-MODEL",
            "driverVersion": Version(1, 0, 0),
        }
    }
    assert shape.device.capacity["gpu.example.com"]["memory"] == parse_quantity("80Gi")


def test_dev_stack_inventory_covers_every_dra_pool_at_max_scale():
    config = load_stack_file(ROOT / "stacks" / "Pulumi.dev.yaml")
    nodes = nodes_of(stack_inventory(config).slices)
    assert sum(len(n.devices) for n in nodes) == 8 * sum(p.max_nodes for p in config.dra_pools)


def test_more_than_128_devices_split_into_slices_of_one_pool():
    inventory = catalog_inventory("A100-40GB", 20, "big", mig="1g.5gb")  # 140 MIG devices
    assert [len(s["spec"]["devices"]) for s in inventory.slices] == [128, 12]
    assert {s["spec"]["pool"]["resourceSliceCount"] for s in inventory.slices} == {2}
    assert len(nodes_of(inventory.slices)[0].devices) == 140


@pytest.mark.parametrize("version", ["1.34.0", "1.35.0"])
def test_generated_slices_are_valid_resource_k8s_io_v1(snapshot, version):
    inventories = [
        nvml_inventory(snapshot, "h200", mig="1g.18gb+me"),
        nvml_inventory(snapshot, "h200"),
        catalog_inventory("A100-40GB", 8, "a100", mig=ALL_BALANCED),
        stack_inventory(config_of(copy.deepcopy(KIND_BASE), "test")),
    ]
    for inventory in inventories:
        for piece in inventory.slices:
            assert validate_document(piece, version) == []
            for device in piece["spec"]["devices"]:
                assert len(device["attributes"]) + len(device["capacity"]) <= 32
                assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", device["name"])


def test_chart_classes_follow_the_driver_release():
    [gpu] = chart_device_classes(["gpu.nvidia.com"], "0.4.1")
    assert gpu["spec"]["extendedResourceName"] == "nvidia.com/gpu"
    [old] = chart_device_classes(["gpu.nvidia.com"], "25.8.1")
    assert "extendedResourceName" not in old["spec"]
