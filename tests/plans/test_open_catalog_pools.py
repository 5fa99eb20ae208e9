"""PoolPlans of a described GPU and of an unlisted instance type: the resolved GPU facts, the declared shape (EFA,
NVMe) and the labels the policy pack reads back; a catalog pool on a catalog type carries none of them."""

from __future__ import annotations

from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.plans.eks import efa_interfaces, uses_local_raid
from dra_gpu_platform.plans.node_pools import described_labels, plan_pool, unlisted_note

A30 = {
    "product": "NVIDIA A30",
    "memory": "24576Mi",
    "computeCapability": "8.0",
    "architecture": "Ada Lovelace",  # not the A30's: a name with a space, to show its label spelling
    "migProfiles": [{"name": "1g.6gb", "maxCount": 4, "memorySlices": 2, "memory": "5952Mi"}],
}


def test_a_described_gpus_pool_carries_its_facts():
    pool = NodePool.model_validate(
        {"name": "a30", "gpu": A30, "gpusPerNode": 2, "maxNodes": 1, "mig": {"profile": "1g.6gb"}}
    )
    assert described_labels(pool) == {
        "dra-gpu-platform.io/gpu-memory": "24576Mi",
        "dra-gpu-platform.io/gpu-compute-capability": "8.0",
        "dra-gpu-platform.io/gpu-architecture": "Ada_Lovelace",
        "dra-gpu-platform.io/gpu-mig-instances": "4",
        "dra-gpu-platform.io/gpu-mig-memory-slices": "2",
        "dra-gpu-platform.io/gpu-mig-memory": "5952Mi",
        "dra-gpu-platform.io/gpus-per-node": "2",
    }
    plan = plan_pool(pool, "existing")
    assert plan.gpu == "NVIDIA_A30" and plan.labels["dra-gpu-platform.io/gpu"] == "NVIDIA_A30"
    assert plan.described and plan.gpu_name == "NVIDIA A30" and plan.model == pool.gpu_model
    assert (plan.gpus_per_node, plan.max_gpus, plan.shape, plan.unlisted) == (2, 2, None, False)


def test_an_unlisted_types_pool_gets_its_declared_shape_efa_and_nvme():
    pool = NodePool.model_validate(
        {
            "name": "b300",
            "gpu": "B200",
            "instanceType": "p6-b300.96xlarge",
            "allowUnlisted": True,
            "instanceFacts": {"gpus": 8, "vcpu": 192, "memory": "4096Gi", "efaInterfaces": 16, "nvmeDisks": 8},
            "maxNodes": 2,
        }
    )
    plan = plan_pool(pool, "eks", autoscaler=True)
    assert plan.unlisted and plan.shape is not None and not plan.shape.listed
    assert (plan.gpus_per_node, plan.instance_type, plan.efa_interfaces) == (8, "p6-b300.96xlarge", 16)
    assert plan.labels["dra-gpu-platform.io/gpus-per-node"] == "8" and plan.labels["dra-gpu-platform.io/efa"] == "true"
    interfaces = efa_interfaces(plan.shape)
    assert len(interfaces) == 16 and interfaces[0].interface_type == "efa" and uses_local_raid(plan)
    note = unlisted_note(plan)
    assert note is not None and "p6-b300.96xlarge is not in the catalog (allowUnlisted)" in note


def test_a_catalog_pool_carries_no_described_labels():
    pool = NodePool.model_validate({"name": "h100", "gpu": "H100", "maxNodes": 1})
    plan = plan_pool(pool, "eks")
    assert described_labels(pool) == {} and not plan.unlisted and not plan.described
    assert unlisted_note(plan) is None and plan.gpu_model is not None and plan.gpu_model.key == "H100"


def test_a_gb200_pool_on_eks_boots_the_arm64_nvidia_ami_and_prices_its_block():
    pool = NodePool.model_validate(
        {
            "name": "gb200",
            "gpu": "GB200",
            "maxNodes": 18,
            "capacity": "capacity-block",
            "capacityReservationId": "cr-0123456789abcdef0",
            "availabilityZone": "us-east-1a",
            "price": {"perNodeHour": 42.5, "asOf": "2026-11-01", "source": "block cb-1"},
        }
    )
    plan = plan_pool(pool, "eks")
    assert plan.ami_type == "AL2023_ARM_64_NVIDIA" and plan.shape is not None and plan.shape.cpu_architecture == "arm64"
    assert plan.declared_price is not None
    assert (plan.declared_price.per_node_hour, plan.declared_price.as_of) == (42.5, "2026-11-01")
    assert plan.declared_price.source == "block cb-1; declared in the stack file (nodePools[].price)"
    assert plan_pool(NodePool.model_validate({"name": "h", "gpu": "H100", "maxNodes": 1}), "eks").ami_type == (
        "AL2023_x86_64_NVIDIA"
    )
