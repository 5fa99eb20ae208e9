"""What a joined node of a managed GPU pool advertises besides its GPUs: the allocatable cpu, memory and pods the
kubelet computes from the machine and the platform's reservations, and the well-known labels the kubelet and the
cloud give it. Pure data and arithmetic.

Sources (docs/references.md#node-allocatable-eks, docs/references.md#node-allocatable-aks,
docs/references.md#node-well-known-labels):
- EKS (AL2023 nodeadm, awslabs/amazon-eks-ami v20260724 `nodeadm/internal/kubelet/config.go`): kube-reserved cpu
  6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of the rest (`getCPUMillicoresToReserve`
  :410-440); memory 11 MiB × maxPods + 255 MiB (`getMemoryMebibytesToReserve` :442-444); eviction
  memory.available 100Mi (:110-114); maxPods = ENIs × (IPv4 addresses per ENI − 1) + 2 from the instance's network
  limits (`eni_max_pods.go` `calculateStandardMaxPods`), 110 for a type it does not know (`defaultMaxPods`).
- AKS (learn.microsoft.com azure/aks/node-resource-reservations, Kubernetes 1.29 and later): kube-reserved cpu by
  cores (60m for 1 … 740m for 64), memory the lesser of 20 MB × maxPods + 50 MB and 25% of the machine, eviction
  memory.available 100Mi; maxPods 250, the Azure CNI Overlay default the stack's clusters use.
The memory a node reports is the kernel's MemTotal, a little below the nominal size used here, so fit's memory check
is a shade optimistic (docs/gpuplan/fit.md says so).
"""

from __future__ import annotations

from dataclasses import dataclass

MI = 1024 * 1024
MB = 1000 * 1000
GI = 1024 * MI

# EC2 network limits nodeadm reads for maxPods (instance-info.jsonl at v20260724): (ENIs on the default card,
# IPv4 addresses per ENI), for the GPU types of the catalog and the default system node type.
EKS_ENI_LIMITS: dict[str, tuple[int, int]] = {
    "p6-b200.48xlarge": (4, 50),
    "p5.48xlarge": (2, 50),
    "p5.4xlarge": (4, 30),
    "p5e.48xlarge": (2, 50),
    "p5en.48xlarge": (4, 50),
    "p4d.24xlarge": (15, 50),
    "p4de.24xlarge": (15, 50),
    "g5.xlarge": (4, 15),
    "g5.2xlarge": (4, 15),
    "g5.4xlarge": (8, 30),
    "g5.8xlarge": (8, 30),
    "g5.12xlarge": (15, 50),
    "g5.16xlarge": (8, 30),
    "g5.24xlarge": (15, 50),
    "g5.48xlarge": (7, 50),
    "g4dn.xlarge": (3, 10),
    "g4dn.2xlarge": (3, 10),
    "g4dn.4xlarge": (3, 10),
    "g4dn.8xlarge": (4, 15),
    "g4dn.12xlarge": (8, 30),
    "g4dn.16xlarge": (4, 15),
    "g4dn.metal": (15, 50),
    "g6.xlarge": (4, 15),
    "g6.2xlarge": (4, 15),
    "g6.4xlarge": (8, 30),
    "g6.8xlarge": (8, 30),
    "g6.12xlarge": (8, 30),
    "g6.16xlarge": (15, 50),
    "g6.24xlarge": (15, 50),
    "g6.48xlarge": (15, 50),
    "gr6.4xlarge": (8, 30),
    "gr6.8xlarge": (8, 30),
    "g6e.xlarge": (4, 15),
    "g6e.2xlarge": (4, 15),
    "g6e.4xlarge": (8, 30),
    "g6e.8xlarge": (8, 30),
    "g6e.12xlarge": (10, 30),
    "g6e.16xlarge": (15, 50),
    "g6e.24xlarge": (10, 50),
    "g6e.48xlarge": (10, 50),
    "m7i.large": (3, 10),
}
KUBELET_DEFAULT_MAX_PODS = 110
AKS_OVERLAY_MAX_PODS = 250
EVICTION_MEMORY = 100 * MI
# AKS kube-reserved cpu (millicores) by cores on the host; between rows the next row up applies.
AKS_CPU_RESERVED = ((1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740))

# Well-known node labels (kubernetes.io/docs/reference/labels-annotations-taints): the kubelet sets
# hostname/os/arch, the cloud's node controller instance-type and zone.
HOSTNAME_LABEL = "kubernetes.io/hostname"
OS_LABEL = "kubernetes.io/os"
ARCH_LABEL = "kubernetes.io/arch"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ZONE_LABEL = "topology.kubernetes.io/zone"
CONTROL_PLANE_LABEL = "node-role.kubernetes.io/control-plane"
CONTROL_PLANE_TAINT = ("node-role.kubernetes.io/control-plane", "", "NoSchedule")  # kubeadm's, kept by kind
GO_ARCH = {"x86_64": "amd64", "arm64": "arm64"}


@dataclass(frozen=True)
class Allocatable:
    """status.allocatable of a node: cpu in millicores, memory in bytes, pods."""

    cpu_millis: int
    memory_bytes: int
    pods: int


def eks_max_pods(instance_type: str) -> int:
    limits = EKS_ENI_LIMITS.get(instance_type)
    if limits is None:
        return KUBELET_DEFAULT_MAX_PODS
    enis, addresses = limits
    return enis * (addresses - 1) + 2


def eks_cpu_reserved(vcpus: int) -> int:
    """getCPUMillicoresToReserve: per-range shares in 1/10000 of the millicores in each range."""
    total = vcpus * 1000
    bounds = (0, 1000, 2000, 4000, total)
    shares = (600, 100, 50, 25)
    reserved = 0
    for i, share in enumerate(shares):
        start, end = bounds[i], bounds[i + 1]
        if total > start:
            reserved += (min(total, end) - start) * share // 10000
    return reserved


def eks_allocatable(instance_type: str, vcpus: int, memory_gib: int) -> Allocatable:
    pods = eks_max_pods(instance_type)
    memory = memory_gib * GI - (11 * pods + 255) * MI - EVICTION_MEMORY
    return Allocatable(vcpus * 1000 - eks_cpu_reserved(vcpus), memory, pods)


def aks_cpu_reserved(vcpus: int) -> int:
    for cores, millis in AKS_CPU_RESERVED:
        if vcpus <= cores:
            return millis
    return AKS_CPU_RESERVED[-1][1]


def aks_allocatable(vcpus: int, memory_gib: int, max_pods: int = AKS_OVERLAY_MAX_PODS) -> Allocatable:
    total = memory_gib * GI
    reserved = min(20 * MB * max_pods + 50 * MB, total // 4)
    return Allocatable(vcpus * 1000 - aks_cpu_reserved(vcpus), total - reserved - EVICTION_MEMORY, max_pods)
