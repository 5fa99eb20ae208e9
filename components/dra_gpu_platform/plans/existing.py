"""What ExistingCluster needs: a cluster someone else runs, reached through the kubeconfig the stack holds as a
secret; the nodes the stack names per pool get the pool's labels and taints. Pure: no Pulumi imports."""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.config.models import ExistingCluster, StackConfig, platform_cluster
from dra_gpu_platform.plans.node_pools import NodePatchPlan, PoolPlan, node_patches, unmapped_pool_warning


@dataclass(frozen=True)
class ExistingClusterPlan:
    name: str
    context: str | None  # kubeconfig context (cluster.existing.context); None: the file's current context
    node_patches: tuple[NodePatchPlan, ...] = ()
    # Warnings for pools that name no nodes: the kubectl commands someone must run (node_pools.label_commands)
    unmapped: tuple[str, ...] = ()


def cluster_plan(config: StackConfig, pools: tuple[PoolPlan, ...]) -> ExistingClusterPlan:
    return ExistingClusterPlan(
        name=config.cluster.name,
        context=platform_cluster(config.cluster, ExistingCluster).settings().context,
        node_patches=node_patches(pools),
        unmapped=tuple(unmapped_pool_warning(p) for p in pools if not p.nodes),
    )
