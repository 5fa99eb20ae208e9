"""Label keys and the taint every GPU node carries, on every platform. Pure data.

The same labels drive the GPU Operator's per-node operands, the DRA kubelet plugin's node selector, the
policy pack and the fit simulator, so the "never both plugins on one node" rule is checked on one source.
"""

from __future__ import annotations

DOMAIN = "dra-gpu-platform.io"
POOL_LABEL = f"{DOMAIN}/pool"
# Cloud tag on every resource of a cluster (EKS and AKS), naming the cluster it belongs to.
CLUSTER_TAG = f"{DOMAIN}/cluster"
GPU_LABEL = f"{DOMAIN}/gpu"
GPU_STACK_LABEL = f"{DOMAIN}/gpu-stack"
# System (CPU) nodes of the cloud clusters: where cluster add-ons like the autoscaler run.
SYSTEM_ROLE_LABEL = f"{DOMAIN}/role"
# On EKS pools whose nodes carry EFA interfaces: the EFA device plugin's node selector.
EFA_LABEL = f"{DOMAIN}/efa"
# What a pool of a GPU the catalog does not list carries besides GPU_LABEL (which then holds the described product,
# label_value()), so the policy pack reads the pool back with the facts the plan gave it: a described GPU's
# published memory, compute capability, architecture and (with MIG) its profile's instances per GPU, memory
# slices and published memory; GPUs per node on a described GPU's pool and on an unlisted instance type's.
GPU_MEMORY_LABEL = f"{DOMAIN}/gpu-memory"
GPU_COMPUTE_CAPABILITY_LABEL = f"{DOMAIN}/gpu-compute-capability"
GPU_ARCHITECTURE_LABEL = f"{DOMAIN}/gpu-architecture"
GPU_MIG_INSTANCES_LABEL = f"{DOMAIN}/gpu-mig-instances"
GPU_MIG_MEMORY_SLICES_LABEL = f"{DOMAIN}/gpu-mig-memory-slices"
GPU_MIG_MEMORY_LABEL = f"{DOMAIN}/gpu-mig-memory"
GPUS_PER_NODE_LABEL = f"{DOMAIN}/gpus-per-node"

# Labels the NVIDIA components read (docs/references.md#gpu-operator-with-dra,
# docs/references.md#gpu-operator-operand-labels).
# GPU_PRESENT_LABEL is the GPU Operator's own: it sets and resets it from NFD's PCI labels, so no pool sets it
# (docs/references.md#gpu-operator-node-labelling).
GPU_PRESENT_LABEL = "nvidia.com/gpu.present"
DEPLOY_LABEL_PREFIX = "nvidia.com/gpu.deploy."
DEVICE_PLUGIN_DEPLOY_LABEL = f"{DEPLOY_LABEL_PREFIX}device-plugin"
DRA_KUBELET_PLUGIN_LABEL = "nvidia.com/dra-kubelet-plugin"
MIG_CONFIG_LABEL = "nvidia.com/mig.config"
# mig-manager's progress on the node: pending, rebooting, success, failed (mig-parted v0.13.1
# pkg/mig/reconfigure/reconfigure.go:39,46-47,154,184).
MIG_CONFIG_STATE_LABEL = "nvidia.com/mig.config.state"
MIG_CONFIG_STATE_SUCCESS = "success"
# What NFD publishes for an NVIDIA PCI device with the GPU Operator's worker config (deviceLabelFields: [vendor],
# gpu-operator v25.10.1 deployments/gpu-operator/values.yaml:547-557): pci-<vendor>.present.
NFD_NVIDIA_PCI_LABEL = "feature.node.kubernetes.io/pci-10de.present"

GPU_TAINT_KEY = "nvidia.com/gpu"
GPU_TAINT_VALUE = "present"
GPU_TAINT_EFFECT = "NoSchedule"


def pool_taint() -> tuple[str, str, str]:
    """(key, value, effect) of the taint every GPU node carries, so only GPU workloads land there."""
    return GPU_TAINT_KEY, GPU_TAINT_VALUE, GPU_TAINT_EFFECT


# A described GPU's product and architecture hold spaces ("NVIDIA RTX A5000", "Ada Lovelace"), which label values do
# not allow; config rules admit only letters, digits, spaces, '.' and '-' there, so "_" for " " reads back exactly.
LABEL_SPACE = "_"


def label_value(text: str) -> str:
    """`text` as a label value (spaces as LABEL_SPACE)."""
    return text.replace(" ", LABEL_SPACE)


def from_label_value(value: str) -> str:
    """What label_value() wrote, read back."""
    return value.replace(LABEL_SPACE, " ")
