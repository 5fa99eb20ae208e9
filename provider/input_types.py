"""The enums and objects of the `dra-gpu-platform` component package's inputs (the stack file's sections), generated
from the config models by `python -m provider.generate`: do not edit. Pulumi's analyzer reads these annotations and the
docstring after each key to infer provider/schema.json."""

import enum
from typing import Any, NotRequired, TypedDict


class Platform(enum.Enum):
    """`cluster.platform`: Where the cluster runs."""

    Eks = "eks"
    Aks = "aks"
    Kind = "kind"
    Existing = "existing"


class SystemNodesEks(TypedDict):
    """`cluster.eks.systemNodes`: System node group."""

    instance_type: NotRequired[str]
    """EC2 type of the system (CPU) node group. Default: `"m7i.large"`."""
    count: NotRequired[int]
    """Nodes in the system node group. Default: `2`."""


class EksNamespaceEditor(TypedDict):
    """`cluster.eks.namespaceEditors[]` in a stack file (docs/configuration.md)."""

    role_arn: str
    """IAM role whose principals may edit workloads in the namespaces."""
    namespaces: list[str]
    """Tenant namespaces of this stack (namespaces[].name) the role edits."""


class EksSettings(TypedDict):
    """`cluster.eks`: EKS settings; only with platform: eks."""

    subnet_ids: NotRequired[list[str]]
    """Existing private subnets for the cluster and node groups; omit to create a VPC."""
    endpoint_public_access: NotRequired[bool]
    """Expose the API endpoint publicly (private by default). Default: `false`."""
    public_access_cidrs: NotRequired[list[str]]
    """CIDRs allowed to reach a public endpoint; required when it is public."""
    private_access_cidrs: NotRequired[list[str]]
    """CIDRs allowed to reach the private endpoint (443 ingress on the cluster security group), e.g. the VPN or bastion network you deploy from."""
    system_nodes: NotRequired[SystemNodesEks]
    """System node group."""
    vpc_cidr: NotRequired[str]
    """CIDR of the VPC created when subnetIds is omitted. Default: `"10.0.0.0/16"`."""
    availability_zones: NotRequired[int]
    """Zones of the VPC created when subnetIds is omitted. Default: `3`."""
    admin_role_arns: NotRequired[list[str]]
    """IAM roles given cluster-admin through EKS access entries (besides the deployer)."""
    deployer_role_arn: NotRequired[str]
    """IAM role (or user) that runs `pulumi up`: its access entry is the only one in the deployers' group that may change tenant namespace labels. Default: the identity running `pulumi up`."""
    viewer_role_arns: NotRequired[list[str]]
    """IAM roles that may read the cluster's objects, Secrets excepted (AmazonEKSViewPolicy)."""
    namespace_editors: NotRequired[list[EksNamespaceEditor]]
    """IAM roles that may edit workloads in some tenant namespaces only (AmazonEKSEditPolicy)."""


class SystemNodesAks(TypedDict):
    """`cluster.aks.systemNodes`: System agent pool."""

    vm_size: NotRequired[str]
    """Azure VM size of the system pool. Default: `"Standard_D4s_v5"`."""
    count: NotRequired[int]
    """Nodes in the system pool. Default: `2`."""


class AksNamespaceEditor(TypedDict):
    """`cluster.aks.namespaceEditors[]` in a stack file (docs/configuration.md)."""

    group_object_id: str
    """Entra ID group whose members may edit workloads in the namespaces."""
    namespaces: list[str]
    """Tenant namespaces of this stack (namespaces[].name) the group edits."""


class KubeloginMode(enum.Enum):
    """`cluster.aks.kubeloginMode`: How the kubeconfig's kubelogin signs in; default: from the environment of `pulumi up` (AZURE_FEDERATED_TOKEN_FILE: workloadidentity, ARM_USE_MSI: msi, ARM_/AZURE_CLIENT_SECRET or _CERTIFICATE_PATH: spn, else azurecli)."""

    Azurecli = "azurecli"
    Spn = "spn"
    Workloadidentity = "workloadidentity"
    Msi = "msi"


class DeployerPrincipalType(enum.Enum):
    """`cluster.aks.deployerPrincipalType`: Kind of identity running `pulumi up`, for its own cluster-admin role assignment when there is no deployers' group; default: User with the azurecli login, ServicePrincipal with spn, workloadidentity and msi."""

    User = "User"
    ServicePrincipal = "ServicePrincipal"


class AksSettings(TypedDict):
    """`cluster.aks`: AKS settings; only with platform: aks."""

    resource_group: NotRequired[str]
    """Resource group; created unless existingResourceGroup."""
    existing_resource_group: NotRequired[bool]
    """Use resourceGroup as it is instead of creating it. Default: `false`."""
    system_nodes: NotRequired[SystemNodesAks]
    """System agent pool."""
    admin_group_object_ids: NotRequired[list[str]]
    """Entra ID groups that become cluster admins (Azure AD RBAC); the first is the deployers' group unless deployerGroupObjectId is set."""
    deployer_group_object_id: NotRequired[str]
    """Entra ID group of the identities that run `pulumi up` (CI, platform engineers): it gets Azure Kubernetes Service RBAC Cluster Admin and is the only group that may change tenant namespace labels. Default: the first of adminGroupObjectIds; with neither, the identity running `pulumi up` is made cluster admin on its own and tenant labels are not guarded (the policy pack flags it)."""
    viewer_group_object_ids: NotRequired[list[str]]
    """Entra ID groups that may read the cluster's objects, Secrets excepted (AKS RBAC Reader)."""
    namespace_editors: NotRequired[list[AksNamespaceEditor]]
    """Entra ID groups that may edit workloads in some tenant namespaces only (AKS RBAC Writer)."""
    log_analytics_workspace_id: NotRequired[str]
    """Log Analytics workspace (resource id) that receives the control-plane audit logs; default: a workspace the stack creates in the resource group."""
    authorized_ip_ranges: NotRequired[list[str]]
    """CIDRs allowed to reach the API server (apiServerAccessProfile); required unless privateCluster."""
    private_cluster: NotRequired[bool]
    """Private API server (reachable only from the cluster's network). Default: `false`."""
    kubelogin_mode: NotRequired[KubeloginMode]
    """How the kubeconfig's kubelogin signs in; default: from the environment of `pulumi up` (AZURE_FEDERATED_TOKEN_FILE: workloadidentity, ARM_USE_MSI: msi, ARM_/AZURE_CLIENT_SECRET or _CERTIFICATE_PATH: spn, else azurecli)."""
    deployer_principal_type: NotRequired[DeployerPrincipalType]
    """Kind of identity running `pulumi up`, for its own cluster-admin role assignment when there is no deployers' group; default: User with the azurecli login, ServicePrincipal with spn, workloadidentity and msi."""


class GpuDriver(enum.Enum):
    """`cluster.kind.gpuDriver`: example: dra-example-driver with fake GPUs; nvidia: real GPUs on the host (nvkind style)."""

    Example = "example"
    Nvidia = "nvidia"


class KindSettings(TypedDict):
    """`cluster.kind`: kind settings; only with platform: kind."""

    node_image: NotRequired[str]
    """kindest/node image; default follows kubernetesVersion."""
    gpu_driver: NotRequired[GpuDriver]
    """example: dra-example-driver with fake GPUs; nvidia: real GPUs on the host (nvkind style). Default: `"example"`."""
    example_driver_version: NotRequired[str]
    """dra-example-driver chart version. Default: `"0.2.1"`."""
    allow_unlisted: NotRequired[bool]
    """Accept an exampleDriverVersion that is not a listed release (pinned on purpose; values unchecked). Default: `false`."""


class ExistingSettings(TypedDict):
    """`cluster.existing`: Existing-cluster settings; only with platform: existing."""

    context: NotRequired[str]
    """kubeconfig context; the secret config value `kubeconfig` holds the file."""
    deployer_groups: NotRequired[list[str]]
    """Kubernetes groups the kubeconfig's identity authenticates into (`kubectl auth whoami`; kubeadm's admin.conf: kubeadm:cluster-admins): only they may change tenant namespace labels and the platform's NetworkPolicies. Empty: those guards are not installed."""


class Cluster(TypedDict):
    """`cluster`: The stack file's `dra-gpu-platform:cluster` section (docs/configuration.md)."""

    platform: Platform
    """Where the cluster runs."""
    name: str
    """Cluster name; also the name of the top-level component."""
    kubernetes_version: Any
    """Kubernetes minor version, "1.34" or newer (DRA v1). (any value the stack file accepts here)"""
    protect: NotRequired[bool]
    """Protect the cluster and GPU node pools from deletion. Default: `false`."""
    eks: NotRequired[EksSettings]
    """EKS settings; only with platform: eks."""
    aks: NotRequired[AksSettings]
    """AKS settings; only with platform: aks."""
    kind: NotRequired[KindSettings]
    """kind settings; only with platform: kind."""
    existing: NotRequired[ExistingSettings]
    """Existing-cluster settings; only with platform: existing."""


class CpuArchitecture(enum.Enum):
    """`nodePools[].instanceFacts.cpuArchitecture`: CPU architecture of the instance."""

    X86_64 = "x86_64"
    Arm64 = "arm64"


class InstanceFacts(TypedDict):
    """`nodePools[].instanceFacts`: EKS/AKS with allowUnlisted: what the unlisted instance type has."""

    gpus: int
    """GPUs per instance."""
    vcpu: int
    """vCPUs per instance (quota checks)."""
    memory: str
    """Host memory per instance, e.g. 256Gi."""
    efa_interfaces: NotRequired[int]
    """EKS: EFA interfaces to attach (one per network card); 0: none. Default: `0`."""
    nvme_disks: NotRequired[int]
    """NVMe instance-store disks (EKS: RAID0 for local storage). Default: `0`."""
    cpu_architecture: NotRequired[CpuArchitecture]
    """CPU architecture of the instance. Default: `"x86_64"`."""
    quota_family: NotRequired[str]
    """vCPU quota family: EC2 P or G (default from the name), Azure the family name the usage API reports."""


class Capacity(enum.Enum):
    """`nodePools[].capacity`: Purchase option."""

    OnDemand = "on-demand"
    Spot = "spot"
    CapacityBlock = "capacity-block"


class GpuStack(enum.Enum):
    """`nodePools[].gpuStack`: Which NVIDIA stack runs on these nodes: the DRA kubelet plugin or the device plugin."""

    Dra = "dra"
    DevicePlugin = "device-plugin"


class MigSettings(TypedDict):
    """`nodePools[].mig`: MIG partitioning of every GPU in the pool."""

    profile: str
    """MIG profile every GPU of the pool is split into, e.g. 3g.40gb."""


class AmiType(enum.Enum):
    """`nodePools[].amiType`: EKS only: NVIDIA AMI family (AL2023 by default)."""

    AL2023_x86_64_NVIDIA = "AL2023_x86_64_NVIDIA"
    BOTTLEROCKET_x86_64_NVIDIA = "BOTTLEROCKET_x86_64_NVIDIA"


class DeclaredPrice(TypedDict):
    """`nodePools[].price`: capacity-block pools and on-demand pools in a capacity reservation: the price you pay per node-hour (preview's capacity table; other pools are priced from the project's price facts)."""

    per_node_hour: float
    """USD per node and hour."""
    as_of: str
    """Date the price applies from (YYYY-MM-DD)."""
    source: NotRequired[str]
    """Where the figure comes from, e.g. the Capacity Block's purchase."""


class NodePool(TypedDict):
    """`nodePools[]` in a stack file (docs/configuration.md)."""

    name: str
    """Stable pool name; identity of the pool's resources."""
    gpu: Any
    """GPU model of the pool: a catalog key, or (existing; kind with gpuDriver: nvidia) a described GPU. (any value the stack file accepts here)"""
    instance_type: NotRequired[str]
    """EC2 type / Azure VM size; default from the catalog."""
    instance_types: NotRequired[list[str]]
    """karpenter / auto-mode / node-auto-provisioning: the instance types (VM sizes) the provisioner may launch for this pool, all of its GPU and GPU count (instanceType: just one); it launches the cheapest that fits."""
    allow_unlisted: NotRequired[bool]
    """EKS/AKS: accept an instanceType the catalog does not list (declare instanceFacts). Default: `false`."""
    instance_facts: NotRequired[InstanceFacts]
    """EKS/AKS with allowUnlisted: what the unlisted instance type has."""
    min_nodes: NotRequired[int]
    """Autoscaling minimum; 1 instead of 0 for an on-demand or spot dra pool where the autoscaler runs. Default: `0`."""
    max_nodes: int
    """Autoscaling maximum."""
    desired_nodes: NotRequired[int]
    """Initial size; defaults to minNodes."""
    capacity: NotRequired[Capacity]
    """Purchase option. Default: `"on-demand"`."""
    capacity_reservation_id: NotRequired[str]
    """EC2 capacity reservation (cr-...); required with capacity-block."""
    availability_zone: NotRequired[str]
    """Zone the pool is limited to (a capacity block's zone)."""
    capacity_block_start: NotRequired[str]
    """capacity-block pools: the block's start (UTC, e.g. 2026-10-01T11:30:00Z); scales the pool up then."""
    capacity_block_end: NotRequired[str]
    """capacity-block pools: the block's end; the pool scales to zero before it."""
    gpu_stack: NotRequired[GpuStack]
    """Which NVIDIA stack runs on these nodes: the DRA kubelet plugin or the device plugin. Default: `"dra"`."""
    mig: NotRequired[MigSettings]
    """MIG partitioning of every GPU in the pool."""
    labels: NotRequired[dict[str, str]]
    """Extra node labels."""
    ami_type: NotRequired[AmiType]
    """EKS only: NVIDIA AMI family (AL2023 by default)."""
    disk_size_gb: NotRequired[int]
    """Root volume size per node. Default: `200`."""
    gpus_per_node: NotRequired[int]
    """GPUs per node on kind/existing clusters (clouds: from the instance type); required with a described GPU."""
    price: NotRequired[DeclaredPrice]
    """capacity-block pools and on-demand pools in a capacity reservation: the price you pay per node-hour (preview's capacity table; other pools are priced from the project's price facts)."""
    nodes: NotRequired[list[str]]
    """platform existing: the pool's existing nodes; the program applies the pool's labels and taint to them (server-side apply). Empty: preview prints the kubectl commands."""


class Driver(enum.Enum):
    """`gpuOperator.driver`: Who installs the NVIDIA kernel driver: auto (host on EKS NVIDIA AMIs and AKS), host, operator."""

    Auto = "auto"
    Host = "host"
    Operator = "operator"


class DraManagement(enum.Enum):
    """`gpuOperator.draManagement`: Who deploys the NVIDIA DRA driver: chart (its own Helm release, beside the operator's ClusterPolicy) or gpucluster (GPU Operator v26.7.0+ deploys it through its GPUCluster resource instead of a ClusterPolicy; technology preview, new clusters only, DRA pools only)."""

    Chart = "chart"
    Gpucluster = "gpucluster"


class GpuOperator(TypedDict):
    """`gpuOperator`: The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""

    enabled: NotRequired[bool]
    """Install the NVIDIA GPU Operator (default: on, off on kind)."""
    version: NotRequired[str]
    """Pinned gpu-operator chart version. Default: `"v25.10.1"`."""
    allow_unlisted: NotRequired[bool]
    """Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked). Default: `false`."""
    driver: NotRequired[Driver]
    """Who installs the NVIDIA kernel driver: auto (host on EKS NVIDIA AMIs and AKS), host, operator. Default: `"auto"`."""
    dra_management: NotRequired[DraManagement]
    """Who deploys the NVIDIA DRA driver: chart (its own Helm release, beside the operator's ClusterPolicy) or gpucluster (GPU Operator v26.7.0+ deploys it through its GPUCluster resource instead of a ClusterPolicy; technology preview, new clusters only, DRA pools only). Default: `"chart"`."""


class DraDriver(TypedDict):
    """`draDriver`: The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""

    enabled: NotRequired[bool]
    """Install the NVIDIA DRA driver. Default: `true`."""
    version: NotRequired[str]
    """Pinned DRA driver chart version. Default: `"0.4.1"`."""
    allow_unlisted: NotRequired[bool]
    """Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked). Default: `false`."""
    feature_gates: NotRequired[dict[str, bool]]
    """Driver feature gates; TimeSlicingSettings/MPSSupport are set for you."""
    compute_domains: NotRequired[bool]
    """ComputeDomains (multi-node NVLink, IMEX channels): default on when a DRA pool's GPU has multi-node NVLink (GB200), else off; true without such a pool is an error."""
    extended_resource_bridge: NotRequired[bool]
    """Let pods requesting nvidia.com/gpu be served by DRA (KEP-5004, DRAExtendedResource). Default: on from Kubernetes 1.36 where the driver's gpu.nvidia.com class carries extendedResourceName, else off."""


class Gpu(enum.Enum):
    """`deviceClasses[].gpu`: Match this GPU model (NVML productName)."""

    H100 = "H100"
    H100NVL = "H100-NVL"
    H200 = "H200"
    A100_40GB = "A100-40GB"
    A100_80GB = "A100-80GB"
    B200 = "B200"
    GB200 = "GB200"
    A10G = "A10G"
    A10 = "A10"
    T4 = "T4"
    L4 = "L4"
    L40S = "L40S"


class Strategy(enum.Enum):
    """`deviceClasses[].sharing.strategy`: GPU sharing strategy of the NVIDIA driver."""

    TimeSlicing = "TimeSlicing"
    MPS = "MPS"


class Interval(enum.Enum):
    """`deviceClasses[].sharing.interval`: TimeSlicing interval."""

    Default = "Default"
    Short = "Short"
    Medium = "Medium"
    Long = "Long"


class Sharing(TypedDict):
    """`deviceClasses[].sharing`: Opaque sharing config passed to the driver."""

    strategy: Strategy
    """GPU sharing strategy of the NVIDIA driver."""
    interval: NotRequired[Interval]
    """TimeSlicing interval."""
    default_active_thread_percentage: NotRequired[int]
    """MPS thread share."""
    default_pinned_device_memory_limit: NotRequired[str]
    """MPS pinned memory limit."""


class DeviceClass(TypedDict):
    """`deviceClasses[]` in a stack file (docs/configuration.md)."""

    name: str
    """DeviceClass name, used by claim templates and quotas."""
    gpu: NotRequired[Gpu]
    """Match this GPU model (NVML productName)."""
    min_memory: NotRequired[str]
    """Minimum `memory` capacity, e.g. 79Gi."""
    mig_profile: NotRequired[str]
    """Match MIG devices of this profile."""
    min_compute_capability: NotRequired[str]
    """Minimum compute capability, "8.0"."""
    sharing: NotRequired[Sharing]
    """Opaque sharing config passed to the driver."""
    selectors: NotRequired[list[str]]
    """Raw CEL selectors."""


class Migration(enum.Enum):
    """`namespaces[].migration`: Device plugin → DRA state."""

    Legacy = "legacy"
    Dual = "dual"
    DraOnly = "dra-only"


class Quota(TypedDict):
    """`namespaces[].quota`: GPU ResourceQuota of the namespace (absent: every class and the claim count at 0)."""

    claims: NotRequired[int]
    """count/resourceclaims.resource.k8s.io; default: as many claims as the granted devices back."""
    devices: NotRequired[dict[str, int]]
    """<class>.deviceclass.resource.k8s.io/devices per device class; every other class of the cluster is held at 0."""
    legacy_gpus: NotRequired[int]
    """requests.nvidia.com/gpu (device plugin GPUs)."""


class AllocationMode(enum.Enum):
    """`namespaces[].claimTemplates[].allocationMode`: ExactCount (default) or All."""

    ExactCount = "ExactCount"
    All = "All"


class Operator(enum.Enum):
    """`namespaces[].claimTemplates[].firstAvailable[].tolerations[].operator`: Equal compares the value; Exists any value."""

    Exists = "Exists"
    Equal = "Equal"


class Effect(enum.Enum):
    """`namespaces[].claimTemplates[].firstAvailable[].tolerations[].effect`: Effect to match; empty: every effect."""

    NoSchedule = "NoSchedule"
    NoExecute = "NoExecute"
    None_ = "None"


class DeviceToleration(TypedDict):
    """`namespaces[].claimTemplates[].firstAvailable[].tolerations[]`: resource.k8s.io/v1 DeviceToleration (docs/references.md#dra-api-device-tolerations)."""

    key: NotRequired[str]
    """Taint key (a label name); empty: every key (operator Exists)."""
    operator: NotRequired[Operator]
    """Equal compares the value; Exists any value. Default: `"Equal"`."""
    value: NotRequired[str]
    """Taint value (a label value); empty with Exists."""
    effect: NotRequired[Effect]
    """Effect to match; empty: every effect."""
    toleration_seconds: NotRequired[int]
    """NoExecute only: how long a running pod keeps the device after the taint appears."""


class SubRequest(TypedDict):
    """`namespaces[].claimTemplates[].firstAvailable[]` in a stack file (docs/configuration.md)."""

    name: NotRequired[str]
    """Subrequest name; defaults to the device class name."""
    device_class: str
    """DeviceClass of this alternative."""
    count: NotRequired[int]
    """Devices (ExactCount)."""
    allocation_mode: NotRequired[AllocationMode]
    """ExactCount (default) or All."""
    selectors: NotRequired[list[str]]
    """Extra CEL selectors."""
    tolerations: NotRequired[list[DeviceToleration]]
    """Device taints this alternative tolerates (1.36+)."""


class ClaimTemplate(TypedDict):
    """`namespaces[].claimTemplates[]` in a stack file (docs/configuration.md)."""

    name: str
    """ResourceClaimTemplate name."""
    request_name: NotRequired[str]
    """Name of the request containers refer to. Default: `"gpu"`."""
    device_class: NotRequired[str]
    """DeviceClass of an exact request."""
    count: NotRequired[int]
    """Devices (ExactCount, default 1)."""
    allocation_mode: NotRequired[AllocationMode]
    """ExactCount (default) or All."""
    selectors: NotRequired[list[str]]
    """Extra CEL selectors of the request."""
    admin_access: NotRequired[bool]
    """Monitoring access to devices in use (namespace needs adminAccess). Default: `false`."""
    same_attribute: NotRequired[str]
    """constraints[].matchAttribute."""
    first_available: NotRequired[list[SubRequest]]
    """Ordered alternatives; the first that fits wins."""
    tolerations: NotRequired[list[DeviceToleration]]
    """Device taints the request tolerates (resource.k8s.io/v1 DeviceToleration; DRADeviceTaints, 1.36+)."""


class GpuToleration(enum.Enum):
    """`namespaces[].gpuToleration`: auto: from Kubernetes 1.36 a MutatingAdmissionPolicy adds the GPU pools' taint toleration to pods of this namespace that use resourceClaims (dual and dra-only namespaces); off: pods carry their own."""

    Auto = "auto"
    Off = "off"


class PodSecurity(enum.Enum):
    """`namespaces[].podSecurity`: Pod Security Admission level the namespace enforces (and audits and warns about)."""

    Restricted = "restricted"
    Baseline = "baseline"


class Egress(enum.Enum):
    """`namespaces[].egress`: Where the namespace's pods may connect besides cluster DNS: internet (any address except the instance metadata service) or namespace (only pods of the same namespace)."""

    Internet = "internet"
    Namespace = "namespace"


class Namespace(TypedDict):
    """`namespaces[]` in a stack file (docs/configuration.md)."""

    name: str
    """Namespace name."""
    migration: NotRequired[Migration]
    """Device plugin → DRA state. Default: `"dra-only"`."""
    admin_access: NotRequired[bool]
    """Label resource.kubernetes.io/admin-access=true. Default: `false`."""
    labels: NotRequired[dict[str, str]]
    """Extra namespace labels."""
    quota: NotRequired[Quota]
    """GPU ResourceQuota of the namespace (absent: every class and the claim count at 0)."""
    claim_templates: NotRequired[list[ClaimTemplate]]
    """ResourceClaimTemplates (not in legacy namespaces)."""
    gpu_toleration: NotRequired[GpuToleration]
    """auto: from Kubernetes 1.36 a MutatingAdmissionPolicy adds the GPU pools' taint toleration to pods of this namespace that use resourceClaims (dual and dra-only namespaces); off: pods carry their own. Default: `"auto"`."""
    shared_claims: NotRequired[list[ClaimTemplate]]
    """ResourceClaims that several pods share by resourceClaimName (one allocation; not in legacy namespaces); same keys as a claim template."""
    pod_security: NotRequired[PodSecurity]
    """Pod Security Admission level the namespace enforces (and audits and warns about). Default: `"restricted"`."""
    egress: NotRequired[Egress]
    """Where the namespace's pods may connect besides cluster DNS: internet (any address except the instance metadata service) or namespace (only pods of the same namespace). Default: `"internet"`."""


class DeviceTaint(TypedDict):
    """`maintenance.deviceTaints[]` in a stack file (docs/configuration.md)."""

    name: str
    """DeviceTaintRule name."""
    driver: str
    """Driver of the tainted device, e.g. gpu.nvidia.com."""
    pool: NotRequired[str]
    """ResourceSlice pool (the node name for node-local drivers); none: every pool of the driver."""
    device: NotRequired[str]
    """Device name in the pool, e.g. gpu-3; none: every device of the pool."""
    key: str
    """Taint key."""
    value: NotRequired[str]
    """Taint value."""
    effect: NotRequired[Effect]
    """None needs Kubernetes 1.35. Default: `"NoSchedule"`."""


class Maintenance(TypedDict):
    """`maintenance`: The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""

    device_taints: NotRequired[list[DeviceTaint]]
    """DeviceTaintRules: resource.k8s.io/v1 on 1.37, v1beta2 on 1.36 and v1alpha3 before (kind only below 1.37, where the stack turns the gates and API versions on)."""


class Provisioner(enum.Enum):
    """`autoscaler.provisioner`: What turns a pending GPU pod into a node: cluster-autoscaler (managed node groups / agent pools), karpenter (EKS: a Karpenter NodePool per pool), auto-mode (EKS Auto Mode NodePools) or node-auto-provisioning (AKS NAP NodePools)."""

    ClusterAutoscaler = "cluster-autoscaler"
    Karpenter = "karpenter"
    AutoMode = "auto-mode"
    NodeAutoProvisioning = "node-auto-provisioning"


class Autoscaler(TypedDict):
    """`autoscaler`: The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""

    enabled: NotRequired[bool]
    """Scale GPU node pools automatically (default: on for eks and aks; not on kind/existing)."""
    provisioner: NotRequired[Provisioner]
    """What turns a pending GPU pod into a node: cluster-autoscaler (managed node groups / agent pools), karpenter (EKS: a Karpenter NodePool per pool), auto-mode (EKS Auto Mode NodePools) or node-auto-provisioning (AKS NAP NodePools). Default: `"cluster-autoscaler"`."""
    version: NotRequired[str]
    """EKS: the cluster-autoscaler image version (same minor as the cluster; default: the newest of the minor), or with provisioner karpenter the Karpenter chart release (default 1.14.1; 1.15.0 for dra pools)."""


class ExternalSources(enum.Enum):
    """`monitoring.externalSources[]` in a stack file (docs/configuration.md)."""

    KubeStateMetrics = "kube-state-metrics"
    Kubelet = "kubelet"
    KubeScheduler = "kube-scheduler"
    KubeControllerManager = "kube-controller-manager"


class Monitoring(TypedDict):
    """`monitoring`: The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""

    enabled: NotRequired[bool]
    """ServiceMonitor, alert rules and dashboard. Default: `false`."""
    install: NotRequired[bool]
    """Also install a pinned kube-prometheus-stack. Default: `false`."""
    namespace: NotRequired[str]
    """Namespace of the alert rules, the dashboard and (with install) the chart. Default: `"monitoring"`."""
    create_namespace: NotRequired[bool]
    """true: this stack creates the namespace; false: it must exist (the stack reads it and fails if it is missing). Default: true with install, false without."""
    runbook_base_url: NotRequired[str]
    """Absolute URL under which <Alert>.md runbook pages live; each alert's runbook_url is <runbookBaseUrl>/<Alert>.md. Default: docs/monitoring/runbooks of this repository as GitHub renders it. Default: `"https://github.com/dra-gpu-platform/dra-gpu-platform/blob/main/docs/monitoring/runbooks"`."""
    external_sources: NotRequired[list[ExternalSources]]
    """Exporters your own Prometheus already scrapes, for alerts that need them: with install: false kube-state-metrics and kubelet; on kind/existing clusters also kube-scheduler and kube-controller-manager."""
    dcgm_dra_pod_mapping: NotRequired[bool]
    """dcgm-exporter's KUBERNETES_ENABLE_DRA (pod and claim labels on DRA GPUs). It needs resource.k8s.io/v1beta1 served: default on for kind (the stack enables it there), off elsewhere; under a GPUCluster the operator's own (always on, not set here)."""
    claim_pending_minutes: NotRequired[int]
    """Alert when a pod of a DRA namespace (or the scheduler's DRA plugin) stays unschedulable longer. Default: `5`."""
    dashboard: NotRequired[bool]
    """Ship the Grafana dashboard ConfigMap. Default: `true`."""
    gpu_temperature_celsius: NotRequired[int]
    """GPU temperature alert threshold. Default: `85`."""
    idle_gpu_utilization_percent: NotRequired[int]
    """Below this an allocated GPU is idle. Default: `5`."""
    idle_gpu_minutes: NotRequired[int]
    """How long an allocated GPU may idle. Default: `60`."""


class ClusterPlatform(enum.Enum):
    """`platform`: The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster you run yourself too)."""

    Eks = "eks"
    Aks = "aks"
    Existing = "existing"
