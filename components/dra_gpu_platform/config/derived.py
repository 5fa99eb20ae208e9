"""StackSections: the fields of a whole stack (one per section, dra_gpu_platform/config/sections/) and the facts
that derive from them, named here: the rules (dra_gpu_platform/config/rules/) read them before any plan exists, and
the plans read the same ones. Pure: no Pulumi imports.
"""

from __future__ import annotations

from pydantic import Field

from dra_gpu_platform.config.cluster import ClusterConfig, KindCluster
from dra_gpu_platform.config.fields import ConfigModel, StackBool
from dra_gpu_platform.config.sections.autoscaler import AutoscalerConfig
from dra_gpu_platform.config.sections.device_classes import DeviceClassConfig
from dra_gpu_platform.config.sections.maintenance import MaintenanceConfig
from dra_gpu_platform.config.sections.monitoring import MonitoringConfig
from dra_gpu_platform.config.sections.namespaces import NamespaceConfig
from dra_gpu_platform.config.sections.node_pools import NodePool
from dra_gpu_platform.config.sections.software import DraDriverConfig, ExtendedResourceBridgeConfig, GpuOperatorConfig
from dra_gpu_platform.facts import (
    driver_charts,
    driver_features,
    eks_amis,
    gpu_operator,
    kubernetes,
    platforms,
    provisioners,
)


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
    def profile(self) -> platforms.PlatformProfile:
        """What differs between platforms, for this stack's (dra_gpu_platform/facts/platforms.py)."""
        return platforms.profile(self.cluster.platform)

    @property
    def uses_example_driver(self) -> bool:
        return isinstance(self.cluster, KindCluster) and self.cluster.settings().gpu_driver == "example"

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
        return self.profile.software.gpu_operator and not self.auto_mode

    @property
    def provisioner(self) -> str:
        """What grows the GPU pools: `autoscaler.provisioner` where an autoscaler runs, else nothing does."""
        return self.autoscaler.provisioner

    @property
    def provisioner_offered(self) -> platforms.Provisioner | None:
        """The platform's offer of `autoscaler.provisioner` (dra_gpu_platform/facts/platforms.py Autoscaling); None:
        the platform has no such provisioner (rules/provisioners.py says so)."""
        return self.profile.autoscaling.offer(self.provisioner)

    @property
    def node_pool_provisioner(self) -> bool:
        """The GPU pools are NodePools of Karpenter, EKS Auto Mode or AKS node auto-provisioning (nodes for pending
        pods only), not node groups or agent pools."""
        return self.autoscaler_enabled and self.provisioner in provisioners.NODE_POOL_PROVISIONERS

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
    def autoscaler_enabled(self) -> bool:
        if self.autoscaler.enabled is not None:
            return self.autoscaler.enabled
        return self.profile.autoscaling.default_on

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
        return self.profile.kubernetes.sets_feature_gates and not stage.locked

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
        """draDriver.extendedResourceBridge (true, or the models it serves), or its default: on from Kubernetes 1.36
        (DRAExtendedResource beta and on) wherever the driver's class carries extendedResourceName (the stack file
        contract's default since wave 3)."""
        bridge = self.dra_driver.extended_resource_bridge
        if bridge is not None:
            return bridge is not False
        # Not by default under Karpenter: a bridged nvidia.com/gpu pod gets a node that never initializes
        # (dra_gpu_platform/facts/provisioners.py bridge_growth).
        if self.node_pool_provisioner and not provisioners.bridge_growth(self.provisioner).gets_a_node:
            return False
        return self.cluster.minor >= 36 and self.driver_class_has_extended_resource()

    @property
    def bridge_serves_legacy_grants(self) -> bool:
        """Whether the quotas of legacy and dual namespaces let the bridge serve their legacyGpus on DRA pools: when
        the stack opts in (true, or the models), or, on by default, when the stack has no device-plugin pool (the
        bridge is their only server). With a device-plugin pool the default keeps those grants there: widening them
        to the DRA pools' GPUs, which gpu.nvidia.com matches whatever the model, takes an explicit opt-in (the
        2026-12 security review's escape 4)."""
        if self.dra_driver.extended_resource_bridge is not None:
            return self.extended_resource_bridge_on
        return self.extended_resource_bridge_on and not self.device_plugin_pools

    @property
    def bridge_models(self) -> tuple[str, ...] | None:
        """The GPU models the bridge is limited to; None: any GPU (true) or no bridge."""
        bridge = self.dra_driver.extended_resource_bridge
        return tuple(bridge.gpus) if isinstance(bridge, ExtendedResourceBridgeConfig) else None

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
