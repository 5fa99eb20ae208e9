"""Who may use a cluster's Kubernetes API, per platform: the EKS access policies and AKS built-in roles of the
admin, view and namespace-edit tiers, the identity the platform's deployer authenticates as, and the AKS
control-plane audit log categories. Pure data.

Sources:
- EKS access policies: amazon-eks-user-guide `access-policy-reference.adoc` (AmazonEKSClusterAdminPolicy :127,
  AmazonEKSEditPolicy :175, AmazonEKSViewPolicy :271, no Secrets); an access entry's `kubernetesGroups` are the
  groups the principal authenticates into (`grant-k8s-access.adoc:211-236`; names may not start with `system:`);
  one access entry per IAM principal (:202); docs/references.md#eks-access-tiers.
- AKS built-in roles (Microsoft built-in roles table, "Containers"): RBAC Cluster Admin b1ff04bb-…, RBAC Writer
  a7ffa36f-… (read/write in a namespace, no roles), RBAC Reader 7f6c6a51-… (read, no Secrets); namespace scope
  `<cluster id>/namespaces/<name>` (azure-aks-docs `entra-id-authorization.md:126-164`); Entra group object ids are
  the groups AKS puts in a token (`kubernetes-rbac-entra-id.md:247,313`); docs/references.md#aks-rbac-tiers.
- kind: `kind get kubeconfig` is kubeadm's admin.conf, whose client certificate is in the group
  `kubeadm:cluster-admins` from kubeadm 1.29 on (kubernetes test/e2e_kubeadm admin tests);
  docs/references.md#kind-admin-identity.
- Groups every tenant identity carries: "The `system:authenticated` group is included in the list of groups for all
  authenticated users"; service accounts are in `system:serviceaccounts` and `system:serviceaccounts:<namespace>`;
  anonymous requests in `system:unauthenticated` (kubernetes/website `content/en/docs/reference/access-authn-authz/
  authentication.md`); k8s `edit` may impersonate service accounts and mint their tokens (kubernetes
  `plugin/pkg/auth/authorizer/rbac/bootstrappolicy/testdata/cluster-roles.yaml`, system:aggregate-to-edit), so a
  tenant can always speak as a service account of its namespace; docs/references.md#kubernetes-system-groups.
- AKS diagnostic setting: log categories `kube-audit-admin` (every write, no get/list), `kube-apiserver`, `guard`;
  resource-specific tables with `logAnalyticsDestinationType: Dedicated` (azure-aks-docs `monitor-aks.md:116-153`);
  docs/references.md#aks-audit-logs.
"""

from __future__ import annotations

from dra_gpu_platform.facts.aks import RBAC_CLUSTER_ADMIN_ROLE

# EKS
DEPLOYER_GROUP = "dra-gpu-platform:deployers"  # kubernetesGroups of the deployer's access entry
EKS_ADMIN_POLICY = "AmazonEKSClusterAdminPolicy"
EKS_VIEW_POLICY = "AmazonEKSViewPolicy"
EKS_EDIT_POLICY = "AmazonEKSEditPolicy"

# AKS built-in role definition ids
AKS_RBAC_CLUSTER_ADMIN = RBAC_CLUSTER_ADMIN_ROLE  # one fact: dra_gpu_platform/facts/aks.py
AKS_RBAC_WRITER = "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb"
AKS_RBAC_READER = "7f6c6a51-bcf8-42ba-9220-52d62157d7db"
AKS_ROLE_NAMES = {
    AKS_RBAC_CLUSTER_ADMIN: "Azure Kubernetes Service RBAC Cluster Admin",
    AKS_RBAC_WRITER: "Azure Kubernetes Service RBAC Writer",
    AKS_RBAC_READER: "Azure Kubernetes Service RBAC Reader",
}

# kind (and the default of an existing cluster): kubeadm's admin.conf groups.
KUBEADM_ADMIN_GROUP = "kubeadm:cluster-admins"
KUBEADM_LEGACY_ADMIN_GROUP = "system:masters"  # admin.conf before kubeadm 1.29

# Kubernetes groups that name every tenant (or everyone): never a deployer's or an admin's group. `system:masters`
# is the one `system:` group that names only superusers.
AUTHENTICATED_GROUP = "system:authenticated"
SERVICE_ACCOUNTS_GROUP = "system:serviceaccounts"
SERVICE_ACCOUNTS_PREFIX = "system:serviceaccounts:"
EVERYONE_GROUPS = (AUTHENTICATED_GROUP, "system:unauthenticated", SERVICE_ACCOUNTS_GROUP)
SYSTEM_PREFIX = "system:"
SUPERUSER_GROUP = "system:masters"


def names_every_tenant(group: str) -> str | None:
    """Why a Kubernetes group cannot stand for the platform's deployer or admins (it holds every tenant, every
    pod's service account or identities that are not the deployer), or None."""
    if group in EVERYONE_GROUPS:
        return f"{group} holds every tenant (every authenticated user, or every pod's service account)"
    if group.startswith(SERVICE_ACCOUNTS_PREFIX):
        return f"{group} holds every service account of namespace {group.removeprefix(SERVICE_ACCOUNTS_PREFIX)}"
    if group.startswith(SYSTEM_PREFIX) and group != SUPERUSER_GROUP:
        return f"{group} is a Kubernetes system group (nodes, bootstrappers, ...), not the platform's deployer"
    return None


def tenant_groups(namespace: str) -> tuple[str, ...]:
    """The groups of a request a tenant of `namespace` sends: its own identity's (system:authenticated) and those of
    every service account of its namespace, which it can run pods as or impersonate."""
    return (AUTHENTICATED_GROUP, SERVICE_ACCOUNTS_GROUP, f"{SERVICE_ACCOUNTS_PREFIX}{namespace}")


# AKS control-plane logs to Log Analytics
AKS_AUDIT_CATEGORIES = ("kube-audit-admin", "kube-apiserver", "guard")
AUDIT_CATEGORIES = ("kube-audit", "kube-audit-admin")  # either keeps the API server's audit trail
LOG_ANALYTICS_SKU = "PerGB2018"
LOG_ANALYTICS_DESTINATION = "Dedicated"  # resource-specific tables (AKSAuditAdmin, AKSControlPlane)
AUDIT_RETENTION_DAYS = 90
