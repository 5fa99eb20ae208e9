"""Every upstream type token we compare against is the one the installed provider SDK registers, and every token
of ours appears in the golden URNs (so a rename cannot slip through)."""

from __future__ import annotations

import importlib
import inspect

import pytest

from dra_gpu_platform.facts.type_tokens import Component, Upstream
from tests.conftest import ROOT

SDK_CLASSES = {
    Upstream.COMMAND: ("pulumi_command.local", "Command"),
    Upstream.EKS_CLUSTER: ("pulumi_aws.eks", "Cluster"),
    Upstream.EKS_NODE_GROUP: ("pulumi_aws.eks", "NodeGroup"),
    Upstream.EKS_ACCESS_ENTRY: ("pulumi_aws.eks", "AccessEntry"),
    Upstream.EKS_ACCESS_POLICY_ASSOCIATION: ("pulumi_aws.eks", "AccessPolicyAssociation"),
    Upstream.EKS_ADDON: ("pulumi_aws.eks", "Addon"),
    Upstream.EKS_POD_IDENTITY_ASSOCIATION: ("pulumi_aws.eks", "PodIdentityAssociation"),
    Upstream.IAM_ROLE_POLICY: ("pulumi_aws.iam", "RolePolicy"),
    Upstream.VPC_SECURITY_GROUP_INGRESS_RULE: ("pulumi_aws.vpc", "SecurityGroupIngressRule"),
    Upstream.CLOUDWATCH_LOG_GROUP: ("pulumi_aws.cloudwatch", "LogGroup"),
    Upstream.AUTOSCALING_SCHEDULE: ("pulumi_aws.autoscaling", "Schedule"),
    Upstream.AZURE_ROLE_ASSIGNMENT: ("pulumi_azure_native.authorization", "RoleAssignment"),
    Upstream.AZURE_DIAGNOSTIC_SETTING: ("pulumi_azure_native.monitor", "DiagnosticSetting"),
    Upstream.AZURE_LOG_ANALYTICS_WORKSPACE: ("pulumi_azure_native.operationalinsights", "Workspace"),
    Upstream.EC2_LAUNCH_TEMPLATE: ("pulumi_aws.ec2", "LaunchTemplate"),
    Upstream.EC2_PLACEMENT_GROUP: ("pulumi_aws.ec2", "PlacementGroup"),
    Upstream.EC2_VPC: ("pulumi_aws.ec2", "Vpc"),
    Upstream.EC2_SUBNET: ("pulumi_aws.ec2", "Subnet"),
    Upstream.EC2_ROUTE_TABLE: ("pulumi_aws.ec2", "RouteTable"),
    Upstream.EC2_ROUTE_TABLE_ASSOCIATION: ("pulumi_aws.ec2", "RouteTableAssociation"),
    Upstream.EC2_NAT_GATEWAY: ("pulumi_aws.ec2", "NatGateway"),
    Upstream.EC2_INTERNET_GATEWAY: ("pulumi_aws.ec2", "InternetGateway"),
    Upstream.EC2_EIP: ("pulumi_aws.ec2", "Eip"),
    Upstream.IAM_ROLE: ("pulumi_aws.iam", "Role"),
    Upstream.IAM_ROLE_POLICY_ATTACHMENT: ("pulumi_aws.iam", "RolePolicyAttachment"),
    Upstream.KMS_KEY: ("pulumi_aws.kms", "Key"),
    Upstream.AUTOSCALING_TAG: ("pulumi_aws.autoscaling", "Tag"),
    Upstream.AKS_MANAGED_CLUSTER: ("pulumi_azure_native.containerservice", "ManagedCluster"),
    Upstream.AKS_AGENT_POOL: ("pulumi_azure_native.containerservice", "AgentPool"),
    Upstream.AZURE_RESOURCE_GROUP: ("pulumi_azure_native.resources", "ResourceGroup"),
    Upstream.HELM_RELEASE: ("pulumi_kubernetes.helm.v3", "Release"),
    Upstream.HELM_CHART_V4: ("pulumi_kubernetes.helm.v4", "Chart"),
    Upstream.NAMESPACE: ("pulumi_kubernetes.core.v1", "Namespace"),
    Upstream.NODE_PATCH: ("pulumi_kubernetes.core.v1", "NodePatch"),
    Upstream.RESOURCE_QUOTA: ("pulumi_kubernetes.core.v1", "ResourceQuota"),
    Upstream.NETWORK_POLICY: ("pulumi_kubernetes.networking.v1", "NetworkPolicy"),
    Upstream.DEVICE_CLASS: ("pulumi_kubernetes.resource.v1", "DeviceClass"),
    Upstream.RESOURCE_CLAIM_TEMPLATE: ("pulumi_kubernetes.resource.v1", "ResourceClaimTemplate"),
    Upstream.RESOURCE_CLAIM: ("pulumi_kubernetes.resource.v1", "ResourceClaim"),
    Upstream.DEVICE_TAINT_RULE: ("pulumi_kubernetes.resource.v1alpha3", "DeviceTaintRule"),
    Upstream.DEVICE_TAINT_RULE_V1BETA2: ("pulumi_kubernetes.resource.v1beta2", "DeviceTaintRule"),
    Upstream.DEVICE_TAINT_RULE_V1: ("pulumi_kubernetes.resource.v1", "DeviceTaintRule"),
    Upstream.IAM_POLICY: ("pulumi_aws.iam", "Policy"),
    Upstream.SQS_QUEUE: ("pulumi_aws.sqs", "Queue"),
    Upstream.SQS_QUEUE_POLICY: ("pulumi_aws.sqs", "QueuePolicy"),
    Upstream.EVENT_RULE: ("pulumi_aws.cloudwatch", "EventRule"),
    Upstream.EVENT_TARGET: ("pulumi_aws.cloudwatch", "EventTarget"),
}
# Kinds of CRDs: apiextensions.CustomResource registers `kubernetes:<apiVersion>:<kind>` for them (no SDK class).
CUSTOM_RESOURCES = {
    Upstream.KARPENTER_NODE_POOL: ("karpenter.sh/v1", "NodePool"),
    Upstream.EC2_NODE_CLASS: ("karpenter.k8s.aws/v1", "EC2NodeClass"),
    Upstream.AUTO_MODE_NODE_CLASS: ("eks.amazonaws.com/v1", "NodeClass"),
    Upstream.AKS_NODE_CLASS: ("karpenter.azure.com/v1beta1", "AKSNodeClass"),
}


def _tokens(cls) -> dict[str, str]:
    return {name: value for name, value in vars(cls).items() if name.isupper() and isinstance(value, str)}


def test_every_upstream_token_is_mapped_to_an_sdk_class():
    unmapped = {
        name
        for name, token in _tokens(Upstream).items()
        if token not in SDK_CLASSES and token not in CUSTOM_RESOURCES and not token.startswith("pulumi:")
    }
    assert unmapped == set()


@pytest.mark.parametrize("token", sorted(CUSTOM_RESOURCES))
def test_custom_resource_tokens_are_what_custom_resource_registers(token):
    from pulumi_kubernetes.apiextensions import CustomResource

    api_version, kind = CUSTOM_RESOURCES[token]
    assert 'f"kubernetes:{api_version}:{kind}"' in inspect.getsource(CustomResource)
    assert token == f"kubernetes:{api_version}:{kind}"


@pytest.mark.parametrize("token", sorted(SDK_CLASSES))
def test_upstream_token_is_what_the_sdk_registers(token):
    module, name = SDK_CLASSES[token]
    source = inspect.getsource(getattr(importlib.import_module(module), name))
    assert f"'{token}'" in source or f'"{token}"' in source


def test_every_component_token_is_in_a_golden_urn_file():
    golden = "\n".join(p.read_text() for p in (ROOT / "tests" / "golden" / "urns").glob("*.txt"))
    # no committed stack adopts a cluster or creates its own VPC, and none runs Kubernetes 1.36 (where the GPU
    # toleration policy is created); tests/resources cover those three, and the NodePool provisioners' components
    # (Karpenter, EKS Auto Mode, AKS NAP) are covered by tests/acceptance/test_provisioner_stacks.py
    not_committed = {
        Component.EXISTING_CLUSTER,
        Component.EKS_NETWORK,
        Component.GPU_TOLERATION_POLICY,
        Component.KARPENTER,
        Component.EKS_AUTO_MODE_POOLS,
        Component.AKS_NODE_AUTO_PROVISIONING,
    }
    missing = {t for t in _tokens(Component).values() if t not in golden and t not in not_committed}
    assert missing == set()
