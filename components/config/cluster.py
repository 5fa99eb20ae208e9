"""The `cluster` section, typed per platform: a discriminated union on `platform`, so a setting that does not apply
to a platform does not exist there (an EksCluster has `eks` and no `aks`). Pure: no Pulumi imports."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from dra_gpu_platform.config.fields import ConfigModel, DnsLabel, StackBool, StackInt, check_kubernetes_version
from dra_gpu_platform.facts import driver_charts

PLATFORMS = ("eks", "aks", "kind", "existing")


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
    admin_role_arns: list[Annotated[str, Field(pattern=r"^arn:aws[a-z-]*:iam::\d{12}:role/[\w+=,.@/-]+$")]] = Field(
        default_factory=list,
        description="IAM roles given cluster-admin through EKS access entries (besides the creator).",
    )


class SystemNodesAks(ConfigModel):
    vm_size: str = Field("Standard_D4s_v5", description="Azure VM size of the system pool.")
    count: StackInt = Field(2, ge=1, le=100, description="Nodes in the system pool.")


class AksSettings(ConfigModel):
    resource_group: str | None = Field(None, description="Resource group; created unless existingResourceGroup.")
    existing_resource_group: StackBool = Field(False, description="Use resourceGroup as it is instead of creating it.")
    system_nodes: SystemNodesAks = Field(default_factory=SystemNodesAks, description="System agent pool.")
    admin_group_object_ids: list[str] = Field(
        default_factory=list, description="Entra ID groups that become cluster admins (Azure AD RBAC)."
    )
    authorized_ip_ranges: list[str] = Field(
        default_factory=list, description="CIDRs allowed to reach the API server (apiServerAccessProfile); empty: any."
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
        description="Kind of identity running `pulumi up`, for its cluster-admin role assignment; default: User with "
        "the azurecli login, ServicePrincipal with spn, workloadidentity and msi.",
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
# The block each platform's cluster takes, by key (`cluster.eks`, ...).
PLATFORM_SETTINGS: dict[str, type[ConfigModel]] = {
    "eks": EksSettings,
    "aks": AksSettings,
    "kind": KindSettings,
    "existing": ExistingSettings,
}
