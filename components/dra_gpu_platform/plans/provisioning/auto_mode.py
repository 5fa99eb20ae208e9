"""EKS Auto Mode as plain data: the cluster's compute configuration, and per GPU pool a NodePool and its NodeClass.
Pure: no Pulumi imports.

Facts: dra_gpu_platform/facts/auto_mode.py. The NodeClass (eks.amazonaws.com/v1, awsdocs/amazon-eks-user-guide
`automode/create-node-class.adoc:53-99`): role, subnets and security groups by id, ephemeralStorage.size, tags; the
NodePool is Karpenter's (`create-node-pool.adoc:43-57`), with nodeClassRef group eks.amazonaws.com.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts import auto_mode
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG, POOL_LABEL
from dra_gpu_platform.plans.node_pools import PoolPlan, uses_efa
from dra_gpu_platform.plans.provisioning.node_pools import node_pool_manifest


@dataclass(frozen=True)
class AutoModePoolPlan:
    pool: PoolPlan

    @property
    def node_pool(self) -> dict[str, Any]:
        return node_pool_manifest(
            self.pool,
            {"group": auto_mode.NODE_CLASS_GROUP, "kind": auto_mode.NODE_CLASS_KIND, "name": self.pool.name},
        )


@dataclass(frozen=True)
class AutoModePlan:
    node_pools: tuple[str, ...]  # the built-in pools (none: the GPU NodePools are the stack's own)
    pools: tuple[AutoModePoolPlan, ...]
    notes: tuple[str, ...] = ()


def node_class_manifest(
    plan: AutoModePoolPlan,
    cluster_name: str,
    role: str,
    subnet_ids: Sequence[str],
    security_group_ids: Sequence[str],
) -> dict[str, Any]:
    pool = plan.pool
    return {
        "apiVersion": auto_mode.NODE_CLASS_API,
        "kind": auto_mode.NODE_CLASS_KIND,
        "metadata": {"name": pool.name, "labels": {POOL_LABEL: pool.name}},
        "spec": {
            "role": role,
            "subnetSelectorTerms": [{"id": subnet} for subnet in subnet_ids],
            "securityGroupSelectorTerms": [{"id": group} for group in security_group_ids],
            "ephemeralStorage": {"size": f"{pool.disk_size_gb}Gi"},
            "tags": {CLUSTER_TAG: cluster_name, POOL_LABEL: pool.name},
        },
    }


def auto_mode_plan(pools: Sequence[PoolPlan]) -> AutoModePlan:
    notes = [
        f"pool {p.name}: EKS Auto Mode runs the NVIDIA driver and device plugin on its nodes itself: no GPU Operator, "
        "device-plugin or DRA driver chart is installed for them"
        for p in pools[:1]
    ]
    notes += [
        f"pool {p.name}: {p.instance_type} has EFA interfaces; EKS Auto Mode attaches them itself (not the EFA "
        "device plugin of cluster-autoscaler stacks), unverified here"
        for p in pools
        if uses_efa(p.shape)
    ]
    return AutoModePlan(
        node_pools=auto_mode.BUILT_IN_NODE_POOLS,
        pools=tuple(AutoModePoolPlan(pool) for pool in pools),
        notes=tuple(notes),
    )
