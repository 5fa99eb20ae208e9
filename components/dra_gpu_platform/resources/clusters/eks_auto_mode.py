"""EksAutoModePools (EKS Auto Mode): the node role of the GPU pools with its access entry (type EC2, the
AmazonEKSAutoNodePolicy access policy), and per GPU pool a NodeClass and a NodePool
(dra_gpu_platform/plans/provisioning/auto_mode.py). The cluster's compute, storage and load-balancing capabilities are
set on the cluster itself (dra_gpu_platform/resources/clusters/eks.py).

NodeClass and NodePool are Auto Mode's built-in custom resources: pulumi_kubernetes has no typed class for them (it
ships the Kubernetes API's kinds only), so they are `apiextensions.CustomResource` with the cluster's explicit provider."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import auto_mode as facts
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.provisioning import auto_mode as plan_of
from dra_gpu_platform.resources.clusters import provisioned_nodes


@dataclass(frozen=True)
class EksAutoModePoolsArgs:
    plan: plan_of.AutoModePlan
    cluster_name: pulumi.Input[str]
    region: str
    pool_subnets: Mapping[str, pulumi.Input[list[str]]]
    security_group_id: pulumi.Input[str]
    provider: k8s.Provider
    protect: bool = False
    tags: dict[str, str] = field(default_factory=dict)


class EksAutoModePools(pulumi.ComponentResource):
    node_pools: dict[str, k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: EksAutoModePoolsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_AUTO_MODE_POOLS, name, None, opts)
        plan = args.plan
        parent = pulumi.ResourceOptions(parent=self)
        nodes = provisioned_nodes.node_role(
            self,
            name,
            description="EKS Auto Mode GPU nodes",
            region=args.region,
            cluster_name=args.cluster_name,
            policies=facts.NODE_POLICIES,
            access_entry_type=facts.NODE_ACCESS_ENTRY_TYPE,
            tags=args.tags,
            protect=args.protect,
        )
        node_role = nodes.role
        access = aws.eks.AccessPolicyAssociation(
            child(name, "node-access", "auto-node"),
            cluster_name=args.cluster_name,
            principal_arn=nodes.access_entry.principal_arn,
            policy_arn=eks_plan.access_policy_arn(args.region, facts.NODE_ACCESS_POLICY),
            access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
            opts=parent,
        )
        ready = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[*nodes.attachments, access])
        self.node_pools = {}
        for pool_plan in plan.pools:
            pool = pool_plan.pool
            manifest = pool_plan.node_pool
            spec = pulumi.Output.all(
                args.cluster_name, node_role.name, args.pool_subnets[pool.name], args.security_group_id
            ).apply(
                lambda parts, p=pool_plan: plan_of.node_class_manifest(p, parts[0], parts[1], parts[2], [parts[3]])[
                    "spec"
                ]
            )
            self.node_pools[pool.name] = provisioned_nodes.node_class_and_pool(
                self,
                name,
                pool.name,
                provisioned_nodes.NodeClass(
                    facts.NODE_CLASS_API, facts.NODE_CLASS_KIND, manifest["metadata"]["labels"], spec
                ),
                manifest,
                provider=args.provider,
                protect=args.protect,
                class_opts=ready,
            )
        self.register_outputs({"nodeRoleArn": node_role.arn, "nodePools": sorted(self.node_pools)})
