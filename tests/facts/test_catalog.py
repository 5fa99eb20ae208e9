"""The GPU catalog agrees with a real H200 (../shared/fixtures/nvml/h200, when present) and with itself."""

from __future__ import annotations

import json
import re

import pytest

from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.quantity import Quantity, parse_quantity
from tests.conftest import H200_NVML, shared_path

NVML_ARCHITECTURES = {
    6: "Turing",
    7: "Ampere",
    8: "Ada Lovelace",
    9: "Hopper",
    10: "Blackwell",
}  # nvmlDeviceArchitecture_t


@pytest.fixture(scope="module")
def nvml():
    return json.loads(shared_path(H200_NVML / "nvml.json").read_text())


def lgip_profiles() -> dict[int, tuple[str, int]]:
    """profile id -> (name, total instances) from `nvidia-smi mig -lgip`."""
    rows = re.findall(r"MIG (\S+)\s+(\d+)\s+\d+/(\d+)", shared_path(H200_NVML / "mig-lgip.txt").read_text())
    return {int(pid): (name, int(total)) for name, pid, total in rows}


def test_h200_identity_matches_nvml(nvml):
    device = nvml["devices"][0]
    h200 = catalog.gpu_model("H200")
    assert device["name"] == h200.product_name == "NVIDIA H200"
    assert re.match(h200.product_name_regex, device["name"])
    assert NVML_ARCHITECTURES[device["architecture"]] == h200.architecture == "Hopper"
    major, minor = device["cudaComputeCapability"]
    assert h200.compute_capability == f"{major}.{minor}.0" == "9.0.0"
    assert device["pciDeviceId"].lower().startswith(h200.pci_device_ids[0])


def test_h200_published_memory_is_the_nvml_total(nvml):
    total = nvml["devices"][0]["memoryTotalBytes"]
    assert Quantity.from_bytes(total).text == catalog.gpu_model("H200").published_memory == "143771Mi"
    csv = shared_path(H200_NVML / "query.csv").read_text().splitlines()[1]
    assert "143771 MiB" in csv


def test_h200_mig_profiles_match_the_gpu(nvml):
    names = lgip_profiles()
    h200 = catalog.gpu_model("H200")
    measured = {}
    for profile in nvml["devices"][0]["migProfiles"]:
        name, total = names[profile["profileId"]]
        measured[name] = (total, f"{profile['memorySizeMB']}Mi", profile["multiprocessorCount"], profile["sliceCount"])
    expected = {p.name: (p.max_count, p.memory, p.multiprocessors, p.slices) for p in h200.mig_profiles}
    assert measured == expected
    assert set(expected) == {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb", "4g.71gb", "7g.141gb"}


def test_published_memory_is_below_the_marketing_size_where_nvml_says_so():
    # The classic DRA selector bug: "80GB" H100 publishes 81559Mi, which is less than 80Gi.
    assert catalog.gpu_model("H100").memory < parse_quantity("80Gi")
    assert catalog.gpu_model("H100").memory > parse_quantity("79Gi")


@pytest.mark.parametrize("key", sorted(catalog.GPU_MODELS))
def test_every_gpu_model_is_complete(key):
    model = catalog.gpu_model(key)
    assert re.match(model.product_name_regex, model.product_name)
    assert model.architecture in NVML_ARCHITECTURES.values()
    assert re.match(r"^\d+\.\d+\.\d+$", model.compute_capability)
    for profile in model.mig_profiles:
        assert profile.name.startswith(f"{profile.slices}g.")
        assert parse_quantity(profile.memory) <= model.memory
        assert 1 <= profile.max_count <= 7


def test_mig_only_on_datacenter_gpus():
    assert {k for k, m in catalog.GPU_MODELS.items() if m.supports_mig} == {"H100", "H200", "A100-40GB", "A100-80GB"}


def test_product_name_patterns_do_not_overlap():
    # an L4 selector must not match an L40S, an A100 40GB one not an A100 80GB
    for key, model in catalog.GPU_MODELS.items():
        for other in catalog.GPU_MODELS.values():
            if other.key != key:
                assert not re.match(model.product_name_regex, other.product_name), (key, other.key)


@pytest.mark.parametrize("platform", ["eks", "aks"])
def test_instance_types_have_one_default_per_gpu(platform):
    for gpu in {t.gpu for t in catalog.INSTANCE_TYPES.values() if t.platform == platform}:
        defaults = [t for t in catalog.instance_types_for(platform, gpu) if t.default]
        assert len(defaults) == 1, (platform, gpu, defaults)
        assert catalog.default_instance_type(platform, gpu) == defaults[0]


def test_instance_type_facts_from_clouds_reference():
    p5 = catalog.instance_type("eks", "p5.48xlarge")
    assert (p5.gpu, p5.gpus, p5.vcpus, p5.efa_interfaces, p5.quota_family) == ("H100", 8, 192, 32, "P")
    assert catalog.instance_type("eks", "p5en.48xlarge").efa_interfaces == 16
    assert catalog.instance_type("eks", "g4dn.xlarge").quota_family == "G"
    nd = catalog.instance_type("aks", "Standard_ND96amsr_A100_v4")
    assert (nd.gpu, nd.gpus, nd.vcpus) == ("A100-80GB", 8, 96)
    assert catalog.default_instance_type("aks", "L4") is None  # no Azure size carries L4


def test_gpu_memory_per_instance_is_gpus_times_nominal():
    for shape in catalog.INSTANCE_TYPES.values():
        model = catalog.gpu_model(shape.gpu)
        assert shape.gpu_memory_gb == shape.gpus * model.nominal_memory_gb, shape.name


# ---------------------------------------------------------------------------------------------- EC2 facts against
# moto 5.2.5's instance-type data (EC2 DescribeInstanceTypes), and one spelling of Azure quota families


@pytest.fixture(scope="module")
def ec2_instance_types():
    import gzip
    from importlib.util import find_spec
    from pathlib import Path

    # the data file only: importing moto.ec2 itself costs more than a second
    data = Path(find_spec("moto").origin).parent / "ec2" / "resources" / "instance_types.json.gz"
    return json.loads(gzip.decompress(data.read_bytes()))


def test_ec2_gpu_counts_nvme_disks_and_efa_cards_match_describe_instance_types(ec2_instance_types):
    for (platform, name), shape in catalog.INSTANCE_TYPES.items():
        if platform != "eks":
            continue
        described = ec2_instance_types[name]
        assert described["GpuInfo"]["Gpus"][0]["Count"] == shape.gpus, name
        assert described["VCpuInfo"]["DefaultVCpus"] == shape.vcpus, name
        storage = described.get("InstanceStorageInfo") or {}
        nvme = (
            sum(d["Count"] for d in storage.get("Disks", []))
            if storage.get("NvmeSupport") in ("required", "supported")
            else 0
        )
        assert shape.nvme_disks == nvme, name
        if shape.efa_interfaces:
            assert described["NetworkInfo"]["EfaInfo"]["MaximumEfaInterfaces"] == shape.efa_interfaces, name
            assert described["NetworkInfo"]["MaximumNetworkCards"] == shape.efa_interfaces, name  # one EFA per card


def test_azure_quota_families_use_the_usage_api_spelling():
    families = {t.quota_family for t in catalog.INSTANCE_TYPES.values() if t.platform == "aks"}
    assert families == {
        "standardNDSH100v5Family",
        "standardNDISRH200V5Family",
        "standardNDASv4_A100Family",
        "standardNDAMSv4_A100Family",
        "StandardNCADSA100v4Family",
        "standardNCASv3_T4Family",
    }
    assert all(" " not in f and f.lower().startswith("standard") and f.endswith("Family") for f in families)
