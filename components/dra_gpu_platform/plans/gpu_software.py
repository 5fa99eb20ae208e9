"""Helm values of the GPU software stack, derived from the StackConfig and its PoolPlans. Pure: no Pulumi imports.

Three releases: the NVIDIA GPU Operator, the NVIDIA DRA driver, and (kind with gpuDriver: example) the
dra-example-driver. Every key set here exists in the pinned chart's values.yaml; where a key is not
obvious, a comment names the source (the shared reference sheets, the chart's values.yaml or docs).

One NVIDIA GPU stack per node: the DRA kubelet plugin runs only on DRA pools (nodeSelector
nvidia.com/dra-kubelet-plugin=true, which only DRA pools carry) and a device plugin only on device-plugin pools
(DRA pools carry nvidia.com/gpu.deploy.device-plugin=false). One GPU Operator serves DRA pools only with its own
device plugin off (config rule, docs/gpu-software.md#one-nvidia-gpu-stack-per-operator), so its validator
completes on DRA nodes; device-plugin pools beside DRA pools bring their own plugin (Bottlerocket).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dra_gpu_platform.config.models import KindCluster, StackConfig, platform_cluster
from dra_gpu_platform.facts import container_toolkit, driver_charts, eks_amis, platform_namespaces, platforms, versions
from dra_gpu_platform.facts.node_labels import (
    DEPLOY_LABEL_PREFIX,
    DRA_KUBELET_PLUGIN_LABEL,
    GPU_LABEL,
    MIG_CONFIG_LABEL,
    MIG_CONFIG_STATE_LABEL,
    MIG_CONFIG_STATE_SUCCESS,
    NFD_NVIDIA_PCI_LABEL,
)
from dra_gpu_platform.plans.driver_ownership import dra_driver_root, operator_installs_driver
from dra_gpu_platform.plans.monitoring.sources import dcgm_dra_pod_mapping
from dra_gpu_platform.plans.node_pools import GPU_TAINT, PoolPlan

GPU_OPERATOR_RELEASE = "gpu-operator"
# Where the releases install: the facts' one list of platform namespaces (tenants may never be one of them).
GPU_OPERATOR_NAMESPACE = platform_namespaces.GPU_OPERATOR
GPU_OPERATOR_CHART = "gpu-operator"
DRA_DRIVER_RELEASE = "dra-driver-nvidia-gpu"
DRA_DRIVER_NAMESPACE = platform_namespaces.DRA_DRIVER
EXAMPLE_DRIVER_RELEASE = "dra-example-driver"
EXAMPLE_DRIVER_NAMESPACE = platform_namespaces.EXAMPLE_DRIVER

# Helm --timeout per release (docs/references.md#duration-gpu-operator, docs/references.md#duration-dra-driver): the
# operator is ready in ~5 min with a host driver (p90 15) and needs up to ~30 min when its driver container compiles
# the kernel module; the DRA chart takes ~1-3 min.
OPERATOR_TIMEOUT_HOST_DRIVER_S = 900
OPERATOR_TIMEOUT_DRIVER_BUILD_S = 1800
DRA_DRIVER_TIMEOUT_S = 600
EXAMPLE_DRIVER_TIMEOUT_S = 300

MigStrategy = Literal["none", "single", "mixed"]


@dataclass(frozen=True)
class ReleasePlan:
    """Everything a helm.v3.Release needs: the chart reference and the final values."""

    release: str
    chart: str  # a name in `repository`, or a full oci:// reference
    version: str
    repository: str | None  # None for OCI charts (the reference is the chart itself)
    namespace: str
    values: dict[str, Any]
    timeout_s: int


# What the NFD rule of _bottlerocket_opt_outs labels Bottlerocket GPU nodes with.
BOTTLEROCKET_OPERAND_LABELS = {f"{DEPLOY_LABEL_PREFIX}{operand}": "false" for operand in eks_amis.BOTTLEROCKET_OPERANDS}


@dataclass(frozen=True)
class SoftwarePlan:
    """The GPU software releases of a stack and how they are ordered."""

    gpu_operator: ReleasePlan | None
    dra_driver: ReleasePlan | None  # the NVIDIA DRA driver
    example_driver: ReleasePlan | None  # the dra-example-driver (kind, gpuDriver: example)
    dra_driver_waits_for_operator: bool = False


def gpu_toleration() -> dict[str, str]:
    """Tolerates the taint every GPU node carries, whatever its value: Exists, not Equal
    (docs/references.md#gpu-operator-daemonset-tolerations)."""
    return {"key": GPU_TAINT.key, "operator": "Exists", "effect": GPU_TAINT.effect}


def gpu_tolerations(pools: Sequence[PoolPlan]) -> list[dict[str, str]]:
    """What every GPU DaemonSet needs to reach every GPU node of this stack: the GPU taint, and each other taint a
    pool carries (AKS Spot pools: kubernetes.azure.com/scalesetpriority, which AKS sets itself) as it is."""
    tolerations = [gpu_toleration()]
    others = dict.fromkeys(t for p in pools for t in p.taints if t.key != GPU_TAINT.key)
    tolerations += [{**taint.manifest(), "operator": "Equal"} for taint in others]
    return tolerations


# ---------------------------------------------------------------------------------------------------
# GPU Operator


def mig_strategy(pools: Sequence[PoolPlan]) -> MigStrategy:
    """none: no MIG pool. single: every GPU pool is split into the same MIG profile, so nvidia.com/gpu
    means one kind of slice everywhere. mixed: MIG pools beside full-GPU pools or several profiles, where
    the device plugin must name slices nvidia.com/mig-<profile> to keep them apart."""
    profiles = {pool.mig_profile for pool in pools}
    if profiles <= {None}:
        return "none"
    if len(profiles) == 1:
        return "single"
    return "mixed"


def operator_device_plugin_enabled(pools: Sequence[PoolPlan]) -> bool:
    """The operator's device plugin is needed only for device-plugin pools whose image lacks one (only Bottlerocket
    NVIDIA ships one)."""
    return any(not p.dra and not p.ships_device_plugin for p in pools)


def mig_manager_enabled(platform: str, pools: Sequence[PoolPlan]) -> bool:
    # kind nodes share the host's GPUs and kernel: MIG is the host's business there (docs/references.md#kind-gpu-operator).
    return platforms.profile(platform).software.mig_manager and any(p.mig_profile is not None for p in pools)


def gpu_operator_values(config: StackConfig, pools: Sequence[PoolPlan]) -> dict[str, Any]:
    if config.uses_gpu_cluster:
        return gpu_cluster_values(config, pools)
    operator_driver = operator_installs_driver(config)
    monitoring = config.monitoring.enabled
    values: dict[str, Any] = {
        # CDI is how both the device plugin and the DRA driver hand devices to containers
        # (docs/references.md#nvidia-dra-prerequisites).
        "cdi": {"enabled": True},
        # Host images (EKS NVIDIA AMIs, AKS default pools, kind/existing hosts) own driver and toolkit.
        "driver": {"enabled": operator_driver},
        "toolkit": {"enabled": operator_driver},
        "devicePlugin": {"enabled": operator_device_plugin_enabled(pools)},
        "mig": {"strategy": mig_strategy(pools)},
        "migManager": {"enabled": mig_manager_enabled(config.platform, pools)},
        **_operand_placement(pools, monitoring),
    }
    if operator_driver:
        # The operator's toolkit refuses NVIDIA_VISIBLE_DEVICES from unprivileged containers (a container that lists no
        # claim gets no CDI `void`; docs/references.md#nvidia-toolkit-unprivileged-envvar). With CDI on, the operator
        # leaves runc the default runtime, but a pod naming the `nvidia` RuntimeClass would reach this runtime. The
        # operator copies toolkit.env onto its toolkit container after its own settings; the value is a string.
        values["toolkit"]["env"] = [
            {"name": container_toolkit.INSTALLER_ENVVAR_UNPRIVILEGED, "value": container_toolkit.INSTALLER_VALUE}
        ]
    if dcgm_dra_pod_mapping(config):
        # Pod and claim labels on DRA-allocated GPUs need dcgm-exporter's KUBERNETES_ENABLE_DRA
        # (NVIDIA/dcgm-exporter@4.4.2-4.7.0 pkg/cmd/app.go:334-339); the operator copies dcgmExporter.env onto
        # its container (NVIDIA/gpu-operator@v25.10.1 controllers/object_controls.go:1773). When it is safe:
        # dra_gpu_platform/plans/monitoring/sources.py dcgm_dra_pod_mapping.
        values["dcgmExporter"]["env"] = [{"name": "KUBERNETES_ENABLE_DRA", "value": "true"}]
    if values["migManager"]["enabled"] and config.profile.software.mig_reboot:
        # Cloud VMs need a reboot to change MIG mode (docs/references.md#gpu-operator-mig-manager-reboot).
        values["migManager"]["env"] = [{"name": "WITH_REBOOT", "value": "true"}]
    if operator_driver and any(p.dra for p in pools):
        # "GPU Operator with DRA" (docs/references.md#gpu-operator-with-dra): the driver manager does not know DRA
        # pods; it evicts GPU pods before a driver reload on nodes carrying this label. Like the documented `--set
        # driver.manager.env[0]...`, this list replaces the chart's default env list.
        values["driver"]["manager"] = {
            "env": [{"name": "NODE_LABEL_FOR_GPU_POD_EVICTION", "value": DRA_KUBELET_PLUGIN_LABEL}]
        }
    runtime_class = config.profile.software.runtime_class
    if runtime_class is not None and not operator_driver:
        # operator.runtimeClass is a top-level chart value (values.yaml since v22.9; default "nvidia").
        values["operator"] = {"runtimeClass": runtime_class}
    if any(eks_amis.is_bottlerocket(p.ami_type) for p in pools):
        _bottlerocket_opt_outs(values)
    return values


def gpu_cluster_values(config: StackConfig, pools: Sequence[PoolPlan]) -> dict[str, Any]:
    """gpuOperator.draManagement: gpucluster (gpu-operator v26.7.0, technology preview;
    docs/references.md#gpu-operator-gpucluster): the chart renders a GPUCluster instead of the ClusterPolicy and the
    operator deploys the DRA driver itself (its kubelet plugin on every node with nvidia.com/gpu.present), so no
    DRA driver release is installed. Only keys the GPUCluster path reads: the ClusterPolicy's operand switches
    (devicePlugin, toolkit, mig, migManager, cdi) are read by no template once clusterPolicy.deployCR is false."""
    monitoring = config.monitoring.enabled
    dra_driver: dict[str, Any] = {"computeDomains": {"enabled": config.compute_domains_enabled}}
    if gates := dra_feature_gates(config):
        dra_driver["featureGates"] = gates
    values: dict[str, Any] = {
        "clusterPolicy": {"deployCR": False},
        "gpuCluster": {"deployCR": True},
        # The chart refuses driver.enabled without NVIDIADriver resources under a GPUCluster
        # (templates/validations.yaml:5-7); config rules keep the driver on the host.
        "driver": {"enabled": False},
        "draDriver": dra_driver,
        # dcgm-exporter's DRA pod mapping is the operator's own under a GPUCluster (KUBERNETES_ENABLE_DRA=true in
        # manifests/state-dcgm-exporter/0700_daemonset.yaml:102-106), so no env here.
        **_operand_placement(pools, monitoring),
    }
    return values


def _operand_placement(pools: Sequence[PoolPlan], monitoring: bool) -> dict[str, Any]:
    """Where the operator's operands run and what dcgm-exporter exports: the same under a ClusterPolicy and a
    GPUCluster."""
    service_monitor: dict[str, Any] = {"enabled": monitoring}
    if monitoring:
        # dcgm-exporter labels each GPU's series with the pod/namespace using it; without honorLabels Prometheus
        # renames them exported_pod/exported_namespace (key used by awslabs/ai-on-eks nvidia-gpu-operator.yaml).
        service_monitor["honorLabels"] = True
    return {
        "dcgmExporter": {"enabled": monitoring, "serviceMonitor": service_monitor},
        # Operand DaemonSets tolerate the GPU taint (default in values.yaml, set so it cannot drift).
        "daemonsets": {"tolerations": gpu_tolerations(pools)},
        # NFD workers only on GPU nodes: CPU nodes never get GPU labels, so no operand lands there (and kind's
        # control plane, which shares the host kernel, is not mistaken for a GPU node;
        # docs/references.md#kind-gpu-operator). Selected on our pool label, present from registration and never
        # touched by the operator; not on nvidia.com/gpu.present, which the operator resets on a node NFD has not
        # labelled yet, so NFD would never come (docs/references.md#gpu-operator-node-labelling). worker.affinity
        # and worker.tolerations are the NFD subchart's own (docs/references.md#gpu-operator-nfd-subchart).
        "node-feature-discovery": {
            "worker": {
                "affinity": _required_node_affinity([[_exists(GPU_LABEL)]]),
                "tolerations": gpu_tolerations(pools),
            },
        },
    }


def _bottlerocket_opt_outs(values: dict[str, Any]) -> None:
    """NFD labels Bottlerocket GPU nodes nvidia.com/gpu.deploy.<operand>=false for what the AMI ships
    (the approach of awslabs/ai-on-eks, docs/references.md#eks-bottlerocket-operand-opt-outs); the operator leaves
    operands labelled false off the node. NFD publishes labels outside its own domain only when listed in
    master.config.extraLabelNs."""
    nfd = values["node-feature-discovery"]
    nfd["master"] = {"config": {"extraLabelNs": ["nvidia.com"]}}
    nfd["worker"]["config"] = {
        "sources": {
            "custom": [
                {
                    "name": "bottlerocket-nvidia-operands-off",
                    "labels": dict(BOTTLEROCKET_OPERAND_LABELS),
                    "matchFeatures": [
                        {
                            "feature": "system.osRelease",
                            "matchExpressions": {"ID": {"op": "In", "value": ["bottlerocket"]}},
                        },
                        {"feature": "pci.device", "matchExpressions": {"vendor": {"op": "In", "value": ["10de"]}}},
                    ],
                }
            ]
        }
    }


def gpu_operator_plan(config: StackConfig, pools: Sequence[PoolPlan]) -> ReleasePlan | None:
    if not config.gpu_operator_enabled:
        return None
    timeout = OPERATOR_TIMEOUT_DRIVER_BUILD_S if operator_installs_driver(config) else OPERATOR_TIMEOUT_HOST_DRIVER_S
    return ReleasePlan(
        release=GPU_OPERATOR_RELEASE,
        chart=GPU_OPERATOR_CHART,
        version=config.gpu_operator.version,
        repository=versions.GPU_OPERATOR_REPO,
        namespace=GPU_OPERATOR_NAMESPACE,
        values=gpu_operator_values(config, pools),
        timeout_s=timeout,
    )


# ---------------------------------------------------------------------------------------------------
# NVIDIA DRA driver


def _dra_release(config: StackConfig) -> driver_charts.DraDriverRelease:
    """The chart facts of the pinned DRA driver (config rules reject versions the table cannot place)."""
    release = driver_charts.dra_driver_release(config.dra_driver.version)
    return release if release is not None else driver_charts.DRA_DRIVER_RELEASES[driver_charts.DRA_DRIVER_DEFAULT]


def dra_feature_gates(config: StackConfig) -> dict[str, bool]:
    """Gates the classes need, turned on, merged with draDriver.featureGates (a conflict is a config error)."""
    gates = dict.fromkeys(config.required_dra_feature_gates(), True)
    gates.update(config.dra_driver.feature_gates)
    return dict(sorted(gates.items()))


def dra_driver_values(config: StackConfig, pools: Sequence[PoolPlan]) -> dict[str, Any]:
    release = _dra_release(config)
    values: dict[str, Any] = {
        # Where the driver's files are on the node: / for host drivers, /run/nvidia/driver when the
        # operator's driver container installs it (docs/references.md#nvidia-dra-driver-root).
        "nvidiaDriverRoot": dra_driver_root(config),
        # Acknowledges the chart's guard against running beside the device plugin on one node; the
        # nodeSelector below is what keeps them apart (docs/references.md#nvidia-dra-gpu-resources-override).
        "gpuResourcesEnabledOverride": True,
        "resources": {"computeDomains": {"enabled": config.compute_domains_enabled}},
        "kubeletPlugin": {
            # "GPU Operator with DRA" step 3 (docs/references.md#gpu-operator-with-dra): the plugin goes only where
            # the label is.
            "nodeSelector": {DRA_KUBELET_PLUGIN_LABEL: "true"},
            "tolerations": gpu_tolerations(pools),
        },
    }
    if release.resource_api_version_value:
        # Pin the API instead of trusting capability detection (docs/references.md#nvidia-dra-resource-api-version).
        values["resourceApiVersion"] = "resource.k8s.io/v1"
    gates = dra_feature_gates(config)
    if gates and release.feature_gates_value:
        values["featureGates"] = gates
    if mig_manager_enabled(config.platform, pools):
        values["kubeletPlugin"]["affinity"] = _kubelet_plugin_after_mig_layout()
    elif not config.gpu_operator_enabled:
        # The chart's default affinity wants NFD's PCI label or the operator's gpu.present
        # (docs/references.md#nvidia-dra-kubelet-plugin-placement); without the operator this stack deploys no NFD, so nothing would set either and the plugin would never
        # start. Our pool label says the same: this is a GPU node of a pool (the nodeSelector picks the DRA ones).
        values["kubeletPlugin"]["affinity"] = _required_node_affinity([[_exists(GPU_LABEL)]])
    if (
        config.compute_domains_enabled
        and release.controller_requires_control_plane
        and config.profile.kubernetes.managed
    ):
        values["controller"] = {"affinity": _controller_affinity_any_node()}
    return values


def _kubelet_plugin_after_mig_layout() -> dict[str, Any]:
    """The DRA kubelet plugin reads the GPUs once, at start (docs/references.md#nvidia-dra-kubelet-plugin-scans-once),
    so on a node whose MIG layout mig-manager applies it must start after mig-manager reports
    nvidia.com/mig.config.state=success (docs/references.md#mig-manager-config-state). Nodes without
    nvidia.com/mig.config are not managed by mig-manager. Both terms keep the chart's requirement that NFD found an
    NVIDIA PCI device (docs/references.md#nvidia-dra-kubelet-plugin-placement; the operator's NFD config labels
    pci-10de.present, docs/references.md#gpu-operator-nfd-subchart). Helm replaces lists, so these terms replace
    the chart's."""
    gpu = {"key": NFD_NVIDIA_PCI_LABEL, "operator": "In", "values": ["true"]}
    return _required_node_affinity(
        [
            [gpu, {"key": MIG_CONFIG_LABEL, "operator": "DoesNotExist"}],
            [gpu, {"key": MIG_CONFIG_STATE_LABEL, "operator": "In", "values": [MIG_CONFIG_STATE_SUCCESS]}],
        ]
    )


def _exists(key: str) -> dict[str, Any]:
    return {"key": key, "operator": "Exists"}


def _required_node_affinity(terms: list[list[dict[str, Any]]]) -> dict[str, Any]:
    """A required node affinity: the terms are ORed, the expressions of one term ANDed."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": expressions} for expressions in terms]
            }
        }
    }


def _controller_affinity_any_node() -> dict[str, Any]:
    """The CalVer charts' ComputeDomain controller (rendered only with ComputeDomains on) requires a control-plane
    node, which managed control planes do not have; the 0.4 charts only prefer one and need nothing
    (docs/references.md#nvidia-dra-controller-affinity). A null cannot travel: the Python SDK drops None from
    `values` (docs/references.md#pulumi-values-drop-none). Helm replaces lists, so this term replaces the chart's
    nodeSelectorTerms and lets the controller run on any Linux node."""
    return _required_node_affinity([[{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]])


def dra_driver_chart_ref(version: str) -> tuple[str, str | None]:
    """(chart, repository) as helm.v3.Release takes them: an OCI chart is its full reference, no repo."""
    chart, repository = driver_charts.chart_reference(version)
    if repository.startswith("oci://"):
        return f"{repository}/{chart}", None
    return chart, repository


def dra_driver_plan(config: StackConfig, pools: Sequence[PoolPlan]) -> ReleasePlan | None:
    if not installs_nvidia_dra_driver(config):
        return None
    chart, repository = dra_driver_chart_ref(config.dra_driver.version)
    return ReleasePlan(
        release=DRA_DRIVER_RELEASE,
        chart=chart,
        version=config.dra_driver.version,
        repository=repository,
        namespace=DRA_DRIVER_NAMESPACE,
        values=dra_driver_values(config, pools),
        timeout_s=DRA_DRIVER_TIMEOUT_S,
    )


def installs_nvidia_dra_driver(config: StackConfig) -> bool:
    """The DRA driver's own Helm release: not with the example driver, and not under a GPUCluster (the operator
    deploys the driver then)."""
    # EKS Auto Mode and AKS NAP serve device-plugin pools only (config rules refuse dra pools there).
    return (
        not config.uses_example_driver
        and config.dra_driver.enabled
        and not config.uses_gpu_cluster
        and not config.dra_free
    )


def dra_driver_waits_for_operator(config: StackConfig) -> bool:
    """Only a driver the operator installs must exist before the DRA plugin starts; otherwise both
    releases install in parallel (the deploy's critical path)."""
    return config.gpu_operator_enabled and operator_installs_driver(config) and installs_nvidia_dra_driver(config)


# ---------------------------------------------------------------------------------------------------
# dra-example-driver (kind, fake GPUs)


def example_driver_values(config: StackConfig) -> dict[str, Any]:
    # kubeletPlugin.nodeSelector/tolerations: chart values.yaml (kubernetes-sigs/dra-example-driver).
    return {"kubeletPlugin": {"nodeSelector": {DRA_KUBELET_PLUGIN_LABEL: "true"}, "tolerations": [gpu_toleration()]}}


def example_driver_plan(config: StackConfig) -> ReleasePlan | None:
    if not config.uses_example_driver or not config.dra_driver.enabled:
        return None
    return ReleasePlan(
        release=EXAMPLE_DRIVER_RELEASE,
        chart=f"{driver_charts.EXAMPLE_DRIVER_OCI_REPO}/{driver_charts.EXAMPLE_CHART}",
        version=platform_cluster(config.cluster, KindCluster).settings().example_driver_version,
        repository=None,
        namespace=EXAMPLE_DRIVER_NAMESPACE,
        values=example_driver_values(config),
        timeout_s=EXAMPLE_DRIVER_TIMEOUT_S,
    )


def software_plan(config: StackConfig, pools: Sequence[PoolPlan]) -> SoftwarePlan:
    return SoftwarePlan(
        gpu_operator=gpu_operator_plan(config, pools),
        dra_driver=dra_driver_plan(config, pools),
        example_driver=example_driver_plan(config),
        dra_driver_waits_for_operator=dra_driver_waits_for_operator(config),
    )
