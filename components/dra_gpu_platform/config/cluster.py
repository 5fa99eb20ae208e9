"""The `cluster` section, typed per platform: a discriminated union on `platform`, so a setting that does not apply
to a platform does not exist there (an EksCluster has `eks` and no `aks`). Pure: no Pulumi imports."""

from __future__ import annotations

from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, Field

from dra_gpu_platform.config.fields import ConfigModel, DnsLabel, StackBool, StackInt, check_kubernetes_version
from dra_gpu_platform.facts import driver_charts

_ROLE_ARN = r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$"
_PRINCIPAL_ARN = r"^arn:aws[a-z-]*:iam::\d{12}:(role|user)/[\w+=,.@/-]+$"
_OBJECT_ID = r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
RoleArn = Annotated[str, Field(pattern=_ROLE_ARN)]
ObjectId = Annotated[str, Field(pattern=_OBJECT_ID)]


class EksNamespaceEditor(ConfigModel):
    role_arn: RoleArn = Field(description="IAM role whose principals may edit workloads in the namespaces.")
    namespaces: list[DnsLabel] = Field(
        min_length=1, description="Tenant namespaces of this stack (namespaces[].name) the role edits."
    )


class AksNamespaceEditor(ConfigModel):
    group_object_id: ObjectId = Field(description="Entra ID group whose members may edit workloads in the namespaces.")
    namespaces: list[DnsLabel] = Field(
        min_length=1, description="Tenant namespaces of this stack (namespaces[].name) the group edits."
    )


class SystemNodesEks(ConfigModel):
    instance_type: str = Field("m7i.large", description="EC2 type of the system (CPU) node group.")
    count: StackInt = Field(2, ge=1, le=100, description="Nodes in the system node group.")


class EksSettings(ConfigModel):
    subnet_ids: list[Annotated[str, Field(pattern=r"^subnet-[0-9a-f]{1,17}$")]] | None = Field(
        None, description="Existing private subnets for the cluster and node groups; omit to create a VPC."
    )
    endpoint_public_access: StackBool = Field(
        False, description="Expose the API endpoint publicly (private by default)."
    )
    public_access_cidrs: list[str] = Field(
        default_factory=list, description="CIDRs allowed to reach a public endpoint; required when it is public."
    )
    private_access_cidrs: list[str] = Field(
        default_factory=list,
        description="CIDRs allowed to reach the private endpoint (443 ingress on the cluster security group), "
        "e.g. the VPN or bastion network you deploy from.",
    )
    system_nodes: SystemNodesEks = Field(default_factory=SystemNodesEks, description="System node group.")
    vpc_cidr: str = Field("10.0.0.0/16", description="CIDR of the VPC created when subnetIds is omitted.")
    availability_zones: StackInt = Field(
        3, ge=2, le=6, description="Zones of the VPC created when subnetIds is omitted."
    )
    admin_role_arns: list[RoleArn] = Field(
        default_factory=list,
        description="IAM roles given cluster-admin through EKS access entries (besides the deployer).",
    )
    deployer_role_arn: Annotated[str, Field(pattern=_PRINCIPAL_ARN)] | None = Field(
        None,
        description="IAM role (or user) that runs `pulumi up`: its access entry is the only one in the deployers' "
        "group that may change tenant namespace labels. Default: the identity running `pulumi up`.",
    )
    viewer_role_arns: list[RoleArn] = Field(
        default_factory=list,
        description="IAM roles that may read the cluster's objects, Secrets excepted (AmazonEKSViewPolicy).",
    )
    namespace_editors: list[EksNamespaceEditor] = Field(
        default_factory=list,
        description="IAM roles that may edit workloads in some tenant namespaces only (AmazonEKSEditPolicy).",
    )


class SystemNodesAks(ConfigModel):
    vm_size: str = Field("Standard_D4s_v5", description="Azure VM size of the system pool.")
    count: StackInt = Field(2, ge=1, le=100, description="Nodes in the system pool.")


class AksSettings(ConfigModel):
    resource_group: str | None = Field(None, description="Resource group; created unless existingResourceGroup.")
    existing_resource_group: StackBool = Field(False, description="Use resourceGroup as it is instead of creating it.")
    system_nodes: SystemNodesAks = Field(default_factory=SystemNodesAks, description="System agent pool.")
    admin_group_object_ids: list[str] = Field(
        default_factory=list,
        description="Entra ID groups that become cluster admins (Azure AD RBAC); the first is the deployers' group "
        "unless deployerGroupObjectId is set.",
    )
    deployer_group_object_id: ObjectId | None = Field(
        None,
        description="Entra ID group of the identities that run `pulumi up` (CI, platform engineers): it gets "
        "Azure Kubernetes Service RBAC Cluster Admin and is the only group that may change tenant namespace labels. "
        "Default: the first of adminGroupObjectIds; with neither, the identity running `pulumi up` is made cluster "
        "admin on its own and tenant labels are not guarded (the policy pack flags it).",
    )
    viewer_group_object_ids: list[ObjectId] = Field(
        default_factory=list,
        description="Entra ID groups that may read the cluster's objects, Secrets excepted (AKS RBAC Reader).",
    )
    namespace_editors: list[AksNamespaceEditor] = Field(
        default_factory=list,
        description="Entra ID groups that may edit workloads in some tenant namespaces only (AKS RBAC Writer).",
    )
    log_analytics_workspace_id: (
        Annotated[
            str,
            Field(
                pattern=r"(?i)^/subscriptions/[^/]+/resourceGroups/[^/]+/providers/Microsoft\.OperationalInsights/workspaces/[^/]+$"
            ),
        ]
        | None
    ) = Field(
        None,
        description="Log Analytics workspace (resource id) that receives the control-plane audit logs; default: a "
        "workspace the stack creates in the resource group.",
    )
    authorized_ip_ranges: list[str] = Field(
        default_factory=list,
        description="CIDRs allowed to reach the API server (apiServerAccessProfile); required unless privateCluster.",
    )
    private_cluster: StackBool = Field(
        False, description="Private API server (reachable only from the cluster's network)."
    )
    kubelogin_mode: Literal["azurecli", "spn", "workloadidentity", "msi"] | None = Field(
        None,
        description="How the kubeconfig's kubelogin signs in; default: from the environment of `pulumi up` "
        "(AZURE_FEDERATED_TOKEN_FILE: workloadidentity, ARM_USE_MSI: msi, ARM_/AZURE_CLIENT_SECRET or "
        "_CERTIFICATE_PATH: spn, else azurecli).",
    )
    deployer_principal_type: Literal["User", "ServicePrincipal"] | None = Field(
        None,
        description="Kind of identity running `pulumi up`, for its own cluster-admin role assignment when there is "
        "no deployers' group; default: User with the azurecli login, ServicePrincipal with spn, workloadidentity "
        "and msi.",
    )


class KindSettings(ConfigModel):
    node_image: str | None = Field(None, description="kindest/node image; default follows kubernetesVersion.")
    gpu_driver: Literal["example", "nvidia"] = Field(
        "example",
        description="example: dra-example-driver with fake GPUs; nvidia: real GPUs on the host (nvkind style).",
    )
    example_driver_version: str = Field(
        driver_charts.EXAMPLE_DRIVER_DEFAULT, description="dra-example-driver chart version."
    )
    allow_unlisted: StackBool = Field(
        False,
        description="Accept an exampleDriverVersion that is not a listed release (pinned on purpose; values unchecked).",
    )


class ExistingSettings(ConfigModel):
    context: str | None = Field(
        None, description="kubeconfig context; the secret config value `kubeconfig` holds the file."
    )
    deployer_groups: list[Annotated[str, Field(min_length=1)]] = Field(
        default_factory=list,
        description="Kubernetes groups the kubeconfig's identity authenticates into (`kubectl auth whoami`; kubeadm's "
        "admin.conf: kubeadm:cluster-admins): only they may change tenant namespace labels and the platform's "
        "NetworkPolicies. Empty: those guards are not installed.",
    )


class ClusterBase(ConfigModel):
    """What every platform's cluster has. Alone it is only used to report the problems of a `cluster` block whose
    platform is missing or unknown; a stack's cluster is one of the four platform classes below."""

    platform: Literal["eks", "aks", "kind", "existing"] = Field(description="Where the cluster runs.")
    name: DnsLabel = Field(description="Cluster name; also the name of the top-level component.")
    kubernetes_version: Annotated[Any, AfterValidator(check_kubernetes_version)] = Field(
        description='Kubernetes minor version, "1.34" or newer (DRA v1).'
    )
    protect: StackBool = Field(False, description="Protect the cluster and GPU node pools from deletion.")

    @property
    def minor(self) -> int:
        return int(self.kubernetes_version.split(".")[1])


class EksCluster(ClusterBase):
    platform: Literal["eks"] = Field(description="Where the cluster runs.")
    eks: EksSettings | None = Field(None, description="EKS settings; only with platform: eks.")

    def settings(self) -> EksSettings:
        """The EKS block, with defaults when it was left out."""
        return self.eks or EksSettings()


class AksCluster(ClusterBase):
    platform: Literal["aks"] = Field(description="Where the cluster runs.")
    aks: AksSettings | None = Field(None, description="AKS settings; only with platform: aks.")

    def settings(self) -> AksSettings:
        """The AKS block, with defaults when it was left out."""
        return self.aks or AksSettings()


class KindCluster(ClusterBase):
    platform: Literal["kind"] = Field(description="Where the cluster runs.")
    kind: KindSettings | None = Field(None, description="kind settings; only with platform: kind.")

    def settings(self) -> KindSettings:
        """The kind block, with defaults when it was left out."""
        return self.kind or KindSettings()


class ExistingCluster(ClusterBase):
    platform: Literal["existing"] = Field(description="Where the cluster runs.")
    existing: ExistingSettings | None = Field(
        None, description="Existing-cluster settings; only with platform: existing."
    )

    def settings(self) -> ExistingSettings:
        """The existing-cluster block, with defaults when it was left out."""
        return self.existing or ExistingSettings()


# The `cluster` section: pydantic picks the class by `platform`.
ClusterConfig = Annotated[EksCluster | AksCluster | KindCluster | ExistingCluster, Field(discriminator="platform")]
CLUSTER_MODELS: dict[str, type[EksCluster | AksCluster | KindCluster | ExistingCluster]] = {
    "eks": EksCluster,
    "aks": AksCluster,
    "kind": KindCluster,
    "existing": ExistingCluster,
}
_Platform = TypeVar("_Platform", bound=ClusterBase)


def platform_cluster(cluster: ClusterBase, model: type[_Platform]) -> _Platform:
    """The stack's cluster as the class of the one platform the calling code serves (plans/eks.py plans EKS stacks
    only): another platform's cluster there is a caller's bug, never a stack error."""
    if not isinstance(cluster, model):
        raise TypeError(f"{model.__name__} expected; the stack's cluster has platform {cluster.platform!r}")
    return cluster


# The block each platform's cluster takes, by key (`cluster.eks`, ...).
PLATFORM_SETTINGS: dict[str, type[ConfigModel]] = {
    "eks": EksSettings,
    "aks": AksSettings,
    "kind": KindSettings,
    "existing": ExistingSettings,
}
