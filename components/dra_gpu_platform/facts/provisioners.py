"""What turns a pending GPU pod into a node (`autoscaler.provisioner`), and what each provisioner does for a pod that
asks for GPUs one way or another: by ResourceClaims (a `dra` pool), by `nvidia.com/gpu` (a `device-plugin` pool), or
by `nvidia.com/gpu` served through DRA (the extended-resource bridge, DRAExtendedResource). Pure data.

Each answer carries why and where it was read (docs/references.md#provisioner-dra-support and the entries it names):
- cluster-autoscaler: a DRA node group grows from one node up, never from zero on AWS and Azure
  (docs/references.md#cluster-autoscaler-dra); device-plugin node groups grow from zero (node-template tags).
- Karpenter 1.14.x ignores claim pods (`IgnoreDRARequests`, default true, and no DRA metadata in the AWS provider):
  they never get a node (docs/references.md#karpenter-dra); 1.15.0's alpha NVIDIA DRA metadata launches nodes for
  them from zero. A pod asking for `nvidia.com/gpu` gets a node from instance-type capacity; on a node that serves
  it only through DRA, the NodeClaim never initializes (docs/references.md#karpenter-extended-resource-bridge).
- EKS Auto Mode runs the NVIDIA device plugin on its GPU nodes; its DRA driver (Kubernetes 1.36+) is documented,
  but not which DeviceClasses it serves (docs/references.md#eks-auto-mode-dra).
- AKS node auto-provisioning (Karpenter on Azure, v1.14.2) has no DRA (docs/references.md#aks-nap-dra).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, get_args

from dra_gpu_platform.facts import karpenter

Provisioner = Literal["cluster-autoscaler", "karpenter", "auto-mode", "node-auto-provisioning"]
PROVISIONERS: tuple[str, ...] = get_args(Provisioner)
CLUSTER_AUTOSCALER, KARPENTER, AUTO_MODE, NODE_AUTO_PROVISIONING = PROVISIONERS
DEFAULT: Provisioner = "cluster-autoscaler"

# Where each runs: the platform profiles' Autoscaling.provisioners (dra_gpu_platform/facts/platforms.py).
# Provisioners whose GPU pools are karpenter.sh/v1 NodePools: nodes come for pending pods only (no minimum, no
# desired size; a static NodePool is alpha and not used here).
NODE_POOL_PROVISIONERS = (KARPENTER, AUTO_MODE, NODE_AUTO_PROVISIONING)
# Who the provisioner is, in words, for messages.
NAMES = {
    CLUSTER_AUTOSCALER: "the cluster autoscaler",
    KARPENTER: "Karpenter",
    AUTO_MODE: "EKS Auto Mode",
    NODE_AUTO_PROVISIONING: "AKS node auto-provisioning",
}

# The API versions of the provisioners' custom resources (karpenter.sh NodePools, their node classes): no Kubernetes
# schema holds them; their CRDs come with the Karpenter chart (render validates against them) or with the service.
CUSTOM_RESOURCE_APIS = frozenset(
    {
        karpenter.NODEPOOL_API,
        karpenter.EC2_NODE_CLASS_API,
        "eks.amazonaws.com/v1",  # EKS Auto Mode NodeClass (dra_gpu_platform/facts/auto_mode.py)
        "karpenter.azure.com/v1beta1",  # AKSNodeClass (dra_gpu_platform/facts/node_auto_provisioning.py)
    }
)

Verdict = Literal["from-zero", "from-one-node", "never", "never-initializes", "unverified"]


@dataclass(frozen=True)
class Growth:
    """What a provisioner does for a pending pod of one kind on a pool of one GPU stack."""

    verdict: Verdict
    why: str
    reference: str  # docs/references.md anchor

    @property
    def gets_a_node(self) -> bool:
        return self.verdict in ("from-zero", "from-one-node")


def _karpenter_dra(version: str | None) -> bool:
    found = karpenter.release(version or karpenter.DEFAULT_VERSION)
    return found is not None and found.nvidia_dra


def claims_growth(provisioner: str, minor: int, version: str | None = None) -> Growth:
    """A pending pod with ResourceClaims on a `dra` pool of Kubernetes 1.<minor>."""
    if provisioner == CLUSTER_AUTOSCALER:
        return Growth(
            "from-one-node",
            "the AWS and Azure providers build template nodes without ResourceSlices, so a DRA node group grows only "
            "from a running node, whose slices it copies"
            + ("; on 1.34 behind --enable-dynamic-resource-allocation, with known gaps" if minor < 35 else ""),
            "cluster-autoscaler-dra",
        )
    if provisioner == KARPENTER:
        if _karpenter_dra(version):
            return Growth(
                "from-zero",
                "alpha: settings.awsFeatureGates.draNVIDIAGPU evaluates a claim against the NVIDIA DRA metadata of "
                "each instance type (whole GPUs: no MIG, no ComputeDomains) and launches the cheapest that fits",
                "karpenter-dra",
            )
        return Growth(
            "never",
            "Karpenter 1.14 skips pods with DRA requirements (IgnoreDRARequests, true by default, and the AWS provider "
            "publishes no DRA metadata), so no node is ever launched for a claim",
            "karpenter-dra",
        )
    if provisioner == AUTO_MODE:
        if minor < 36:
            return Growth(
                "never",
                "EKS Auto Mode runs a DRA driver only from Kubernetes 1.36; before it its GPU nodes run the NVIDIA "
                "device plugin only",
                "eks-auto-mode-dra",
            )
        return Growth(
            "unverified",
            "EKS Auto Mode runs the NVIDIA DRA driver in its node runtime from Kubernetes 1.36, but which DeviceClasses "
            "it serves, how a node is chosen for DRA rather than the device plugin and whether a claim launches a node "
            "from zero are not in any readable source",
            "eks-auto-mode-dra",
        )
    return Growth(
        "never",
        "AKS node auto-provisioning (Karpenter for Azure 1.14) ignores DRA requests and has no DRA metadata",
        "aks-nap-dra",
    )


def gpu_resource_growth(provisioner: str) -> Growth:
    """A pending pod asking for `nvidia.com/gpu` on a `device-plugin` pool."""
    if provisioner == CLUSTER_AUTOSCALER:
        return Growth(
            "from-zero",
            "the node-template tags (EKS) or the VM size (AKS) say how many GPUs a new node has",
            "cluster-autoscaler-dra",
        )
    return Growth(
        "from-zero",
        f"{NAMES[provisioner]} knows each instance type's nvidia.com/gpu capacity before it launches one",
        "karpenter-extended-resource-bridge",
    )


def bridge_growth(provisioner: str) -> Growth:
    """A pending pod asking for `nvidia.com/gpu` on a `dra` pool, served through the extended-resource bridge."""
    if provisioner in (KARPENTER, NODE_AUTO_PROVISIONING):
        return Growth(
            "never-initializes",
            "Karpenter treats the pod as a device-plugin pod and launches a node, which never advertises "
            "nvidia.com/gpu: the NodeClaim stays uninitialized, is never consolidated and runs until expireAfter",
            "karpenter-extended-resource-bridge",
        )
    if provisioner == AUTO_MODE:
        return claims_growth(AUTO_MODE, 36)
    return Growth("from-one-node", "as for claims: the autoscaler copies a running node", "cluster-autoscaler-dra")
