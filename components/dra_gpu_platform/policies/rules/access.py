"""Rules on who reaches the cluster and its cloud identities: no admin outside the program, AKS admins are groups,
control-plane audit logs, Pod Identity roles only for their own service account, the autoscaler only on the
platform's own node groups. Facts: docs/references.md#eks-access-tiers, docs/references.md#aks-rbac-tiers,
docs/references.md#aks-audit-logs, docs/references.md#eks-pod-identity-session-tags,
docs/references.md#cluster-autoscaler-iam."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from pulumi_policy import ResourceValidationArgs, Severity, StackValidationArgs

from dra_gpu_platform.facts import autoscaler as ca
from dra_gpu_platform.facts import cluster_access, eks_addons
from dra_gpu_platform.policies.rules import common as c

TAGS = ["security", "access"]

# ---------------------------------------------------------------------------------------------------
# cluster-admin-scoped


def _validate_admin(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    for r in args.resources:
        if r.resource_type == c.EKS_CLUSTER:
            # AWS's default is true: a missing value makes the creator an admin no program declares
            if c.dig(r.props, "accessConfig", "bootstrapClusterCreatorAdminPermissions", default=True) is not False:
                report_violation(
                    f"EKS cluster {r.name} makes whoever creates it cluster admin through an access entry the program "
                    "does not declare (bootstrapClusterCreatorAdminPermissions is not false): that admin outlives "
                    "every change to the stack.",
                    r.urn,
                )
        elif c.AZURE_ROLE_ASSIGNMENT_RE.match(r.resource_type):
            role = str(c.known(lambda r=r: c.dig(r.props, "roleDefinitionId", default=""), "") or "")
            principal_type = c.dig(r.props, "principalType", default="User")
            if role.lower().endswith(cluster_access.AKS_RBAC_CLUSTER_ADMIN) and principal_type != "Group":
                report_violation(
                    f"role assignment {r.name} makes a single {principal_type} AKS cluster admin: admins are an "
                    "Entra ID group, so joining and leaving is audited and no one keeps the role by accident.",
                    r.urn,
                )


CLUSTER_ADMIN_SCOPED = c.stack_policy(
    "cluster-admin-scoped",
    description="EKS clusters give their creator no undeclared admin (bootstrapClusterCreatorAdminPermissions false); "
    "AKS cluster admin (Azure Kubernetes Service RBAC Cluster Admin) goes to Entra ID groups only.",
    validate=_validate_admin,
    severity=Severity.HIGH,
    remediation_steps=(
        "EKS: dra-gpu-platform declares the deployer's access entry and turns bootstrap admin off for new clusters; on "
        "a cluster created before, remove the creator's entry (`aws eks delete-access-entry`). AKS: set "
        "`cluster.aks.adminGroupObjectIds` (the first group, or `deployerGroupObjectId`, holds the identities that run "
        "`pulumi up`)."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# control-plane-audit-logs


def _validate_audit(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    settings = [r for r in args.resources if c.AZURE_DIAGNOSTIC_SETTING_RE.match(r.resource_type)]
    for r in args.resources:
        if r.resource_type == c.EKS_CLUSTER:
            types = {str(t) for t in c.as_list(c.dig(r.props, "enabledClusterLogTypes"))}
            if "audit" not in types:
                report_violation(
                    f"EKS cluster {r.name} does not send the API server's audit log to CloudWatch "
                    "(enabledClusterLogTypes lacks audit).",
                    r.urn,
                )
        elif c.AKS_CLUSTER_RE.match(r.resource_type):
            audited = [
                s
                for s in settings
                if (r.urn in {d.urn for d in s.dependencies} or len(settings) == 1)
                and any(
                    c.dig(log, "enabled") is True and c.dig(log, "category") in cluster_access.AUDIT_CATEGORIES
                    for log in c.as_list(c.dig(s.props, "logs"))
                )
            ]
            if not audited:
                report_violation(
                    f"AKS cluster {r.name} keeps no audit log: no diagnostic setting on it enables "
                    f"{' or '.join(cluster_access.AUDIT_CATEGORIES)}, so who changed what in the cluster is lost.",
                    r.urn,
                )


CONTROL_PLANE_AUDIT_LOGS = c.stack_policy(
    "control-plane-audit-logs",
    description="The API server's audit log is kept: EKS enabledClusterLogTypes includes audit; an AKS cluster has a "
    "diagnostic setting enabling kube-audit or kube-audit-admin.",
    validate=_validate_audit,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform enables EKS control-plane logs and, on AKS, a DiagnosticSetting with kube-audit-admin, "
        "kube-apiserver and guard into Log Analytics (`cluster.aks.logAnalyticsWorkspaceId`, or a workspace it "
        "creates)."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# pod-identity-trust-scoped


def _statements(document: Any) -> list[Any]:
    if isinstance(document, str):
        try:
            document = json.loads(document)
        except ValueError:
            return []
    statements = c.dig(document, "Statement", default=[])
    return c.as_list(statements) if c.is_list(statements) else [statements]


def _conditions(statement: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for operator in ("StringEquals", "StringLike"):
        found.update(c.as_dict(c.dig(statement, "Condition", operator)))
    return found


def _trusts_pod_identity(statement: Any) -> bool:
    services = c.dig(statement, "Principal", "Service")
    services = c.as_list(services) if c.is_list(services) else [services]
    return c.dig(statement, "Effect") == "Allow" and eks_addons.POD_IDENTITY_SERVICE in services


def _validate_trust(args: ResourceValidationArgs, report_violation: Callable[..., None]) -> None:
    if args.resource_type != c.IAM_ROLE:
        return
    for statement in _statements(c.plain(c.dig(args.props, "assumeRolePolicy"))):
        if not _trusts_pod_identity(statement):
            continue
        conditions = _conditions(statement)
        missing = [t for t in eks_addons.POD_IDENTITY_TRUST_TAGS if f"aws:RequestTag/{t}" not in conditions]
        if missing:
            report_violation(
                f"IAM role {args.name} trusts EKS Pod Identity without conditions on "
                f"{', '.join('aws:RequestTag/' + t for t in missing)}: any pod of any cluster in the account that "
                "is associated with it gets its credentials."
            )


POD_IDENTITY_TRUST_SCOPED = c.resource_policy(
    "pod-identity-trust-scoped",
    description="IAM roles that trust EKS Pod Identity name the cluster, namespace and service account in their trust "
    "policy (aws:RequestTag/eks-cluster-arn, kubernetes-namespace, kubernetes-service-account).",
    validate=_validate_trust,
    severity=Severity.HIGH,
    remediation_steps=(
        "Add `Condition: {StringEquals: {aws:RequestTag/eks-cluster-arn: <cluster ARN>, "
        "aws:RequestTag/kubernetes-namespace: <ns>, aws:RequestTag/kubernetes-service-account: <sa>}}` to the "
        "statement; dra-gpu-platform does for the VPC CNI, the EBS CSI driver and the cluster-autoscaler."
    ),
    tags=TAGS,
)

# ---------------------------------------------------------------------------------------------------
# autoscaler-iam-scoped

_MARKER = f"aws:ResourceTag/{ca.DISCOVERY_MARKER}"


def _validate_autoscaler(args: ResourceValidationArgs, report_violation: Callable[..., None]) -> None:
    if args.resource_type != c.IAM_ROLE_POLICY:
        return
    for statement in _statements(c.plain(c.dig(args.props, "policy"))):
        actions = c.dig(statement, "Action")
        actions = {str(a) for a in (c.as_list(actions) if c.is_list(actions) else [actions])}
        if c.dig(statement, "Effect") != "Allow" or not actions & set(ca.SCALE_ACTIONS):
            continue
        if str(_conditions(statement).get(_MARKER)) != "true":
            report_violation(
                f"IAM role policy {args.name} lets the cluster-autoscaler scale Auto Scaling groups without the "
                f"platform's marker tag ({ca.DISCOVERY_MARKER}=true): EKS tags every managed node group with the "
                "cluster's owner tag, so it could resize the system nodes or a Capacity Block group too."
            )


AUTOSCALER_IAM_SCOPED = c.resource_policy(
    "autoscaler-iam-scoped",
    description=f"The cluster-autoscaler's scaling actions are conditioned on the platform's own tag "
    f"({ca.DISCOVERY_MARKER}=true), which only autoscaled pools carry.",
    validate=_validate_autoscaler,
    severity=Severity.MEDIUM,
    remediation_steps=(
        f'Add `"aws:ResourceTag/{ca.DISCOVERY_MARKER}": "true"` to the StringEquals of the statement allowing '
        "autoscaling:SetDesiredCapacity and TerminateInstanceInAutoScalingGroup (dra-gpu-platform does)."
    ),
    tags=TAGS,
)
