"""The labels each GPU node pool's nodes carry, on every platform. Pure: no Pulumi imports.

The same labels drive the GPU Operator's per-node operands, the DRA kubelet plugin's node selector, the
policy pack and the fit simulator, so the "never both plugins on one node" rule is checked on one source.
"""

from __future__ import annotations

from components.config.models import NodePool
from components.facts.node_labels import (
    DEVICE_PLUGIN_DEPLOY_LABEL,
    DRA_KUBELET_PLUGIN_LABEL,
    GPU_LABEL,
    GPU_PRESENT_LABEL,
    GPU_STACK_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
)


def pool_labels(pool: NodePool) -> dict[str, str]:
    """Node labels for a pool: user labels first, ours win on conflict (config rules forbid overlaps)."""
    dra = pool.gpu_stack == "dra"
    labels = {
        **pool.labels,
        POOL_LABEL: pool.name,
        GPU_LABEL: pool.gpu,
        GPU_STACK_LABEL: pool.gpu_stack,
        GPU_PRESENT_LABEL: "true",
        # The GPU Operator's device plugin is kept off DRA nodes; the DRA kubelet plugin selects its nodes
        # by DRA_KUBELET_PLUGIN_LABEL, which device-plugin nodes never carry.
        DEVICE_PLUGIN_DEPLOY_LABEL: "false" if dra else "true",
    }
    if dra:
        labels[DRA_KUBELET_PLUGIN_LABEL] = "true"
    if pool.mig is not None:
        labels[MIG_CONFIG_LABEL] = f"all-{pool.mig.profile}"
    return dict(sorted(labels.items()))
