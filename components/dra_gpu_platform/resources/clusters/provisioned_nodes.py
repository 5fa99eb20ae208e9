"""What the provisioner components (Karpenter, EksAutoModePools, AksNodeAutoProvisioning) create alike: the IAM role
of the nodes a provisioner launches on EKS with its access entry, and per GPU pool a node class with the karpenter.sh
NodePool that names it. Functions, no component: each component creates these as its own children, so their URNs name
the component that owns them.

Node classes and NodePools are custom resources (Karpenter's chart, Auto Mode and AKS install their CRDs):
pulumi_kubernetes has no typed class for them (it ships the Kubernetes API's kinds only), so they are
`apiextensions.CustomResource` with the cluster's explicit provider."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import karpenter as karpenter_facts
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.plans import eks as eks_plan


@dataclass(frozen=True)
class NodeRole:
    role: aws.iam.Role
    attachments: list[aws.iam.RolePolicyAttachment]
    access_entry: aws.eks.AccessEntry


def node_role(
    owner: pulumi.ComponentResource,
    name: str,
    *,
    description: str,
    region: str,
    cluster_name: pulumi.Input[str],
    policies: Sequence[str],
    access_entry_type: str,
    tags: dict[str, str],
    protect: bool,
) -> NodeRole:
    """The nodes' role (EC2 assumes it), its managed policies and the cluster access entry of the type the provisioner
    needs (EC2_LINUX for Karpenter's nodes, EC2 for Auto Mode's)."""
    parent = pulumi.ResourceOptions(parent=owner)
    role = aws.iam.Role(
        child(name, "node-role"),
        assume_role_policy=json.dumps(eks_plan.assume_role_policy("ec2.amazonaws.com")),
        description=description,
        tags=tags,
        opts=pulumi.ResourceOptions(parent=owner, protect=protect),
    )
    attachments = [
        aws.iam.RolePolicyAttachment(
            child(name, "node-role", policy),
            role=role.name,
            policy_arn=eks_plan.managed_policy_arn(region, policy),
            opts=parent,
        )
        for policy in policies
    ]
    entry = aws.eks.AccessEntry(
        child(name, "node-access"),
        cluster_name=cluster_name,
        principal_arn=role.arn,
        type=access_entry_type,
        tags=tags,
        opts=parent,
    )
    return NodeRole(role, attachments, entry)


@dataclass(frozen=True)
class NodeClass:
    """A node class as its component computes it: the CRD's apiVersion and kind, labels and spec."""

    api_version: str
    kind: str
    labels: pulumi.Input[dict[str, str]]
    spec: pulumi.Input[Any]


def node_class_and_pool(
    owner: pulumi.ComponentResource,
    name: str,
    pool: str,
    node_class: NodeClass,
    node_pool: dict[str, Any],
    *,
    provider: k8s.Provider,
    protect: bool,
    class_opts: pulumi.ResourceOptions,
) -> k8s.apiextensions.CustomResource:
    """The pool's node class (with `class_opts`: after what installs its CRD) and its NodePool (the manifest the plan
    wrote) after it; returns the NodePool."""
    created = k8s.apiextensions.CustomResource(
        child(name, "node-class", pool),
        api_version=node_class.api_version,
        kind=node_class.kind,
        metadata=k8s.meta.v1.ObjectMetaArgs(name=pool, labels=node_class.labels),
        spec=node_class.spec,
        opts=class_opts,
    )
    return k8s.apiextensions.CustomResource(
        child(name, "node-pool", pool),
        api_version=karpenter_facts.NODEPOOL_API,
        kind=karpenter_facts.NODEPOOL_KIND,
        metadata=k8s.meta.v1.ObjectMetaArgs(name=pool, labels=node_pool["metadata"]["labels"]),
        spec=node_pool["spec"],
        opts=pulumi.ResourceOptions(parent=owner, provider=provider, protect=protect, depends_on=[created]),
    )
