"""`gpuplan inventory`: the ResourceSlices a DRA driver would publish: for a stack, for one node from the
catalog, from an NVML snapshot file, or live from this machine's NVML."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dra_gpu_platform.dra.devices import nvidia_naming
from dra_gpu_platform.dra.mig import ALL_BALANCED
from dra_gpu_platform.facts import driver_charts
from dra_gpu_platform.inputs.problems import MISSING
from gpuplan.commands import options
from gpuplan.commands.common import Result, publish, run
from gpuplan.engine.sources import resolve_source
from gpuplan.inventory.slices import (
    fail,
    from_catalog,
    from_live,
    from_nvml_file,
    inventory_list,
    render_text,
    slices_yaml,
)
from gpuplan.output.emit import OutputFormat

SlicesOut = Annotated[Path | None, typer.Option("--out", metavar="DIR", help="Also write <DIR>/resourceslices.yaml.")]
CatalogGpu = Annotated[
    str | None,
    typer.Option("--gpu", metavar="KEY", help="One node from the catalog: the GPU key (H100, H200, A100-40GB, ...)."),
]
GpuCount = Annotated[
    int | None, typer.Option("--count", metavar="N", help="GPUs on the node (default: the instance type's, else 1).")
]
InstanceType = Annotated[
    str | None,
    typer.Option("--instance-type", metavar="TYPE", help="Catalog instance type: GPU count and pcieRoot grouping."),
]
NvmlSnapshot = Annotated[
    Path | None, typer.Option("--from-nvml", metavar="FILE", help="An NVML snapshot file (nvml.json format).")
]
LiveNvml = Annotated[bool, typer.Option("--live", help="Read this machine's GPUs through NVML.")]
MigLayout = Annotated[
    str | None,
    typer.Option(
        "--mig", metavar="LAYOUT", help=f"Partition every GPU: a MIG profile, {ALL_BALANCED}, or PROFILE=COUNT,..."
    ),
]
NodeName = Annotated[
    str | None, typer.Option("--node", metavar="NAME", help="Node name (default node-0; the host name with --live).")
]
DriverVersion = Annotated[
    str, typer.Option("--driver-version", metavar="VERSION", help="NVIDIA DRA driver release whose naming to use.")
]
SaveNvml = Annotated[
    Path | None,
    typer.Option("--save-nvml", metavar="FILE", help="With --live: also write the NVML snapshot to this file."),
]


def inventory(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: SlicesOut = None,
    format: options.Format = OutputFormat.text,
    gpu: CatalogGpu = None,
    count: GpuCount = None,
    instance_type: InstanceType = None,
    from_nvml: NvmlSnapshot = None,
    live: LiveNvml = False,
    mig: MigLayout = None,
    node: NodeName = None,
    driver_version: DriverVersion = driver_charts.DRA_DRIVER_DEFAULT,
    save_nvml: SaveNvml = None,
) -> None:
    """Print the ResourceSlices a DRA driver would publish (YAML; --format json prints a List)."""

    def body() -> int:
        sources = [
            flag
            for flag, given in (
                ("--stack/--config/--project", stack or config or project),
                ("--gpu", gpu),
                ("--from-nvml", from_nvml),
                ("--live", live),
            )
            if given
        ]
        if len(sources) != 1:
            fail(
                "--gpu/--from-nvml/--live/--stack",
                " ".join(sources) or MISSING,
                "choose exactly one source",
                "e.g. --gpu H100 --count 8, --from-nvml nvml.json, --live, or --stack dev",
            )
        if save_nvml is not None and not live:
            fail("--save-nvml", str(save_nvml), "only a live read produces a snapshot", "add --live")
        if driver_charts.dra_driver_release(driver_version) is None:
            fail(
                "--driver-version",
                driver_version,
                "not a release of the NVIDIA DRA driver (nor a later version of one)",
                f"use one of {', '.join(driver_charts.DRA_DRIVER_RELEASES)}",
            )
        naming = nvidia_naming(driver_version)
        if stack or config or project:
            source = resolve_source(stack, config, project)
            if mig is not None:
                fail(
                    "--mig",
                    mig,
                    "a stack's MIG layout comes from its node pools",
                    "set nodePools[].mig in the stack file",
                )
            result = source.plan().inventory()
        elif gpu is not None:
            result = from_catalog(gpu, count, instance_type, mig, node or "node-0", naming)
        elif from_nvml is not None:
            result = from_nvml_file(from_nvml, mig, node or "node-0", naming)
        else:
            result = from_live(mig, node, naming, save_nvml)
        # Written only where --out is given: the slices are for a pipe (`| kubectl apply -f -`) first.
        return publish(
            Result(
                inventory_list(result),
                lambda console: render_text(result, console),
                files={"resourceslices.yaml": slices_yaml(result)},
                wrote="",
            ),
            out,
            "resourceslices.yaml",
            format,
        )

    run(format, body)
