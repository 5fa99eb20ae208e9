"""AksGpuNodePool: one stack node pool as an AKS user agent pool: VM size from the catalog, autoscaling,
the nvidia.com/gpu taint and pool labels, the GPU driver choice, MIG partitioning and Spot priority."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
from pulumi_azure_native import containerservice

from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts.catalog import InstanceType
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import aks as aks_plan
from dra_gpu_platform.plans.node_pools import pool_labels

GPU_POOL_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="60m")


@dataclass(frozen=True)
class AksGpuNodePoolArgs:
    pool: NodePool
    shape: InstanceType
    cluster_name: pulumi.Input[str]
    resource_group_name: pulumi.Input[str]
    kubernetes_version: str
    gpu_driver: str  # aks_plan.gpu_driver(config)
    autoscaled: bool = True  # sized by the managed cluster autoscaler between minNodes and maxNodes
    protect: bool = False


class AksGpuNodePool(pulumi.ComponentResource):
    agent_pool: containerservice.AgentPool

    def __init__(self, name: str, args: AksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.AKS_GPU_NODE_POOL, name, None, opts)
        pool, shape = args.pool, args.shape
        spot = pool.capacity == "spot"
        self.agent_pool = containerservice.AgentPool(
            child(name, "agent-pool"),
            agent_pool_name=aks_facts.agent_pool_name(pool.name),
            resource_name_=args.cluster_name,
            resource_group_name=args.resource_group_name,
            mode=containerservice.AgentPoolMode.USER,
            os_type=containerservice.OSType.LINUX,
            os_sku=aks_facts.OS_SKU,
            orchestrator_version=args.kubernetes_version,
            vm_size=shape.name,
            os_disk_size_gb=pool.disk_size_gb,
            enable_auto_scaling=args.autoscaled,
            min_count=pool.min_nodes if args.autoscaled else None,
            max_count=pool.max_nodes if args.autoscaled else None,
            count=pool.initial_nodes,
            node_labels=pool_labels(pool),
            node_taints=aks_plan.node_taints(pool),
            gpu_profile=containerservice.GPUProfileArgs(driver=args.gpu_driver),
            gpu_instance_profile=aks_facts.gpu_instance_profile(pool.gpu, pool.mig.profile) if pool.mig else None,
            scale_set_priority=aks_facts.SPOT_PRIORITY if spot else None,
            scale_set_eviction_policy=aks_facts.SPOT_EVICTION if spot else None,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                custom_timeouts=GPU_POOL_TIMEOUTS,
                # The cluster autoscaler owns the node count between min and max.
                ignore_changes=["count"] if args.autoscaled else None,
            ),
        )
        self.register_outputs(
            {
                "agentPoolName": aks_facts.agent_pool_name(pool.name),
                "vmSize": shape.name,
                "gpusPerNode": shape.gpus,
                "maxGpus": shape.gpus * pool.max_nodes,
            }
        )
