"""AksNodeAutoProvisioning (AKS NAP): per GPU pool an AKSNodeClass and a NodePool for the Karpenter AKS runs
(dra_gpu_platform/plans/provisioning/node_auto_provisioning.py). The ManagedCluster's node provisioning profile that
turns NAP on is set on the cluster itself (dra_gpu_platform/resources/clusters/aks.py).

AKSNodeClass and NodePool are custom resources of the CRDs AKS installs with NAP: pulumi_kubernetes has no typed class
for them (it ships the Kubernetes API's kinds only), so they are `apiextensions.CustomResource` with the cluster's
explicit provider."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import node_auto_provisioning as facts
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.provisioning.node_auto_provisioning import NapPlan
from dra_gpu_platform.resources.clusters import provisioned_nodes


@dataclass(frozen=True)
class AksNodeAutoProvisioningArgs:
    plan: NapPlan
    cluster_name: str
    provider: k8s.Provider
    protect: bool = False


class AksNodeAutoProvisioning(pulumi.ComponentResource):
    node_pools: dict[str, k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: AksNodeAutoProvisioningArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.AKS_NODE_AUTO_PROVISIONING, name, None, opts)
        opts_k8s = pulumi.ResourceOptions(parent=self, provider=args.provider)
        self.node_pools = {}
        for pool_plan in args.plan.pools:
            pool = pool_plan.pool
            node_class = pool_plan.node_class(args.cluster_name)
            manifest = pool_plan.node_pool
            self.node_pools[pool.name] = provisioned_nodes.node_class_and_pool(
                self,
                name,
                pool.name,
                provisioned_nodes.NodeClass(
                    facts.NODE_CLASS_API, facts.NODE_CLASS_KIND, node_class["metadata"]["labels"], node_class["spec"]
                ),
                manifest,
                provider=args.provider,
                protect=args.protect,
                class_opts=opts_k8s,
            )
        self.register_outputs({"nodePools": sorted(self.node_pools)})
