"""MIG layouts: the MIG profiles a GPU publishes (from the catalog or an NVML snapshot) and where a layout places
them on one GPU's memory slices, as mig-parted and the NVIDIA DRA driver do. Pure: no Pulumi imports, no I/O.

Sources: docs/references.md#nvidia-dra-mig-devices, docs/references.md#gpu-operator-mig-profiles.
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.dra.nvml import GpuInfo
from dra_gpu_platform.facts.catalog import GpuModel
from dra_gpu_platform.facts.quantity import parse_quantity

MEMORY_SLICES = 8

# NVML GPU-instance profile IDs (`nvidia-smi mig -lgip`, fixture mig-lgip.txt) by (GPU slices, memory
# slices, media extensions): the same IDs on A100, H100 and H200.
_PROFILE_IDS = {
    (1, 1, False): 19,
    (1, 1, True): 20,
    (1, 2, False): 15,
    (2, 2, False): 14,
    (3, 4, False): 9,
    (4, 4, False): 5,
    (7, 8, False): 0,
}
ALL_BALANCED = (
    "all-balanced"  # mig-parted: 2x 1g + 1x 2g + 1x 3g of one family (docs/references.md#gpu-operator-mig-profiles)
)


@dataclass(frozen=True)
class MigShape:
    profile: str  # e.g. 3g.40gb, 1g.18gb+me
    profile_id: int
    slices: int
    memory_slices: int  # placement size
    max_count: int
    capacity: tuple[tuple[str, int], ...]  # published capacities besides memorySlice<N>

    def starts(self) -> list[int]:
        # Placements are aligned to their size; max_count of them fit (1g: 0..6, 2g: 0,2,4, 3g: 0,4, ...).
        return [i * self.memory_slices for i in range(self.max_count)]


def catalog_mig_shapes(model: GpuModel) -> list[MigShape]:
    """The catalog's MIG profiles as the driver would publish them. A capacity the catalog has no NVML figure for
    (memory, multiprocessors of the newer GPUs) is left out rather than guessed."""
    shapes = []
    for profile in model.mig_profiles:
        me = profile.name.endswith("+me")
        profile_id = _PROFILE_IDS.get((profile.slices, profile.memory_slices, me), -1)
        capacity = []
        if profile.memory is not None:
            capacity.append(("memory", parse_quantity(profile.memory).as_integer()))
        if profile.multiprocessors is not None:
            capacity.append(("multiprocessors", profile.multiprocessors))
        shapes.append(
            MigShape(
                profile.name, profile_id, profile.slices, profile.memory_slices, profile.max_count, tuple(capacity)
            )
        )
    return shapes


def snapshot_mig_shapes(gpu: GpuInfo) -> list[MigShape]:
    total = gpu.memory_total_bytes
    return [
        MigShape(
            p.name(total),
            p.profile_id,
            p.slice_count,
            p.memory_slices(total),
            p.instance_count,
            (
                ("copyEngines", p.copy_engines),
                ("decoders", p.decoders),
                ("encoders", p.encoders),
                ("jpegEngines", p.jpeg_engines),
                ("memory", p.memory_mb * 1024 * 1024),
                ("multiprocessors", p.multiprocessors),
                ("ofaEngines", p.ofa_engines),
            ),
        )
        for p in gpu.mig_profiles
    ]


def mig_layout(shapes: list[MigShape], spec: str) -> list[tuple[MigShape, int]]:
    """(shape, placement start) of every MIG device on one GPU for a layout: a profile name (as many as fit,
    like mig-parted's all-<profile>), all-balanced, or "1g.5gb=2,2g.10gb=1"; raises ValueError."""
    by_name = {s.profile: s for s in shapes}
    wanted: list[MigShape] = []
    if spec == ALL_BALANCED:
        for slices, count in ((1, 2), (2, 1), (3, 1)):
            candidates = [
                s
                for s in shapes
                if s.slices == slices and s.memory_slices == slices + (slices == 3) and not s.profile.endswith("+me")
            ]
            if not candidates:
                raise ValueError(
                    f"{ALL_BALANCED} needs a {slices}g profile; this GPU has {', '.join(by_name) or 'none'}"
                )
            wanted += [candidates[0]] * count
    elif "=" in spec or "," in spec:
        for part in spec.split(","):
            name, _, number = part.partition("=")
            if name.strip() not in by_name or not number.strip().isdigit():
                raise ValueError(f"{part!r}: expected PROFILE=COUNT with a profile of this GPU ({', '.join(by_name)})")
            wanted += [by_name[name.strip()]] * int(number)
    elif spec in by_name:
        wanted = [by_name[spec]] * by_name[spec].max_count
    else:
        raise ValueError(
            f"{spec!r} is not a MIG profile of this GPU; use one of {', '.join(by_name) or '(none)'} or {ALL_BALANCED}"
        )
    placed = _place(sorted(wanted, key=lambda s: -s.memory_slices), [], 0)
    if placed is None:
        raise ValueError(f"MIG layout {spec!r} does not fit on one GPU ({MEMORY_SLICES} memory slices)")
    return sorted(placed, key=lambda item: (item[1], item[0].profile))


def _place(wanted: list[MigShape], placed: list[tuple[MigShape, int]], used: int) -> list[tuple[MigShape, int]] | None:
    if not wanted:
        return placed
    shape, rest = wanted[0], wanted[1:]
    for start in shape.starts():
        mask = ((1 << shape.memory_slices) - 1) << start
        if start + shape.memory_slices <= MEMORY_SLICES and not used & mask:
            result = _place(rest, [*placed, (shape, start)], used | mask)
            if result is not None:
                return result
    return None
