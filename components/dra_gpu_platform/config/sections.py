"""The stack file's sections after `cluster` (node pools, GPU software, DRA objects, namespaces, maintenance,
autoscaler, monitoring) and StackSections, the fields of a whole stack with what derives from them. Pure: no Pulumi.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Discriminator, Field, Tag

from dra_gpu_platform.config.cluster import ClusterConfig
from dra_gpu_platform.config.fields import (
    CelExpression,
    ComputeCapability,
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    GpuKey,
    LabelKey,
    Labels,
    LabelValue,
    NodeName,
    QualifiedAttribute,
    QuantityText,
    StackBool,
    StackInt,
    rule_error,
)
from dra_gpu_platform.facts import (
    catalog,
    driver_charts,
    driver_features,
    eks_amis,
    gpu_operator,
    kubernetes,
    project,
    provisioners,
    versions,
)
from dra_gpu_platform.facts.catalog import GpuModel, InstanceType
from dra_gpu_platform.facts.quantity import parse_quantity

AUTOSCALED_PLATFORMS = ("eks", "aks")


class MigSettings(ConfigModel):
    profile: str = Field(description="MIG profile every GPU of the pool is split into, e.g. 3g.40gb.")


# ---------------------------------------------------------------------------------------------------
# a GPU or an instance type the catalog does not list, as the stack describes it

# NVML product and architecture names ("NVIDIA RTX A5000", "Ada Lovelace"): letters, digits, spaces, '.' and '-', as
# label values allow once spaces are written "_" (dra_gpu_platform/facts/node_labels.py label_value).
_NVML_NAME = re.compile(r"^[A-Za-z0-9]([A-Za-z0-9 .-]{0,61}[A-Za-z0-9])?$")


def _nvml_name(value: str) -> str:
    if not _NVML_NAME.match(value) or "  " in value:
        raise rule_error(
            "must be the name as NVML reports it: at most 63 letters, digits, single spaces, '.' and '-', starting "
            "and ending with a letter or digit (the pool's nodes carry it as a label)",
            "copy it from `nvidia-smi --query-gpu=name --format=csv,noheader` (architecture: the driver's "
            "`architecture` attribute, e.g. Ampere, Ada Lovelace, Hopper, Blackwell)",
        )
    return value


NvmlName = Annotated[str, AfterValidator(_nvml_name)]


class DescribedMigProfile(ConfigModel):
    name: Annotated[str, Field(pattern=r"^[1-8]g\.[0-9]+gb(\+me)?$")] = Field(
        description="MIG profile as the driver names it (`nvidia-smi mig -lgip`), e.g. 1g.6gb."
    )
    max_count: StackInt = Field(ge=1, le=8, description="Instances of this profile one GPU holds.")
    memory_slices: StackInt = Field(
        ge=1, le=8, description="Memory slices (of 8) one instance takes: its placement size."
    )
    memory: QuantityText | None = Field(None, description="Published `memory` capacity of one instance, if known.")


class DescribedGpu(ConfigModel):
    """A GPU the catalog does not list, described by the stack (platform existing, or kind with gpuDriver: nvidia)."""

    product: NvmlName = Field(
        description="NVML product name, exactly as the DRA driver publishes `productName` (selectors match it)."
    )
    memory: QuantityText = Field(description="Published `memory` capacity per GPU (NVML's total), e.g. 24564Mi.")
    compute_capability: ComputeCapability = Field(description='CUDA compute capability, e.g. "8.6".')
    architecture: NvmlName = Field(description="`architecture` attribute as the driver publishes it, e.g. Ampere.")
    mig_profiles: list[DescribedMigProfile] = Field(
        default_factory=list, max_length=16, description="MIG profiles of the GPU; empty: no MIG."
    )

    def model(self) -> GpuModel:
        return catalog.described_gpu_model(
            self.product,
            self.memory,
            self.compute_capability,
            self.architecture,
            tuple(
                catalog.described_mig_profile(p.name, p.max_count, p.memory_slices, p.memory) for p in self.mig_profiles
            ),
        )


def _gpu_choice(value: Any) -> str:
    return "described" if isinstance(value, (dict, DescribedGpu)) else "key"


# A known model's key, or a described GPU. The tags name the branch only for pydantic: config/validation.py leaves
# them out of the field paths problems show.
GPU_CHOICE_TAGS = ("key", "described")
GpuChoice = Annotated[
    Annotated[GpuKey, Tag("key")] | Annotated[DescribedGpu, Tag("described")], Discriminator(_gpu_choice)
]


class InstanceFacts(ConfigModel):
    """What the program needs to know of an instance type or VM size the catalog does not list (allowUnlisted)."""

    gpus: StackInt = Field(ge=1, le=64, description="GPUs per instance.")
    vcpu: StackInt = Field(ge=1, le=4096, description="vCPUs per instance (quota checks).")
    memory: QuantityText = Field(description="Host memory per instance, e.g. 256Gi.")
    efa_interfaces: StackInt = Field(
        0, ge=0, le=32, description="EKS: EFA interfaces to attach (one per network card); 0: none."
    )
    nvme_disks: StackInt = Field(
        0, ge=0, le=32, description="NVMe instance-store disks (EKS: RAID0 for local storage)."
    )
    cpu_architecture: Literal["x86_64", "arm64"] = Field("x86_64", description="CPU architecture of the instance.")
    quota_family: str | None = Field(
        None,
        description="vCPU quota family: EC2 P or G (default from the name), Azure the family name the usage API reports.",
    )


def _iso_date(value: Any) -> Any:
    return value.isoformat() if isinstance(value, date) else value


def _real_date(value: str) -> str:
    try:
        date.fromisoformat(value)
    except ValueError:
        raise rule_error("must be a real date", 'write it as YYYY-MM-DD, e.g. asOf: "2026-10-01"') from None
    return value


IsoDate = Annotated[str, BeforeValidator(_iso_date), Field(pattern=r"^\d{4}-\d{2}-\d{2}$"), AfterValidator(_real_date)]


class DeclaredPrice(ConfigModel):
    """The price the stack's owner pays for a node of a capacity-block pool or a pool in a capacity reservation."""

    per_node_hour: Annotated[float, Field(gt=0, le=10_000)] = Field(description="USD per node and hour.")
    as_of: IsoDate = Field(description="Date the price applies from (YYYY-MM-DD).")
    source: str | None = Field(
        None, max_length=200, description="Where the figure comes from, e.g. the Capacity Block's purchase."
    )


class NodePool(ConfigModel):
    name: DnsLabel = Field(description="Stable pool name; identity of the pool's resources.")
    gpu: GpuChoice = Field(
        description="GPU model of the pool: a catalog key, or (existing; kind with gpuDriver: nvidia) a described GPU."
    )
    instance_type: str | None = Field(None, description="EC2 type / Azure VM size; default from the catalog.")
    instance_types: Annotated[list[str], Field(min_length=1, max_length=20)] | None = Field(
        None,
        description="karpenter / auto-mode / node-auto-provisioning: the instance types (VM sizes) the provisioner "
        "may launch for this pool, all of its GPU and GPU count (instanceType: just one); it launches the cheapest "
        "that fits.",
    )
    allow_unlisted: StackBool = Field(
        False, description="EKS/AKS: accept an instanceType the catalog does not list (declare instanceFacts)."
    )
    instance_facts: InstanceFacts | None = Field(
        None, description="EKS/AKS with allowUnlisted: what the unlisted instance type has."
    )
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
    ami_type: eks_amis.GpuPoolAmiType | None = Field(
        None, description="EKS only: NVIDIA AMI family (AL2023 by default)."
    )
    disk_size_gb: StackInt = Field(200, ge=20, le=16384, description="Root volume size per node.")
    gpus_per_node: StackInt | None = Field(
        None,
        ge=1,
        le=64,
        description="GPUs per node on kind/existing clusters (clouds: from the instance type); required with a "
        "described GPU.",
    )
    price: DeclaredPrice | None = Field(
        None,
        description="capacity-block pools and on-demand pools in a capacity reservation: the price you pay per "
        "node-hour (preview's capacity table; other pools are priced from the project's price facts).",
    )
    nodes: list[NodeName] = Field(
        default_factory=list,
        description="platform existing: the pool's existing nodes; the program applies the pool's labels and taint to "
        "them (server-side apply). Empty: preview prints the kubectl commands.",
    )

    @property
    def described_gpu(self) -> DescribedGpu | None:
        return self.gpu if isinstance(self.gpu, DescribedGpu) else None

    @property
    def gpu_model(self) -> GpuModel:
        """The GPU's facts: the catalog's for a key, the stack's for a described GPU."""
        return self.gpu.model() if isinstance(self.gpu, DescribedGpu) else catalog.gpu_model(self.gpu)

    @property
    def gpu_name(self) -> str:
        """How messages name the GPU: the catalog key, or a described GPU's product."""
        return self.gpu.product if isinstance(self.gpu, DescribedGpu) else self.gpu

    @property
    def gpu_key(self) -> str:
        """The catalog key, or a described GPU's product as a label value."""
        return self.gpu_model.key

    @property
    def unlisted(self) -> bool:
        """A cloud pool whose instance type the catalog does not list, accepted with allowUnlisted."""
        return self.allow_unlisted and self.instance_type is not None

    def declared_shape(self, platform: Literal["eks", "aks"]) -> InstanceType | None:
        """The unlisted instance type as instanceFacts declare it (None without allowUnlisted and instanceFacts)."""
        facts = self.instance_facts
        if not self.unlisted or facts is None or self.instance_type is None:
            return None
        model = self.gpu_model
        return catalog.declared_instance_type(
            platform,
            self.instance_type,
            model.key,
            model.nominal_memory_gb,
            gpus=facts.gpus,
            vcpus=facts.vcpu,
            memory_gib=int(parse_quantity(facts.memory).value / 2**30),
            efa_interfaces=facts.efa_interfaces if platform == "eks" else 0,
            nvme_disks=facts.nvme_disks,
            cpu_architecture=facts.cpu_architecture,
            quota_family=facts.quota_family or "",
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
    dra_management: Literal["chart", "gpucluster"] = Field(
        "chart",
        description="Who deploys the NVIDIA DRA driver: chart (its own Helm release, beside the operator's "
        "ClusterPolicy) or gpucluster (GPU Operator v26.7.0+ deploys it through its GPUCluster resource instead of "
        "a ClusterPolicy; technology preview, new clusters only, DRA pools only).",
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
    compute_domains: StackBool | None = Field(
        None,
        description="ComputeDomains (multi-node NVLink, IMEX channels): default on when a DRA pool's GPU has "
        "multi-node NVLink (GB200), else off; true without such a pool is an error.",
    )
    extended_resource_bridge: StackBool | None = Field(
        None,
        description="Let pods requesting nvidia.com/gpu be served by DRA (KEP-5004, DRAExtendedResource). Default: "
        "on from Kubernetes 1.36 where the driver's gpu.nvidia.com class carries extendedResourceName, else off.",
    )


# ---------------------------------------------------------------------------------------------------
# DRA objects


class SharingConfig(ConfigModel):
    strategy: Literal["TimeSlicing", "MPS"] = Field(description="GPU sharing strategy of the NVIDIA driver.")
    interval: Literal["Default", "Short", "Medium", "Long"] | None = Field(None, description="TimeSlicing interval.")
    default_active_thread_percentage: StackInt | None = Field(None, ge=1, le=100, description="MPS thread share.")
    default_pinned_device_memory_limit: QuantityText | None = Field(None, description="MPS pinned memory limit.")


class DeviceClassConfig(ConfigModel):
    # a DNS subdomain, as Kubernetes names a DeviceClass (`nvidia-h100-mig-3g.40gb`; docs/references.md#dra-api-object-names)
    name: DnsSubdomain = Field(description="DeviceClass name, used by claim templates and quotas.")
    gpu: GpuKey | None = Field(None, description="Match this GPU model (NVML productName).")
    min_memory: QuantityText | None = Field(None, description="Minimum `memory` capacity, e.g. 79Gi.")
    mig_profile: str | None = Field(None, description="Match MIG devices of this profile.")
    min_compute_capability: ComputeCapability | None = Field(None, description='Minimum compute capability, "8.0".')
    sharing: SharingConfig | None = Field(None, description="Opaque sharing config passed to the driver.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Raw CEL selectors.")


class DeviceTolerationConfig(ConfigModel):
    """resource.k8s.io/v1 DeviceToleration (docs/references.md#dra-api-device-tolerations)."""

    key: LabelKey | None = Field(None, description="Taint key (a label name); empty: every key (operator Exists).")
    operator: Literal["Exists", "Equal"] = Field("Equal", description="Equal compares the value; Exists any value.")
    value: LabelValue | None = Field(None, description="Taint value (a label value); empty with Exists.")
    effect: Literal["NoSchedule", "NoExecute", "None"] | None = Field(
        None, description="Effect to match; empty: every effect."
    )
    toleration_seconds: StackInt | None = Field(
        None, description="NoExecute only: how long a running pod keeps the device after the taint appears."
    )


class SubRequestConfig(ConfigModel):
    name: DnsLabel | None = Field(None, description="Subrequest name; defaults to the device class name.")
    device_class: str = Field(description="DeviceClass of this alternative.")
    count: StackInt | None = Field(None, ge=1, le=32, description="Devices (ExactCount).")
    allocation_mode: Literal["ExactCount", "All"] | None = Field(None, description="ExactCount (default) or All.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Extra CEL selectors.")
    tolerations: list[DeviceTolerationConfig] = Field(
        default_factory=list, max_length=16, description="Device taints this alternative tolerates (1.36+)."
    )


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
    tolerations: list[DeviceTolerationConfig] = Field(
        default_factory=list,
        max_length=16,
        description="Device taints the request tolerates (resource.k8s.io/v1 DeviceToleration; DRADeviceTaints, 1.36+).",
    )


class QuotaConfig(ConfigModel):
    claims: StackInt | None = Field(
        None,
        ge=0,
        description="count/resourceclaims.resource.k8s.io; default: as many claims as the granted devices back.",
    )
    devices: dict[str, Annotated[StackInt, Field(ge=0)]] = Field(
        default_factory=dict,
        description="<class>.deviceclass.resource.k8s.io/devices per device class; every other class of the cluster "
        "is held at 0.",
    )
    legacy_gpus: StackInt | None = Field(None, ge=0, description="requests.nvidia.com/gpu (device plugin GPUs).")


class NamespaceConfig(ConfigModel):
    name: DnsLabel = Field(description="Namespace name.")
    migration: Literal["legacy", "dual", "dra-only"] = Field("dra-only", description="Device plugin → DRA state.")
    admin_access: StackBool = Field(False, description="Label resource.kubernetes.io/admin-access=true.")
    labels: Labels = Field(default_factory=dict, description="Extra namespace labels.")
    quota: QuotaConfig | None = Field(
        None, description="GPU ResourceQuota of the namespace (absent: every class and the claim count at 0)."
    )
    claim_templates: list[ClaimTemplateConfig] = Field(
        default_factory=list, description="ResourceClaimTemplates (not in legacy namespaces)."
    )
    gpu_toleration: Literal["auto", "off"] = Field(
        "auto",
        description="auto: from Kubernetes 1.36 a MutatingAdmissionPolicy adds the GPU pools' taint toleration to "
        "pods of this namespace that use resourceClaims (dual and dra-only namespaces); off: pods carry their own.",
    )
    shared_claims: list[ClaimTemplateConfig] = Field(
        default_factory=list,
        description="ResourceClaims that several pods share by resourceClaimName (one allocation; not in legacy "
        "namespaces); same keys as a claim template.",
    )
    pod_security: Literal["restricted", "baseline"] = Field(
        "restricted",
        description="Pod Security Admission level the namespace enforces (and audits and warns about).",
    )
    egress: Literal["internet", "namespace"] = Field(
        "internet",
        description="Where the namespace's pods may connect besides cluster DNS: internet (any address except the "
        "instance metadata service) or namespace (only pods of the same namespace).",
    )


class DeviceTaintConfig(ConfigModel):
    name: DnsLabel = Field(description="DeviceTaintRule name.")
    driver: str = Field(description="Driver of the tainted device, e.g. gpu.nvidia.com.")
    pool: str | None = Field(
        None, description="ResourceSlice pool (the node name for node-local drivers); none: every pool of the driver."
    )
    device: str | None = Field(None, description="Device name in the pool, e.g. gpu-3; none: every device of the pool.")
    key: str = Field(description="Taint key.")
    value: str | None = Field(None, description="Taint value.")
    effect: Literal["NoSchedule", "NoExecute", "None"] = Field("NoSchedule", description="None needs Kubernetes 1.35.")


class MaintenanceConfig(ConfigModel):
    device_taints: list[DeviceTaintConfig] = Field(
        default_factory=list,
        description="DeviceTaintRules: resource.k8s.io/v1 on 1.37, v1beta2 on 1.36 and v1alpha3 before (kind only "
        "below 1.37, where the stack turns the gates and API versions on).",
    )


class AutoscalerConfig(ConfigModel):
    enabled: StackBool | None = Field(
        None, description="Scale GPU node pools automatically (default: on for eks and aks; not on kind/existing)."
    )
    provisioner: provisioners.Provisioner = Field(
        provisioners.DEFAULT,
        description="What turns a pending GPU pod into a node: cluster-autoscaler (managed node groups / agent pools), "
        "karpenter (EKS: a Karpenter NodePool per pool), auto-mode (EKS Auto Mode NodePools) or "
        "node-auto-provisioning (AKS NAP NodePools).",
    )
    version: str | None = Field(
        None,
        pattern=r"^v?\d+\.\d+\.\d+$",
        description="EKS: the cluster-autoscaler image version (same minor as the cluster; default: the newest of the "
        "minor), or with provisioner karpenter the Karpenter chart release (default 1.14.1; 1.15.0 for dra pools).",
    )


def _absolute_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
        raise rule_error(
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
        "resource.k8s.io/v1beta1 served: default on for kind (the stack enables it there), off elsewhere; under a "
        "GPUCluster the operator's own (always on, not set here).",
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


class StackSections(ConfigModel):
    """The stack's fields and what derives from them. Structure only: the cross-field rules run in StackConfig
    (dra_gpu_platform/config/models.py), the only class of a stack; this one is what the rules read."""

    stack: str | None = Field(None, description="Stack name (gpuplan: from the stack file's name).")
    source: str | None = Field(None, description="Stack file the config came from; problems name it.")
    region: str | None = Field(
        None, description="AWS region (`aws:region`) or Azure location (`azure-native:location`) of the cluster."
    )
    cluster: ClusterConfig
    node_pools: list[NodePool] = Field(default_factory=list)
    gpu_operator: GpuOperatorConfig = Field(default_factory=GpuOperatorConfig)
    dra_driver: DraDriverConfig = Field(default_factory=DraDriverConfig)
    device_classes: list[DeviceClassConfig] = Field(default_factory=list)
    namespaces: list[NamespaceConfig] = Field(default_factory=list)
    maintenance: MaintenanceConfig = Field(default_factory=MaintenanceConfig)
    autoscaler: AutoscalerConfig = Field(default_factory=AutoscalerConfig)
    monitoring: MonitoringConfig = Field(default_factory=MonitoringConfig)
    has_kubeconfig: StackBool = Field(
        False, description="Whether the `kubeconfig` secret of an existing cluster is set (its value never is here)."
    )

    # ---- derived facts used across components (pure)
    @property
    def platform(self) -> str:
        return self.cluster.platform

    @property
    def uses_example_driver(self) -> bool:
        return self.cluster.platform == "kind" and self.cluster.settings().gpu_driver == "example"

    @property
    def uses_gpu_cluster(self) -> bool:
        """The GPU Operator deploys the NVIDIA DRA driver through its GPUCluster (no ClusterPolicy, no DRA chart)."""
        return self.gpu_operator_enabled and self.gpu_operator.dra_management == "gpucluster"

    @property
    def nvidia_dra_driver_version(self) -> str:
        """The NVIDIA DRA driver release that runs: the operator's pinned one under a GPUCluster, else the chart's."""
        if self.uses_gpu_cluster:
            return gpu_operator.gpu_cluster_dra_driver(self.gpu_operator.version)
        return self.dra_driver.version

    @property
    def host_dra_pools(self) -> list[NodePool]:
        """DRA pools whose nodes run the host's NVIDIA DRA driver (Bottlerocket NVIDIA), not the chart's plugin."""
        return [p for p in self.dra_pools if eks_amis.runs_host_dra_driver(p.ami_type, p.gpu_stack)]

    @property
    def gpu_operator_enabled(self) -> bool:
        if self.gpu_operator.enabled is not None:
            return self.gpu_operator.enabled
        # EKS Auto Mode nodes run the NVIDIA driver and device plugin themselves (dra_gpu_platform/facts/auto_mode.py).
        return self.platform != "kind" and not self.auto_mode

    @property
    def auto_mode(self) -> bool:
        return self.node_pool_provisioner and self.provisioner == provisioners.AUTO_MODE

    @property
    def dra_free(self) -> bool:
        """No DRA pool can exist (EKS Auto Mode, AKS node auto-provisioning: config rules refuse them), so no DRA driver
        chart is installed and no DeviceClass of its serves nvidia.com/gpu."""
        return self.node_pool_provisioner and self.provisioner in (
            provisioners.AUTO_MODE,
            provisioners.NODE_AUTO_PROVISIONING,
        )

    @property
    def provisioner(self) -> str:
        """What grows the GPU pools: `autoscaler.provisioner` where an autoscaler runs, else nothing does."""
        return self.autoscaler.provisioner

    @property
    def node_pool_provisioner(self) -> bool:
        """The GPU pools are NodePools of Karpenter, EKS Auto Mode or AKS node auto-provisioning (nodes for pending
        pods only), not node groups or agent pools."""
        return self.autoscaler_enabled and self.provisioner in provisioners.NODE_POOL_PROVISIONERS

    @property
    def autoscaler_enabled(self) -> bool:
        if self.autoscaler.enabled is not None:
            return self.autoscaler.enabled
        return self.platform in AUTOSCALED_PLATFORMS

    @property
    def multi_node_nvlink_pools(self) -> list[NodePool]:
        """DRA pools whose GPUs reach other nodes' GPUs over NVLink (GB200 NVL72): ComputeDomains serve them."""
        return [p for p in self.dra_pools if p.gpu_model.multi_node_nvlink]

    @property
    def compute_domains_enabled(self) -> bool:
        """The NVIDIA DRA driver's ComputeDomains: as draDriver.computeDomains says, else on exactly when a DRA pool
        has multi-node NVLink (never with the dra-example-driver, which has none)."""
        if self.uses_example_driver:
            return False
        if self.dra_driver.compute_domains is not None:
            return self.dra_driver.compute_domains
        return bool(self.multi_node_nvlink_pools)

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
        """DeviceClasses the installed driver chart (or the operator's GPUCluster) creates by itself
        (dra_gpu_platform/facts/driver_charts.py, dra_gpu_platform/facts/gpu_operator.py)."""
        if self.uses_example_driver:
            return driver_charts.EXAMPLE_DRIVER_CLASSES
        if self.uses_gpu_cluster:
            domains = driver_charts.COMPUTE_DOMAIN_CLASSES if self.compute_domains_enabled else ()
            return gpu_operator.GPU_CLUSTER_GPU_CLASSES + domains
        if not self.dra_driver.enabled or self.dra_free:  # no DRA driver chart without DRA pools
            return ()
        release = driver_charts.dra_driver_release(self.dra_driver.version)
        if release is None:  # an unknown version is its own config problem; assume the default chart's classes
            release = driver_charts.DRA_DRIVER_RELEASES[driver_charts.DRA_DRIVER_DEFAULT]
        return release.device_classes(gpus=True, compute_domains=self.compute_domains_enabled)

    def usable_device_classes(self) -> set[str]:
        """Classes a claim template may name: the stack's own and the driver chart's."""
        return {c.name for c in self.device_classes} | set(self.driver_device_classes())

    def dra_gate_available(self, gate: str) -> bool:
        """Whether the cluster can run with this Kubernetes feature gate on: on by default at the stack's minor, or
        on kind, where the stack sets the control plane's gates itself (dra_gpu_platform/plans/kind.py). EKS, AKS and
        existing clusters run the minor's defaults."""
        stage = kubernetes.gate_stage(gate, self.cluster.minor)
        if stage is None:
            return False
        if stage.default:
            return True
        return self.platform == "kind" and not stage.locked

    def driver_class_has_extended_resource(self) -> bool:
        """The NVIDIA driver's own gpu.nvidia.com class carries extendedResourceName (the class the KEP-5004 bridge
        maps nvidia.com/gpu to): the DRA driver chart's from 25.12.0 rendered for resource.k8s.io/v1
        (docs/references.md#nvidia-dra-resource-api-version), never a GPUCluster's."""
        if self.uses_example_driver or self.uses_gpu_cluster or not self.dra_driver.enabled or self.dra_free:
            return False
        release = driver_charts.dra_driver_release(self.dra_driver.version)
        return release is not None and release.gpu_class_extended_resource

    @property
    def extended_resource_bridge_on(self) -> bool:
        """draDriver.extendedResourceBridge, or its default: on from Kubernetes 1.36 (DRAExtendedResource beta and
        on) wherever the driver's class carries extendedResourceName."""
        if self.dra_driver.extended_resource_bridge is not None:
            return self.dra_driver.extended_resource_bridge
        # Not by default under Karpenter: a bridged nvidia.com/gpu pod gets a node that never initializes
        # (dra_gpu_platform/facts/provisioners.py bridge_growth).
        if self.node_pool_provisioner and not provisioners.bridge_growth(self.provisioner).gets_a_node:
            return False
        return self.cluster.minor >= 36 and self.driver_class_has_extended_resource()

    @property
    def dynamic_mig(self) -> bool:
        """The NVIDIA DRA driver runs with its DynamicMIG gate on (partitionable MIG devices)."""
        return not self.uses_example_driver and self.dra_driver.feature_gates.get(driver_features.DYNAMIC_MIG) is True

    def required_dra_feature_gates(self) -> dict[str, list[str]]:
        """NVIDIA DRA driver feature gate -> the device classes whose sharing settings need it."""
        needed: dict[str, list[str]] = {}
        if self.uses_example_driver:
            return needed
        for dc in self.device_classes:
            if dc.sharing is not None:
                needed.setdefault(driver_charts.SHARING_FEATURE_GATES[dc.sharing.strategy], []).append(dc.name)
        return needed
