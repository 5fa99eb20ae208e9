"""EksAutoModePools (EKS Auto Mode): the node role of the GPU pools with its access entry (type EC2, the
AmazonEKSAutoNodePolicy access policy), and per GPU pool a NodeClass and a NodePool
(dra_gpu_platform/plans/provisioning/auto_mode.py). The cluster's compute, storage and load-balancing capabilities are
set on the cluster itself (dra_gpu_platform/resources/clusters/eks.py).

NodeClass and NodePool are Auto Mode's built-in custom resources: pulumi_kubernetes has no typed class for them (it
ships the Kubernetes API's kinds only), so they are `apiextensions.CustomResource` with the cluster's explicit provider."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import auto_mode as facts
from dra_gpu_platform.facts import karpenter as karpenter_facts
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.provisioning import auto_mode as plan_of


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
        node_role = aws.iam.Role(
            child(name, "node-role"),
            assume_role_policy=json.dumps(eks_plan.assume_role_policy("ec2.amazonaws.com")),
            description="EKS Auto Mode GPU nodes",
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        attachments = [
            aws.iam.RolePolicyAttachment(
                child(name, "node-role", policy),
                role=node_role.name,
                policy_arn=eks_plan.managed_policy_arn(args.region, policy),
                opts=parent,
            )
            for policy in facts.NODE_POLICIES
        ]
        entry = aws.eks.AccessEntry(
            child(name, "node-access"),
            cluster_name=args.cluster_name,
            principal_arn=node_role.arn,
            type=facts.NODE_ACCESS_ENTRY_TYPE,
            tags=args.tags,
            opts=parent,
        )
        access = aws.eks.AccessPolicyAssociation(
            child(name, "node-access", "auto-node"),
            cluster_name=args.cluster_name,
            principal_arn=entry.principal_arn,
            policy_arn=eks_plan.access_policy_arn(args.region, facts.NODE_ACCESS_POLICY),
            access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
            opts=parent,
        )
        ready = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[*attachments, access])
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
            node_class = k8s.apiextensions.CustomResource(
                child(name, "node-class", pool.name),
                api_version=facts.NODE_CLASS_API,
                kind=facts.NODE_CLASS_KIND,
                metadata=k8s.meta.v1.ObjectMetaArgs(name=pool.name, labels=manifest["metadata"]["labels"]),
                spec=spec,
                opts=ready,
            )
            self.node_pools[pool.name] = k8s.apiextensions.CustomResource(
                child(name, "node-pool", pool.name),
                api_version=karpenter_facts.NODEPOOL_API,
                kind=karpenter_facts.NODEPOOL_KIND,
                metadata=k8s.meta.v1.ObjectMetaArgs(name=pool.name, labels=manifest["metadata"]["labels"]),
                spec=manifest["spec"],
                opts=pulumi.ResourceOptions(
                    parent=self, provider=args.provider, protect=args.protect, depends_on=[node_class]
                ),
            )
        self.register_outputs({"nodeRoleArn": node_role.arn, "nodePools": sorted(self.node_pools)})
