"""The stack's simulated DRA inventory: every DRA node pool at maxNodes, as its driver would publish it.

Node names follow each platform (kind's come from its cluster config); devices come from the catalog through
the same ResourceSlice builders `gpuplan inventory` and the fit simulator use (components/dra/slices.py).
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.config.models import NodePool, StackConfig
from dra_gpu_platform.dra.slices import (
    Inventory,
    catalog_gpus,
    catalog_mig_shapes,
    example_device,
    nvidia_naming,
    nvidia_node_devices,
    resource_slices,
    stable_uuid,
)
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.catalog import EXAMPLE_DEVICE, EXAMPLE_DRIVER, NVIDIA_DRIVER
from dra_gpu_platform.plans.kind import worker_names


def stack_inventory(config: StackConfig) -> Inventory:
    """Every DRA node pool of the stack at maxNodes, as its driver would publish it."""
    kind_names = worker_names(config) if config.platform == "kind" else {}
    naming = nvidia_naming(config.dra_driver.version)
    slices: list[dict[str, Any]] = []
    node_pools: dict[str, str] = {}
    notes: list[str] = []
    for pool in config.dra_pools:
        nodes = kind_names.get(pool.name) or [f"{pool.name}-{i}" for i in range(pool.max_nodes)]
        count, per_root, note = (0, 1, None) if config.uses_example_driver else _gpus_per_node(config, pool)
        if note:
            notes.append(note)
        for node in nodes:
            node_pools[node] = pool.name
            if config.uses_example_driver:
                devices = [
                    example_device(i, f"gpu-{stable_uuid(node, 'example', i)}")
                    for i in range(EXAMPLE_DEVICE.count_per_node)
                ]
                slices += resource_slices(node, EXAMPLE_DRIVER, devices)
                continue
            model = catalog.gpu_model(pool.gpu)
            gpus = catalog_gpus(model, count, node, per_root)
            mig = pool.mig.profile if pool.mig is not None else None
            slices += resource_slices(
                node, NVIDIA_DRIVER, nvidia_node_devices(gpus, node, catalog_mig_shapes(model), mig, naming)
            )
    if config.uses_example_driver:
        notes.append(
            f"kind with the dra-example-driver: {EXAMPLE_DEVICE.count_per_node} fake GPUs per worker of every DRA pool"
        )
    return Inventory(f"stack:{config.stack}", tuple(slices), node_pools, tuple(notes))


def _gpus_per_node(config: StackConfig, pool: NodePool) -> tuple[int, int, str | None]:
    """(GPUs per node, GPUs per pcieRoot, note) for a pool."""
    if config.platform in ("eks", "aks"):
        shape = catalog.pool_shape(config.platform, pool.gpu, pool.instance_type)
        if shape is not None:
            return shape.gpus, shape.gpus_per_pcie_root, None
    if pool.gpus_per_node is not None:
        return pool.gpus_per_node, 1, None
    known = catalog.instance_type_named(pool.instance_type)
    if known is not None:
        return known.gpus, known.gpus_per_pcie_root, None
    return 1, 1, f"pool {pool.name}: GPUs per node unknown (set gpusPerNode); simulated with 1"
