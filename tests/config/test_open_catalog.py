"""The open catalog: a described GPU where no cloud API checks it, an unlisted instance type with its declared facts
on EKS/AKS, a declared price on reserved capacity, and ComputeDomains only with multi-node NVLink. Every wrong
declaration is one problem at its path (no union branch in the path), all problems at once."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import ConfigError

EXISTING = {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35", "existing": {"context": "lab"}}
EKS = {"platform": "eks", "name": "c", "kubernetesVersion": "1.35", "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718"]}}
AKS = {"platform": "aks", "name": "c", "kubernetesVersion": "1.35", "aks": {"privateCluster": True}}
KIND_EXAMPLE = {"platform": "kind", "name": "k", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "example"}}
KIND_NVIDIA = {"platform": "kind", "name": "k", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "nvidia"}}
A5000 = {"product": "NVIDIA RTX A5000", "memory": "24564Mi", "computeCapability": "8.6", "architecture": "Ampere"}
A30 = {
    "product": "NVIDIA A30",
    "memory": "24576Mi",
    "computeCapability": "8.0",
    "architecture": "Ampere",
    "migProfiles": [
        {"name": "1g.6gb", "maxCount": 4, "memorySlices": 2},
        {"name": "4g.24gb", "maxCount": 1, "memorySlices": 8},
    ],
}
G7 = {"gpus": 4, "vcpu": 64, "memory": "256Gi", "efaInterfaces": 0}


def stack(cluster: dict, *pools: dict, **sections: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "cluster": copy.deepcopy(cluster),
        "nodePools": [copy.deepcopy(p) for p in pools],
        **sections,
    }
    if cluster["platform"] == "existing":
        data["hasKubeconfig"] = True
    if cluster["platform"] == "eks":
        data["region"] = "us-east-1"
    if cluster["platform"] == "aks":
        data["region"] = "eastus"
    return data


def problems(data: dict[str, Any]) -> dict[str, tuple[Any, str, str]]:
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(data)
    return {p.path: (p.value, p.rule, p.fix) for p in caught.value.problems}


# ---------------------------------------------------------------------------------------------------- described GPUs


def test_a_described_gpu_on_an_existing_cluster_resolves_to_its_facts():
    config = StackConfig.model_validate(
        stack(EXISTING, {"name": "a5000", "gpu": A5000, "gpusPerNode": 4, "maxNodes": 2, "nodes": ["ws-1", "ws-2"]})
    )
    pool = config.node_pools[0]
    model = pool.gpu_model
    assert (model.key, model.product_name, model.architecture) == ("NVIDIA_RTX_A5000", "NVIDIA RTX A5000", "Ampere")
    assert (model.compute_capability, model.published_memory, model.nominal_memory_gb) == ("8.6.0", "24564Mi", 24)
    assert model.product_name_regex == "^NVIDIA RTX A5000$" and not model.supports_mig
    assert pool.gpu_name == "NVIDIA RTX A5000"


def test_a_described_gpu_is_allowed_on_kind_with_real_gpus_only():
    StackConfig.model_validate(stack(KIND_NVIDIA, {"name": "a5000", "gpu": A5000, "gpusPerNode": 2, "maxNodes": 1}))
    found = problems(stack(KIND_EXAMPLE, {"name": "a5000", "gpu": A5000, "gpusPerNode": 2, "maxNodes": 1}))
    assert list(found) == ["nodePools[0].gpu"] and "dra-example-driver" in found["nodePools[0].gpu"][1]


@pytest.mark.parametrize("cluster", [EKS, AKS], ids=["eks", "aks"])
def test_a_described_gpu_on_a_cloud_is_refused_at_its_path_with_the_fix(cluster):
    found = problems(stack(cluster, {"name": "a5000", "gpu": A5000, "maxNodes": 2}))
    value, rule, fix = found["nodePools[0].gpu"]
    assert value == {"product": "NVIDIA RTX A5000"}
    assert "no cloud API checks it" in rule and "allowUnlisted: true and instanceFacts" in fix
    assert set(found) == {"nodePools[0].gpu"}  # no knock-on instance-type problem


def test_wrong_descriptions_are_each_a_problem_at_their_path():
    bad = {"product": "NVIDIA  RTX_A5000", "memory": "-1Gi", "computeCapability": "8.6", "architecture": "Ampere"}
    found = problems(stack(EXISTING, {"name": "p", "gpu": bad, "maxNodes": 1}))
    assert "nodePools[0].gpu.product" in found and "NVML" in found["nodePools[0].gpu.product"][1]
    incomplete = problems(
        stack(EXISTING, {"name": "p", "gpu": {"product": "NVIDIA A40", "vram": "48Gi"}, "maxNodes": 1})
    )
    assert {"nodePools[0].gpu.memory", "nodePools[0].gpu.computeCapability", "nodePools[0].gpu.architecture"} <= set(
        incomplete
    )
    assert "architecture" in incomplete["nodePools[0].gpu.vram"][2]  # the unknown key lists the keys allowed here
    assert all(".described" not in path for path in incomplete)


def test_a_described_gpu_needs_gpus_per_node_and_is_no_catalog_product():
    h100 = {**A5000, "product": "NVIDIA H100 80GB HBM3"}
    found = problems(stack(EXISTING, {"name": "p", "gpu": h100, "maxNodes": 1}))
    assert found["nodePools[0].gpusPerNode"][1] == "a described GPU's pool must say how many GPUs each node has"
    assert found["nodePools[0].gpu.product"][2] == "write gpu: H100"


def test_an_unknown_key_string_is_one_problem():
    found = problems(stack(EXISTING, {"name": "p", "gpu": "A5000", "gpusPerNode": 1, "maxNodes": 1}))
    assert list(found) == ["nodePools[0].gpu"] and "'H100'" in found["nodePools[0].gpu"][1]


def test_described_mig_profiles_are_the_pools_choices():
    ok = StackConfig.model_validate(
        stack(EXISTING, {"name": "a30", "gpu": A30, "gpusPerNode": 4, "maxNodes": 1, "mig": {"profile": "1g.6gb"}})
    )
    profile = ok.node_pools[0].gpu_model.mig_profile("1g.6gb")
    assert profile is not None and (profile.max_count, profile.memory_slices, profile.slices) == (4, 2, 1)
    found = problems(
        stack(EXISTING, {"name": "a30", "gpu": A30, "gpusPerNode": 4, "maxNodes": 1, "mig": {"profile": "2g.12gb"}})
    )
    assert found["nodePools[0].mig.profile"][2] == "use one of 1g.6gb, 4g.24gb"
    too_many = {**A30, "migProfiles": [{"name": "1g.6gb", "maxCount": 7, "memorySlices": 2}]}
    found = problems(stack(EXISTING, {"name": "a30", "gpu": too_many, "gpusPerNode": 4, "maxNodes": 1}))
    assert "exceeds the 8 memory slices" in found["nodePools[0].gpu.migProfiles[0]"][1]


# ---------------------------------------------------------------------------------------------------- unlisted types


def test_an_unlisted_instance_type_is_accepted_with_its_declared_facts():
    pool = {
        "name": "g7",
        "gpu": "L4",
        "instanceType": "g7.16xlarge",
        "allowUnlisted": True,
        "instanceFacts": G7,
        "maxNodes": 2,
    }
    config = StackConfig.model_validate(stack(EKS, pool))
    shape = config.node_pools[0].declared_shape("eks")
    assert shape is not None and not shape.listed
    assert (shape.gpus, shape.vcpus, shape.memory_gib, shape.gpu, shape.quota_family) == (4, 64, 256, "L4", "G")
    assert shape.gpu_memory_gb == 4 * 24 and shape.efa_interfaces == 0


def test_allow_unlisted_without_instance_facts_is_an_error_at_instance_facts():
    pool = {"name": "g7", "gpu": "L4", "instanceType": "g7.16xlarge", "allowUnlisted": True, "maxNodes": 2}
    found = problems(stack(EKS, pool))
    assert (
        list(found) == ["nodePools[0].instanceFacts"]
        and "instanceFacts: {gpus: 4" in found["nodePools[0].instanceFacts"][2]
    )


def test_an_unknown_type_without_allow_unlisted_names_the_way_to_declare_it():
    found = problems(
        stack(EKS, {"name": "g7", "gpu": "L4", "instanceType": "g7.16xlarge", "instanceFacts": G7, "maxNodes": 2})
    )
    value, _rule, fix = found["nodePools[0].instanceType"]
    assert value == "g7.16xlarge" and "allowUnlisted: true (your instanceFacts describe it)" in fix


@pytest.mark.parametrize(
    ("cluster", "pool", "path"),
    [
        (EKS, {"instanceType": "g6.xlarge", "allowUnlisted": True, "instanceFacts": G7}, "nodePools[0].allowUnlisted"),
        (EKS, {"instanceType": "g6.xlarge", "instanceFacts": G7}, "nodePools[0].instanceFacts"),
        (EKS, {"allowUnlisted": True, "instanceFacts": G7}, "nodePools[0].instanceType"),
        (EKS, {"instanceType": "G7 16XL", "allowUnlisted": True, "instanceFacts": G7}, "nodePools[0].instanceType"),
        (
            AKS,
            {
                "instanceType": "Standard_NC8ads_L4_v9",
                "allowUnlisted": True,
                "instanceFacts": {**G7, "efaInterfaces": 2},
            },
            "nodePools[0].instanceFacts.efaInterfaces",
        ),
        (EXISTING, {"gpusPerNode": 4, "allowUnlisted": True}, "nodePools[0].allowUnlisted"),
        (EXISTING, {"gpusPerNode": 4, "instanceFacts": G7}, "nodePools[0].instanceFacts"),
    ],
    ids=["listed-allow", "listed-facts", "no-type", "bad-name", "aks-efa", "existing-allow", "existing-facts"],
)
def test_wrong_unlisted_declarations_are_refused_at_their_path(cluster, pool, path):
    assert path in problems(stack(cluster, {"name": "p", "gpu": "L4", "maxNodes": 1, **pool}))


# ---------------------------------------------------------------------------------------------------- declared prices

BLOCK = {
    "name": "train",
    "gpu": "H100",
    "maxNodes": 2,
    "capacity": "capacity-block",
    "capacityReservationId": "cr-0123456789abcdef0",
    "availabilityZone": "us-east-1a",
}
GB200_BLOCK = {**BLOCK, "name": "gb200", "gpu": "GB200"}  # p6e-gb200: Capacity Blocks only


def test_a_capacity_block_takes_a_declared_price():
    config = StackConfig.model_validate(stack(EKS, {**BLOCK, "price": {"perNodeHour": 31.464, "asOf": "2026-10-01"}}))
    price = config.node_pools[0].price
    assert price is not None and (price.per_node_hour, price.as_of, price.source) == (31.464, "2026-10-01", None)


@pytest.mark.parametrize(
    ("pool", "path"),
    [
        (
            {"name": "p", "gpu": "H100", "maxNodes": 1, "price": {"perNodeHour": 1.0, "asOf": "2026-10-01"}},
            "nodePools[0].price",
        ),
        ({**BLOCK, "price": {"perNodeHour": 1.0, "asOf": "2026-02-30"}}, "nodePools[0].price.asOf"),
        ({**BLOCK, "price": {"perNodeHour": 0, "asOf": "2026-10-01"}}, "nodePools[0].price.perNodeHour"),
    ],
    ids=["on-demand", "no-such-date", "zero"],
)
def test_wrong_prices_are_refused_at_their_path(pool, path):
    assert path in problems(stack(EKS, pool))


# ---------------------------------------------------------------------------------------------------- ComputeDomains


def test_compute_domains_on_a_pool_without_multi_node_nvlink_is_refused_with_the_fix():
    found = problems(stack(EKS, {"name": "h100", "gpu": "H100", "maxNodes": 2}, draDriver={"computeDomains": True}))
    value, rule, fix = found["draDriver.computeDomains"]
    assert value is True and "multi-node NVLink" in rule and "GB200 with gpuStack: dra" in fix


def test_a_gb200_pool_on_the_device_plugin_does_not_count():
    pools = ({"name": "gb200", "gpu": "GB200", "maxNodes": 2, "gpuStack": "device-plugin"},)
    found = problems(stack(AKS, *pools, draDriver={"computeDomains": True}))
    assert "gb200 run the device plugin" in found["draDriver.computeDomains"][1]


def test_compute_domains_follow_multi_node_nvlink_by_default():
    gb200 = {"name": "gb200", "gpu": "GB200", "maxNodes": 2}
    h100 = {"name": "h100", "gpu": "H100", "maxNodes": 2}
    assert StackConfig.model_validate(stack(AKS, gb200, h100)).compute_domains_enabled
    assert not StackConfig.model_validate(stack(AKS, h100)).compute_domains_enabled
    off = StackConfig.model_validate(stack(AKS, gb200, draDriver={"computeDomains": False}))
    assert not off.compute_domains_enabled and "compute-domain-daemon.nvidia.com" not in off.driver_device_classes()


def test_an_x86_ami_on_a_grace_instance_is_refused():
    pool = {**GB200_BLOCK, "amiType": "AL2023_x86_64_NVIDIA"}
    found = problems(stack(EKS, pool))
    assert list(found) == ["nodePools[0].amiType"] and "AL2023_ARM_64_NVIDIA" in found["nodePools[0].amiType"][2]


@pytest.mark.parametrize("capacity", ["on-demand", "spot"])
def test_a_capacity_blocks_only_type_is_refused_outside_a_block(capacity):
    """p6e-gb200 has no on-demand or spot market: its node group would never get an instance. Named or by default."""
    for pool in (
        {"name": "gb200", "gpu": "GB200", "maxNodes": 2, "capacity": capacity},
        {"name": "gb200", "gpu": "GB200", "instanceType": "p6e-gb200.36xlarge", "maxNodes": 2, "capacity": capacity},
    ):
        value, rule, fix = problems(stack(EKS, pool))["nodePools[0].capacity"]
        assert value == capacity and "only through EC2 Capacity Blocks" in rule and "capacity: capacity-block" in fix
    assert StackConfig.model_validate(stack(EKS, GB200_BLOCK)).node_pools[0].capacity == "capacity-block"
    # p6-b200 is sold on demand, as spot and as Capacity Blocks (DescribeInstanceTypes SupportedUsageClasses)
    assert StackConfig.model_validate(stack(EKS, {"name": "b200", "gpu": "B200", "maxNodes": 2, "minNodes": 1}))
