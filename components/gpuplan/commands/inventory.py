"""`gpuplan inventory`: the ResourceSlices a DRA driver would publish: for a stack, for one node from the
catalog, from an NVML snapshot file, or live from this machine's NVML."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Annotated

import typer

from dra_gpu_platform.dra.devices import nvidia_naming
from dra_gpu_platform.dra.inventory import nvml_inventory
from dra_gpu_platform.dra.mig import ALL_BALANCED
from dra_gpu_platform.dra.nvml import snapshot_document
from dra_gpu_platform.facts import driver_charts
from dra_gpu_platform.inputs.problems import MISSING
from dra_gpu_platform.inputs.yamlio import dump_all_yaml
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.cli import atomic_out, options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.inventory.slices import fail, from_catalog, from_nvml_file, inventory_list

SlicesOut = Annotated[Path | None, typer.Option("--out", help="Also write <DIR>/resourceslices.yaml.")]
CatalogGpu = Annotated[
    str | None, typer.Option("--gpu", help="One node from the catalog: the GPU key (H100, H200, A100-40GB, ...).")
]
GpuCount = Annotated[
    int | None, typer.Option("--count", help="GPUs on the node (default: the instance type's, else 1).")
]
InstanceType = Annotated[
    str | None, typer.Option("--instance-type", help="Catalog instance type: GPU count and pcieRoot grouping.")
]
NvmlSnapshot = Annotated[Path | None, typer.Option("--from-nvml", help="An NVML snapshot file (nvml.json format).")]
LiveNvml = Annotated[bool, typer.Option("--live", help="Read this machine's GPUs through NVML.")]
MigLayout = Annotated[
    str | None, typer.Option("--mig", help=f"Partition every GPU: a MIG profile, {ALL_BALANCED}, or PROFILE=COUNT,...")
]
NodeName = Annotated[str | None, typer.Option("--node", help="Node name (default node-0; the host name with --live).")]
DriverVersion = Annotated[str, typer.Option("--driver-version", help="NVIDIA DRA driver release whose naming to use.")]
SaveNvml = Annotated[
    Path | None, typer.Option("--save-nvml", help="With --live: also write the NVML snapshot to this file.")
]


def inventory(
    stack: options.StackName = None,
    config: options.StackFile = None,
    out: SlicesOut = None,
    format: options.Format = options.OutputFormat.text,
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
                ("--stack/--config", stack or config),
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
        if stack or config:
            from dra_gpu_platform.config.loading import load_stack_file

            _, stack_file = options.resolve_stack(stack, config)
            if mig is not None:
                fail(
                    "--mig",
                    mig,
                    "a stack's MIG layout comes from its node pools",
                    "set nodePools[].mig in the stack file",
                )
            result = plan_stack(load_stack_file(stack_file)).inventory()
        elif gpu is not None:
            result = from_catalog(gpu, count, instance_type, mig, node or "node-0", naming)
        elif from_nvml is not None:
            result = from_nvml_file(from_nvml, mig, node or "node-0", naming)
        else:
            from gpuplan.inventory.nvml_live import NvmlUnavailable, read_live

            try:
                snapshot = read_live()
            except NvmlUnavailable as error:
                fail(
                    "--live",
                    True,
                    str(error),
                    "run on a machine with an NVIDIA GPU and driver, or use --from-nvml FILE / --gpu KEY",
                )
            if save_nvml is not None:
                atomic_out.write_file(save_nvml, json.dumps(snapshot_document(snapshot), indent=2) + "\n")
            try:
                result = nvml_inventory(snapshot, node or socket.gethostname(), mig=mig, naming=naming)
            except ValueError as error:
                fail("--mig", mig, str(error), f"use a MIG profile of this GPU or {ALL_BALANCED}")
        text = dump_all_yaml(list(result.slices))

        def render_text() -> None:
            for note in result.notes:
                typer.echo(f"# note: {note}")
            typer.echo(text, nl=False)

        if out is None:
            if format == options.OutputFormat.json:
                output.emit_json(inventory_list(result))
            else:
                render_text()
            return ExitCode.OK
        failed = output.publish(out, {"resourceslices.yaml": text}, inventory_list(result), format, render_text)
        return failed or ExitCode.OK

    raise typer.Exit(run_command(format, body))
