"""The karpenter.sh/v1 NodePool of a GPU pool, whoever runs Karpenter (the stack's chart, EKS Auto Mode, AKS node
auto-provisioning): the pool's labels and taints on every node it launches, requirements from its instance types,
purchase option and zone, `limits.nodes` from maxNodes, and disruption suited to GPU nodes. Pure: no Pulumi imports.

Fields (docs/references.md#karpenter-nodepool-crd): aws/karpenter-provider-aws@release-v1.14.1
`pkg/apis/crds/karpenter.sh_nodepools.yaml` (template.metadata.labels :210, requirements :280, taints :389, expireAfter
:239, terminationGracePeriod :425, nodeClassRef :248, limits :168, disruption :73-153). `limits.nodes` counts nodes
(kubernetes-sigs/karpenter@v1.14.1 pkg/utils/resources/resources.go:27); an `nvidia.com/gpu` limit would not bind on
DRA nodes, whose capacity has none.
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.facts import karpenter
from dra_gpu_platform.facts.node_labels import POOL_LABEL
from dra_gpu_platform.plans.node_pools import PoolPlan

# What each provisioner calls the pool's instance types (AKS: karpenter.azure.com/sku-name).
INSTANCE_TYPE_KEY = karpenter.INSTANCE_TYPE_LABEL


def capacity_types(pool: PoolPlan) -> list[str]:
    """karpenter.sh/capacity-type values of the pool's purchase option: a Capacity Block is `reserved` capacity, an
    on-demand pool in a capacity reservation prefers it and falls back to on-demand
    (website/content/en/v1.14/tasks/odcrs.md:31-47)."""
    if pool.capacity == "capacity-block":
        return [karpenter.CAPACITY_RESERVED]
    if pool.capacity == "spot":
        return [karpenter.CAPACITY_SPOT]
    if pool.capacity_reservation_id:
        return [karpenter.CAPACITY_RESERVED, karpenter.CAPACITY_ON_DEMAND]
    return [karpenter.CAPACITY_ON_DEMAND]


def requirements(pool: PoolPlan, instance_type_key: str = INSTANCE_TYPE_KEY) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [
        {"key": instance_type_key, "operator": "In", "values": list(pool.types)},
        {"key": karpenter.ARCH_LABEL, "operator": "In", "values": [pool.node_arch]},
        {"key": karpenter.CAPACITY_TYPE_LABEL, "operator": "In", "values": capacity_types(pool)},
    ]
    if pool.zone:
        found.append({"key": karpenter.ZONE_LABEL, "operator": "In", "values": [pool.zone]})
    return found


def node_pool_manifest(
    pool: PoolPlan, node_class: dict[str, str], *, instance_type_key: str = INSTANCE_TYPE_KEY
) -> dict[str, Any]:
    """The NodePool of `pool`, launching nodes of the node class `node_class` ({group, kind, name})."""
    return {
        "apiVersion": karpenter.NODEPOOL_API,
        "kind": karpenter.NODEPOOL_KIND,
        "metadata": {"name": pool.name, "labels": {POOL_LABEL: pool.name}},
        "spec": {
            "template": {
                # copied to the NodeClaim and to the Node at registration (kubernetes-sigs/karpenter@v1.14.1
                # pkg/controllers/nodeclaim/lifecycle/registration.go:207-220): the GPU software's selectors hold
                # from the node's first moment
                "metadata": {"labels": dict(pool.labels)},
                "spec": {
                    "nodeClassRef": dict(node_class),
                    "requirements": requirements(pool, instance_type_key),
                    "taints": [t.manifest() for t in pool.taints],
                    "expireAfter": karpenter.EXPIRE_AFTER,
                    "terminationGracePeriod": karpenter.TERMINATION_GRACE_PERIOD,
                },
            },
            "limits": {"nodes": str(pool.max_nodes)},
            "disruption": {
                "consolidationPolicy": karpenter.CONSOLIDATION_POLICY,
                "consolidateAfter": karpenter.CONSOLIDATE_AFTER,
                "budgets": [{"nodes": karpenter.DISRUPTION_BUDGET_NODES}],
            },
        },
    }
