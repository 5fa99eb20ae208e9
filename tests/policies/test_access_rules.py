"""Access and identity rules, endpoint exposure, Grafana and image digests on hand-built resources: what the
platform declares passes, and each weakening is caught with its message."""

from __future__ import annotations

import json

import pytest

from dra_gpu_platform.facts.image_digests import pinned_images
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.gpu_software import ReleasePlan
from dra_gpu_platform.plans.image_digests import pin_release
from dra_gpu_platform.plans.monitoring.values import grafana_values
from dra_gpu_platform.policies.rules import access as rules
from dra_gpu_platform.policies.rules import cloud as cloud_rules
from dra_gpu_platform.policies.rules import helm as helm_rules
from tests.policies import builders as b

ROLE = "aws:iam/role:Role"
ROLE_POLICY = "aws:iam/rolePolicy:RolePolicy"
ASSIGNMENT = "azure-native:authorization:RoleAssignment"
DIAGNOSTICS = "azure-native:monitor:DiagnosticSetting"
CLUSTER_ADMIN = (
    "/subscriptions/s/providers/Microsoft.Authorization/roleDefinitions/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
)
ARN = "arn:aws:eks:us-east-1:123456789012:cluster/gpu-prod"
KPS_REPO = "https://prometheus-community.github.io/helm-charts"


# ---------------------------------------------------------------- cluster-admin-scoped


def test_eks_bootstrap_admin_and_individual_aks_admins_are_caught():
    declared = {
        **b.eks_cluster(),
        "accessConfig": {"authenticationMode": "API", "bootstrapClusterCreatorAdminPermissions": False},
    }
    group = {"principalType": "Group", "roleDefinitionId": CLUSTER_ADMIN, "principalId": "g"}
    fine = [b.resource(b.EKS_CLUSTER, declared, "eks"), b.resource(ASSIGNMENT, group, "admins")]
    assert b.check_stack(rules.CLUSTER_ADMIN_SCOPED, fine) == []
    bootstrap = b.resource(b.EKS_CLUSTER, b.eks_cluster(), "old-eks")  # no accessConfig: AWS's default, true
    person = b.resource(ASSIGNMENT, {**group, "principalType": "User"}, "me")
    reader = b.resource(
        ASSIGNMENT,
        {**group, "principalType": "User", "roleDefinitionId": "/x/7f6c6a51-bcf8-42ba-9220-52d62157d7db"},
        "r",
    )
    reported = b.check_stack(rules.CLUSTER_ADMIN_SCOPED, [bootstrap, person, reader])
    assert reported.urns == [b.urn(b.EKS_CLUSTER, "old-eks"), b.urn(ASSIGNMENT, "me")]
    assert "bootstrapClusterCreatorAdminPermissions is not false" in reported.messages[0]
    assert reported.messages[1].startswith("role assignment me makes a single User AKS cluster admin")


# ---------------------------------------------------------------- control-plane-audit-logs


def test_audit_logs_on_eks_and_aks():
    eks = {**b.eks_cluster(), "enabledClusterLogTypes": ["api", "audit"]}
    aks = b.resource(b.AKS_CLUSTER, b.managed_cluster(), "aks")
    setting = b.resource(
        DIAGNOSTICS,
        {"resourceUri": "aks-id", "logs": [{"category": "kube-audit-admin", "enabled": True}]},
        "audit",
        dependencies=[aks],
    )
    assert b.check_stack(rules.CONTROL_PLANE_AUDIT_LOGS, [b.resource(b.EKS_CLUSTER, eks, "eks"), aks, setting]) == []
    quiet = b.resource(
        DIAGNOSTICS, {"logs": [{"category": "kube-apiserver", "enabled": True}]}, "q", dependencies=[aks]
    )
    silent_eks = b.resource(b.EKS_CLUSTER, {**eks, "enabledClusterLogTypes": ["api"]}, "eks")
    messages = b.check_stack(rules.CONTROL_PLANE_AUDIT_LOGS, [silent_eks, aks, quiet]).messages
    assert messages[0].startswith("EKS cluster eks does not send the API server's audit log")
    assert messages[1].startswith("AKS cluster aks keeps no audit log")


# ---------------------------------------------------------------- pod-identity-trust-scoped


def test_pod_identity_trust_must_name_cluster_namespace_and_service_account():
    scoped = json.dumps(eks_plan.pod_identity_trust_policy(ARN, "kube-system", "aws-node"))
    assert b.check(rules.POD_IDENTITY_TRUST_SCOPED, ROLE, {"assumeRolePolicy": scoped}) == []
    open_trust = {
        "Version": "2012-10-17",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": "pods.eks.amazonaws.com"},
                "Action": ["sts:AssumeRole", "sts:TagSession"],
            }
        ],
    }
    [message] = b.check(
        rules.POD_IDENTITY_TRUST_SCOPED, ROLE, {"assumeRolePolicy": json.dumps(open_trust)}, name="cni"
    ).messages
    assert message.startswith(
        "IAM role cni trusts EKS Pod Identity without conditions on aws:RequestTag/eks-cluster-arn"
    )
    # other services' roles are not its business
    ec2 = json.dumps(eks_plan.assume_role_policy("ec2.amazonaws.com"))
    assert b.check(rules.POD_IDENTITY_TRUST_SCOPED, ROLE, {"assumeRolePolicy": ec2}) == []


# ---------------------------------------------------------------- autoscaler-iam-scoped


def test_the_autoscaler_policy_must_carry_the_platform_marker():
    policy = eks_plan.autoscaler_policy("gpu-prod")
    assert b.check(rules.AUTOSCALER_IAM_SCOPED, ROLE_POLICY, {"policy": json.dumps(policy)}) == []
    for statement in policy["Statement"]:
        statement.get("Condition", {}).get("StringEquals", {}).pop(
            "aws:ResourceTag/dra-gpu-platform.io/autoscaled", None
        )
    [message] = b.check(rules.AUTOSCALER_IAM_SCOPED, ROLE_POLICY, {"policy": json.dumps(policy)}, name="ca").messages
    assert "without the platform's marker tag (dra-gpu-platform.io/autoscaled=true)" in message


# ---------------------------------------------------------------- cluster-endpoint-private


@pytest.mark.parametrize(
    "cidrs", [["0.0.0.0/1", "128.0.0.0/1"], [f"{i}.0.0.0/8" for i in range(1, 224)], ["0.0.0.0/2", "64.0.0.0/3"]]
)
def test_cidr_sets_that_cover_the_internet_are_caught_on_both_clouds(cidrs):
    [eks] = b.check(cloud_rules.CLUSTER_ENDPOINT_PRIVATE, b.EKS_CLUSTER, b.eks_cluster(True, cidrs), name="e").messages
    assert eks.startswith("EKS cluster e opens its public API endpoint to") and "as good as the whole internet" in eks
    aks = b.managed_cluster(access={"authorizedIPRanges": cidrs})
    [message] = b.check(cloud_rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, aks, name="a").messages
    assert message.startswith("AKS cluster a authorizes")


def test_an_aks_api_server_needs_ranges_or_a_private_endpoint():
    open_aks = b.managed_cluster(access={})
    [message] = b.check(cloud_rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, open_aks, name="a").messages
    assert message == (
        "AKS cluster a has a public API server without authorized IP ranges: the whole internet can reach the "
        "Kubernetes API."
    )
    private = b.managed_cluster(access={"enablePrivateCluster": True})
    assert b.check(cloud_rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, private) == []
    offices = b.managed_cluster(access={"authorizedIPRanges": ["203.0.113.0/24", "198.51.100.0/24"]})
    assert b.check(cloud_rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, offices) == []


# ---------------------------------------------------------------- monitoring-secrets-namespaced


def test_grafana_reading_every_namespace_is_caught():
    planned = b.helm_release("kube-prometheus-stack", "81.4.3", KPS_REPO, {"grafana": grafana_values("monitoring")})
    assert b.check(helm_rules.MONITORING_SECRETS_NAMESPACED, b.HELM_RELEASE, planned) == []
    chart_default = b.helm_release("kube-prometheus-stack", "81.4.3", KPS_REPO, {}, name="kps")
    [message] = b.check(helm_rules.MONITORING_SECRETS_NAMESPACED, b.HELM_RELEASE, chart_default).messages
    assert "rbac.namespaced is not true" in message and "sidecar.dashboards.searchNamespace is ALL" in message
    without_grafana = b.helm_release("kube-prometheus-stack", "81.4.3", KPS_REPO, {"grafana": {"enabled": False}})
    assert b.check(helm_rules.MONITORING_SECRETS_NAMESPACED, b.HELM_RELEASE, without_grafana) == []


# ---------------------------------------------------------------- helm-images-by-digest


def test_gpu_operator_operands_by_tag_are_caught_and_the_pinned_release_passes():
    plan = ReleasePlan(
        "gpu-operator",
        "gpu-operator",
        "v25.10.1",
        "https://helm.ngc.nvidia.com/nvidia",
        "gpu-operator",
        {"devicePlugin": {"enabled": False}},
        600,
    )
    pinned = pin_release(plan)
    assert pinned.values["devicePlugin"] == {
        "enabled": False,
        "version": pinned_images("gpu-operator", "v25.10.1")[0].digest,
    }
    props = b.helm_release("gpu-operator", "v25.10.1", plan.repository, pinned.values)
    assert b.check(helm_rules.HELM_IMAGES_BY_DIGEST, b.HELM_RELEASE, props) == []
    by_tag = b.helm_release("gpu-operator", "v25.10.1", plan.repository, {"toolkit": {"version": "v1.18.1"}}, name="op")
    [message] = b.check(helm_rules.HELM_IMAGES_BY_DIGEST, b.HELM_RELEASE, by_tag).messages
    assert message.startswith("Helm release op (gpu-operator v25.10.1) runs devicePlugin.version")
    assert "toolkit.version (nvcr.io/nvidia/k8s/container-toolkit:v1.18.1)" in message
    # a chart version with no published digests is not judged
    unknown = b.helm_release("gpu-operator", "v25.3.0", plan.repository, {})
    assert b.check(helm_rules.HELM_IMAGES_BY_DIGEST, b.HELM_RELEASE, unknown) == []
