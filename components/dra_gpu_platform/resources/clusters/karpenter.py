"""Karpenter (EKS): the controller's IAM role through EKS Pod Identity, the node role with its EC2_LINUX access entry,
the SQS interruption queue with its EventBridge rules, the Karpenter chart at the pinned release with the stack's
values, and per GPU pool an EC2NodeClass and a NodePool (dra_gpu_platform/plans/provisioning/karpenter.py).

NodePools and EC2NodeClasses are custom resources of the chart's CRDs: pulumi_kubernetes has no typed class for them
(it ships classes for the Kubernetes API only; a CRD's kinds are `apiextensions.CustomResource`), so they are that, with
the cluster's explicit provider, after the release that installs the CRDs."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import eks_addons
from dra_gpu_platform.facts import karpenter as facts
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.provisioning import karpenter as plan_of
from dra_gpu_platform.resources.clusters import provisioned_nodes
from dra_gpu_platform.resources.clusters.eks_addons import trust_policy
from dra_gpu_platform.resources.software.helm_release import pinned_release


@dataclass(frozen=True)
class KarpenterArgs:
    plan: plan_of.KarpenterPlan
    cluster_name: pulumi.Input[str]
    cluster_arn: pulumi.Input[str]
    region: str
    pool_subnets: Mapping[str, pulumi.Input[list[str]]]  # pool -> its private subnets (a pinned zone's only)
    security_group_id: pulumi.Input[str]  # the cluster security group (what managed node groups get)
    provider: k8s.Provider
    protect: bool = False
    tags: dict[str, str] = field(default_factory=dict)
    after: Sequence[pulumi.Resource] = ()  # the Pod Identity agent must run before the controller asks it


def _fill(document: Any, values: Mapping[str, str]) -> Any:
    """The document with the placeholders of dra_gpu_platform/facts/karpenter.py replaced."""
    text = json.dumps(document)
    for placeholder, value in values.items():
        text = text.replace(placeholder, value)
    return json.loads(text)


class Karpenter(pulumi.ComponentResource):
    release: k8s.helm.v3.Release
    node_pools: dict[str, k8s.apiextensions.CustomResource]

    def __init__(self, name: str, args: KarpenterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.KARPENTER, name, None, opts)
        plan = args.plan
        parent = pulumi.ResourceOptions(parent=self)
        protected = pulumi.ResourceOptions(parent=self, protect=args.protect)
        tags = args.tags

        # The nodes' role: joining and pulling images, as the managed node groups' (no CNI rights: the VPC CNI has
        # its own Pod Identity role). Its own role, so its EC2_LINUX access entry does not meet the managed node
        # groups' role, whose entry EKS keeps itself.
        nodes = provisioned_nodes.node_role(
            self,
            name,
            description="Nodes Karpenter launches",
            region=args.region,
            cluster_name=args.cluster_name,
            policies=eks_addons.NODE_POLICIES,
            access_entry_type=facts.NODE_ACCESS_ENTRY_TYPE,
            tags=tags,
            protect=args.protect,
        )
        node_role = nodes.role

        queue = aws.sqs.Queue(
            child(name, "interruption-queue"),
            name=plan.queue_name,
            message_retention_seconds=facts.QUEUE_RETENTION_SECONDS,
            sqs_managed_sse_enabled=True,
            tags=tags,
            opts=parent,
        )
        queue_policy = aws.sqs.QueuePolicy(
            child(name, "interruption-queue-policy"),
            queue_url=queue.url,
            policy=queue.arn.apply(lambda arn: json.dumps(facts.queue_policy(arn))),
            opts=parent,
        )
        for suffix, pattern in plan.interruption_rules:
            rule = aws.cloudwatch.EventRule(
                child(name, "rule", suffix),
                description=f"Karpenter interruption: {pattern['detail-type'][0]}",
                event_pattern=json.dumps(pattern),
                tags=tags,
                opts=parent,
            )
            aws.cloudwatch.EventTarget(
                child(name, "rule", suffix, "target"),
                rule=rule.name,
                arn=queue.arn,
                target_id=facts.QUEUE_TARGET_ID,
                opts=parent,
            )

        controller_role = aws.iam.Role(
            child(name, "controller-role"),
            assume_role_policy=trust_policy(args.cluster_arn, plan.namespace, plan.service_account),
            description="Karpenter controller through EKS Pod Identity",
            tags=tags,
            opts=protected,
        )
        caller = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self))
        partition = eks_plan.partition(args.region)
        documents = pulumi.Output.all(caller.account_id, args.cluster_name, queue.arn, node_role.arn).apply(
            lambda parts: {
                key: json.dumps(_fill(doc, {facts.QUEUE_ARN: parts[2], facts.NODE_ROLE_ARN: parts[3]}))
                for key, doc in facts.controller_policies(partition, args.region, parts[0], parts[1]).items()
            }
        )
        attachments = []
        for key in ("node-lifecycle", "iam-integration", "eks-integration", "interruption", "resource-discovery"):
            # managed policies: their 6,144 characters each hold what the inline limit (10,240 per role) would not
            policy = aws.iam.Policy(
                child(name, "policy", key),
                description=f"Karpenter controller: {key}",
                policy=documents.apply(lambda docs, k=key: docs[k]),
                tags=tags,
                opts=parent,
            )
            attachments.append(
                aws.iam.RolePolicyAttachment(
                    child(name, "policy", key), role=controller_role.name, policy_arn=policy.arn, opts=parent
                )
            )
        association = aws.eks.PodIdentityAssociation(
            child(name, "pod-identity"),
            cluster_name=args.cluster_name,
            namespace=plan.namespace,
            service_account=plan.service_account,
            role_arn=controller_role.arn,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.after)),
        )

        self.release = pinned_release(
            child(name, "release"),
            plan.release,
            namespace=plan.release.namespace,
            # credentials, the queue and the nodes' way in exist before the controller starts
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=args.provider,
                protect=args.protect,
                depends_on=[*attachments, association, queue_policy, nodes.access_entry, *nodes.attachments],
            ),
        )

        # Custom resources of the chart's CRDs (installed from its crds/ folder with the release).
        after_release = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[self.release])
        self.node_pools = {}
        for pool_plan in plan.pools:
            pool = pool_plan.pool
            placement_id: pulumi.Input[str | None] = None
            if pool_plan.placement_group:
                # EFA traffic wants the lowest latency between nodes: one cluster placement group per pool
                group = aws.ec2.PlacementGroup(
                    child(name, "placement", pool.name), strategy="cluster", tags=tags, opts=parent
                )
                placement_id = group.placement_group_id
            node_class = pulumi.Output.all(
                args.cluster_name,
                node_role.name,
                args.pool_subnets[pool.name],
                args.security_group_id,
                placement_id,
            ).apply(
                lambda parts, p=pool_plan: plan_of.ec2_node_class_manifest(
                    p, parts[0], parts[1], parts[2], [parts[3]], parts[4]
                )
            )
            manifest = pool_plan.node_pool
            self.node_pools[pool.name] = provisioned_nodes.node_class_and_pool(
                self,
                name,
                pool.name,
                provisioned_nodes.NodeClass(
                    facts.EC2_NODE_CLASS_API,
                    facts.EC2_NODE_CLASS_KIND,
                    manifest["metadata"]["labels"],
                    node_class.apply(lambda m: m["spec"]),
                ),
                manifest,
                provider=args.provider,
                protect=args.protect,
                class_opts=after_release,
            )
        self.register_outputs(
            {
                "version": plan.version,
                "interruptionQueue": queue.name,
                "nodeRoleArn": node_role.arn,
                "controllerRoleArn": controller_role.arn,
                "nodePools": sorted(self.node_pools),
            }
        )
