"""EKS managed add-ons: which ones a cluster gets, their versions per Kubernetes minor, and the IAM each needs
through EKS Pod Identity. Pure data.

Sources (docs/references.md#eks-managed-addons, docs/references.md#eks-addon-versions, docs/references.md#eks-pod-identity,
docs/references.md#eks-control-plane-log-group): botocore 1.44.8 `eks/2017-11-01` CreateAddonRequest
(addonVersion, podIdentityAssociations, resolveConflicts OVERWRITE|NONE|PRESERVE); the EKS user guide's version
tables (managing-kube-proxy.md, managing-coredns.md); terraform-aws-eks v21.19.0
examples/eks-managed-node-group/eks-al2023.tf:10-18 (vpc-cni and eks-pod-identity-agent before compute).
A version of `None` means "the EKS default version for the cluster's Kubernetes version" (CreateAddon without
addonVersion): no public table gives a 1.34+ version for that add-on; pin it with
`aws eks describe-addon-versions --kubernetes-version <v> --addon-name <name>`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dra_gpu_platform.facts.network import VPC_CNI_NETWORK_POLICY

POD_IDENTITY_SERVICE = "pods.eks.amazonaws.com"  # trust principal of every Pod Identity role
POD_IDENTITY_ACTIONS = ("sts:AssumeRole", "sts:TagSession")
# Session tags EKS Pod Identity attaches to each AssumeRole, which a trust policy conditions on
# (amazon-eks-user-guide `service-accounts.adoc:868-877`; docs/references.md#eks-pod-identity-session-tags).
POD_IDENTITY_TRUST_TAGS = ("eks-cluster-arn", "kubernetes-namespace", "kubernetes-service-account")


@dataclass(frozen=True)
class EksAddon:
    name: str  # the EKS add-on name (DescribeAddonVersions)
    versions: dict[str, str | None]  # Kubernetes minor -> pinned add-on version (None: EKS default)
    # Installed before any node group: nodes only become Ready with a CNI (and its credentials).
    before_compute: bool
    # Pod Identity: (namespace, service account, AWS managed policy path) when the add-on calls AWS APIs.
    service_account: tuple[str, str] | None = None
    managed_policy: str | None = None
    # Keep the add-on's software running when the add-on resource is deleted: without the CNI, kube-proxy
    # or DNS the cluster stops working (EKS DeleteAddon `preserve`).
    preserve: bool = False
    # The add-on's configuration values (CreateAddon `configurationValues`, JSON against the add-on's schema).
    configuration: dict[str, str] = field(default_factory=dict)

    def version(self, minor: str) -> str | None:
        return self.versions.get(minor)


_NO_TABLE = {"1.34": None, "1.35": None, "1.36": None}

ADDONS: tuple[EksAddon, ...] = (
    EksAddon("eks-pod-identity-agent", dict(_NO_TABLE), before_compute=True),
    EksAddon(
        "vpc-cni",
        dict(_NO_TABLE),
        before_compute=True,
        service_account=("kube-system", "aws-node"),
        managed_policy="AmazonEKS_CNI_Policy",
        preserve=True,
        # NetworkPolicies are enforced only with the network policy agent on (docs/references.md#vpc-cni-network-policy)
        configuration=dict(VPC_CNI_NETWORK_POLICY),
    ),
    # managing-kube-proxy.md (newest copy): 1.36 v1.36.0-eksbuild.14, 1.35 v1.35.3-eksbuild.13, 1.34 v1.34.6-eksbuild.13
    EksAddon(
        "kube-proxy",
        {"1.34": "v1.34.6-eksbuild.13", "1.35": "v1.35.3-eksbuild.13", "1.36": "v1.36.0-eksbuild.14"},
        before_compute=True,
        preserve=True,
    ),
    # managing-coredns.md (docs.amazonaws.cn en_us copy): 1.35 v1.14.2-eksbuild.4, 1.34 v1.13.2-eksbuild.7
    EksAddon(
        "coredns",
        {"1.34": "v1.13.2-eksbuild.7", "1.35": "v1.14.2-eksbuild.4", "1.36": None},
        before_compute=False,
        preserve=True,
    ),
    EksAddon(
        "aws-ebs-csi-driver",
        dict(_NO_TABLE),
        before_compute=False,
        service_account=("kube-system", "ebs-csi-controller-sa"),
        managed_policy="service-role/AmazonEBSCSIDriverPolicy",
    ),
)

# Adopt the self-managed copies a cluster created with bootstrapSelfManagedAddons=true already runs, and keep
# what this package sets on later updates.
RESOLVE_CONFLICTS_ON_CREATE = "OVERWRITE"
RESOLVE_CONFLICTS_ON_UPDATE = "OVERWRITE"

# Node role policies: joining and pulling images. VPC CNI permissions moved to the vpc-cni Pod Identity role,
# so pods that reach the node's credentials get no network-interface rights.
NODE_POLICIES = ("AmazonEKSWorkerNodePolicy", "AmazonEC2ContainerRegistryReadOnly")

# Control-plane logs: EKS writes to this group; created first so it has a retention (terraform-aws-eks
# v21.19.0 main.tf:231-245, default 90 days) instead of "never expire".
CONTROL_PLANE_LOG_RETENTION_DAYS = 90


def control_plane_log_group(cluster_name: str) -> str:
    return f"/aws/eks/{cluster_name}/cluster"


def addon(name: str) -> EksAddon:
    return next(a for a in ADDONS if a.name == name)
