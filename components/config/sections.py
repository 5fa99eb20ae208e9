"""The stack file's sections after `cluster` (node pools, GPU software, DRA objects, namespaces, maintenance,
autoscaler, monitoring) and StackSections, the fields of a whole stack with what derives from them. Pure: no Pulumi.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, AwareDatetime, Field

from dra_gpu_platform.config.cluster import ClusterConfig
from dra_gpu_platform.config.fields import (
    CelExpression,
    ComputeCapability,
    ConfigModel,
    DnsLabel,
    DnsSubdomain,
    GpuKey,
    Labels,
    NodeName,
    QualifiedAttribute,
    QuantityText,
    StackBool,
    StackInt,
    rule_error,
)
from dra_gpu_platform.facts import driver_charts, eks_amis, project, versions

AUTOSCALED_PLATFORMS = ("eks", "aks")


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
    # a DNS subdomain, as Kubernetes names a DeviceClass (`nvidia-h100-mig-3g.40gb`; docs/references.md#dra-api-object-names)
    name: DnsSubdomain = Field(description="DeviceClass name, used by claim templates and quotas.")
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


class StackSections(ConfigModel):
    """The stack's fields and what derives from them. Structure only: the cross-field rules run in StackConfig
    (components/config/models.py), the only class of a stack; this one is what the rules read."""

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
