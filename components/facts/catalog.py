"""GPU models and GPU instance types, as data. Pure: no Pulumi imports, no I/O.

Sources (docs/references.md): architecture, compute capability and memory (docs/references.md#gpu-architecture-facts),
MIG profiles from gpu-operator's mig-parted defaults (docs/references.md#gpu-operator-mig-profiles), EC2 instance
types (docs/references.md#ec2-gpu-instance-types) and Azure VM sizes (docs/references.md#azure-gpu-vm-sizes).
"Published" memory is what the NVIDIA DRA driver advertises as the `memory` capacity (NVML's total, below the
marketing number; docs/references.md#nvidia-published-memory); tests/facts/test_catalog.py checks the H200 entry
against a real H200's NVML snapshot when the team's shared fixtures sit beside the checkout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dra_gpu_platform.facts.quantity import Quantity, parse_quantity

NVIDIA_DRIVER = "gpu.nvidia.com"
EXAMPLE_DRIVER = "gpu.example.com"
STANDARD_DOMAIN = "resource.kubernetes.io"


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile as the driver names it in the `profile` attribute."""

    name: str  # e.g. "3g.40gb"
    max_count: int  # instances of this profile on one GPU (mig-parted defaults)
    slices: int  # compute slices (the "3" of 3g); AKS gpuInstanceProfile is MIG<slices>g
    memory: str  # published `memory` capacity of the MIG device
    multiprocessors: int


@dataclass(frozen=True)
class GpuModel:
    key: str  # the stack-file name: H100, A100-80GB, ...
    product_name: str  # NVML name as the driver publishes `productName`
    product_name_regex: str  # RE2 pattern matching every form factor of this catalog entry
    architecture: str  # `architecture` attribute (go-nvlib GetArchitectureAsString)
    compute_capability: str  # `cudaComputeCapability` attribute (semver)
    nominal_memory_gb: int  # marketing number
    published_memory: str  # `memory` capacity as NVML reports it
    pci_device_ids: tuple[str, ...] = ()
    mig_profiles: tuple[MigProfile, ...] = ()

    @property
    def memory(self) -> Quantity:
        return parse_quantity(self.published_memory)

    @property
    def supports_mig(self) -> bool:
        return bool(self.mig_profiles)

    def mig_profile(self, name: str) -> MigProfile | None:
        return next((p for p in self.mig_profiles if p.name == name), None)


def _mig(name: str, max_count: int, memory: str, multiprocessors: int) -> MigProfile:
    slices = int(name.split("g.", 1)[0])
    return MigProfile(name, max_count, slices, memory, multiprocessors)


# MIG memory/SM figures: H200 from the fixture's NVML profile dump (memorySizeMB, multiprocessorCount);
# the others from `nvidia-smi mig -lgip` as commonly published. Max counts from mig-parted
# (docs/references.md#gpu-operator-mig-profiles).
_MIG_A100_40GB = (
    _mig("1g.5gb", 7, "4864Mi", 14),
    _mig("1g.5gb+me", 1, "4864Mi", 14),
    _mig("1g.10gb", 4, "9856Mi", 14),
    _mig("2g.10gb", 3, "9856Mi", 28),
    _mig("3g.20gb", 2, "19968Mi", 42),
    _mig("4g.20gb", 1, "19968Mi", 56),
    _mig("7g.40gb", 1, "40192Mi", 98),
)
_MIG_A100_80GB = (
    _mig("1g.10gb", 7, "9728Mi", 14),
    _mig("1g.10gb+me", 1, "9728Mi", 14),
    _mig("1g.20gb", 4, "19968Mi", 14),
    _mig("2g.20gb", 3, "19968Mi", 28),
    _mig("3g.40gb", 2, "40192Mi", 42),
    _mig("4g.40gb", 1, "40192Mi", 56),
    _mig("7g.80gb", 1, "80896Mi", 98),
)
_MIG_H100_80GB = (
    _mig("1g.10gb", 7, "9984Mi", 16),
    _mig("1g.10gb+me", 1, "9984Mi", 16),
    _mig("1g.20gb", 4, "20096Mi", 26),
    _mig("2g.20gb", 3, "20096Mi", 32),
    _mig("3g.40gb", 2, "40448Mi", 60),
    _mig("4g.40gb", 1, "40448Mi", 64),
    _mig("7g.80gb", 1, "80896Mi", 132),
)
_MIG_H200 = (
    _mig("1g.18gb", 7, "16384Mi", 16),
    _mig("1g.18gb+me", 1, "16384Mi", 16),
    _mig("1g.35gb", 4, "33280Mi", 26),
    _mig("2g.35gb", 3, "33280Mi", 32),
    _mig("3g.71gb", 2, "71424Mi", 60),
    _mig("4g.71gb", 1, "71424Mi", 64),
    _mig("7g.141gb", 1, "143360Mi", 132),
)

GPU_MODELS: dict[str, GpuModel] = {
    m.key: m
    for m in (
        GpuModel(
            "H100",
            "NVIDIA H100 80GB HBM3",
            r"^NVIDIA H100( 80GB HBM3| PCIe)$",
            "Hopper",
            "9.0.0",
            80,
            "81559Mi",
            ("0x2330", "0x2331"),
            _MIG_H100_80GB,
        ),
        GpuModel(
            "H200",
            "NVIDIA H200",
            r"^NVIDIA H200$",
            "Hopper",
            "9.0.0",
            141,
            "143771Mi",
            ("0x2335",),
            _MIG_H200,
        ),
        GpuModel(
            "A100-40GB",
            "NVIDIA A100-SXM4-40GB",
            r"^NVIDIA A100-(SXM4|PCIE)-40GB$",
            "Ampere",
            "8.0.0",
            40,
            "40Gi",
            ("0x20b0", "0x20f1"),
            _MIG_A100_40GB,
        ),
        GpuModel(
            "A100-80GB",
            "NVIDIA A100-SXM4-80GB",
            r"^NVIDIA A100(-SXM4-80GB| 80GB PCIe)$",
            "Ampere",
            "8.0.0",
            80,
            "80Gi",
            ("0x20b2", "0x20b5"),
            _MIG_A100_80GB,
        ),
        GpuModel("T4", "Tesla T4", r"^Tesla T4$", "Turing", "7.5.0", 16, "15360Mi", ("0x1eb8",)),
        GpuModel("L4", "NVIDIA L4", r"^NVIDIA L4$", "Ada Lovelace", "8.9.0", 24, "23034Mi", ("0x27b8",)),
        GpuModel("L40S", "NVIDIA L40S", r"^NVIDIA L40S$", "Ada Lovelace", "8.9.0", 48, "46068Mi", ("0x26b9",)),
    )
}


@dataclass(frozen=True)
class InstanceType:
    """A GPU machine shape on one platform (EC2 instance type or Azure VM size)."""

    name: str
    platform: Literal["eks", "aks"]
    gpu: str  # GpuModel key
    gpus: int
    vcpus: int
    gpu_memory_gb: int  # total nominal GPU memory
    efa_interfaces: int = 0  # EFA network cards (one EFA interface per card)
    gpus_per_pcie_root: int = 1  # modelled pcieRoot grouping (see note below)
    default: bool = False  # the size chosen when a pool names only its GPU
    quota_family: str = ""  # vCPU quota bucket: "P" / "G" on EC2, the Compute usage-API family name on Azure
    nvme_disks: int = 0  # NVMe instance-store disks (EC2 DescribeInstanceTypes InstanceStorageInfo)

    @property
    def family(self) -> str:
        return self.name.split(".", 1)[0] if self.platform == "eks" else self.name


# pcieRoot grouping: on 8-GPU HGX baseboards two GPUs share a PCIe switch under one root port
# (DGX/HGX system guides); single- and 4-GPU G instances are modelled one GPU per root. The DRA driver
# publishes the real value; `gpuplan inventory --live` or a ResourceSlice dump shows it.
_HGX = 2


def _eks(name, gpu, gpus, vcpus, mem, efa=0, per_root=1, default=False, nvme=0):
    family = "P" if name.startswith("p") else "G"
    return InstanceType(name, "eks", gpu, gpus, vcpus, mem, efa, per_root, default, family, nvme)


def _aks(name, gpu, gpus, vcpus, mem, family, per_root=1, default=False):
    return InstanceType(name, "aks", gpu, gpus, vcpus, mem, 0, per_root, default, family)


INSTANCE_TYPES: dict[tuple[str, str], InstanceType] = {
    (t.platform, t.name): t
    for t in (
        # EC2 (docs/references.md#ec2-gpu-instance-types, docs/references.md#eks-efa)
        _eks("p5.48xlarge", "H100", 8, 192, 640, efa=32, per_root=_HGX, default=True, nvme=8),
        _eks("p5.4xlarge", "H100", 1, 16, 80, nvme=1),
        _eks("p5e.48xlarge", "H200", 8, 192, 1128, efa=32, per_root=_HGX, default=True, nvme=8),
        _eks("p5en.48xlarge", "H200", 8, 192, 1128, efa=16, per_root=_HGX, nvme=8),
        _eks("p4d.24xlarge", "A100-40GB", 8, 96, 320, efa=4, per_root=_HGX, default=True, nvme=8),
        _eks("p4de.24xlarge", "A100-80GB", 8, 96, 640, efa=4, per_root=_HGX, default=True, nvme=8),
        _eks("g4dn.xlarge", "T4", 1, 4, 16, default=True, nvme=1),
        _eks("g4dn.2xlarge", "T4", 1, 8, 16, nvme=1),
        _eks("g4dn.4xlarge", "T4", 1, 16, 16, nvme=1),
        _eks("g4dn.8xlarge", "T4", 1, 32, 16, nvme=1),
        _eks("g4dn.16xlarge", "T4", 1, 64, 16, nvme=1),
        _eks("g4dn.12xlarge", "T4", 4, 48, 64, nvme=1),
        _eks("g4dn.metal", "T4", 8, 96, 128, nvme=2),
        _eks("g6.xlarge", "L4", 1, 4, 24, default=True, nvme=1),
        _eks("g6.2xlarge", "L4", 1, 8, 24, nvme=1),
        _eks("g6.4xlarge", "L4", 1, 16, 24, nvme=1),
        _eks("g6.8xlarge", "L4", 1, 32, 24, nvme=2),
        _eks("g6.12xlarge", "L4", 4, 48, 96, nvme=4),
        _eks("g6.16xlarge", "L4", 1, 64, 24, nvme=2),
        _eks("g6.24xlarge", "L4", 4, 96, 96, nvme=4),
        _eks("g6.48xlarge", "L4", 8, 192, 192, nvme=8),
        _eks("g6e.xlarge", "L40S", 1, 4, 48, default=True, nvme=1),
        _eks("g6e.2xlarge", "L40S", 1, 8, 48, nvme=1),
        _eks("g6e.4xlarge", "L40S", 1, 16, 48, nvme=1),
        _eks("g6e.8xlarge", "L40S", 1, 32, 48, nvme=2),
        _eks("g6e.12xlarge", "L40S", 4, 48, 192, nvme=2),
        _eks("g6e.16xlarge", "L40S", 1, 64, 48, nvme=2),
        _eks("g6e.24xlarge", "L40S", 4, 96, 192, nvme=2),
        _eks("g6e.48xlarge", "L40S", 8, 192, 384, efa=4, nvme=4),
        # Azure (docs/references.md#azure-gpu-vm-sizes); no Azure size carries L4 or L40S in the catalog
        _aks("Standard_ND96isr_H100_v5", "H100", 8, 96, 640, "standardNDSH100v5Family", _HGX, default=True),
        _aks("Standard_ND96isr_H200_v5", "H200", 8, 96, 1128, "standardNDISRH200V5Family", _HGX, default=True),
        _aks("Standard_ND96asr_v4", "A100-40GB", 8, 96, 320, "standardNDASv4_A100Family", _HGX, default=True),
        _aks("Standard_ND96amsr_A100_v4", "A100-80GB", 8, 96, 640, "standardNDAMSv4_A100Family", _HGX),
        _aks("Standard_NC24ads_A100_v4", "A100-80GB", 1, 24, 80, "StandardNCADSA100v4Family", default=True),
        _aks("Standard_NC48ads_A100_v4", "A100-80GB", 2, 48, 160, "StandardNCADSA100v4Family"),
        _aks("Standard_NC96ads_A100_v4", "A100-80GB", 4, 96, 320, "StandardNCADSA100v4Family"),
        _aks("Standard_NC4as_T4_v3", "T4", 1, 4, 16, "standardNCASv3_T4Family", default=True),
        _aks("Standard_NC8as_T4_v3", "T4", 1, 8, 16, "standardNCASv3_T4Family"),
        _aks("Standard_NC16as_T4_v3", "T4", 1, 16, 16, "standardNCASv3_T4Family"),
        _aks("Standard_NC64as_T4_v3", "T4", 4, 64, 64, "standardNCASv3_T4Family"),
    )
}

# EC2 types that get EFA interfaces and a cluster placement group (issue: p4d/p4de/p5/p5e/p5en).
EFA_FAMILIES = ("p4d", "p4de", "p5", "p5e", "p5en")


def gpu_model(key: str) -> GpuModel:
    return GPU_MODELS[key]


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


def pool_shape(platform: str, gpu: str, instance_type: str | None) -> InstanceType | None:
    """A pool's machine shape: its own instance type / VM size, else the catalog default for its GPU."""
    return instance_type_named(instance_type, platform) if instance_type else default_instance_type(platform, gpu)


def instance_type_named(name: str | None, platform: str | None = None) -> InstanceType | None:
    """Look a shape up by name, on one platform or (for kind/existing and foreign programs) on any."""
    if platform in ("eks", "aks"):
        return INSTANCE_TYPES.get((platform, name or ""))
    return next((t for t in INSTANCE_TYPES.values() if t.name == name), None)


def all_mig_profile_names() -> set[str]:
    return {p.name for m in GPU_MODELS.values() for p in m.mig_profiles}


@dataclass(frozen=True)
class ExampleDriverDevice:
    """What kubernetes-sigs/dra-example-driver publishes per fake GPU (docs/references.md#example-driver-devices)."""

    count_per_node: int = 8
    model: str = "LATEST-GPU-MODEL"
    driver_version: str = "1.0.0"
    memory: str = "80Gi"
    attributes: tuple[str, ...] = field(default=("index", "uuid", "model", "driverVersion"))


EXAMPLE_DEVICE = ExampleDriverDevice()
