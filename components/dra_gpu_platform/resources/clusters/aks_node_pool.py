"""AksGpuNodePool: one stack node pool as an AKS user agent pool: its VM size, autoscaling, the pool's labels
and taints (the GPU taint, and AKS's own on Spot pools), the GPU driver choice, MIG partitioning and Spot
priority, all from its AksAgentPoolPlan (dra_gpu_platform/plans/aks.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
from pulumi_azure_native import containerservice

from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import aks as aks_plan
from dra_gpu_platform.plans import parts

GPU_POOL_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="60m")


@dataclass(frozen=True)
class AksGpuNodePoolArgs:
    plan: aks_plan.AksAgentPoolPlan
    cluster_name: pulumi.Input[str]
    resource_group_name: pulumi.Input[str]
    kubernetes_version: str
    protect: bool = False

    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> AksGpuNodePoolArgs:
        """The pool named `pool` of a stack file's sections (every section but `cluster`; keys without the prefix),
        on the existing AKS cluster `cluster_name` in `resource_group_name`, of `kubernetes_version` in the Azure
        location `region`. Validated as a stack file is (one ConfigError listing every problem), then planned as
        GpuPlatform plans it. The arguments and their docs: dra_gpu_platform/config/descriptors.py AKS_GPU_NODE_POOL
        (docs/library.md)."""
        part = parts.plan_part(parts.AKS_GPU_NODE_POOL, sections, arguments, stack=pulumi.get_stack())
        return cls(plan=part.plan, **part.kept(parts.AKS_GPU_NODE_POOL))


class AksGpuNodePool(pulumi.ComponentResource):
    agent_pool: containerservice.AgentPool

    def __init__(self, name: str, args: AksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.AKS_GPU_NODE_POOL, name, None, opts)
        plan = args.plan
        pool = plan.pool
        self.agent_pool = containerservice.AgentPool(
            child(name, "agent-pool"),
            agent_pool_name=plan.agent_pool_name,
            resource_name_=args.cluster_name,
            resource_group_name=args.resource_group_name,
            mode=containerservice.AgentPoolMode.USER,
            os_type=containerservice.OSType.LINUX,
            os_sku=aks_facts.OS_SKU,
            orchestrator_version=args.kubernetes_version,
            vm_size=pool.instance_type,
            os_disk_size_gb=pool.disk_size_gb,
            # sized by the managed cluster autoscaler between min and max, or a fixed size Pulumi manages
            enable_auto_scaling=pool.autoscaled,
            min_count=pool.min_nodes if pool.autoscaled else None,
            max_count=pool.max_nodes if pool.autoscaled else None,
            count=pool.desired_nodes,
            node_labels=pool.labels,
            node_taints=list(plan.node_taints),
            gpu_profile=containerservice.GPUProfileArgs(driver=plan.gpu_driver),
            gpu_instance_profile=plan.gpu_instance_profile,
            scale_set_priority=aks_facts.SPOT_PRIORITY if plan.spot else None,
            scale_set_eviction_policy=aks_facts.SPOT_EVICTION if plan.spot else None,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                custom_timeouts=GPU_POOL_TIMEOUTS,
                # The cluster autoscaler owns the node count between min and max.
                ignore_changes=["count"] if pool.autoscaled else None,
            ),
        )
        self.register_outputs(
            {
                "agentPoolName": plan.agent_pool_name,
                "vmSize": pool.instance_type,
                "gpusPerNode": pool.gpus_per_node,
                "maxGpus": pool.max_gpus,
            }
        )
