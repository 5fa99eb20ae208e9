"""NVIDIA GPU models as the NVIDIA DRA driver publishes them, and their MIG profiles. Pure data, no I/O.

Sources (docs/references.md): NVML product names and memory (docs/references.md#nvidia-product-names,
docs/references.md#nvidia-published-memory), architecture and compute capability
(docs/references.md#gpu-architecture-facts), MIG profiles and their maximum counts from gpu-operator's mig-parted
defaults and NVIDIA's MIG user guide (docs/references.md#gpu-operator-mig-profiles), multi-node NVLink
(docs/references.md#multi-node-nvlink-gpus). "Published" memory is what the driver advertises as the `memory`
capacity: NVML's total, below the marketing number.
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.facts.node_labels import label_value
from dra_gpu_platform.facts.quantity import Quantity, parse_quantity


@dataclass(frozen=True)
class MigProfile:
    """One MIG GPU-instance profile as the driver names it in the `profile` attribute."""

    name: str  # e.g. "3g.40gb"
    max_count: int  # instances of this profile on one GPU (mig-parted defaults)
    slices: int  # compute slices (the "3" of 3g); AKS gpuInstanceProfile is MIG<slices>g
    memory_slices: int  # memory slices of 8 it holds (MIG user guide "Fraction of Memory"); its placement size
    memory: str | None  # published `memory` capacity of the MIG device; None where no NVML figure is sourced
    multiprocessors: int | None  # published `multiprocessors`; None where no NVML figure is sourced

    @property
    def nominal_gb(self) -> int:
        """The memory in the profile's name ("3g.40gb" -> 40), NVIDIA's rounding, not a published figure."""
        return int(self.name.split(".", 1)[1].split("gb", 1)[0])


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
    multi_node_nvlink: bool = False  # NVLink reaches GPUs of other nodes (GB200 NVL72): ComputeDomains apply
    # EC2's GpuInfo.Gpus[].Name where it is not the key's first word (EC2 names the chip: "A100" for A100-80GB)
    ec2_name: str | None = None

    @property
    def ec2_gpu_name(self) -> str:
        return self.ec2_name or self.key.split("-")[0]

    @property
    def memory(self) -> Quantity:
        return parse_quantity(self.published_memory)

    @property
    def supports_mig(self) -> bool:
        return bool(self.mig_profiles)

    def mig_profile(self, name: str) -> MigProfile | None:
        return next((p for p in self.mig_profiles if p.name == name), None)


def _mig(
    name: str, max_count: int, memory_slices: int, memory: str | None = None, multiprocessors: int | None = None
) -> MigProfile:
    slices = int(name.split("g.", 1)[0])
    return MigProfile(name, max_count, slices, memory_slices, memory, multiprocessors)


def _seven_slice_family(one: int, two: int, three: int, full: int) -> tuple[MigProfile, ...]:
    """The profile set every 7-slice GPU has (MIG user guide): 1g at 1/8 memory (x7, one +me), 1g at 2/8 (x4),
    2g at 2/8 (x3), 3g at 4/8 (x2), 4g at 4/8 and 7g at 8/8 (x1), named by their memory in GB. Published memory
    and SM counts unknown (no NVML dump sourced for these GPUs)."""
    return (
        _mig(f"1g.{one}gb", 7, 1),
        _mig(f"1g.{one}gb+me", 1, 1),
        _mig(f"1g.{two}gb", 4, 2),
        _mig(f"2g.{two}gb", 3, 2),
        _mig(f"3g.{three}gb", 2, 4),
        _mig(f"4g.{three}gb", 1, 4),
        _mig(f"7g.{full}gb", 1, 8),
    )


# MIG memory/SM figures: H200 from the team's NVML profile dump (memorySizeMB, multiprocessorCount); A100 and
# H100 from `nvidia-smi mig -lgip` as commonly published. Max counts from mig-parted
# (docs/references.md#gpu-operator-mig-profiles).
_MIG_A100_40GB = (
    _mig("1g.5gb", 7, 1, "4864Mi", 14),
    _mig("1g.5gb+me", 1, 1, "4864Mi", 14),
    _mig("1g.10gb", 4, 2, "9856Mi", 14),
    _mig("2g.10gb", 3, 2, "9856Mi", 28),
    _mig("3g.20gb", 2, 4, "19968Mi", 42),
    _mig("4g.20gb", 1, 4, "19968Mi", 56),
    _mig("7g.40gb", 1, 8, "40192Mi", 98),
)
_MIG_A100_80GB = (
    _mig("1g.10gb", 7, 1, "9728Mi", 14),
    _mig("1g.10gb+me", 1, 1, "9728Mi", 14),
    _mig("1g.20gb", 4, 2, "19968Mi", 14),
    _mig("2g.20gb", 3, 2, "19968Mi", 28),
    _mig("3g.40gb", 2, 4, "40192Mi", 42),
    _mig("4g.40gb", 1, 4, "40192Mi", 56),
    _mig("7g.80gb", 1, 8, "80896Mi", 98),
)
_MIG_H100_80GB = (
    _mig("1g.10gb", 7, 1, "9984Mi", 16),
    _mig("1g.10gb+me", 1, 1, "9984Mi", 16),
    _mig("1g.20gb", 4, 2, "20096Mi", 26),
    _mig("2g.20gb", 3, 2, "20096Mi", 32),
    _mig("3g.40gb", 2, 4, "40448Mi", 60),
    _mig("4g.40gb", 1, 4, "40448Mi", 64),
    _mig("7g.80gb", 1, 8, "80896Mi", 132),
)
_MIG_H200 = (
    _mig("1g.18gb", 7, 1, "16384Mi", 16),
    _mig("1g.18gb+me", 1, 1, "16384Mi", 16),
    _mig("1g.35gb", 4, 2, "33280Mi", 26),
    _mig("2g.35gb", 3, 2, "33280Mi", 32),
    _mig("3g.71gb", 2, 4, "71424Mi", 60),
    _mig("4g.71gb", 1, 4, "71424Mi", 64),
    _mig("7g.141gb", 1, 8, "143360Mi", 132),
)
_MIG_H100_NVL = _seven_slice_family(12, 24, 47, 94)
_MIG_B200 = _seven_slice_family(23, 45, 90, 180)
_MIG_GB200 = _seven_slice_family(23, 47, 93, 186)
# gpu-operator v26.7.0 assets/state-mig-manager/0400_configmap.yaml:547-588
_MIG_B300 = _seven_slice_family(34, 67, 135, 269)

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
            "H100-NVL",
            "NVIDIA H100 NVL",
            r"^NVIDIA H100 NVL$",
            "Hopper",
            "9.0.0",
            94,
            "95830Mi",
            ("0x2321",),
            _MIG_H100_NVL,
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
        GpuModel(
            "B200", "NVIDIA B200", r"^NVIDIA B200$", "Blackwell", "10.0.0", 180, "183359Mi", ("0x2901",), _MIG_B200
        ),
        GpuModel(
            "GB200",
            "NVIDIA GB200",
            r"^NVIDIA GB200$",
            "Blackwell",
            "10.0.0",
            186,
            "189471Mi",
            ("0x2941",),
            _MIG_GB200,
            multi_node_nvlink=True,
        ),
        GpuModel(
            "B300",
            "NVIDIA B300 SXM6 AC",
            r"^NVIDIA B300 SXM6 AC$",
            "Blackwell",
            "10.3.0",
            288,
            "275040Mi",
            ("0x3182",),
            _MIG_B300,
        ),
        # MIG on this GPU splits it in 4 (MIG user guide: 4 instances at most; mig-parted 1g.24gb x4 ... 4g.96gb):
        # the placement model here knows the 7-slice GPUs only, so its profiles are left out rather than mis-modelled.
        GpuModel(
            "RTX-PRO-6000",
            "NVIDIA RTX PRO 6000 Blackwell Server Edition",
            r"^NVIDIA RTX PRO 6000 Blackwell Server Edition$",
            "Blackwell",
            "12.0.0",
            96,
            "97887Mi",
            ("0x2bb5",),
            ec2_name="RTX PRO Server 6000",
        ),
        GpuModel("A10G", "NVIDIA A10G", r"^NVIDIA A10G$", "Ampere", "8.6.0", 24, "23028Mi"),
        GpuModel("A10", "NVIDIA A10", r"^NVIDIA A10$", "Ampere", "8.6.0", 24, "23028Mi"),
        GpuModel("T4", "Tesla T4", r"^Tesla T4$", "Turing", "7.5.0", 16, "15360Mi", ("0x1eb8",)),
        GpuModel("L4", "NVIDIA L4", r"^NVIDIA L4$", "Ada Lovelace", "8.9.0", 24, "23034Mi", ("0x27b8",)),
        GpuModel("L40S", "NVIDIA L40S", r"^NVIDIA L40S$", "Ada Lovelace", "8.9.0", 48, "46068Mi", ("0x26b9",)),
    )
}


def gpu_model(key: str) -> GpuModel:
    return GPU_MODELS[key]


def described_mig_profile(name: str, max_count: int, memory_slices: int, memory: str | None = None) -> MigProfile:
    """A MIG profile of a described GPU, as its owner declares it (`nvidia-smi mig -lgip` shows each figure)."""
    return _mig(name, max_count, memory_slices, memory)


def described_gpu_model(
    product: str,
    memory: str,
    compute_capability: str,
    architecture: str,
    mig_profiles: tuple[MigProfile, ...] = (),
) -> GpuModel:
    """A GPU the catalog does not list, from what its owner declares (a stack's `nodePools[].gpu` on an existing or
    kind cluster): `product` is NVML's name, as the driver publishes `productName`; `memory` what it publishes as the
    `memory` capacity. Its key is the product as a label value (dra_gpu_platform/facts/node_labels.py label_value)."""
    major, minor, *patch = compute_capability.split(".")
    return GpuModel(
        key=label_value(product),
        product_name=product,
        # config rules admit letters, digits, spaces, '.' and '-' in a product: only '.' is special in RE2
        product_name_regex="^" + product.replace(".", "\\.") + "$",
        architecture=architecture,
        compute_capability=".".join((major, minor, patch[0] if patch else "0")),
        nominal_memory_gb=round(parse_quantity(memory).value / 2**30),
        published_memory=memory,
        mig_profiles=mig_profiles,
    )


def all_mig_profile_names() -> set[str]:
    return {p.name for m in GPU_MODELS.values() for p in m.mig_profiles}
