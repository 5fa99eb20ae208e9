"""What the NVIDIA GPU Operator does on a node by itself, as read at gpu-operator v25.10.1. Pure data.

The operand DaemonSets are created by the operator at run time (not by its Helm chart), so `gpuplan render`
cannot see them in the chart's output: their placement comes from this table. Every entry names the file and
lines at the tag (NVIDIA/gpu-operator, commit 846018752b8a): docs/references.md#gpu-operator-operand-daemonsets,
docs/references.md#gpu-operator-node-labelling, docs/references.md#gpu-operator-validator-plugin-validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from packaging.version import Version

from dra_gpu_platform.facts.chart_releases import GPU_OPERATOR_RELEASES, ChartSource
from dra_gpu_platform.facts.node_labels import DEPLOY_LABEL_PREFIX, GPU_PRESENT_LABEL, NFD_NVIDIA_PCI_LABEL

SOURCE: ChartSource = GPU_OPERATOR_RELEASES["v25.10.1"]

Role = Literal[
    "driver",
    "toolkit",
    "validator",
    "device-plugin",
    "mps",
    "dcgm",
    "dcgm-exporter",
    "gfd",
    "mig-manager",
    "node-status-exporter",
]


@dataclass(frozen=True)
class Operand:
    """One operand DaemonSet of the ClusterPolicy (container workloads; the sandbox/vGPU ones are off here)."""

    daemonset: str  # metadata.name in the asset
    role: Role
    deploy: str  # nodeSelector `nvidia.com/gpu.deploy.<deploy>: "true"` of the asset
    enabled_by: str  # ClusterPolicy spec path of the switch (controllers/state_manager.go:983-1027 isStateEnabled)
    enabled_default: bool  # the chart's default for that switch (deployments/gpu-operator/values.yaml)
    # The validator's status file its init container waits for (`until [ -f /run/nvidia/validations/<file> ]`).
    waits_for: str | None
    source: str  # asset file:lines (name, nodeSelector, init container)

    @property
    def deploy_label(self) -> str:
        return f"{DEPLOY_LABEL_PREFIX}{self.deploy}"


OPERANDS: tuple[Operand, ...] = (
    Operand(
        "nvidia-driver-daemonset",
        "driver",
        "driver",
        "driver.enabled",
        True,
        None,
        "assets/state-driver/0500_daemonset.yaml:8,27-28",
    ),
    Operand(
        "nvidia-container-toolkit-daemonset",
        "toolkit",
        "container-toolkit",
        "toolkit.enabled",
        True,
        None,
        "assets/state-container-toolkit/0500_daemonset.yaml:6,19-20",
    ),
    # Always deployed (state_manager.go:1019-1020); its init containers write the *-ready status files.
    Operand(
        "nvidia-operator-validator",
        "validator",
        "operator-validator",
        "",
        True,
        None,
        "assets/state-operator-validation/0500_daemonset.yaml:4,20-21,141-167",
    ),
    Operand(
        "nvidia-device-plugin-daemonset",
        "device-plugin",
        "device-plugin",
        "devicePlugin.enabled",
        True,
        "toolkit-ready",
        "assets/state-device-plugin/0500_daemonset.yaml:6,19-20,29-31",
    ),
    Operand(
        "nvidia-device-plugin-mps-control-daemon",
        "mps",
        "device-plugin",
        "devicePlugin.enabled",
        True,
        "toolkit-ready",
        "assets/state-mps-control-daemon/0400_daemonset.yaml:6,19-20,31-33",
    ),
    Operand(
        "nvidia-dcgm",
        "dcgm",
        "dcgm",
        "dcgm.enabled",
        False,
        "toolkit-ready",
        "assets/state-dcgm/0400_dcgm.yml:6,19-20,28",
    ),
    Operand(
        "nvidia-dcgm-exporter",
        "dcgm-exporter",
        "dcgm-exporter",
        "dcgmExporter.enabled",
        True,
        "toolkit-ready",
        "assets/state-dcgm-exporter/0800_daemonset.yaml:6,19-20,28-31",
    ),
    Operand(
        "gpu-feature-discovery",
        "gfd",
        "gpu-feature-discovery",
        "gfd.enabled",
        True,
        "toolkit-ready",
        "assets/gpu-feature-discovery/0500_daemonset.yaml:4,20-21,29-32",
    ),
    Operand(
        "nvidia-mig-manager",
        "mig-manager",
        "mig-manager",
        "migManager.enabled",
        True,
        "toolkit-ready",
        "assets/state-mig-manager/0600_daemonset.yaml:4,17-18,28-31",
    ),
    Operand(
        "nvidia-node-status-exporter",
        "node-status-exporter",
        "node-status-exporter",
        "nodeStatusExporter.enabled",
        False,
        None,
        "assets/state-node-status-exporter/0700_daemonset.yaml:6,19-20",
    ),
)

# controllers/object_controls.go:827-829: `daemonsets.tolerations`, when set, replaces every operand's tolerations;
# otherwise the asset's own (each asset tolerates nvidia.com/gpu Exists NoSchedule).
ASSET_TOLERATIONS = ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},)

# controllers/state_manager.go:112-116 gpuNodeLabels: a node with one of these (= "true") has an NVIDIA GPU.
NFD_GPU_LABELS = (
    NFD_NVIDIA_PCI_LABEL,
    "feature.node.kubernetes.io/pci-0302_10de.present",
    "feature.node.kubernetes.io/pci-0300_10de.present",
)
# state_manager.go:85-95 gpuStateLabels["container"]: added as "true" where missing once gpu.present=true
# (addGPUStateLabels :374-391 keeps a value already on the node); :385-389 adds gpu.deploy.mig-manager=true on
# MIG-capable GPUs (nvidia.com/mig.capable from GFD, or an A100/H100/A30 product label, :280-300).
STATE_LABEL_OPERANDS = (
    "driver",
    "gpu-feature-discovery",
    "container-toolkit",
    "device-plugin",
    "dcgm",
    "dcgm-exporter",
    "node-status-exporter",
    "operator-validator",
)
MIG_MANAGER_OPERAND = "mig-manager"
# state_manager.go:510-517 sets gpu.present=true when an NFD GPU label is there; :518-528 resets it to "false" and
# deletes every state label (removeAllGPUStateLabels :343-358) when gpu.present=true but no NFD GPU label is.
COMMON_GPU_LABEL = GPU_PRESENT_LABEL
SOURCE_LINES = {
    "operands enabled": "controllers/state_manager.go:983-1027",
    "node labelling": "controllers/state_manager.go:480-582",
    "label reset": "controllers/state_manager.go:518-528",
    "state labels kept": "controllers/state_manager.go:374-391",
    "tolerations": "controllers/object_controls.go:827-829",
    "plugin-validation kept while devicePlugin is on": "controllers/object_controls.go:2329-2334",
    "plugin-validation waits for nvidia.com/gpu": "cmd/nvidia-validator/main.go:1296-1316",
    "node-watch predicate": "controllers/clusterpolicy_controller.go:284-327",
}


# From v26.7.0 (controllers/nodelabeling_controller.go:258-261) every gpu.deploy.* label is removed from a node whose
# nvidia.com/gpu.present is not "true", so also from a new node before NFD has labelled it, not only on the
# true -> false reset of v25.10.1: a static gpu.deploy.<operand>=false guard does not survive that first pass.
STRIPS_DEPLOY_LABELS_WITHOUT_GPU_PRESENT_FROM = "26.7.0"


def strips_deploy_labels_without_gpu_present(operator_version: str | None) -> bool:
    return operator_version is not None and Version(operator_version) >= Version(
        STRIPS_DEPLOY_LABELS_WITHOUT_GPU_PRESENT_FROM
    )


def validator_checks_device_plugin(device_plugin_enabled: bool) -> bool:
    """The validator keeps its plugin-validation init container exactly when devicePlugin is on cluster-wide
    (object_controls.go:2329-2334); that container needs nvidia.com/gpu or nvidia.com/mig-* capacity on the node
    (cmd/nvidia-validator/main.go:1296-1316, 30 tries 5 s apart), which DRA nodes never advertise."""
    return device_plugin_enabled


# ---------------------------------------------------------------------------------------------------
# GPUCluster (gpu-operator v26.7.0, nvidia.com/v1alpha1, technology preview): the operator deploys the NVIDIA DRA
# driver itself. docs/references.md#gpu-operator-gpucluster, NVIDIA/gpu-operator@v26.7.0 (commit 10ee5b3638b8).

GPU_CLUSTER_SOURCE: ChartSource = GPU_OPERATOR_RELEASES["v26.7.0"]
GPU_CLUSTER_MIN_VERSION = "26.7.0"  # the first tag with api/nvidia/v1alpha1/gpucluster_types.go
# The DRA driver the chart's GPUCluster runs (values.yaml:581-584 draDriver.version v0.5.0, image
# nvcr.io/nvidia/dra-driver-nvidia-gpu): the chart facts of the newest listed 0.x release stand for it
# (dra_gpu_platform/facts/driver_charts.py NOT_LISTED).
GPU_CLUSTER_DRA_DRIVER = {"v26.7.0": "0.5.0"}


def gpu_cluster_dra_driver(operator_version: str) -> str:
    """The DRA driver release a GPUCluster of this operator version runs: its own pin, or for a newer (unlisted)
    operator the pin of the newest listed one before it."""
    if operator_version in GPU_CLUSTER_DRA_DRIVER:
        return GPU_CLUSTER_DRA_DRIVER[operator_version]
    wanted = Version(operator_version)
    older = [tag for tag in GPU_CLUSTER_DRA_DRIVER if Version(tag) <= wanted] or list(GPU_CLUSTER_DRA_DRIVER)
    return GPU_CLUSTER_DRA_DRIVER[max(older, key=Version)]


# manifests/state-dra-driver/0400_deviceclass-gpu.yaml, 0410_deviceclass-mig.yaml, 0430_deviceclass-vfio-gpu.yaml,
# and 0420_deviceclass-compute-domains.yaml only with draDriver.computeDomains.enabled (default true). None of them
# carries extendedResourceName, unlike the DRA driver chart's gpu.nvidia.com, so the KEP-5004 bridge has no class.
GPU_CLUSTER_GPU_CLASSES = ("gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com")
# controllers/state_manager.go:131-137 gpuClusterStateLabels: set "true" on every node with gpu.present=true unless
# the node already has a non-empty value (controllers/nodelabeling_controller.go:329-339); ClusterPolicy-only
# deploy labels are swept from such nodes (:263-268).
GPU_CLUSTER_STATE_LABEL_OPERANDS = ("driver", "dra-driver", "dra-validator", "dcgm-dra", "dcgm-exporter-dra")


@dataclass(frozen=True)
class GpuClusterOperand:
    """One operand DaemonSet the operator renders for a GPUCluster (manifests/state-*/, not the chart)."""

    daemonset: str
    role: Role | Literal["dra-kubelet-plugin"]
    deploy: str  # nodeSelector nvidia.com/gpu.deploy.<deploy>: "true"
    # required node affinity terms (ORed), each a list of (key, value) that must be In [value]
    affinity: tuple[tuple[tuple[str, str], ...], ...]
    enabled_by: str  # GPUCluster spec path of the switch ("" = always)
    source: str


GPU_CLUSTER_OPERANDS: tuple[GpuClusterOperand, ...] = (
    GpuClusterOperand(
        "nvidia-dra-driver-kubelet-plugin",
        "dra-kubelet-plugin",
        "dra-driver",
        (
            (("feature.node.kubernetes.io/pci-10de.present", "true"),),
            (("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),),
            ((GPU_PRESENT_LABEL, "true"),),
        ),
        "",
        "manifests/state-dra-driver/0500_daemonset.yaml:4,58-77",
    ),
    GpuClusterOperand(
        "nvidia-dra-validator",
        "validator",
        "dra-validator",
        (((GPU_PRESENT_LABEL, "true"),),),
        "",
        "manifests/state-dra-validation/0500_daemonset.yaml:18,63-64,73-83",
    ),
    GpuClusterOperand(
        "nvidia-dcgm-exporter-dra",
        "dcgm-exporter",
        "dcgm-exporter-dra",
        (),
        "dcgmExporter.enabled",
        "manifests/state-dcgm-exporter/0700_daemonset.yaml:4,47-48",
    ),
)
# The operator refuses to run both resources: controllers/clusterpolicy_controller.go:134-145 (a ClusterPolicy
# reconcile fails while a GPUCluster exists) and controllers/gpucluster_controller.go:165-167 (a GPUCluster waits
# while a ClusterPolicy exists); the chart fails when both deployCR values are true
# (templates/validations.yaml:1-3) and when gpuCluster.deployCR is set with driver.enabled but without
# driver.nvidiaDriverCRD.enabled (:5-7).
GPU_CLUSTER_SOURCE_LINES = {
    "chart values": "deployments/gpu-operator/values.yaml:565-612",
    "validations": "deployments/gpu-operator/templates/validations.yaml:1-7,25-30",
    "no co-existence (ClusterPolicy side)": "controllers/clusterpolicy_controller.go:134-145",
    "no co-existence (GPUCluster side)": "controllers/gpucluster_controller.go:165-167",
    "state labels": "controllers/state_manager.go:131-137",
    "labels kept": "controllers/nodelabeling_controller.go:329-339",
}
