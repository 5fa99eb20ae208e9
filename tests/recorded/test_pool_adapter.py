"""The pack's one adapter from recorded resource properties to PoolPlan (dra_gpu_platform/recorded/pools.py): for every
committed stack, the pools it reads back from what the cluster component records are the stack's own PoolPlans;
an existing cluster's node patches become its pools; a foreign program's pools keep what their props say."""

from __future__ import annotations

from dataclasses import replace
from types import SimpleNamespace

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.recorded import pools as recorded
from gpuplan.engine.outputs import clean
from tests.conftest import REFERENCE_STACKS, load_committed, qualify
from tests.resources.alone import cluster_alone
from tests.resources.test_existing_nodes import STACK as EXISTING


def _as_policy_resources(registrations):
    """Registrations as the pack sees resources: type, props, and (property) dependencies as resources."""
    found = {
        r.urn: SimpleNamespace(urn=r.urn, name=r.name, resource_type=r.type, props=clean(r.inputs))
        for r in registrations
    }
    for r in registrations:
        resource = found[r.urn]
        resource.dependencies = [found[u] for u in r.dependencies if u in found]
        resource.property_dependencies = {
            k: [found[u] for u in v if u in found] for k, v in r.property_dependencies.items()
        }
    return list(found.values())


def _read_back(config: dict, stack: str):
    return {
        pool.name: (urn, pool) for urn, pool in recorded.stack_pools(_as_policy_resources(cluster_alone(config, stack)))
    }


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_the_adapter_reads_back_the_stacks_own_pool_plans(stack):
    config = load_committed(stack)
    planned = plan_stack(parse_config_map(qualify(config), stack=stack, source=f"Pulumi.{stack}.yaml")).pools
    read = _read_back(config, stack)
    assert set(read) == {p.name for p in planned}
    for pool in planned:
        # the zone lives in the node group's subnets, which are known only once they exist
        assert read[pool.name][1] == replace(pool, zone=None), pool.name


def test_an_existing_clusters_node_patches_are_its_pools():
    config = parse_config_map(qualify(EXISTING), stack="lab", source="Pulumi.lab.yaml")
    (planned,) = [p for p in plan_stack(config).pools if p.nodes]
    ((urn, pool),) = _read_back(EXISTING, "lab").values()  # the pool that names no nodes has no patches
    assert urn.endswith("::lab-existing-node-gpu-a100-1")
    assert (pool.name, pool.platform, pool.gpu, pool.gpu_stack, pool.mig_profile) == (
        planned.name,
        "existing",
        "A100-80GB",
        "dra",
        "3g.40gb",
    )
    assert (pool.labels, pool.taints, pool.nodes, pool.max_nodes) == (planned.labels, planned.taints, planned.nodes, 2)
    assert pool.gpus_per_node is None  # the patches do not say how many GPUs the nodes have


def test_a_foreign_programs_pools_keep_what_their_props_say():
    gpu = SimpleNamespace(
        urn="urn:gpu",
        name="gpu-ng",
        resource_type="aws:eks/nodeGroup:NodeGroup",
        props={
            "instanceTypes": ["g6.12xlarge"],
            "amiType": "AL2023_x86_64_NVIDIA",
            "scalingConfig": {"minSize": 1.0, "maxSize": 3.0, "desiredSize": 2.0},
            "capacityType": "SPOT",
            "taints": [{"key": "dedicated", "value": "gpu", "effect": "NO_EXECUTE"}],
        },
        dependencies=[],
    )
    cpu = SimpleNamespace(
        urn="urn:cpu",
        name="cpu-ng",
        resource_type="aws:eks/nodeGroup:NodeGroup",
        props={"instanceTypes": ["m7i.large"], "amiType": "AL2023_x86_64_STANDARD", "scalingConfig": {"maxSize": 2}},
        dependencies=[],
    )
    ((urn, pool),) = recorded.stack_pools([gpu, cpu])  # CPU node groups are no GPU pools
    assert urn == "urn:gpu" and pool.name == "gpu-ng"
    # the GPU and its count come from the catalog's entry for the instance type; no DRA label: the device plugin
    assert (pool.gpu, pool.gpus_per_node, pool.gpu_stack, pool.capacity) == ("L4", 4, "device-plugin", "spot")
    assert (pool.min_nodes, pool.max_nodes, pool.desired_nodes) == (1, 3, 2)
    (taint,) = pool.taints
    assert (taint.key, taint.value, taint.effect, taint.eks_effect) == ("dedicated", "gpu", "NoExecute", "NO_EXECUTE")
    assert not pool.has_taint("nvidia.com/gpu", "NoSchedule")
    # an NVIDIA family the catalog does not list: a GPU pool whose GPU and count stay unknown
    unknown = SimpleNamespace(**{**vars(gpu), "props": {**gpu.props, "instanceTypes": ["p3dn.24xlarge"]}})
    ((_, pool),) = recorded.stack_pools([unknown])
    assert (pool.gpu, pool.gpus_per_node, pool.max_gpus) == (None, None, None)


def test_details_unknown_in_a_preview_stay_unknown_instead_of_failing_the_rules():
    from pulumi_policy.proxy import UNKNOWN_STRING_VALUE, unknown_checking_proxy

    props = unknown_checking_proxy(
        {
            "vmSize": "Standard_NC24ads_A100_v4",
            "nodeLabels": {"dra-gpu-platform.io/pool": "a100"},
            "count": 1.0,
            "scaleSetPriority": UNKNOWN_STRING_VALUE,
            "capacityReservationGroupID": UNKNOWN_STRING_VALUE,
        }
    )
    (pool,) = recorded.pools_of("azure-native:containerservice:AgentPool", "pool", props)
    assert (pool.name, pool.gpu, pool.capacity, pool.capacity_reservation_id) == (
        "a100",
        "A100-80GB",
        "on-demand",
        None,
    )
