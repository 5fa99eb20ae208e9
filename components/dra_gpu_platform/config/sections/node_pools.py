"""The `nodePools` section: a GPU node pool (its GPU, a catalog key or a GPU the stack describes; its instance type,
sizes, purchase option, MIG, labels) with what derives from one pool. Pure: no Pulumi imports.
"""

from __future__ import annotations

import re
from datetime import date
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, AwareDatetime, BeforeValidator, Discriminator, Field, Tag

from dra_gpu_platform.config.fields import (
    ComputeCapability,
    ConfigModel,
    DnsLabel,
    GpuKey,
    Labels,
    NodeName,
    QuantityText,
    StackBool,
    StackInt,
    rule_error,
)
from dra_gpu_platform.facts import catalog, eks_amis, platforms
from dra_gpu_platform.facts.catalog import GpuModel, InstanceType
from dra_gpu_platform.facts.quantity import parse_quantity


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


# minNodes of an on-demand or spot `dra` pool that leaves it out where the autoscaler runs (config/validation.py
# with_autoscaler_defaults): the autoscaler cannot grow such a pool from zero (docs/references.md#cluster-autoscaler-dra).
AUTOSCALED_DRA_MIN_NODES = 1


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
        description=f"Autoscaling minimum; {AUTOSCALED_DRA_MIN_NODES} instead of 0 for an on-demand or spot dra pool "
        "where the autoscaler runs.",
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

    def declared_shape(self, platform: str) -> InstanceType | None:
        """The unlisted instance type as instanceFacts declare it on `platform` (None without allowUnlisted and
        instanceFacts, or on a platform that buys no nodes by type)."""
        facts = self.instance_facts
        bought = platforms.profile(platform).node_pools
        if not self.unlisted or facts is None or self.instance_type is None or not bought.bought:
            return None
        model = self.gpu_model
        default_family = bought.quota_family(self.instance_type) if bought.quota_family is not None else ""
        return catalog.declared_instance_type(
            platform,
            self.instance_type,
            model.key,
            model.nominal_memory_gb,
            gpus=facts.gpus,
            vcpus=facts.vcpu,
            memory_gib=int(parse_quantity(facts.memory).value / 2**30),
            efa_interfaces=facts.efa_interfaces if bought.efa else 0,
            nvme_disks=facts.nvme_disks,
            cpu_architecture=facts.cpu_architecture,
            quota_family=facts.quota_family or default_family,
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
