"""The GPU catalog agrees with a real H200 (../shared/fixtures/nvml/h200, when present) and with itself."""

from __future__ import annotations

import json
import math
import re

import pytest
from packaging.version import Version

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
    assert model.product_name.strip() and re.match(model.product_name_regex, model.product_name)
    assert model.architecture in NVML_ARCHITECTURES.values()
    assert re.match(r"^\d+\.\d+\.\d+$", model.compute_capability)
    # NVML's total is the marketing size in neither GB nor GiB exactly, but always within a few percent of it:
    # a figure outside that band is a transcription error (MB for MiB, a dropped digit)
    ratio = model.memory.as_integer() / (model.nominal_memory_gb * 10**9)
    assert 0.97 < ratio < 1.08, (key, float(ratio))
    for profile in model.mig_profiles:
        assert profile.name.startswith(f"{profile.slices}g.")
        assert 1 <= profile.max_count <= 7
        assert profile.memory_slices in (1, 2, 4, 8)
        assert profile.nominal_gb <= model.nominal_memory_gb
        if profile.memory is not None:
            assert parse_quantity(profile.memory) <= model.memory


def test_nvml_product_names_are_unique():
    names = [m.product_name for m in catalog.GPU_MODELS.values()]
    assert len(names) == len(set(names))


def test_mig_profiles_belong_to_mig_capable_models():
    # MIG starts with compute capability 8.0 and skips the A10/A10G class (NVIDIA MIG user guide, "Supported GPUs")
    assert {k for k, m in catalog.GPU_MODELS.items() if m.supports_mig} == {
        "H100",
        "H100-NVL",
        "H200",
        "A100-40GB",
        "A100-80GB",
        "B200",
        "GB200",
        "B300",
    }
    for model in catalog.GPU_MODELS.values():
        if model.supports_mig:
            assert Version(model.compute_capability) >= Version("8.0")
            # every 7-slice GPU offers each slice count once as its smallest profile (what AKS can choose)
            assert sorted({p.slices for p in model.mig_profiles}) == [1, 2, 3, 4, 7]


def test_memory_slices_agree_with_published_memory_where_nvml_says_it():
    checked = 0
    for model in catalog.GPU_MODELS.values():
        for profile in model.mig_profiles:
            if profile.memory is not None:
                share = parse_quantity(profile.memory).as_integer() * 8 / model.memory.as_integer()
                assert math.ceil(share - 1e-9) == profile.memory_slices, (model.key, profile.name)
                checked += 1
    assert checked == 28  # A100 40GB/80GB, H100, H200


def test_newer_gpus_leave_unsourced_mig_figures_empty_rather_than_guessed():
    for key in ("B200", "GB200", "H100-NVL"):
        assert all(p.memory is None and p.multiprocessors is None for p in catalog.gpu_model(key).mig_profiles)
    assert [p.name for p in catalog.gpu_model("GB200").mig_profiles][-1] == "7g.186gb"
    assert catalog.gpu_model("B200").mig_profile("1g.45gb").memory_slices == 2


def test_only_gb200_reaches_other_nodes_over_nvlink():
    assert {k for k, m in catalog.GPU_MODELS.items() if m.multi_node_nvlink} == {"GB200"}


def test_product_name_patterns_do_not_overlap():
    # an L4 selector must not match an L40S, an A100 40GB one not an A100 80GB, an A10 not an A10G
    for key, model in catalog.GPU_MODELS.items():
        for other in catalog.GPU_MODELS.values():
            if other.key != key:
                assert not re.match(model.product_name_regex, other.product_name), (key, other.key)


def test_every_instance_type_carries_a_catalog_gpu():
    assert {t.gpu for t in catalog.INSTANCE_TYPES.values()} <= set(catalog.GPU_MODELS)


@pytest.mark.parametrize("platform", ["eks", "aks"])
def test_instance_types_have_one_default_per_gpu(platform):
    offered = catalog.gpus_offered(platform)
    for gpu in offered:
        defaults = [t for t in catalog.instance_types_for(platform, gpu) if t.default]
        assert len(defaults) == 1, (platform, gpu, defaults)
        assert catalog.default_instance_type(platform, gpu) == defaults[0]
    for gpu in set(catalog.GPU_MODELS) - set(offered):
        assert catalog.default_instance_type(platform, gpu) is None


def test_pools_on_each_platform_take_only_what_it_offers():
    assert catalog.gpus_offered("eks") == sorted(
        ["A10G", "A100-40GB", "A100-80GB", "B200", "B300", "GB200", "H100", "H200", "L4", "L40S", "RTX-PRO-6000", "T4"]
    )
    assert catalog.gpus_offered("aks") == sorted(
        ["A10", "A100-40GB", "A100-80GB", "GB200", "H100", "H100-NVL", "H200", "T4"]
    )
    assert catalog.default_instance_type("aks", "A10G") is None  # A10G is AWS's part; Azure's is the A10
    assert catalog.default_instance_type("eks", "A10") is None
    assert catalog.instance_type("eks", "Standard_NV36ads_A10_v5") is None
    assert catalog.default_instance_type("eks", "GB200").name == "p6e-gb200.36xlarge"
    assert catalog.default_instance_type("aks", "GB200").name == "Standard_ND128isr_NDR_GB200_v6"


def test_instance_type_facts_from_clouds_reference():
    p5 = catalog.instance_type("eks", "p5.48xlarge")
    assert (p5.gpu, p5.gpus, p5.vcpus, p5.efa_interfaces, p5.quota_family) == ("H100", 8, 192, 32, "P")
    assert catalog.instance_type("eks", "p5en.48xlarge").efa_interfaces == 16
    assert catalog.instance_type("eks", "g4dn.xlarge").quota_family == "G"
    nd = catalog.instance_type("aks", "Standard_ND96amsr_A100_v4")
    assert (nd.gpu, nd.gpus, nd.vcpus, nd.infiniband_nics) == ("A100-80GB", 8, 96, 8)
    assert catalog.default_instance_type("aks", "L4") is None  # no Azure size carries L4


def test_efa_is_attached_on_the_multi_card_sizes_of_the_efa_families_only():
    attached = {t.name: t.efa_interfaces for t in catalog.INSTANCE_TYPES.values() if t.efa_interfaces}
    assert attached == {
        "p6-b300.48xlarge": 16,  # 17 cards, card 0 without EFA
        "p6-b200.48xlarge": 8,
        "p5.48xlarge": 32,
        "p5e.48xlarge": 32,
        "p5en.48xlarge": 16,
        "p4d.24xlarge": 4,
        "p4de.24xlarge": 4,
    }
    # p5.4xlarge supports one EFA on its single card but gets none (and so no placement group)
    assert catalog.instance_type("eks", "p5.4xlarge").max_efa_interfaces == 1


def test_p6e_gb200_is_an_arm64_ultraserver_node_sold_through_capacity_blocks():
    node = catalog.instance_type("eks", "p6e-gb200.36xlarge")
    assert (node.gpu, node.gpus, node.vcpus, node.memory_gib, node.nvme_disks) == ("GB200", 4, 144, 960, 3)
    assert (node.cpu_architecture, node.capacity_blocks_only, node.network_cards) == ("arm64", True, 17)
    assert node.max_efa_interfaces is None and node.efa_interfaces == 0  # EFA per NCI group: not modelled
    azure = catalog.instance_type("aks", "Standard_ND128isr_NDR_GB200_v6")
    assert (azure.gpus, azure.vcpus, azure.memory_gib, azure.infiniband_nics, azure.cpu_architecture) == (
        4,
        128,
        900,
        4,
        "arm64",
    )


def test_gpu_memory_per_instance_is_gpus_times_nominal():
    for shape in catalog.INSTANCE_TYPES.values():
        model = catalog.gpu_model(shape.gpu)
        assert shape.gpu_memory_gb == shape.gpus * model.nominal_memory_gb, shape.name


# ---------------------------------------------------------------------------------------------- EC2 facts against
# moto 5.2.5's instance-type data (EC2 DescribeInstanceTypes), and one spelling of Azure quota families

NOT_IN_MOTO = {"p6e-gb200.36xlarge"}  # docs/references.md#ec2-p6e-gb200


@pytest.fixture(scope="module")
def ec2_instance_types():
    import gzip
    from importlib.util import find_spec
    from pathlib import Path

    # the data file only: importing moto.ec2 itself costs more than a second
    data = Path(find_spec("moto").origin).parent / "ec2" / "resources" / "instance_types.json.gz"
    return json.loads(gzip.decompress(data.read_bytes()))


EC2_TYPES = sorted(t.name for t in catalog.INSTANCE_TYPES.values() if t.platform == "eks")


def test_moto_lacks_only_the_types_the_aws_docs_source(ec2_instance_types):
    assert {name for name in EC2_TYPES if name not in ec2_instance_types} == NOT_IN_MOTO


@pytest.mark.parametrize("name", sorted(set(EC2_TYPES) - NOT_IN_MOTO))
def test_ec2_facts_match_describe_instance_types(ec2_instance_types, name):
    shape = catalog.instance_type("eks", name)
    described = ec2_instance_types[name]
    [gpus] = described["GpuInfo"]["Gpus"]
    name = catalog.gpu_model(shape.gpu).ec2_gpu_name
    assert (gpus["Manufacturer"], gpus["Name"], gpus["Count"]) == ("NVIDIA", name, shape.gpus)
    # EC2 gives GPU memory in MiB of its own rounding: between the nominal GB and the nominal GiB
    assert (
        math.floor(catalog.gpu_model(shape.gpu).nominal_memory_gb * 10**9 / 2**20)
        <= gpus["MemoryInfo"]["SizeInMiB"]
        <= catalog.gpu_model(shape.gpu).nominal_memory_gb * 1024
    )
    assert described["VCpuInfo"]["DefaultVCpus"] == shape.vcpus
    assert described["MemoryInfo"]["SizeInMiB"] == shape.memory_gib * 1024
    assert described["ProcessorInfo"]["SupportedArchitectures"] == [shape.cpu_architecture]
    storage = described.get("InstanceStorageInfo") or {}
    nvme = (
        sum(d["Count"] for d in storage.get("Disks", []))
        if storage.get("NvmeSupport") in ("required", "supported")
        else 0
    )
    assert shape.nvme_disks == nvme
    network = described["NetworkInfo"]
    assert shape.max_efa_interfaces == (network.get("EfaInfo") or {}).get("MaximumEfaInterfaces", 0)
    assert shape.network_cards == network["MaximumNetworkCards"]
    without_efa = [c["NetworkCardIndex"] for c in network.get("NetworkCards", []) if "efa" not in c["InterfaceTypes"]]
    if network.get("EfaSupported"):
        assert without_efa == list(range(shape.ena_only_cards)), "the cards without EFA lead"


def test_p6_b300_keeps_card_0_for_the_primary_ena_interface_and_efa_on_the_other_16():
    from dra_gpu_platform.plans.eks import efa_interfaces

    shape = catalog.instance_type("eks", "p6-b300.48xlarge")
    interfaces = efa_interfaces(shape)
    assert [(i.network_card_index, i.device_index, i.interface_type) for i in interfaces[:2]] == [
        (0, 0, "interface"),
        (1, 1, "efa-only"),
    ]
    assert len(interfaces) == 17 and sum(i.interface_type != "interface" for i in interfaces) == shape.efa_interfaces
    assert not shape.capacity_blocks_only and shape.gpu == "B300"


def test_azure_quota_families_use_the_usage_api_spelling():
    families = {t.quota_family for t in catalog.INSTANCE_TYPES.values() if t.platform == "aks"}
    assert families == {
        "standardNDISRGB200V6NDRFamily",
        "standardNDSH100v5Family",
        "StandardNCadsH100v5Family",
        "standardNDISRH200V5Family",
        "standardNDASv4_A100Family",
        "standardNDAMSv4_A100Family",
        "StandardNCADSA100v4Family",
        "StandardNVADSA10v5Family",
        "standardNCASv3_T4Family",
    }
    assert all(" " not in f and f.lower().startswith("standard") and f.endswith("Family") for f in families)
