"""The generated parts of docs/configuration.md: the config reference (from the pydantic models) and the
per-GPU defaults (from the catalog). Each sits between a BEGIN and an END marker; the docs tests compare
what is there with what this module generates, and rewrite it with UPDATE_GOLDEN=1."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from dra_gpu_platform.config.reference import config_reference
from dra_gpu_platform.facts import aks, autoscaler, catalog, karpenter, kubernetes, prices, provisioners
from dra_gpu_platform.facts.platforms import offering


@dataclass(frozen=True)
class GeneratedBlock:
    name: str
    generate: Callable[[], str]

    @property
    def begin(self) -> str:
        return f"<!-- BEGIN GENERATED {self.name}"

    @property
    def end(self) -> str:
        return f"<!-- END GENERATED {self.name} -->"

    def span(self, text: str) -> tuple[int, int]:
        """Start and end offsets of the generated text (after the BEGIN comment, before END)."""
        start = text.index(self.begin)
        start = text.index("-->", start) + len("-->\n")
        return start, text.index(self.end)

    def current(self, text: str) -> str:
        start, end = self.span(text)
        return text[start:end]

    def rewrite(self, text: str) -> str:
        start, end = self.span(text)
        return text[:start] + self.generate() + text[end:]


def _shape(t: catalog.InstanceType | None) -> str:
    return f"`{t.name}` ({t.gpus} × {t.gpu}, {t.vcpus} vCPUs)" if t else "–"


def gpu_defaults() -> str:
    """One row per GPU of the catalog: what a pool that names only `gpu` gets on each cloud."""
    lines = [
        "| `gpu` | NVML `productName` | architecture, compute capability | published `memory` (nominal) "
        "| EKS default instance type | AKS default VM size | MIG profiles (max per GPU) | multi-node NVLink |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for key, model in catalog.GPU_MODELS.items():
        mig = ", ".join(f"`{p.name}` ×{p.max_count}" for p in model.mig_profiles) or "no MIG"
        lines.append(
            f"| `{key}` | {model.product_name} | {model.architecture}, {model.compute_capability} "
            f"| `{model.published_memory}` ({model.nominal_memory_gb} GB) "
            f"| {_shape(catalog.default_instance_type('eks', key))} | {_shape(catalog.default_instance_type('aks', key))} | {mig} "
            f"| {'yes (ComputeDomains)' if model.multi_node_nvlink else 'no'} |"
        )
    return "\n".join(lines) + "\n"


def instance_types() -> str:
    """Every instance type and VM size of the catalog, in the catalog's order."""
    lines = [
        "| platform | instance type / VM size | GPUs per node | vCPUs | memory | EFA interfaces (attached / max) "
        "| InfiniBand NICs | NVMe disks | CPU | vCPU quota family | default for its GPU | recorded on-demand price |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for t in catalog.INSTANCE_TYPES.values():
        efa = (
            "–"
            if t.platform == "aks"
            else f"{t.efa_interfaces} / {'?' if t.max_efa_interfaces is None else t.max_efa_interfaces}"
        )
        lines.append(
            f"| {t.platform} | `{t.name}` | {t.gpus} × {t.gpu} | {t.vcpus} | {t.memory_gib} GiB | {efa} "
            f"| {t.infiniband_nics or '–'} | {t.nvme_disks or '–'} | {t.cpu_architecture} "
            f"| {t.quota_family} | {'yes' if t.default else ''}{' (Capacity Blocks only)' if t.capacity_blocks_only else ''} "
            f"| {_prices(t)} |"
        )
    return "\n".join(lines) + "\n"


def _prices(t: catalog.InstanceType) -> str:
    """The on-demand prices dra_gpu_platform/facts/prices.py records for a type, per region with their date."""
    recorded = [p for p in prices.PRICES if (p.platform, p.instance_type) == (t.platform, t.name)]
    return ", ".join(f"{p.region} ${p.usd_per_hour:g}/h ({p.as_of})" for p in recorded) or "unknown"


def mig_profiles() -> str:
    """The MIG devices each profile gives, as the NVIDIA DRA driver publishes them."""
    lines = [
        "| `gpu` | profile | max per GPU | published `memory` | multiprocessors | AKS `gpuInstanceProfile` |",
        "|---|---|---|---|---|---|",
    ]
    for key, model in catalog.GPU_MODELS.items():
        for p in model.mig_profiles:
            on_aks = aks.gpu_instance_profile(key, p.name)
            lines.append(
                f"| `{key}` | `{p.name}` | {p.max_count} | {f'`{p.memory}`' if p.memory else 'not sourced'} "
                f"| {p.multiprocessors if p.multiprocessors is not None else 'not sourced'} "
                f"| {f'`{on_aks}`' if on_aks else 'not on AKS'} |"
            )
    return "\n".join(lines) + "\n"


def _config_reference() -> str:
    # one level below the page's "## Reference"
    return (
        "\n".join("### " + line[5:] if line.startswith("#### ") else line for line in config_reference().split("\n"))
        + "\n"
    )


CONFIGURATION_BLOCKS = (
    GeneratedBlock("gpu-defaults", gpu_defaults),
    GeneratedBlock("instance-types", instance_types),
    GeneratedBlock("mig-profiles", mig_profiles),
    GeneratedBlock("config-reference", _config_reference),
)


def provisioner_support() -> str:
    """What each provisioner does for a pending GPU pod, per Kubernetes minor (claims on a dra pool) and for
    nvidia.com/gpu (dra_gpu_platform/facts/provisioners.py, the one source the config rules read too)."""
    words = {
        "from-zero": "from zero",
        "from-one-node": "from one running node",
        "never": "never",
        "never-initializes": "launches; never initializes",
        "unverified": "refused (undocumented)",
    }
    rows = [
        (provisioners.CLUSTER_AUTOSCALER, None),
        *((provisioners.KARPENTER, version) for version in karpenter.RELEASES),
        (provisioners.AUTO_MODE, None),
        (provisioners.NODE_AUTO_PROVISIONING, None),
    ]
    minors = list(kubernetes.MINORS)
    lines = [
        "| provisioner | runs on | "
        + " | ".join(f"claims on a `dra` pool, {m}" for m in minors)
        + " | `nvidia.com/gpu` on a `device-plugin` pool | `nvidia.com/gpu` on a `dra` pool (bridge) |",
        "|---|---|" + "---|" * len(minors) + "---|---|",
    ]
    for name, version in rows:
        label = f"`{name}` {version}" if version else f"`{name}`"
        cells = [
            "unsupported (needs 1.15)"
            if version and not karpenter.supports_kubernetes(version, m)
            else words[provisioners.claims_growth(name, kubernetes.minor_number(m), version).verdict]
            + (
                " (AKS; no EKS image yet)"
                if name == provisioners.CLUSTER_AUTOSCALER and m in autoscaler.NO_IMAGE_YET
                else ""
            )
            for m in minors
        ]
        lines.append(
            f"| {label} | {', '.join(offering(name))} | "
            + " | ".join(cells)
            + f" | {words[provisioners.gpu_resource_growth(name).verdict]} | {words[provisioners.bridge_growth(name).verdict]} |"
        )
    return "\n".join(lines) + "\n"


CLOUDS_BLOCKS = (GeneratedBlock("provisioner-support", provisioner_support),)


def regenerate(path: Path, blocks: tuple[GeneratedBlock, ...] = CONFIGURATION_BLOCKS) -> None:
    text = path.read_text(encoding="utf-8")
    for block in blocks:
        text = block.rewrite(text)
    path.write_text(text, encoding="utf-8")
