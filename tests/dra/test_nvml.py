"""NVML snapshots: parsing with every problem reported, the driver's derivations, and the live reader run
against a fake pynvml that answers from the real H200 dump."""

from __future__ import annotations

import json

import pytest

from dra_gpu_platform.dra.inventory import nvml_inventory
from dra_gpu_platform.dra.nvml import lenient_semver, mig_memory_gb, parse_snapshot, snapshot_document
from dra_gpu_platform.inputs.problems import InputError
from gpuplan.inventory.nvml_live import NvmlUnavailable, pcie_root, read_live
from tests.conftest import H200_NVML, shared_path
from tests.fixtures import fake_pynvml

H200 = H200_NVML / "nvml.json"


@pytest.fixture
def raw():
    return json.loads(shared_path(H200).read_text())


@pytest.mark.parametrize(
    "text, expected", [("580.159.04", "580.159.4"), ("13.0", "13.0.0"), ("570.86.15", "570.86.15"), ("v9", "9.0.0")]
)
def test_versions_are_published_the_way_the_driver_parses_them(text, expected):
    assert lenient_semver(text) == expected


def test_mig_memory_rounds_half_away_from_zero_like_go():
    total = 150754820096  # the H200's NVML total
    assert mig_memory_gb(total, 71424) == 71  # 70.5 GiB: Go's math.Round gives 71, Python's round() would give 70
    assert [mig_memory_gb(total, mb) for mb in (16384, 33280, 143360)] == [18, 35, 141]


def test_every_snapshot_problem_is_reported_at_once(raw):
    device = raw["devices"][0]
    del device["uuid"]
    device["architecture"] = "Hopper"
    device["pciBusId"] = "not-a-bus"
    device["migProfiles"][2]["memorySizeMB"] = None
    raw["driverVersion"] = "r580"
    with pytest.raises(InputError) as caught:
        parse_snapshot(raw, "nvml.json")
    paths = {p.path for p in caught.value.problems}
    assert paths == {
        "driverVersion",
        "devices[0].uuid",
        "devices[0].architecture",
        "devices[0].pciBusId",
        "devices[0].migProfiles[2].memorySizeMB",
    }
    assert all(p.file == "nvml.json" and p.fix for p in caught.value.problems)


def test_unsupported_queries_may_be_errors_in_the_dump(raw):
    assert raw["devices"][0]["multiprocessors"] == {"error": "NVMLError_NotSupported: Not Supported"}
    snapshot = parse_snapshot(raw, "nvml.json")  # an optional field holding an NVML error is simply absent
    assert snapshot.devices[0].name == "NVIDIA H200"


def test_mig_mode_on_publishes_the_existing_mig_devices(raw):
    device = raw["devices"][0]
    device["migMode"] = [1, 1]
    device["migDevices"] = [
        {"uuid": "MIG-aaaaaaaa-0000-0000-0000-000000000001", "profileId": 9, "placementStart": 4, "placementSize": 4},
        {"uuid": "MIG-aaaaaaaa-0000-0000-0000-000000000002", "profileId": 19, "placementStart": 0, "placementSize": 1},
    ]
    devices = [d for s in nvml_inventory(parse_snapshot(raw, "x"), "n").slices for d in s["spec"]["devices"]]
    assert [d["name"] for d in devices] == ["gpu-0-mig-3g71gb-9-4", "gpu-0-mig-1g18gb-19-0"]
    assert devices[0]["attributes"]["uuid"] == {"string": "MIG-aaaaaaaa-0000-0000-0000-000000000001"}
    device["migDevices"] = []
    empty = nvml_inventory(parse_snapshot(raw, "x"), "n")
    assert empty.slices[0]["spec"]["devices"] == [] and "MIG mode is on" in empty.notes[0]


def test_live_read_through_fake_pynvml_equals_the_snapshot(raw):
    shared_path(H200)
    live = read_live(fake_pynvml)
    from_file = parse_snapshot(raw, str(H200))
    assert nvml_inventory(live, "n").slices == nvml_inventory(from_file, "n").slices
    for profile in ("1g.18gb+me", "7g.141gb"):
        assert nvml_inventory(live, "n", mig=profile).slices == nvml_inventory(from_file, "n", mig=profile).slices
    # what --save-nvml writes reads back to the same snapshot (profile indices included)
    saved = snapshot_document(live)
    assert [p["profileIndex"] for p in saved["devices"][0]["migProfiles"]] == [0, 1, 2, 3, 4, 7, 9]
    assert parse_snapshot(json.loads(json.dumps(saved)), "saved").devices == live.devices


def test_live_read_without_nvml_says_so():
    class NoLibrary:
        class NVMLError(Exception):
            pass

        def nvmlInit(self):
            raise self.NVMLError("NVML Shared Library Not Found")

    with pytest.raises(NvmlUnavailable, match="no NVIDIA driver"):
        read_live(NoLibrary())


def test_pcie_root_follows_the_sysfs_link(tmp_path):
    device_dir = tmp_path / "devices" / "pci0000:40" / "0000:40:01.0" / "0000:41:00.0"
    device_dir.mkdir(parents=True)
    (tmp_path / "bus" / "pci" / "devices").mkdir(parents=True)
    (tmp_path / "bus" / "pci" / "devices" / "0000:41:00.0").symlink_to(device_dir)
    assert pcie_root("0000:41:00.0", tmp_path) == "pci0000:40"
    assert pcie_root("0000:42:00.0", tmp_path) is None


def test_values_nvml_cannot_report_are_refused(raw):
    device = raw["devices"][0]
    device["memoryTotalBytes"] = -1  # published as is before: a device with negative memory
    device["index"] = -2
    device["uuid"] = "not-a-uuid"
    device["cudaComputeCapability"] = [9, -1]
    device["migProfiles"][0]["instanceCount"] = 0
    device["migMode"] = [1, 1]
    device["migDevices"] = [
        {"uuid": "MIG-1", "profileId": 999, "placementStart": 6, "placementSize": 4},
        {"uuid": "MIG-1", "profileId": 19, "placementStart": 0, "placementSize": 1},
    ]
    with pytest.raises(InputError) as caught:
        parse_snapshot(raw, "nvml.json")
    rules = {p.path: p.rule for p in caught.value.problems}
    assert "at least 1" in rules["devices[0].memoryTotalBytes"] and "at least 0" in rules["devices[0].index"]
    assert (
        "starts with GPU-" in rules["devices[0].uuid"] and "non-negative" in rules["devices[0].cudaComputeCapability"]
    )
    assert "at least 1" in rules["devices[0].migProfiles[0].instanceCount"]
    assert "names no profile" in rules["devices[0].migDevices[0].profileId"]
    assert "past the GPU's 8 slices" in rules["devices[0].migDevices[0].placementStart"]
    assert "the same MIG device UUID as devices[0].migDevices[0]" in rules["devices[0].migDevices[1].uuid"]


def test_two_gpus_cannot_share_an_index_minor_uuid_or_bus(raw):
    twin = json.loads(json.dumps(raw["devices"][0]))
    raw["devices"].append(twin)
    with pytest.raises(InputError) as caught:
        parse_snapshot(raw, "nvml.json")
    assert {p.path for p in caught.value.problems} == {
        "devices[1].index",
        "devices[1].minor",
        "devices[1].uuid",
        "devices[1].pciBusId",
    }
    twin.update(index=1, minor=1, uuid="GPU-other", pciBusId="00000000:00:07.0")
    assert [g.index for g in parse_snapshot(raw, "nvml.json").devices] == [0, 1]
