"""plan_stack: the one derivation of a stack (dra_gpu_platform/plans/stack.py). The plan is plain frozen data with no
config model inside, the same for a stack file and for its sections given to the library, and the same whatever
the order of the stack file's lists."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map
from dra_gpu_platform.plans.node_pools import GPU_TAINT, PoolTaint
from dra_gpu_platform.plans.stack import StackPlan, plan_sections, plan_stack
from tests.acceptance.test_urns import _reverse_lists
from tests.conftest import REFERENCE_STACKS, STACKS_DIR, load_committed, qualify


def _plan(stack: str) -> StackPlan:
    return plan_stack(load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml"))


def _walk(node: Any, path: str = "plan"):
    yield path, node
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        for field in dataclasses.fields(node):
            yield from _walk(getattr(node, field.name), f"{path}.{field.name}")
    elif isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{path}[{key!r}]")
    elif isinstance(node, (list, tuple)):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}[{i}]")


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_the_plan_is_frozen_plain_data_without_config_models(stack):
    parts = list(_walk(_plan(stack)))
    assert [path for path, node in parts if isinstance(node, BaseModel)] == []
    dataclass_types = {type(node) for _, node in parts if dataclasses.is_dataclass(node)}
    assert {t.__name__ for t in dataclass_types if not t.__dataclass_params__.frozen} == set()
    assert {"StackPlan", "PoolPlan", "PoolTaint", "NamespacePlan", "SoftwarePlan"} <= {
        t.__name__ for t in dataclass_types
    }


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_the_order_of_the_stack_files_lists_changes_no_part_of_the_plan(stack):
    from tests.acceptance.test_urns import ORDER_MATTERS

    assert ORDER_MATTERS  # lists whose order is meaning stay as they are
    reordered = _reverse_lists(copy.deepcopy(load_committed(stack)))
    plan = plan_stack(parse_config_map(qualify(reordered), stack=stack, source=f"Pulumi.{stack}.yaml"))
    assert plan == _plan(stack)


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_the_library_sections_plan_like_the_stack_file(stack):
    config = load_committed(stack)
    region = config.get("aws:region") or config.get("azure-native:location")
    sections = {k: v for k, v in config.items() if ":" not in k}
    assert plan_sections(sections, stack=stack, region=region) == _plan(stack)


def test_pools_carry_labels_taints_sizes_and_nodes_as_each_platform_has_them():
    dev, staging, prod = (_plan(s) for s in ("dev", "staging", "prod"))
    workers = dev.pool("dra-workers")
    assert workers.nodes == ("gpu-dev-worker", "gpu-dev-worker2") and workers.max_nodes == 2
    assert workers.disk_size_gb == 0 and workers.gpus_per_node is None  # kind: the host's disk, fake GPUs
    train = prod.pool("h100-train")
    assert (train.instance_type, train.gpus_per_node, train.efa_interfaces, train.capacity) == (
        "p5.48xlarge",
        8,
        32,
        "capacity-block",
    )
    assert not train.autoscaled and train.labels["dra-gpu-platform.io/efa"] == "true"
    assert [p.name for p in prod.pools] == sorted(p.name for p in prod.pools)
    assert {t.eks_effect for p in prod.pools for t in p.taints} == {"NO_SCHEDULE"}
    assert staging.pool("a100-mig").mig_profile == "3g.40gb" and staging.pool("a100-mig").max_gpus == 2


def test_a_pool_taint_has_both_spellings_and_reads_back_from_text():
    assert (GPU_TAINT.key, GPU_TAINT.value, GPU_TAINT.effect, GPU_TAINT.eks_effect) == (
        "nvidia.com/gpu",
        "present",
        "NoSchedule",
        "NO_SCHEDULE",
    )
    assert PoolTaint.parse(GPU_TAINT.text) == GPU_TAINT and hash(GPU_TAINT) == hash(PoolTaint.parse(GPU_TAINT.text))
    assert PoolTaint.parse("dedicated:NoExecute") == PoolTaint("dedicated", "", "NoExecute", "NO_EXECUTE")
    assert GPU_TAINT.manifest() == {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}


def test_namespaces_carry_their_quota_and_claim_template_bodies():
    research = next(ns for ns in _plan("prod").namespaces if ns.name == "ml-research")
    assert research.labels["gpu-mode"] == "dra-only" and research.quota
    kinds = [d["kind"] for d in research.manifests()]
    assert kinds[:3] == ["Namespace", "ResourceQuota", "ResourceQuota"]
    assert set(kinds[3:]) == {"NetworkPolicy", "ResourceClaimTemplate"}
    template = research.claim_templates[0]
    assert template.devices()["requests"][0]["name"] == template.claim.request


_EKS_136 = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "c",
        "kubernetesVersion": "1.36",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
}


def _eks_plan(**sections: Any) -> StackPlan:
    return plan_stack(parse_config_map(qualify({**_EKS_136, **sections}), stack="t", source="Pulumi.t.yaml"))


def test_under_a_gpucluster_the_plan_runs_the_operators_dra_driver_and_classes():
    plan = _eks_plan(
        # a multi-node NVLink pool turns ComputeDomains on by default (p6e-gb200 is sold as Capacity Blocks only)
        nodePools=[
            {
                "name": "gb200",
                "gpu": "GB200",
                "maxNodes": 1,
                "capacity": "capacity-block",
                "capacityReservationId": "cr-0123456789abcdef0",
                "availabilityZone": "us-east-1a",
            }
        ],
        gpuOperator={"version": "v26.7.0", "draManagement": "gpucluster"},
    )
    assert plan.dra_driver_version == "0.5.0" and plan.software.dra_driver is None
    assert plan.driver_device_classes == (
        "gpu.nvidia.com",
        "mig.nvidia.com",
        "vfio.gpu.nvidia.com",
        "compute-domain-daemon.nvidia.com",
        "compute-domain-default-channel.nvidia.com",
    )
    assert plan.software.gpu_operator.values["draDriver"]["computeDomains"] == {"enabled": True}


def test_a_bottlerocket_dra_pool_publishes_devices_as_its_host_driver_names_them():
    # the host service is the 25.8.1 driver (legacy naming: pcieBusID), the chart pool 0.4.1 (resource.kubernetes.io/pciBusID)
    plan = _eks_plan(
        nodePools=[
            {"name": "al", "gpu": "H100", "instanceType": "p5.4xlarge", "maxNodes": 1},
            {
                "name": "br",
                "gpu": "H100",
                "instanceType": "p5.4xlarge",
                "maxNodes": 1,
                "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
            },
        ]
    )
    attributes = {
        plan.inventory().node_pools[s["spec"]["nodeName"]]: set(s["spec"]["devices"][0]["attributes"])
        for s in plan.inventory().slices
    }
    assert "pcieBusID" in attributes["br"] and "resource.kubernetes.io/pciBusID" not in attributes["br"]
    assert "resource.kubernetes.io/pciBusID" in attributes["al"] and "pcieBusID" not in attributes["al"]
