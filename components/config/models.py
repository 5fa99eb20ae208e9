"""The stack file contract (docs/configuration.md documents it) as pydantic v2 models. Pure: no Pulumi imports.

One loader, `parse_config_map`, turns the project's config keys into a validated `StackConfig`. The Pulumi
program feeds it from the runtime config (`__main__.py`), `gpuplan` from the stack file itself
(`load_stack_file`), so both always agree. Structural errors come from pydantic; the cross-field rules of
"Meaning that code must enforce" live in `components/config/rules.py`. Every problem is reported at once.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BaseModel, BeforeValidator, ConfigDict, Field, Strict
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from dra_gpu_platform.facts import driver_charts, eks_amis, project, versions
from dra_gpu_platform.facts.catalog import GPU_MODELS
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

PROJECT = "dra-gpu-platform"
AUTOSCALED_PLATFORMS = ("eks", "aks")
STACK_CONFIG_DIR = "stacks"

GpuKey = Literal[
    "H100", "H100-NVL", "H200", "A100-40GB", "A100-80GB", "B200", "GB200", "A10G", "A10", "T4", "L4", "L40S"
]
assert set(GpuKey.__args__) == set(GPU_MODELS)  # the stack contract and the catalog list the same GPUs

# ---------------------------------------------------------------------------------------------------
# Field types with their own rules


def _rule(rule: str, fix: str) -> PydanticCustomError:
    return PydanticCustomError("dra_rule", "{rule}", {"rule": rule, "fix": fix})


_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _dns_label(value: str) -> str:
    if len(value) > 63 or not _DNS_LABEL.match(value):
        raise _rule(
            "must be a DNS label (RFC 1123): lower-case letters, digits and '-', starting and ending with a "
            "letter or digit, at most 63 characters",
            f"rename it, e.g. {_suggest_label(value)!r}",
        )
    return value


def _suggest_label(value: str) -> str:
    label = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:63].strip("-")
    return label or "name"


def _quantity(value: str | int) -> str:
    try:
        parse_quantity(value)
    except QuantityError as exc:
        raise _rule(str(exc), "write a Kubernetes quantity such as '79Gi', '81559Mi' or '40G'") from None
    return str(value)


_QUALIFIED_ATTRIBUTE = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z_][A-Za-z0-9_]{0,31}$")


def _qualified_attribute(value: str) -> str:
    if len(value.split("/", 1)[0]) > 253 or not _QUALIFIED_ATTRIBUTE.match(value):
        raise _rule(
            "must be a fully qualified device attribute `<domain>/<name>` whose name is a C identifier "
            "(letters, digits, '_'; at most 32 characters); hyphens are not allowed in the name",
            "use an attribute the driver publishes, e.g. resource.kubernetes.io/pcieRoot or gpu.nvidia.com/parentUUID",
        )
    return value


_CC = re.compile(r"^\d+\.\d+(\.\d+)?$")


def _compute_capability(value: str | float) -> str:
    text = str(value)
    if not _CC.match(text):
        raise _rule('must be a CUDA compute capability like "8.0" or "9.0"', 'quote it: minComputeCapability: "8.0"')
    return text


def check_kubernetes_version(value: Any) -> str:
    # YAML reads an unquoted 1.35 as a float; accept it when it reads back unambiguously.
    text = value if isinstance(value, str) else (repr(value) if isinstance(value, float) else None)
    if text is None or not re.match(r"^1\.\d{2}$", text):
        raise _rule(
            'must be a Kubernetes minor version string like "1.35"', 'write it quoted: kubernetesVersion: "1.35"'
        )
    minor = int(text.split(".")[1])
    if (1, minor) < versions.MIN_KUBERNETES:
        raise _rule(
            "DRA's resource.k8s.io/v1 API is GA from Kubernetes 1.34; older versions are not supported",
            'use "1.34" or newer',
        )
    if text not in versions.SUPPORTED_KUBERNETES:
        raise _rule(
            f"this package renders and validates for Kubernetes {', '.join(versions.SUPPORTED_KUBERNETES)}",
            f"use one of {', '.join(versions.SUPPORTED_KUBERNETES)}",
        )
    return text


_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _labels(value: dict[str, str]) -> dict[str, str]:
    for key, val in value.items():
        prefix, _, name = key.rpartition("/")
        if (
            (prefix and (len(prefix) > 253 or not _LABEL_PREFIX.match(prefix)))
            or len(name) > 63
            or not _LABEL_NAME.match(name)
        ):
            raise _rule(
                f"label key {key!r} is not a valid Kubernetes label key",
                "use [prefix/]name with name ≤ 63 characters of [A-Za-z0-9_.-]",
            )
        if val and (len(val) > 63 or not _LABEL_NAME.match(val)):
            raise _rule(
                f"label value {val!r} of {key!r} is not a valid Kubernetes label value",
                "use ≤ 63 characters of [A-Za-z0-9_.-], starting and ending alphanumeric",
            )
    return value


_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _node_name(value: str) -> str:
    if len(value) > 253 or not _DNS_SUBDOMAIN.match(value):
        raise _rule(
            "a node name is a DNS subdomain (RFC 1123): lower-case letters, digits, '-' and '.', at most 253 "
            "characters",
            "copy the name from `kubectl get nodes`",
        )
    return value


_PULUMI_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")


def _pulumi_bool(value: Any) -> Any:
    # `pulumi config set --type string --path cluster.protect true` (or a quoted "true") stores the text "true";
    # Pulumi's own coercion of untyped path values turns exactly "true"/"false" into booleans (config/object.go coerce).
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    return value


def _pulumi_int(value: Any) -> Any:
    # The same coercion's integers: base-10 digits without a leading zero ("0123" stays text there, so here too).
    if isinstance(value, str) and _PULUMI_INT.match(value):
        return int(value)
    return value


# Strict where pydantic's lax mode changes meaning: `maxNodes: true` is not 1, `protect: 1`, `protect: "yes"` and
# `protect: "on"` are not true; only the strings Pulumi itself would coerce are read as booleans or numbers.
StackBool = Annotated[bool, Strict(), BeforeValidator(_pulumi_bool)]
StackInt = Annotated[int, Strict(), BeforeValidator(_pulumi_int)]
DnsLabel = Annotated[str, AfterValidator(_dns_label)]
NodeName = Annotated[str, AfterValidator(_node_name)]
QuantityText = Annotated[str, AfterValidator(_quantity)]
QualifiedAttribute = Annotated[str, AfterValidator(_qualified_attribute)]
ComputeCapability = Annotated[str, AfterValidator(_compute_capability)]
Labels = Annotated[dict[str, str], AfterValidator(_labels)]
CelExpression = Annotated[str, Field(min_length=1, max_length=10 * 1024)]


class ConfigModel(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        populate_by_name=True,
        strict=False,
    )


# ---------------------------------------------------------------------------------------------------
# cluster


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


class ClusterConfig(ConfigModel):
    platform: Literal["eks", "aks", "kind", "existing"] = Field(description="Where the cluster runs.")
    name: DnsLabel = Field(description="Cluster name; also the name of the top-level component.")
    kubernetes_version: Annotated[Any, AfterValidator(check_kubernetes_version)] = Field(
        description='Kubernetes minor version, "1.34" or newer (DRA v1).'
    )
    protect: StackBool = Field(False, description="Protect the cluster and GPU node pools from deletion.")
    eks: EksSettings | None = Field(None, description="EKS settings; only with platform: eks.")
    aks: AksSettings | None = Field(None, description="AKS settings; only with platform: aks.")
    kind: KindSettings | None = Field(None, description="kind settings; only with platform: kind.")
    existing: ExistingSettings | None = Field(
        None, description="Existing-cluster settings; only with platform: existing."
    )

    @property
    def minor(self) -> int:
        return int(self.kubernetes_version.split(".")[1])

    def settings(self):
        """The block of the chosen platform, with defaults when it was left out."""
        defaults = {"eks": EksSettings, "aks": AksSettings, "kind": KindSettings, "existing": ExistingSettings}
        return getattr(self, self.platform) or defaults[self.platform]()


# ---------------------------------------------------------------------------------------------------
# node pools


class MigSettings(ConfigModel):
    profile: str = Field(description="MIG profile every GPU of the pool is split into, e.g. 3g.40gb.")


class NodePool(ConfigModel):
    name: DnsLabel = Field(description="Stable pool name; identity of the pool's resources.")
    gpu: GpuKey = Field(description="GPU model of the pool.")
    instance_type: str | None = Field(None, description="EC2 type / Azure VM size; default from the catalog.")
    min_nodes: StackInt = Field(
        0,
        ge=0,
        le=1000,
        description="Autoscaling minimum; 1 instead of 0 for an on-demand or spot dra pool where the autoscaler runs.",
    )
    max_nodes: StackInt = Field(ge=1, le=1000, description="Autoscaling maximum.")
    desired_nodes: StackInt | None = Field(None, ge=0, le=1000, description="Initial size; defaults to minNodes.")
    capacity: Literal["on-demand", "spot", "capacity-block"] = Field("on-demand", description="Purchase option.")
    capacity_reservation_id: Annotated[str, Field(pattern=r"^cr-[0-9a-f]{8,17}$")] | None = Field(
        None, description="EC2 capacity reservation (cr-...); required with capacity-block."
    )
    availability_zone: str | None = Field(None, description="Zone the pool is limited to (a capacity block's zone).")
    capacity_block_start: AwareDatetime | None = Field(
        None,
        description="capacity-block pools: the block's start (UTC, e.g. 2026-10-01T11:30:00Z); scales the pool up then.",
    )
    capacity_block_end: AwareDatetime | None = Field(
        None, description="capacity-block pools: the block's end; the pool scales to zero before it."
    )
    gpu_stack: Literal["dra", "device-plugin"] = Field(
        "dra", description="Which NVIDIA stack runs on these nodes: the DRA kubelet plugin or the device plugin."
    )
    mig: MigSettings | None = Field(None, description="MIG partitioning of every GPU in the pool.")
    labels: Labels = Field(default_factory=dict, description="Extra node labels.")
    ami_type: Literal[eks_amis.GPU_POOL_AMI_TYPES] | None = Field(
        None, description="EKS only: NVIDIA AMI family (AL2023 by default)."
    )
    disk_size_gb: StackInt = Field(200, ge=20, le=16384, description="Root volume size per node.")
    gpus_per_node: StackInt | None = Field(
        None, ge=1, le=64, description="GPUs per node on kind/existing clusters (clouds: from the instance type)."
    )
    nodes: list[NodeName] = Field(
        default_factory=list,
        description="platform existing: the pool's existing nodes; the program applies the pool's labels and taint to "
        "them (server-side apply). Empty: preview prints the kubectl commands.",
    )

    @property
    def initial_nodes(self) -> int:
        return self.desired_nodes if self.desired_nodes is not None else self.min_nodes

    @property
    def autoscaled_from_one_node(self) -> bool:
        """Where the autoscaler runs, this pool can only grow from one node up: its GPUs are DRA devices, which
        the AWS and Azure autoscaler providers cannot predict for an empty node group, and it is bought on
        demand or spot (a Capacity Block pool is sized by its block)."""
        return self.gpu_stack == "dra" and self.capacity in ("on-demand", "spot")


# ---------------------------------------------------------------------------------------------------
# GPU software


class GpuOperatorConfig(ConfigModel):
    enabled: StackBool | None = Field(None, description="Install the NVIDIA GPU Operator (default: on, off on kind).")
    version: Annotated[str, Field(pattern=r"^v\d+\.\d+\.\d+$")] = Field(
        versions.GPU_OPERATOR_DEFAULT, description="Pinned gpu-operator chart version."
    )
    allow_unlisted: StackBool = Field(
        False,
        description="Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked).",
    )
    driver: Literal["auto", "host", "operator"] = Field(
        "auto",
        description="Who installs the NVIDIA kernel driver: auto (host on EKS NVIDIA AMIs and AKS), host, operator.",
    )


class DraDriverConfig(ConfigModel):
    enabled: StackBool = Field(True, description="Install the NVIDIA DRA driver.")
    version: str = Field(driver_charts.DRA_DRIVER_DEFAULT, description="Pinned DRA driver chart version.")
    allow_unlisted: StackBool = Field(
        False,
        description="Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked).",
    )
    feature_gates: dict[str, StackBool] = Field(
        default_factory=dict, description="Driver feature gates; TimeSlicingSettings/MPSSupport are set for you."
    )
    compute_domains: StackBool = Field(False, description="Enable ComputeDomains (multi-node NVLink / IMEX).")
    extended_resource_bridge: StackBool = Field(
        False,
        description="Let pods requesting nvidia.com/gpu be served by DRA (KEP-5004, DRAExtendedResource).",
    )


# ---------------------------------------------------------------------------------------------------
# DRA objects


class SharingConfig(ConfigModel):
    strategy: Literal["TimeSlicing", "MPS"] = Field(description="GPU sharing strategy of the NVIDIA driver.")
    interval: Literal["Default", "Short", "Medium", "Long"] | None = Field(None, description="TimeSlicing interval.")
    default_active_thread_percentage: StackInt | None = Field(None, ge=1, le=100, description="MPS thread share.")
    default_pinned_device_memory_limit: QuantityText | None = Field(None, description="MPS pinned memory limit.")


class DeviceClassConfig(ConfigModel):
    name: DnsLabel = Field(description="DeviceClass name, used by claim templates and quotas.")
    gpu: GpuKey | None = Field(None, description="Match this GPU model (NVML productName).")
    min_memory: QuantityText | None = Field(None, description="Minimum `memory` capacity, e.g. 79Gi.")
    mig_profile: str | None = Field(None, description="Match MIG devices of this profile.")
    min_compute_capability: ComputeCapability | None = Field(None, description='Minimum compute capability, "8.0".')
    sharing: SharingConfig | None = Field(None, description="Opaque sharing config passed to the driver.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Raw CEL selectors.")


class SubRequestConfig(ConfigModel):
    name: DnsLabel | None = Field(None, description="Subrequest name; defaults to the device class name.")
    device_class: str = Field(description="DeviceClass of this alternative.")
    count: StackInt | None = Field(None, ge=1, le=32, description="Devices (ExactCount).")
    allocation_mode: Literal["ExactCount", "All"] | None = Field(None, description="ExactCount (default) or All.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Extra CEL selectors.")


class ClaimTemplateConfig(ConfigModel):
    name: DnsLabel = Field(description="ResourceClaimTemplate name.")
    request_name: DnsLabel = Field("gpu", description="Name of the request containers refer to.")
    device_class: str | None = Field(None, description="DeviceClass of an exact request.")
    count: StackInt | None = Field(None, ge=1, le=32, description="Devices (ExactCount, default 1).")
    allocation_mode: Literal["ExactCount", "All"] | None = Field(None, description="ExactCount (default) or All.")
    selectors: list[CelExpression] = Field(
        default_factory=list, max_length=32, description="Extra CEL selectors of the request."
    )
    admin_access: StackBool = Field(
        False, description="Monitoring access to devices in use (namespace needs adminAccess)."
    )
    same_attribute: QualifiedAttribute | None = Field(None, description="constraints[].matchAttribute.")
    first_available: list[SubRequestConfig] | None = Field(
        None, min_length=1, max_length=8, description="Ordered alternatives; the first that fits wins."
    )


class QuotaConfig(ConfigModel):
    claims: StackInt | None = Field(None, ge=0, description="count/resourceclaims.resource.k8s.io")
    devices: dict[str, Annotated[StackInt, Field(ge=0)]] = Field(
        default_factory=dict, description="<class>.deviceclass.resource.k8s.io/devices per device class."
    )
    legacy_gpus: StackInt | None = Field(None, ge=0, description="requests.nvidia.com/gpu (device plugin GPUs).")


class NamespaceConfig(ConfigModel):
    name: DnsLabel = Field(description="Namespace name.")
    migration: Literal["legacy", "dual", "dra-only"] = Field("dra-only", description="Device plugin → DRA state.")
    admin_access: StackBool = Field(False, description="Label resource.kubernetes.io/admin-access=true.")
    labels: Labels = Field(default_factory=dict, description="Extra namespace labels.")
    quota: QuotaConfig | None = Field(None, description="ResourceQuota of the namespace.")
    claim_templates: list[ClaimTemplateConfig] = Field(
        default_factory=list, description="ResourceClaimTemplates (not in legacy namespaces)."
    )


class DeviceTaintConfig(ConfigModel):
    name: DnsLabel = Field(description="DeviceTaintRule name.")
    driver: str = Field(description="Driver of the tainted device, e.g. gpu.nvidia.com.")
    pool: str = Field(description="ResourceSlice pool (the node name for node-local drivers).")
    device: str = Field(description="Device name in the pool, e.g. gpu-3.")
    key: str = Field(description="Taint key.")
    value: str | None = Field(None, description="Taint value.")
    effect: Literal["NoSchedule", "NoExecute", "None"] = Field("NoSchedule", description="None needs Kubernetes 1.35.")


class MaintenanceConfig(ConfigModel):
    device_taints: list[DeviceTaintConfig] = Field(
        default_factory=list, description="DeviceTaintRules (alpha; kind only)."
    )


class AutoscalerConfig(ConfigModel):
    enabled: StackBool | None = Field(
        None, description="Scale GPU node pools automatically (default: on for eks and aks; not on kind/existing)."
    )
    version: str | None = Field(
        None,
        pattern=r"^v?\d+\.\d+\.\d+$",
        description="EKS: the cluster-autoscaler image version (same minor as the cluster); default: the newest of the cluster's minor.",
    )


def _absolute_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
        raise _rule(
            "must be an absolute http(s) URL: Alertmanager and on-call tools open runbook links as they are",
            f"write the full address, e.g. {project.RUNBOOKS_URL!r}",
        )
    return value


MonitoringExporter = Literal["kube-state-metrics", "kubelet", "kube-scheduler", "kube-controller-manager"]


class MonitoringConfig(ConfigModel):
    enabled: StackBool = Field(False, description="ServiceMonitor, alert rules and dashboard.")
    install: StackBool = Field(False, description="Also install a pinned kube-prometheus-stack.")
    namespace: DnsLabel = Field(
        "monitoring", description="Namespace of the alert rules, the dashboard and (with install) the chart."
    )
    create_namespace: StackBool | None = Field(
        None,
        description="true: this stack creates the namespace; false: it must exist (the stack reads it and fails "
        "if it is missing). Default: true with install, false without.",
    )
    runbook_base_url: Annotated[str, AfterValidator(_absolute_url)] = Field(
        project.RUNBOOKS_URL,
        description="Absolute URL under which <Alert>.md runbook pages live; each alert's runbook_url is "
        "<runbookBaseUrl>/<Alert>.md. Default: docs/monitoring/runbooks of this repository as GitHub renders it.",
    )
    external_sources: list[MonitoringExporter] = Field(
        default_factory=list,
        description="Exporters your own Prometheus already scrapes, for alerts that need them: with install: false "
        "kube-state-metrics and kubelet; on kind/existing clusters also kube-scheduler and kube-controller-manager.",
    )
    dcgm_dra_pod_mapping: StackBool | None = Field(
        None,
        description="dcgm-exporter's KUBERNETES_ENABLE_DRA (pod and claim labels on DRA GPUs). It needs "
        "resource.k8s.io/v1beta1 served: default on for kind (the stack enables it there), off elsewhere.",
    )
    claim_pending_minutes: StackInt = Field(
        5,
        ge=1,
        le=1440,
        description="Alert when a pod of a DRA namespace (or the scheduler's DRA plugin) stays unschedulable longer.",
    )
    dashboard: StackBool = Field(True, description="Ship the Grafana dashboard ConfigMap.")
    gpu_temperature_celsius: StackInt = Field(85, ge=40, le=120, description="GPU temperature alert threshold.")
    idle_gpu_utilization_percent: StackInt = Field(5, ge=0, le=100, description="Below this an allocated GPU is idle.")
    idle_gpu_minutes: StackInt = Field(60, ge=5, le=10080, description="How long an allocated GPU may idle.")

    @property
    def creates_namespace(self) -> bool:
        return self.install if self.create_namespace is None else self.create_namespace


# ---------------------------------------------------------------------------------------------------
# the whole stack


class StackConfig(ConfigModel):
    stack: str
    source: str = Field(description="Stack file the config came from.")
    region: str | None = None
    cluster: ClusterConfig
    node_pools: list[NodePool] = Field(default_factory=list)
    gpu_operator: GpuOperatorConfig = Field(default_factory=GpuOperatorConfig)
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig)
    device_classes: list[DeviceClassConfig] = Field(default_factory=list)
    namespaces: list[NamespaceConfig] = Field(default_factory=list)
    maintenance: MaintenanceConfig = Field(default_factory=MaintenanceConfig)
    autoscaler: AutoscalerConfig = Field(default_factory=AutoscalerConfig)
    monitoring: MonitoringConfig = Field(default_factory=MonitoringConfig)
    has_kubeconfig: bool = False

    # ---- derived facts used across components (pure)
    @property
    def platform(self) -> str:
        return self.cluster.platform

    @property
    def uses_example_driver(self) -> bool:
        return self.platform == "kind" and self.cluster.settings().gpu_driver == "example"

    @property
    def gpu_operator_enabled(self) -> bool:
        if self.gpu_operator.enabled is not None:
            return self.gpu_operator.enabled
        return self.platform != "kind"

    @property
    def autoscaler_enabled(self) -> bool:
        if self.autoscaler.enabled is not None:
            return self.autoscaler.enabled
        return self.platform in AUTOSCALED_PLATFORMS

    @property
    def dra_pools(self) -> list[NodePool]:
        return [p for p in self.node_pools if p.gpu_stack == "dra"]

    @property
    def device_plugin_pools(self) -> list[NodePool]:
        return [p for p in self.node_pools if p.gpu_stack == "device-plugin"]

    @property
    def operator_device_plugin_pools(self) -> list[NodePool]:
        """Device-plugin pools whose image has no NVIDIA device plugin of its own (only Bottlerocket NVIDIA ships
        one), so the GPU Operator's must run there."""
        return [p for p in self.device_plugin_pools if not eks_amis.ships_device_plugin(p.ami_type)]

    def pool(self, name: str) -> NodePool | None:
        return next((p for p in self.node_pools if p.name == name), None)

    def device_class(self, name: str) -> DeviceClassConfig | None:
        return next((c for c in self.device_classes if c.name == name), None)

    def driver_device_classes(self) -> tuple[str, ...]:
        """DeviceClasses the installed driver chart creates by itself (components/facts/driver_charts.py)."""
        if self.uses_example_driver:
            return driver_charts.EXAMPLE_DRIVER_CLASSES
        if not self.dra_driver.enabled:
            return ()
        release = driver_charts.dra_driver_release(self.dra_driver.version)
        if release is None:  # an unknown version is its own config problem; assume the default chart's classes
            release = driver_charts.DRA_DRIVER_RELEASES[driver_charts.DRA_DRIVER_DEFAULT]
        return release.device_classes(gpus=True, compute_domains=self.dra_driver.compute_domains)

    def usable_device_classes(self) -> set[str]:
        """Classes a claim template may name: the stack's own and the driver chart's."""
        return {c.name for c in self.device_classes} | set(self.driver_device_classes())

    def required_dra_feature_gates(self) -> dict[str, list[str]]:
        """NVIDIA DRA driver feature gate -> the device classes whose sharing settings need it."""
        needed: dict[str, list[str]] = {}
        if self.uses_example_driver:
            return needed
        for dc in self.device_classes:
            if dc.sharing is not None:
                needed.setdefault(driver_charts.SHARING_FEATURE_GATES[dc.sharing.strategy], []).append(dc.name)
        return needed
