"""AKS node auto-provisioning as plain data: per GPU pool a NodePool and its AKSNodeClass. Pure: no Pulumi imports.

Facts: dra_gpu_platform/facts/node_auto_provisioning.py. The AKSNodeClass (karpenter.azure.com/v1beta1,
Azure/karpenter-provider-azure@v1.14.2 `pkg/apis/crds/karpenter.azure.com_aksnodeclasses.yaml`): imageFamily,
osDiskSizeGB, gpu.mode (Driver: AKS installs the NVIDIA driver; None: the GPU Operator does), tags; the NodePool names
its VM sizes with `karpenter.azure.com/sku-name` (MicrosoftDocs/azure-aks-docs `node-auto-provisioning-node-pools.md`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts import node_auto_provisioning as nap
from dra_gpu_platform.facts.aks import GPU_DRIVER_NONE
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG, POOL_LABEL
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.provisioning.node_pools import node_pool_manifest


@dataclass(frozen=True)
class NapPoolPlan:
    pool: PoolPlan
    gpu_mode: str  # AKSNodeClass gpu.mode

    @property
    def node_pool(self) -> dict[str, Any]:
        return node_pool_manifest(
            self.pool,
            {"group": nap.NODE_CLASS_GROUP, "kind": nap.NODE_CLASS_KIND, "name": self.pool.name},
            instance_type_key=nap.SKU_NAME_LABEL,
        )

    def node_class(self, cluster_name: str) -> dict[str, Any]:
        return {
            "apiVersion": nap.NODE_CLASS_API,
            "kind": nap.NODE_CLASS_KIND,
            "metadata": {"name": self.pool.name, "labels": {POOL_LABEL: self.pool.name}},
            "spec": {
                "imageFamily": nap.IMAGE_FAMILY,
                "osDiskSizeGB": self.pool.disk_size_gb,
                "gpu": {"mode": self.gpu_mode},
                "tags": {CLUSTER_TAG: cluster_name, POOL_LABEL: self.pool.name},
            },
        }


@dataclass(frozen=True)
class NapPlan:
    pools: tuple[NapPoolPlan, ...]
    mode: str = nap.MODE_AUTO
    default_node_pools: str = nap.DEFAULT_NODE_POOLS_NONE


def nap_plan(pools: Sequence[PoolPlan], gpu_driver: str) -> NapPlan:
    mode = nap.GPU_MODE_NONE if gpu_driver == GPU_DRIVER_NONE else nap.GPU_MODE_DRIVER
    return NapPlan(pools=tuple(NapPoolPlan(pool, mode) for pool in pools))
