"""GPU instance types (EC2) and VM sizes (Azure) that EKS and AKS run as GPU nodes. Pure data, no I/O.

Sources (docs/references.md): EC2 instance types (docs/references.md#ec2-gpu-instance-types; every EC2 fact but
p6e-gb200's is checked by tests/facts against the DescribeInstanceTypes data moto ships,
docs/references.md#ec2-p6e-gb200 for the one moto lacks), EFA (docs/references.md#eks-efa), Azure VM sizes and
their vCPU quota families (docs/references.md#azure-gpu-vm-sizes and the per-series entries it lists).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from dra_gpu_platform.facts.eks_amis import NVIDIA_AMI_INSTANCE_FAMILIES
from dra_gpu_platform.facts.gpu_models import gpu_model

# EC2 families whose multi-card sizes get one EFA interface per network card that carries EFA, and a cluster
# placement group.
EFA_FAMILIES = ("p4d", "p4de", "p5", "p5e", "p5en", "p6-b200", "p6-b300")
# Fractional-GPU families: EC2 reports no whole GPU (GpuInfo.Gpus[].Count 0, GpuPartitionSize 0.125-0.5 of an L4;
# moto 5.2.5 instance_types.json), the GPU is a vGPU share, and nothing publishes it as a DRA device: Karpenter
# v1.15.2 dropped their NVIDIA DRA metadata (docs/references.md#ec2-fractional-gpu-types).
FRACTIONAL_GPU_FAMILIES = ("g6f", "gr6f")


@dataclass(frozen=True)
class InstanceType:
    """A GPU machine shape on one platform (EC2 instance type or Azure VM size)."""

    name: str
    platform: str  # eks | aks: a platform that buys its nodes by type (dra_gpu_platform/facts/platforms.py)
    gpu: str  # GpuModel key
    gpus: int
    vcpus: int
    memory_gib: int  # host memory (EC2 MemoryInfo / 1024; the Azure size page's figure)
    gpu_memory_gb: int  # total nominal GPU memory: gpus x the model's marketing size
    max_efa_interfaces: int | None = 0  # EC2 EfaInfo.MaximumEfaInterfaces; None where not sourced
    network_cards: int = 1  # EC2 NetworkInfo.MaximumNetworkCards
    # leading network cards that carry no EFA (EC2 NetworkCards[].InterfaceTypes without `efa`: card 0 of p6-b300)
    ena_only_cards: int = 0
    infiniband_nics: int = 0  # Azure: InfiniBand (scale-out) NICs per VM
    nvme_disks: int = 0  # NVMe instance-store disks (EC2 InstanceStorageInfo; Azure: local NVMe disks)
    cpu_architecture: Literal["x86_64", "arm64"] = "x86_64"
    capacity_blocks_only: bool = False  # sold only through EC2 Capacity Blocks (UltraServers), never on demand
    gpus_per_pcie_root: int = 1  # modelled pcieRoot grouping (see note below)
    default: bool = False  # the size chosen when a pool names only its GPU
    quota_family: str = ""  # vCPU quota bucket: "P" / "G" on EC2, the Compute usage-API family name on Azure
    listed: bool = True  # False: a type the catalog does not list, as a stack declares it (declared_instance_type)

    @property
    def family(self) -> str:
        """An EC2 type's family, the part before the dot (p5 of p5.48xlarge); an Azure VM size has no dot and is its
        own family here."""
        return self.name.split(".", 1)[0]

    @property
    def efa_cards(self) -> int:
        """Network cards that carry EFA."""
        return self.network_cards - self.ena_only_cards

    @property
    def efa_interfaces(self) -> int:
        """EFA interfaces a pool of this type is given: one per network card that carries EFA on the multi-card
        sizes of the EFA families (docs/references.md#eks-efa; EC2's MaximumEfaInterfaces is that count), none
        elsewhere (a single-card size such as p5.4xlarge keeps its one ENA interface and no placement group). An
        unlisted type gets the interfaces its stack declares."""
        if not self.listed:
            return self.max_efa_interfaces or 0
        if self.family in EFA_FAMILIES and self.network_cards > 1 and self.max_efa_interfaces == self.efa_cards:
            return self.efa_cards
        return 0


# pcieRoot grouping: on 8-GPU HGX baseboards two GPUs share a PCIe switch under one root port
# (DGX/HGX system guides); single- and 4-GPU G instances are modelled one GPU per root. The DRA driver
# publishes the real value; `gpuplan inventory --live` or a ResourceSlice dump shows it.
_HGX = 2


def _eks(
    name: str,
    gpu: str,
    gpus: int,
    vcpus: int,
    memory_gib: int,
    *,
    efa: int | None = 0,
    cards: int = 1,
    ena_only: int = 0,
    nvme: int = 0,
    per_root: int = 1,
    default: bool = False,
    arch: Literal["x86_64", "arm64"] = "x86_64",
    blocks_only: bool = False,
) -> InstanceType:
    return InstanceType(
        name,
        "eks",
        gpu,
        gpus,
        vcpus,
        memory_gib,
        gpus * gpu_model(gpu).nominal_memory_gb,
        max_efa_interfaces=efa,
        network_cards=cards,
        ena_only_cards=ena_only,
        nvme_disks=nvme,
        cpu_architecture=arch,
        capacity_blocks_only=blocks_only,
        gpus_per_pcie_root=per_root,
        default=default,
        quota_family="P" if name.startswith("p") else "G",
    )


def _aks(
    name: str,
    gpu: str,
    gpus: int,
    vcpus: int,
    memory_gib: int,
    family: str,
    *,
    ib: int = 0,
    nvme: int = 0,
    per_root: int = 1,
    default: bool = False,
    arch: Literal["x86_64", "arm64"] = "x86_64",
) -> InstanceType:
    return InstanceType(
        name,
        "aks",
        gpu,
        gpus,
        vcpus,
        memory_gib,
        gpus * gpu_model(gpu).nominal_memory_gb,
        max_efa_interfaces=0,
        infiniband_nics=ib,
        nvme_disks=nvme,
        cpu_architecture=arch,
        gpus_per_pcie_root=per_root,
        default=default,
        quota_family=family,
    )


INSTANCE_TYPES: dict[tuple[str, str], InstanceType] = {
    (t.platform, t.name): t
    for t in (
        # EC2 (docs/references.md#ec2-gpu-instance-types, docs/references.md#eks-efa)
        _eks("p6-b200.48xlarge", "B200", 8, 192, 2048, efa=8, cards=8, nvme=8, per_root=_HGX, default=True),
        # card 0 is ENA only (the primary interface), cards 1-16 carry EFA
        _eks(
            "p6-b300.48xlarge", "B300", 8, 192, 4096, efa=16, cards=17, ena_only=1, nvme=8, per_root=_HGX, default=True
        ),
        _eks(
            "p6e-gb200.36xlarge",
            "GB200",
            4,
            144,
            960,
            efa=None,
            cards=17,
            nvme=3,
            default=True,
            arch="arm64",
            blocks_only=True,
        ),
        _eks("p5.48xlarge", "H100", 8, 192, 2048, efa=32, cards=32, nvme=8, per_root=_HGX, default=True),
        _eks("p5.4xlarge", "H100", 1, 16, 256, efa=1, nvme=1),
        _eks("p5e.48xlarge", "H200", 8, 192, 2048, efa=32, cards=32, nvme=8, per_root=_HGX, default=True),
        _eks("p5en.48xlarge", "H200", 8, 192, 2048, efa=16, cards=16, nvme=8, per_root=_HGX),
        _eks("p4d.24xlarge", "A100-40GB", 8, 96, 1152, efa=4, cards=4, nvme=8, per_root=_HGX, default=True),
        _eks("p4de.24xlarge", "A100-80GB", 8, 96, 1152, efa=4, cards=4, nvme=8, per_root=_HGX, default=True),
        _eks("g5.xlarge", "A10G", 1, 4, 16, nvme=1, default=True),
        _eks("g5.2xlarge", "A10G", 1, 8, 32, nvme=1),
        _eks("g5.4xlarge", "A10G", 1, 16, 64, nvme=1),
        _eks("g5.8xlarge", "A10G", 1, 32, 128, efa=1, nvme=1),
        _eks("g5.16xlarge", "A10G", 1, 64, 256, efa=1, nvme=1),
        _eks("g5.12xlarge", "A10G", 4, 48, 192, efa=1, nvme=1),
        _eks("g5.24xlarge", "A10G", 4, 96, 384, efa=1, nvme=1),
        _eks("g5.48xlarge", "A10G", 8, 192, 768, efa=1, nvme=2),
        _eks("g4dn.xlarge", "T4", 1, 4, 16, nvme=1, default=True),
        _eks("g4dn.2xlarge", "T4", 1, 8, 32, nvme=1),
        _eks("g4dn.4xlarge", "T4", 1, 16, 64, nvme=1),
        _eks("g4dn.8xlarge", "T4", 1, 32, 128, efa=1, nvme=1),
        _eks("g4dn.16xlarge", "T4", 1, 64, 256, efa=1, nvme=1),
        _eks("g4dn.12xlarge", "T4", 4, 48, 192, efa=1, nvme=1),
        _eks("g4dn.metal", "T4", 8, 96, 384, efa=1, nvme=2),
        _eks("g6.xlarge", "L4", 1, 4, 16, nvme=1, default=True),
        _eks("g6.2xlarge", "L4", 1, 8, 32, nvme=1),
        _eks("g6.4xlarge", "L4", 1, 16, 64, nvme=1),
        _eks("g6.8xlarge", "L4", 1, 32, 128, efa=1, nvme=2),
        _eks("g6.12xlarge", "L4", 4, 48, 192, efa=1, nvme=4),
        _eks("g6.16xlarge", "L4", 1, 64, 256, efa=1, nvme=2),
        _eks("g6.24xlarge", "L4", 4, 96, 384, efa=1, nvme=4),
        _eks("g6.48xlarge", "L4", 8, 192, 768, efa=1, nvme=8),
        _eks("gr6.4xlarge", "L4", 1, 16, 128, nvme=1),
        _eks("gr6.8xlarge", "L4", 1, 32, 256, efa=1, nvme=2),
        _eks("g6e.xlarge", "L40S", 1, 4, 32, nvme=1, default=True),
        _eks("g6e.2xlarge", "L40S", 1, 8, 64, nvme=1),
        _eks("g6e.4xlarge", "L40S", 1, 16, 128, nvme=1),
        _eks("g6e.8xlarge", "L40S", 1, 32, 256, efa=1, nvme=2),
        _eks("g6e.12xlarge", "L40S", 4, 48, 384, efa=1, nvme=2),
        _eks("g6e.16xlarge", "L40S", 1, 64, 512, efa=1, nvme=2),
        _eks("g6e.24xlarge", "L40S", 4, 96, 768, efa=2, cards=2, nvme=2),
        _eks("g6e.48xlarge", "L40S", 8, 192, 1536, efa=4, cards=4, nvme=4),
        _eks("g7e.2xlarge", "RTX-PRO-6000", 1, 8, 64, nvme=1, default=True),
        _eks("g7e.4xlarge", "RTX-PRO-6000", 1, 16, 128, nvme=1),
        _eks("g7e.8xlarge", "RTX-PRO-6000", 1, 32, 256, efa=1, nvme=1),
        _eks("g7e.12xlarge", "RTX-PRO-6000", 2, 48, 512, efa=1, nvme=1),
        _eks("g7e.24xlarge", "RTX-PRO-6000", 4, 96, 1024, efa=2, cards=2, nvme=2),
        _eks("g7e.48xlarge", "RTX-PRO-6000", 8, 192, 2048, efa=4, cards=4, nvme=4),
        # Azure (docs/references.md#azure-gpu-vm-sizes); no Azure size carries A10G, B200, L4 or L40S here
        _aks(
            "Standard_ND128isr_NDR_GB200_v6",
            "GB200",
            4,
            128,
            900,
            "standardNDISRGB200V6NDRFamily",
            ib=4,
            nvme=4,
            default=True,
            arch="arm64",
        ),
        _aks(
            "Standard_ND96isr_H100_v5",
            "H100",
            8,
            96,
            1900,
            "standardNDSH100v5Family",
            ib=8,
            per_root=_HGX,
            default=True,
        ),
        _aks("Standard_NC40ads_H100_v5", "H100-NVL", 1, 40, 320, "StandardNCadsH100v5Family", default=True),
        _aks("Standard_NC80adis_H100_v5", "H100-NVL", 2, 80, 640, "StandardNCadsH100v5Family"),
        _aks(
            "Standard_ND96isr_H200_v5",
            "H200",
            8,
            96,
            1850,
            "standardNDISRH200V5Family",
            ib=8,
            per_root=_HGX,
            default=True,
        ),
        _aks(
            "Standard_ND96asr_v4",
            "A100-40GB",
            8,
            96,
            900,
            "standardNDASv4_A100Family",
            ib=8,
            per_root=_HGX,
            default=True,
        ),
        _aks("Standard_ND96amsr_A100_v4", "A100-80GB", 8, 96, 1900, "standardNDAMSv4_A100Family", ib=8, per_root=_HGX),
        _aks("Standard_NC24ads_A100_v4", "A100-80GB", 1, 24, 220, "StandardNCADSA100v4Family", default=True),
        _aks("Standard_NC48ads_A100_v4", "A100-80GB", 2, 48, 440, "StandardNCADSA100v4Family"),
        _aks("Standard_NC96ads_A100_v4", "A100-80GB", 4, 96, 880, "StandardNCADSA100v4Family"),
        _aks("Standard_NV36ads_A10_v5", "A10", 1, 36, 440, "StandardNVADSA10v5Family", default=True),
        _aks("Standard_NV36adms_A10_v5", "A10", 1, 36, 880, "StandardNVADSA10v5Family"),
        _aks("Standard_NV72ads_A10_v5", "A10", 2, 72, 880, "StandardNVADSA10v5Family"),
        _aks("Standard_NC4as_T4_v3", "T4", 1, 4, 28, "standardNCASv3_T4Family", default=True),
        _aks("Standard_NC8as_T4_v3", "T4", 1, 8, 56, "standardNCASv3_T4Family"),
        _aks("Standard_NC16as_T4_v3", "T4", 1, 16, 110, "standardNCASv3_T4Family"),
        _aks("Standard_NC64as_T4_v3", "T4", 4, 64, 440, "standardNCASv3_T4Family"),
    )
}


def declared_instance_type(
    platform: str,
    name: str,
    gpu: str,
    nominal_memory_gb: int,
    *,
    gpus: int,
    vcpus: int,
    memory_gib: int,
    efa_interfaces: int = 0,
    nvme_disks: int = 0,
    cpu_architecture: Literal["x86_64", "arm64"] = "x86_64",
    quota_family: str = "",
) -> InstanceType:
    """An instance type or VM size the catalog does not list, with the facts its stack declares
    (`nodePools[].instanceFacts` with `allowUnlisted`): nothing here is checked against the cloud. One EFA
    interface per network card, as on the catalog's EFA sizes; GPUs modelled one per PCIe root. `quota_family`:
    the declared one, or the platform's default for the name (dra_gpu_platform/facts/platforms.py)."""
    return InstanceType(
        name,
        platform,
        gpu,
        gpus,
        vcpus,
        memory_gib,
        gpus * nominal_memory_gb,
        max_efa_interfaces=efa_interfaces,
        network_cards=max(1, efa_interfaces),
        nvme_disks=nvme_disks,
        cpu_architecture=cpu_architecture,
        quota_family=quota_family,
        listed=False,
    )


# An Azure VM size's family: its series letters and what follows the vCPU count's features (Standard_NC24ads_A100_v4
# is ("NC", "A100_v4")), so an unlisted size of a listed family is known as a GPU size.
_AZURE_SIZE = re.compile(r"^standard_(n[a-z])\d+[a-z]*_(.+)$", re.IGNORECASE)
# Azure's NC and ND series carry NVIDIA GPUs in every generation (NV also has AMD sizes: only listed NV families count).
_AZURE_NVIDIA_SERIES = ("nc", "nd")


def _azure_family(vm_size: str) -> tuple[str, str] | None:
    match = _AZURE_SIZE.match(vm_size)
    return (match.group(1).lower(), match.group(2).lower()) if match else None


def ec2_quota_family(name: str) -> str:
    """The EC2 vCPU quota bucket of an instance type: P for the p families, G (G and VT) for the others."""
    return "P" if name.startswith("p") else "G"


def is_ec2_fractional_gpu_type(name: str) -> bool:
    """Whether an EC2 instance type is of a fractional-GPU family (FRACTIONAL_GPU_FAMILIES: a vGPU share, no DRA
    device)."""
    return name.split(".", 1)[0] in FRACTIONAL_GPU_FAMILIES


def is_ec2_gpu_type(name: str) -> bool:
    """Whether an EC2 instance type, listed in the catalog or not, has NVIDIA GPUs: a listed type, a size of a listed
    family, or a family the EKS NVIDIA AMIs support."""
    if ("eks", name) in INSTANCE_TYPES:
        return True
    family = name.split(".", 1)[0]
    return family in NVIDIA_AMI_INSTANCE_FAMILIES or family in {t.family for t in _on("eks")}


def is_azure_gpu_size(name: str) -> bool:
    """Whether an Azure VM size, listed in the catalog or not, has NVIDIA GPUs: a listed size, a size of a listed
    family, or an NC/ND size."""
    if ("aks", name) in INSTANCE_TYPES:
        return True
    size_family = _azure_family(name)
    if size_family is None:
        return False
    listed = {_azure_family(t.name) for t in _on("aks")}
    return size_family in listed or size_family[0] in _AZURE_NVIDIA_SERIES


def _on(platform: str) -> list[InstanceType]:
    return [t for t in INSTANCE_TYPES.values() if t.platform == platform]


def instance_type(platform: str, name: str) -> InstanceType | None:
    return INSTANCE_TYPES.get((platform, name))


def instance_types_for(platform: str, gpu: str) -> list[InstanceType]:
    return sorted(
        (t for t in INSTANCE_TYPES.values() if t.platform == platform and t.gpu == gpu),
        key=lambda t: (not t.default, t.gpus, t.name),
    )


def default_instance_type(platform: str, gpu: str) -> InstanceType | None:
    candidates = instance_types_for(platform, gpu)
    return candidates[0] if candidates else None


def gpus_offered(platform: str) -> list[str]:
    """The GPU models a platform's catalog offers (each has a default instance type there)."""
    return sorted({t.gpu for t in INSTANCE_TYPES.values() if t.platform == platform})


def pool_shape(platform: str, gpu: str, instance_type: str | None) -> InstanceType | None:
    """A pool's machine shape: its own instance type / VM size, else the catalog default for its GPU."""
    return instance_type_named(instance_type, platform) if instance_type else default_instance_type(platform, gpu)


def instance_type_named(name: str | None, platform: str | None = None) -> InstanceType | None:
    """Look a shape up by name, on the platform that buys it or (platform None: kind/existing and foreign programs)
    on any."""
    if platform is not None:
        return INSTANCE_TYPES.get((platform, name or ""))
    return next((t for t in INSTANCE_TYPES.values() if t.name == name), None)
