"""The platforms a stack runs on (eks, aks, kind, existing): one PlatformProfile each, holding what differs between
them, so that code asks the profile (`profile(config.platform).node_pools.zones`) instead of comparing the
platform's name. Pure data, like dra-example-driver's `Profile` interface (internal/profiles/profiles.go: one
implementation per device kind instead of branches).

What lives here is what the rest of the package would otherwise spell per platform: the Kubernetes minors a managed
service offers, how node pools are bought (instance types, VM sizes or none; purchase options; zones, AMIs, EFA,
Spot), who scales them (the node provisioners a platform offers, default on or off), how a node taint's effect is
spelled by the node pool API (EKS's NO_SCHEDULE, Kubernetes' NoSchedule), how the API server is reached, the region
key, the GPU software defaults, and which `gpuplan preflight` checks apply. Platform-only settings (the `cluster.eks`
block, ...) stay typed per platform in dra_gpu_platform/config/cluster.py; the cluster plans per platform in
dra_gpu_platform/plans/{eks,aks,kind,existing}.py.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from dra_gpu_platform.facts import aks, cluster_access, eks_amis, instance_types, kubernetes, provisioners, regions
from dra_gpu_platform.facts import node_allocatable as alloc

CLUSTER_AUTOSCALER = provisioners.CLUSTER_AUTOSCALER


@dataclass(frozen=True)
class Region:
    """Where a managed cluster runs: the provider-config key a stack file names it under, and the names it takes."""

    key: str  # aws:region | azure-native:location
    what: str  # how messages name it
    example: str
    names: frozenset[str]
    reference: str  # docs/references.md anchor of the table


@dataclass(frozen=True)
class Provisioner:
    """A way to add and remove a pool's nodes as pods wait (`autoscaler.provisioner` chooses among a platform's; what
    each does for a pending GPU pod is in dra_gpu_platform/facts/provisioners.py)."""

    name: str  # cluster-autoscaler, karpenter, auto-mode, node-auto-provisioning
    # the stack installs and pins it (a Helm release of its own); False: the platform runs it (AKS's managed one)
    installed_by_stack: bool


@dataclass(frozen=True)
class Autoscaling:
    provisioners: tuple[Provisioner, ...] = ()  # what the platform offers, the default first; none: nodes exist
    default_on: bool = False  # autoscaler.enabled when the stack does not say

    @property
    def supported(self) -> bool:
        return bool(self.provisioners)

    @property
    def default(self) -> Provisioner | None:
        return self.provisioners[0] if self.provisioners else None

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.provisioners)

    def offer(self, name: str) -> Provisioner | None:
        """The platform's provisioner of that name; None: the platform does not offer it."""
        return next((p for p in self.provisioners if p.name == name), None)


@dataclass(frozen=True)
class NodePools:
    """How the platform's GPU node pools come to be and what a pool may say."""

    # "instance type" / "VM size": pools are bought by it, from the catalog or declared (allowUnlisted); None: the
    # platform buys no nodes (kind's workers, an existing cluster's nodes)
    bought_by: str | None = None
    name_pattern: re.Pattern[str] | None = None  # how an unlisted type's name looks
    name_spelled: str = ""  # the pattern in words, with an example
    names_catalog_type: bool = False  # a pool may name a catalog type to count its GPUs (existing nodes)
    capacity_blocks: bool = False  # EC2 Capacity Blocks (capacity: capacity-block)
    capacity_reservations: bool = False  # a pool in an EC2 capacity reservation (capacityReservationId)
    zones: bool = False  # a pool limited to one zone (availabilityZone)
    ami_types: bool = False  # the NVIDIA AMI family per pool (amiType)
    efa: bool = False  # EFA interfaces on the EFA families
    spot_taint: str | None = None  # the taint the platform puts on Spot nodes
    spot_label: tuple[str, str] | None = None  # the label it puts on them
    existing_nodes: bool = False  # a pool names nodes that exist (nodes) and the stack labels and taints them
    workers_at_max: bool = False  # every worker of the pool runs from the start (kind starts its whole config)
    # allocatable cpu, memory and pods of a node of a shape (instance type, vCPUs, GiB); None: not modelled
    allocatable: Callable[[str, int, int], alloc.Allocatable] | None = None
    quota_family: Callable[[str], str] | None = None  # an unlisted type's default vCPU quota family
    is_gpu_type: Callable[[str], bool] | None = None  # whether a type, listed or not, has NVIDIA GPUs
    # whether a type's GPU is a share of one (a vGPU): the NVIDIA DRA driver has no device to publish for it
    is_fractional_gpu_type: Callable[[str], bool] | None = None

    @property
    def bought(self) -> bool:
        return self.bought_by is not None


@dataclass(frozen=True)
class ControlPlane:
    # a cloud runs it: its feature gates and --runtime-config are the minor's defaults, and no node of the
    # cluster's own is a control-plane node
    managed: bool = False
    sets_feature_gates: bool = False  # the stack sets the gates and API versions itself (kind's config)
    gates_note: str = ""  # why the stack cannot turn a gate or an API version on there
    # the service whose offers (dra_gpu_platform/facts/kubernetes.py OFFERS) limit the minors a new cluster may run;
    # None: every minor this package knows (kind, existing)
    service: str | None = None
    # how its metrics reach a Prometheus: "stack" (EKS's metrics endpoint, scraped with monitoring.install),
    # "azure-monitor" (only Azure Monitor's managed Prometheus), "external" (the owner's own scrape jobs)
    metrics: Literal["stack", "azure-monitor", "external"] = "external"
    # which admission plugins the API server runs is known (the service's or kind's defaults); False: an existing
    # cluster's are its owner's, so `gpuplan fit` assumes the optional ones (ExtendedResourceToleration) off
    admission_plugins_known: bool = True

    def offer(self, version: str) -> kubernetes.Offer | None:
        """The service's offer of a minor (None: not listed, or no service)."""
        return kubernetes.OFFERS.get((self.service, version)) if self.service is not None else None


@dataclass(frozen=True)
class ApiAccess:
    """How the API server is reached, as far as it differs by platform; the endpoint and its allowed networks are
    settings of the typed cluster blocks (dra_gpu_platform/config/cluster.py), checked by rules/cluster.py."""

    # What a finer component on an existing cluster of this platform says of its API access to pass the cluster
    # rules (dra_gpu_platform/config/parts.py): the cluster exists and is reached by the caller's provider.
    existing_settings: Mapping[str, Any] = field(default_factory=dict)
    kubeconfig_secret: bool = False  # the stack takes the cluster's kubeconfig as a secret (`kubeconfig`)


@dataclass(frozen=True)
class GpuSoftware:
    gpu_operator: bool = True  # gpuOperator.enabled when the stack does not say
    # why the GPU Operator cannot install the NVIDIA driver here (rule, fix); None: it can (driver: operator)
    no_operator_driver: tuple[str, str] | None = None
    mig_manager: bool = True  # the GPU Operator's mig-manager partitions GPUs (kind: the host's business)
    mig_reboot: bool = False  # changing MIG mode needs a reboot (cloud VMs)
    runtime_class: str | None = None  # the operator's runtimeClass where the host's runtime serves GPUs
    device_plugin_image: str | None = None  # a node image that brings its own NVIDIA device plugin
    # who configures the NVIDIA container toolkit of GPU nodes where the GPU Operator does not install it: the stack
    # (EKS launch templates' user data), the managed service (AKS: no setting for it), or the hosts (kind, existing)
    toolkit_owner: Literal["stack", "service", "hosts"] = "hosts"


@dataclass(frozen=True)
class PlatformProfile:
    name: str  # eks | aks | kind | existing
    title: str  # how messages name it: EKS, AKS, kind, existing
    kubernetes: ControlPlane
    node_pools: NodePools
    autoscaling: Autoscaling
    api_access: ApiAccess
    software: GpuSoftware
    region: Region | None = None  # None: the cluster runs where its nodes are (kind, existing)
    creates_cluster: bool = True  # False: the stack configures a cluster that exists
    hosts_finer_components: bool = True  # EksGpuNodePool & co. compose on an existing cluster of this platform
    deployer_group: str | None = None  # the Kubernetes group `pulumi up` authenticates into, where it is fixed
    # the node pool API's spelling of a taint effect (EKS: NO_SCHEDULE), by Kubernetes' (NoSchedule)
    taint_effects: Mapping[str, str] = field(default_factory=dict)
    preflight: tuple[str, ...] = ()  # the checks `gpuplan preflight` runs against the cloud account

    def taint_effect(self, effect: str) -> str:
        """A Kubernetes taint effect as the platform's node pool API spells it."""
        return self.taint_effects.get(effect, effect)

    def kubernetes_effect(self, effect: str) -> str:
        """The node pool API's spelling of an effect back in Kubernetes' (unknown spellings unchanged)."""
        return next((k for k, spelled in self.taint_effects.items() if spelled == effect), effect)


_NO_GATES = "control planes cannot turn feature gates or API versions on"

EKS = PlatformProfile(
    name="eks",
    title="EKS",
    kubernetes=ControlPlane(managed=True, gates_note=f"EKS {_NO_GATES}", service="eks", metrics="stack"),
    node_pools=NodePools(
        bought_by="instance type",
        name_pattern=re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$"),
        name_spelled="an EC2 instance type name such as g7.16xlarge",
        capacity_blocks=True,
        capacity_reservations=True,
        zones=True,
        ami_types=True,
        efa=True,
        allocatable=alloc.eks_allocatable,
        quota_family=instance_types.ec2_quota_family,
        is_gpu_type=instance_types.is_ec2_gpu_type,
        is_fractional_gpu_type=instance_types.is_ec2_fractional_gpu_type,
    ),
    # The cluster autoscaler over managed node groups (the stack installs it), Karpenter (the stack installs its chart,
    # docs/references.md#karpenter-releases) or EKS Auto Mode (AWS runs it, docs/references.md#eks-auto-mode).
    autoscaling=Autoscaling(
        (
            Provisioner(CLUSTER_AUTOSCALER, installed_by_stack=True),
            Provisioner(provisioners.KARPENTER, installed_by_stack=True),
            Provisioner(provisioners.AUTO_MODE, installed_by_stack=False),
        ),
        default_on=True,
    ),
    api_access=ApiAccess(
        # a node pool's cluster exists in subnets that exist (a created VPC's private endpoint is refused)
        existing_settings=MappingProxyType({"subnetIds": ["subnet-0"]}),
    ),
    software=GpuSoftware(
        no_operator_driver=(
            "the GPU Operator has no driver containers for the EKS NVIDIA AMIs (AL2023/Bottlerocket ship the driver)",
            "use driver: auto or host",
        ),
        mig_reboot=True,
        device_plugin_image=eks_amis.BOTTLEROCKET_NVIDIA,
        toolkit_owner="stack",
    ),
    region=Region("aws:region", "AWS region", "us-east-1", regions.AWS_REGIONS, "docs/references.md#aws-regions"),
    deployer_group=cluster_access.DEPLOYER_GROUP,
    taint_effects=MappingProxyType(
        {"NoSchedule": "NO_SCHEDULE", "NoExecute": "NO_EXECUTE", "PreferNoSchedule": "PREFER_NO_SCHEDULE"}
    ),
    preflight=("zones", "gpus", "quota", "reservation"),
)

AKS = PlatformProfile(
    name="aks",
    title="AKS",
    kubernetes=ControlPlane(managed=True, gates_note=f"AKS {_NO_GATES}", service="aks", metrics="azure-monitor"),
    node_pools=NodePools(
        bought_by="VM size",
        name_pattern=re.compile(r"^Standard_[A-Za-z0-9_]+$"),
        name_spelled="an Azure VM size name such as Standard_NC40ads_H100_v5",
        spot_taint=aks.SPOT_TAINT,
        spot_label=aks.SPOT_LABEL,
        allocatable=lambda _size, vcpus, memory_gib: alloc.aks_allocatable(vcpus, memory_gib),
        is_gpu_type=instance_types.is_azure_gpu_size,
    ),
    # AKS runs its own cluster autoscaler (the agent pools' enableAutoScaling), matching the cluster's minor, and its
    # own Karpenter as node auto-provisioning (docs/references.md#aks-node-auto-provisioning)
    autoscaling=Autoscaling(
        (
            Provisioner(CLUSTER_AUTOSCALER, installed_by_stack=False),
            Provisioner(provisioners.NODE_AUTO_PROVISIONING, installed_by_stack=False),
        ),
        default_on=True,
    ),
    api_access=ApiAccess(
        # how an existing cluster's API server is reached is its own business
        existing_settings=MappingProxyType({"privateCluster": True}),
    ),
    software=GpuSoftware(mig_reboot=True, runtime_class=aks.GPU_RUNTIME_CLASS, toolkit_owner="service"),
    region=Region(
        "azure-native:location",
        "Azure location",
        "eastus",
        regions.AZURE_LOCATIONS,
        "docs/references.md#azure-locations",
    ),
    preflight=("size", "shape", "quota", "regional"),
)

KIND = PlatformProfile(
    name="kind",
    title="kind",
    kubernetes=ControlPlane(sets_feature_gates=True),
    node_pools=NodePools(workers_at_max=True),
    autoscaling=Autoscaling(),
    api_access=ApiAccess(),
    software=GpuSoftware(
        gpu_operator=False,
        no_operator_driver=(
            "kind nodes share the host's kernel and driver; the operator cannot install a driver there",
            "use driver: auto or host (nvkind style: the host has the driver and toolkit)",
        ),
        mig_manager=False,
    ),
    hosts_finer_components=False,  # GpuPlatform creates kind clusters; one you run yourself is `existing`
    deployer_group=cluster_access.KUBEADM_ADMIN_GROUP,
)

EXISTING = PlatformProfile(
    name="existing",
    title="existing",
    kubernetes=ControlPlane(
        gates_note="this package cannot see whether your control plane has them on", admission_plugins_known=False
    ),
    node_pools=NodePools(names_catalog_type=True, existing_nodes=True),
    autoscaling=Autoscaling(),
    api_access=ApiAccess(kubeconfig_secret=True),
    software=GpuSoftware(),
    creates_cluster=False,
)

PROFILES: Mapping[str, PlatformProfile] = MappingProxyType({p.name: p for p in (EKS, AKS, KIND, EXISTING)})
PLATFORMS: tuple[str, ...] = tuple(PROFILES)


def offering(provisioner: str) -> tuple[str, ...]:
    """The platforms whose autoscaling offers a provisioner (cluster-autoscaler: eks and aks; karpenter: eks)."""
    return tuple(name for name, p in PROFILES.items() if p.autoscaling.offer(provisioner) is not None)


def profile(platform: str) -> PlatformProfile:
    """The profile of a platform by its name (a stack's `cluster.platform`); KeyError for another name."""
    return PROFILES[platform]
