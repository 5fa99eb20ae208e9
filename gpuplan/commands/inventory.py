"""`gpuplan inventory`: the ResourceSlices a DRA driver would publish: for a stack, for one node from the
catalog, from an NVML snapshot file, or live from this machine's NVML."""

from __future__ import annotations

import json
import socket
from pathlib import Path
from typing import Optional

import typer

from components.facts import catalog, driver_charts
from components.dra.slices import ALL_BALANCED, Inventory, catalog_inventory, nvidia_naming, nvml_inventory
from components.plans.stack_inventory import stack_inventory
from components.dra.nvml import parse_snapshot, snapshot_document
from components.config.problems import MISSING, InputError, Problem
from components.config.yamlio import dump_all_yaml
from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command

CLI = "(command line)"


def inventory_list(inventory: Inventory) -> dict:
    """The slices as `kubectl get resourceslices -o json` prints them (what `gpuplan fit --inventory` reads)."""
    return {"apiVersion": "v1", "kind": "List", "items": list(inventory.slices)}


def _fail(path: str, value, rule: str, fix: str, file: str = CLI):
    raise InputError([Problem(file, path, value, rule, fix)], "the inventory options")


def _catalog(gpu: str, count: Optional[int], instance: Optional[str], mig: Optional[str], node: str, naming: str) -> Inventory:
    if gpu not in catalog.GPU_MODELS:
        _fail("--gpu", gpu, "not a GPU of the catalog", f"use one of {', '.join(catalog.GPU_MODELS)}")
    per_root = 1
    if instance is not None:
        shape = catalog.instance_type_named(instance)
        if shape is None or shape.gpu != gpu:
            options = ", ".join(t.name for t in catalog.INSTANCE_TYPES.values() if t.gpu == gpu)
            _fail("--instance-type", instance, f"not a catalog instance type with {gpu}", f"use one of {options or '(none)'}")
        per_root = shape.gpus_per_pcie_root
        count = count if count is not None else shape.gpus
    if count is None:
        count = 1
    if not 1 <= count <= 64:
        _fail("--count", count, "GPUs per node must be 1..64", "e.g. --count 8")
    try:
        return catalog_inventory(gpu, count, node, mig=mig, per_root=per_root, naming=naming)
    except ValueError as error:
        _fail("--mig", mig, str(error), f"use a profile of {gpu}, {ALL_BALANCED}, or PROFILE=COUNT,...")


def _from_nvml(file: Path, mig: Optional[str], node: str, naming: str) -> Inventory:
    from gpuplan.fit.inputs import read_documents

    documents, problems = read_documents(file)
    if problems:
        raise InputError(problems, str(file))
    if len(documents) != 1:
        _fail("", len(documents), "an NVML snapshot is one JSON document", "pass a file in the nvml.json format", str(file))
    snapshot = parse_snapshot(documents[0], str(file))
    try:
        return nvml_inventory(snapshot, node, mig=mig, naming=naming)
    except ValueError as error:
        _fail("--mig", mig, str(error), f"use a MIG profile of this GPU or {ALL_BALANCED}")


def register(app: typer.Typer) -> None:
    @app.command()
    def inventory(
        stack: Optional[str] = options.StackOption,
        config: Optional[Path] = options.ConfigOption,
        out: Optional[Path] = typer.Option(None, "--out", help="Also write <DIR>/resourceslices.yaml."),
        format: options.OutputFormat = options.FormatOption,
        gpu: Optional[str] = typer.Option(None, "--gpu", help="One node from the catalog: the GPU key (H100, H200, A100-40GB, ...)."),
        count: Optional[int] = typer.Option(None, "--count", help="GPUs on the node (default: the instance type's, else 1)."),
        instance_type: Optional[str] = typer.Option(None, "--instance-type", help="Catalog instance type: GPU count and pcieRoot grouping."),
        from_nvml: Optional[Path] = typer.Option(None, "--from-nvml", help="An NVML snapshot file (nvml.json format)."),
        live: bool = typer.Option(False, "--live", help="Read this machine's GPUs through NVML."),
        mig: Optional[str] = typer.Option(None, "--mig", help=f"Partition every GPU: a MIG profile, {ALL_BALANCED}, or PROFILE=COUNT,..."),
        node: Optional[str] = typer.Option(None, "--node", help="Node name (default node-0; the host name with --live)."),
        driver_version: str = typer.Option(driver_charts.DRA_DRIVER_DEFAULT, "--driver-version", help="NVIDIA DRA driver release whose naming to use."),
        save_nvml: Optional[Path] = typer.Option(None, "--save-nvml", help="With --live: also write the NVML snapshot to this file."),
    ) -> None:
        """Print the ResourceSlices a DRA driver would publish (YAML; --format json prints a List)."""

        def body() -> int:
            sources = [flag for flag, given in (("--stack/--config", stack or config), ("--gpu", gpu), ("--from-nvml", from_nvml),
                                               ("--live", live)) if given]
            if len(sources) != 1:
                _fail("--gpu/--from-nvml/--live/--stack", " ".join(sources) or MISSING, "choose exactly one source",
                      "e.g. --gpu H100 --count 8, --from-nvml nvml.json, --live, or --stack dev")
            if save_nvml is not None and not live:
                _fail("--save-nvml", str(save_nvml), "only a live read produces a snapshot", "add --live")
            naming = nvidia_naming(driver_version)
            if stack or config:
                from components.config.loading import load_stack_file

                _, stack_file = options.resolve_stack(stack, config)
                if mig is not None:
                    _fail("--mig", mig, "a stack's MIG layout comes from its node pools", "set nodePools[].mig in the stack file")
                result = stack_inventory(load_stack_file(stack_file))
            elif gpu is not None:
                result = _catalog(gpu, count, instance_type, mig, node or "node-0", naming)
            elif from_nvml is not None:
                result = _from_nvml(from_nvml, mig, node or "node-0", naming)
            else:
                from gpuplan.inventory.nvml_live import NvmlUnavailable, read_live

                try:
                    snapshot = read_live()
                except NvmlUnavailable as error:
                    _fail("--live", True, str(error), "run on a machine with an NVIDIA GPU and driver, or use --from-nvml FILE / --gpu KEY")
                if save_nvml is not None:
                    save_nvml.write_text(json.dumps(snapshot_document(snapshot), indent=2) + "\n", encoding="utf-8")
                try:
                    result = nvml_inventory(snapshot, node or socket.gethostname(), mig=mig, naming=naming)
                except ValueError as error:
                    _fail("--mig", mig, str(error), f"use a MIG profile of this GPU or {ALL_BALANCED}")
            text = dump_all_yaml(list(result.slices))
            if out is not None:
                out.mkdir(parents=True, exist_ok=True)
                (out / "resourceslices.yaml").write_text(text, encoding="utf-8")
            if format == options.OutputFormat.json:
                output.emit_json(inventory_list(result))
            else:
                for note in result.notes:
                    typer.echo(f"# note: {note}")
                typer.echo(text, nl=False)
            return ExitCode.OK

        raise typer.Exit(run_command(format, body))
