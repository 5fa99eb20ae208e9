"""What the NVIDIA GPU Operator does on a node by itself, as read at gpu-operator v25.10.1. Pure data.

The operand DaemonSets are created by the operator at run time (not by its Helm chart), so `gpuplan render`
cannot see them in the chart's output: their placement comes from this table. Every entry names the file and
lines at the tag (NVIDIA/gpu-operator, commit 846018752b8a): docs/references.md#gpu-operator-operand-daemonsets,
docs/references.md#gpu-operator-node-labelling, docs/references.md#gpu-operator-validator-plugin-validation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

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


def validator_checks_device_plugin(device_plugin_enabled: bool) -> bool:
    """The validator keeps its plugin-validation init container exactly when devicePlugin is on cluster-wide
    (object_controls.go:2329-2334); that container needs nvidia.com/gpu or nvidia.com/mig-* capacity on the node
    (cmd/nvidia-validator/main.go:1296-1316, 30 tries 5 s apart), which DRA nodes never advertise."""
    return device_plugin_enabled
