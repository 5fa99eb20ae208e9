"""ClusterAutoscaler (EKS): the cluster-autoscaler Helm release at the cluster's Kubernetes minor, with its own
IAM role handed to its service account through EKS Pod Identity (dra_gpu_platform/plans/eks.py `autoscaler_plan`)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.resources.clusters.eks_addons import trust_policy
from dra_gpu_platform.resources.software.helm_release import pinned_release


@dataclass(frozen=True)
class ClusterAutoscalerArgs:
    plan: eks_plan.AutoscalerPlan
    cluster_name: pulumi.Input[str]
    provider: k8s.Provider
    protect: bool = False
    after: Sequence[pulumi.Resource] = ()  # the Pod Identity agent must run before the autoscaler asks it
    tags: dict[str, str] = field(default_factory=dict)
    cluster_arn: pulumi.Input[str] = ""  # the role's trust names it (Pod Identity's eks-cluster-arn session tag)


class ClusterAutoscaler(pulumi.ComponentResource):
    release: k8s.helm.v3.Release

    def __init__(self, name: str, args: ClusterAutoscalerArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.CLUSTER_AUTOSCALER, name, None, opts)
        plan = args.plan
        role = aws.iam.Role(
            child(name, "role"),
            assume_role_policy=trust_policy(args.cluster_arn, plan.namespace, plan.service_account),
            description="cluster-autoscaler through EKS Pod Identity",
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
        )
        policy = aws.iam.RolePolicy(
            child(name, "policy"),
            role=role.id,
            policy=json.dumps(plan.policy),
            opts=pulumi.ResourceOptions(parent=self),
        )
        association = aws.eks.PodIdentityAssociation(
            child(name, "pod-identity"),
            cluster_name=args.cluster_name,
            namespace=plan.namespace,
            service_account=plan.service_account,
            role_arn=role.arn,
            tags=args.tags,
            opts=pulumi.ResourceOptions(parent=self, depends_on=list(args.after)),
        )
        release = plan.release
        self.release = pinned_release(
            child(name, "release"),
            release,
            namespace=release.namespace,
            # credentials exist before the pod starts asking for them
            opts=pulumi.ResourceOptions(
                parent=self,
                provider=args.provider,
                protect=args.protect,
                depends_on=[policy, association],
            ),
        )
        self.register_outputs(
            {"release": release.release, "version": release.values["image"]["tag"], "roleArn": role.arn}
        )
