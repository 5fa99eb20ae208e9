"""The simulated DRA inventory of a set of node pools: every DRA pool at maxNodes, as its driver would publish it.
The one implementation `gpuplan fit` (the stack's PoolPlans) and the policy pack's claims-satisfiable (the PoolPlans
its adapter reads back from recorded resources) share. Pure: no Pulumi imports.

Node names are the pool's own where the stack knows them (kind's workers), else `<pool>-<i>`; devices come from the
catalog through the same ResourceSlice builders `gpuplan inventory` uses (dra_gpu_platform/dra/devices.py).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from dra_gpu_platform.dra.devices import (
    catalog_gpus,
    example_device,
    nvidia_naming,
    nvidia_node_devices,
    resource_slices,
    stable_uuid,
)
from dra_gpu_platform.dra.inventory import Inventory
from dra_gpu_platform.dra.mig import catalog_mig_shapes
from dra_gpu_platform.dra.partitions import dynamic_mig_slices
from dra_gpu_platform.facts import eks_amis
from dra_gpu_platform.facts.catalog import EXAMPLE_DEVICE, EXAMPLE_DRIVER, NVIDIA_DRIVER
from dra_gpu_platform.plans.node_pools import PoolPlan


def simulated_nodes(pool: PoolPlan) -> list[str]:
    """The nodes of a pool at max scale: the ones the stack names (kind's workers, an existing pool's nodes), else
    `<pool>-<i>`."""
    if not pool.profile.node_pools.bought and pool.nodes:
        return list(pool.nodes)
    return [f"{pool.name}-{i}" for i in range(pool.max_nodes)]


def pools_inventory(
    pools: Iterable[PoolPlan],
    driver: str | None,
    driver_version: str | None,
    source: str,
    *,
    dynamic_mig: bool = False,
    minor: int = 35,
) -> Inventory:
    """The devices `driver` (NVIDIA_DRIVER, EXAMPLE_DRIVER, or None: no DRA driver) publishes on every DRA pool at
    max scale; `driver_version`: the NVIDIA chart's version (device naming), None for the current naming. A pool
    whose host runs the DRA driver (Bottlerocket) names devices as that host driver's release does.
    `dynamic_mig`: the NVIDIA driver's DynamicMIG gate is on, so GPUs are partitionable devices (dra_gpu_platform/dra/
    partitions.py), published for Kubernetes 1.<minor>."""
    chart_naming = nvidia_naming(driver_version) if driver_version else "current"
    host_naming = nvidia_naming(eks_amis.BOTTLEROCKET_DRA_DRIVER_VERSION)
    slices: list[dict[str, Any]] = []
    node_pools: dict[str, str] = {}
    notes: list[str] = []
    for pool in pools:
        if not pool.dra:
            continue  # only nodes running the DRA kubelet plugin publish devices
        model = pool.model
        naming = host_naming if pool.host_dra_driver else chart_naming
        if driver == NVIDIA_DRIVER and model is None:
            notes.append(f"pool {pool.name}: GPU model unknown ({pool.instance_type}); not simulated")
        if driver == NVIDIA_DRIVER and model is not None and pool.gpus_per_node is None:
            notes.append(f"pool {pool.name}: GPUs per node unknown (set gpusPerNode); simulated with 1")
        for node in simulated_nodes(pool):
            node_pools[node] = pool.name
            if driver == EXAMPLE_DRIVER:
                devices = [
                    example_device(i, f"gpu-{stable_uuid(node, 'example', i)}")
                    for i in range(EXAMPLE_DEVICE.count_per_node)
                ]
                slices += resource_slices(node, EXAMPLE_DRIVER, devices)
            elif driver == NVIDIA_DRIVER and model is not None and dynamic_mig:
                gpus = catalog_gpus(model, pool.gpus_per_node or 1, node, pool.gpus_per_pcie_root)
                slices += dynamic_mig_slices(node, NVIDIA_DRIVER, gpus, catalog_mig_shapes(model), minor)
            elif driver == NVIDIA_DRIVER and model is not None:
                gpus = catalog_gpus(model, pool.gpus_per_node or 1, node, pool.gpus_per_pcie_root)
                slices += resource_slices(
                    node,
                    NVIDIA_DRIVER,
                    nvidia_node_devices(gpus, node, catalog_mig_shapes(model), pool.mig_profile, naming),
                )
    if driver == NVIDIA_DRIVER and dynamic_mig:
        notes.append(
            "DynamicMIG: Hopper and newer GPUs are published as partitionable devices (the full GPU and every MIG "
            "profile at every placement, sharing one counter set per GPU); MIG devices are created per claim"
        )
    if driver == EXAMPLE_DRIVER:
        notes.append(
            f"kind with the dra-example-driver: {EXAMPLE_DEVICE.count_per_node} fake GPUs per worker of every DRA pool"
        )
    return Inventory(source, tuple(slices), node_pools, tuple(notes))
