"""EksAddons: EKS managed add-ons (dra_gpu_platform/facts/eks_addons.py), each at its version for the cluster's Kubernetes
minor, and for those that call AWS APIs their own IAM role handed to their service account through EKS Pod
Identity (so nothing depends on the node role's credentials)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from dra_gpu_platform.facts import eks_addons
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan

ADDON_TIMEOUTS = pulumi.CustomTimeouts(create="20m", update="20m", delete="40m")


@dataclass(frozen=True)
class EksAddonsArgs:
    addons: tuple[eks_plan.AddonPlan, ...]
    cluster_name: pulumi.Input[str]
    protect: bool = False  # protects the add-ons' IAM roles
    after: Sequence[pulumi.Resource] = ()  # what must exist first (nodes, for add-ons that run Deployments)
    tags: dict[str, str] = field(default_factory=dict)
    cluster_arn: pulumi.Input[str] = ""  # the roles' trust names it (Pod Identity's eks-cluster-arn session tag)


def trust_policy(cluster_arn: pulumi.Input[str], namespace: str, service_account: str) -> pulumi.Output[str]:
    """A Pod Identity role's trust policy, for this cluster's service account only (dra_gpu_platform/plans/eks.py)."""
    return pulumi.Output.from_input(cluster_arn).apply(
        lambda arn: json.dumps(eks_plan.pod_identity_trust_policy(arn, namespace, service_account))
    )


class EksAddons(pulumi.ComponentResource):
    addons: dict[str, aws.eks.Addon]

    def __init__(self, name: str, args: EksAddonsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_ADDONS, name, None, opts)
        self.addons = {}
        for addon in args.addons:
            associations = None
            depends: list[pulumi.Resource] = list(args.after)
            if addon.service_account is not None and addon.policy_arn is not None:
                namespace, service_account = addon.service_account
                role = aws.iam.Role(
                    child(name, addon.name, "role"),
                    assume_role_policy=trust_policy(args.cluster_arn, namespace, service_account),
                    description=f"EKS add-on {addon.name} through EKS Pod Identity",
                    tags=args.tags,
                    opts=pulumi.ResourceOptions(parent=self, protect=args.protect),
                )
                attachment = aws.iam.RolePolicyAttachment(
                    child(name, addon.name, "role", addon.policy_arn.rsplit("/", 1)[-1]),
                    role=role.name,
                    policy_arn=addon.policy_arn,
                    opts=pulumi.ResourceOptions(parent=self),
                )
                depends.append(attachment)
                associations = [
                    aws.eks.AddonPodIdentityAssociationArgs(role_arn=role.arn, service_account=addon.service_account[1])
                ]
            self.addons[addon.name] = aws.eks.Addon(
                child(name, addon.name),
                cluster_name=args.cluster_name,
                addon_name=addon.name,
                addon_version=addon.version,
                pod_identity_associations=associations,
                configuration_values=addon.configuration,
                resolve_conflicts_on_create=eks_addons.RESOLVE_CONFLICTS_ON_CREATE,
                resolve_conflicts_on_update=eks_addons.RESOLVE_CONFLICTS_ON_UPDATE,
                preserve=addon.preserve or None,
                tags=args.tags,
                opts=pulumi.ResourceOptions(parent=self, depends_on=depends, custom_timeouts=ADDON_TIMEOUTS),
            )
        self.register_outputs({"addons": {n: a.addon_version for n, a in sorted(self.addons.items())}})
