"""The labels each GPU node pool's nodes carry, on every platform. Pure: no Pulumi imports.

The same labels drive the GPU Operator's per-node operands, the DRA kubelet plugin's node selector, the
policy pack and the fit simulator, so the "never both plugins on one node" rule is checked on one source.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass

from dra_gpu_platform.config.models import NodePool, StackConfig
from dra_gpu_platform.facts.node_labels import (
    DEVICE_PLUGIN_DEPLOY_LABEL,
    DRA_KUBELET_PLUGIN_LABEL,
    GPU_LABEL,
    GPU_STACK_LABEL,
    MIG_CONFIG_LABEL,
    POOL_LABEL,
    pool_taint,
)

# The placeholder in the kubectl commands preview prints for a pool whose nodes the stack does not name.
NODE_PLACEHOLDER = "NODE"


def pool_labels(pool: NodePool) -> dict[str, str]:
    """Node labels for a pool: user labels first, ours win on conflict (config rules forbid overlaps)."""
    dra = pool.gpu_stack == "dra"
    labels = {
        **pool.labels,
        POOL_LABEL: pool.name,
        GPU_LABEL: pool.gpu,
        GPU_STACK_LABEL: pool.gpu_stack,
        # Not nvidia.com/gpu.present: the GPU Operator sets it once NFD found the GPU, and resets it (deleting
        # every gpu.deploy.* label, this guard too) on a node that carries it before NFD has labelled it
        # (gpu-operator v25.10.1 controllers/state_manager.go:510-528). The operator keeps a gpu.deploy.* value
        # it finds (:374-384), so this static guard holds: its device plugin stays off DRA nodes, and the DRA
        # kubelet plugin selects DRA_KUBELET_PLUGIN_LABEL, which device-plugin nodes never carry.
        DEVICE_PLUGIN_DEPLOY_LABEL: "false" if dra else "true",
    }
    if dra:
        labels[DRA_KUBELET_PLUGIN_LABEL] = "true"
    if pool.mig is not None:
        labels[MIG_CONFIG_LABEL] = f"all-{pool.mig.profile}"
    return dict(sorted(labels.items()))


@dataclass(frozen=True)
class NodePatchPlan:
    """The labels and taint the program applies to one named node of an existing cluster (server-side apply)."""

    node: str
    pool: str
    labels: dict[str, str]
    taints: tuple[tuple[str, str, str], ...]  # (key, value, effect)


def existing_node_plans(config: StackConfig) -> tuple[NodePatchPlan, ...]:
    """platform existing: one patch per node named in `nodePools[i].nodes`, in pool then node order."""
    if config.platform != "existing":
        return ()
    return tuple(
        NodePatchPlan(node=node, pool=pool.name, labels=pool_labels(pool), taints=(pool_taint(),))
        for pool in sorted(config.node_pools, key=lambda p: p.name)
        for node in pool.nodes
    )


def unmapped_pools(config: StackConfig) -> list[NodePool]:
    """platform existing: the pools that name no nodes, whose labels and taint someone else must apply."""
    return [p for p in config.node_pools if not p.nodes] if config.platform == "existing" else []


def label_commands(pool: NodePool, node: str = NODE_PLACEHOLDER) -> list[str]:
    """The kubectl commands that give a node the pool's labels and taint (what the program's NodePatch applies)."""
    key, value, effect = pool_taint()
    labels = " ".join(shlex.quote(f"{k}={v}") for k, v in pool_labels(pool).items())
    return [
        f"kubectl label node {node} --overwrite {labels}",
        f"kubectl taint node {node} --overwrite {shlex.quote(f'{key}={value}:{effect}')}",
    ]


def unmapped_pool_warning(pool: NodePool) -> str:
    """What preview and `pulumi up` say about a pool of an existing cluster that names no nodes."""
    commands = "; ".join(label_commands(pool))
    return (
        f"pool {pool.name}: no nodes listed (nodePools[].nodes), so this stack labels and taints none; its GPU software "
        f"(NFD, the GPU Operator's operands, the {'DRA kubelet plugin' if pool.gpu_stack == 'dra' else 'device plugin'}) "
        f"will not run on any node until you run, for each of its nodes: {commands}"
    )
