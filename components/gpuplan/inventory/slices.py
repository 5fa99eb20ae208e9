"""The ResourceSlices `gpuplan inventory` prints: one node from the catalog, from an NVML snapshot file or from this
machine's NVML (nvml_live.py; the stack's own inventory is dra_gpu_platform/plans/stack_inventory.py), as YAML for
people and pipes and as a List with --format json."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from rich.console import Console

from dra_gpu_platform.dra.inventory import Inventory, catalog_inventory, nvml_inventory
from dra_gpu_platform.dra.mig import ALL_BALANCED
from dra_gpu_platform.dra.nvml import parse_snapshot, snapshot_document
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.yamlio import dump_all_yaml
from gpuplan.fit.inputs import read_documents
from gpuplan.output import atomic_out

CLI = "(command line)"


def inventory_list(inventory: Inventory) -> dict:
    """The slices as `kubectl get resourceslices -o json` prints them (what `gpuplan fit --inventory` reads)."""
    return {"apiVersion": "v1", "kind": "List", "items": list(inventory.slices)}


def slices_yaml(inventory: Inventory) -> str:
    """The slices as YAML documents (what `kubectl apply -f` reads): the text view and <out>/resourceslices.yaml."""
    return dump_all_yaml(list(inventory.slices))


def render_text(inventory: Inventory, console: Console) -> None:
    """The notes as YAML comments, then the slices, exactly as written (a pipe into kubectl reads them whole)."""
    stream = console.file
    for note in inventory.notes:
        stream.write(f"# note: {note}\n")
    stream.write(slices_yaml(inventory))
    stream.flush()


def fail(path: str, value, rule: str, fix: str, file: str = CLI):
    raise InputError([Problem(file, path, value, rule, fix)], "the inventory options")


def from_catalog(
    gpu: str, count: int | None, instance: str | None, mig: str | None, node: str, naming: str
) -> Inventory:
    if gpu not in catalog.GPU_MODELS:
        fail("--gpu", gpu, "not a GPU of the catalog", f"use one of {', '.join(catalog.GPU_MODELS)}")
    per_root = 1
    if instance is not None:
        shape = catalog.instance_type_named(instance)
        if shape is None or shape.gpu != gpu:
            choices = ", ".join(t.name for t in catalog.INSTANCE_TYPES.values() if t.gpu == gpu)
            fail(
                "--instance-type",
                instance,
                f"not a catalog instance type with {gpu}",
                f"use one of {choices or '(none)'}",
            )
        per_root = shape.gpus_per_pcie_root
        count = count if count is not None else shape.gpus
    if count is None:
        count = 1
    if not 1 <= count <= 64:
        fail("--count", count, "GPUs per node must be 1..64", "e.g. --count 8")
    try:
        return catalog_inventory(gpu, count, node, mig=mig, per_root=per_root, naming=naming)
    except ValueError as error:
        fail("--mig", mig, str(error), f"use a profile of {gpu}, {ALL_BALANCED}, or PROFILE=COUNT,...")


def from_nvml_file(file: Path, mig: str | None, node: str, naming: str) -> Inventory:
    documents, problems = read_documents(file)
    if problems:
        raise InputError(problems, str(file))
    if len(documents) != 1:
        fail(
            "",
            len(documents),
            "an NVML snapshot is one JSON document",
            "pass a file in the nvml.json format",
            str(file),
        )
    snapshot = parse_snapshot(documents[0], str(file))
    try:
        return nvml_inventory(snapshot, node, mig=mig, naming=naming)
    except ValueError as error:
        fail("--mig", mig, str(error), f"use a MIG profile of this GPU or {ALL_BALANCED}")


def from_live(mig: str | None, node: str | None, naming: str, save_nvml: Path | None) -> Inventory:
    """This machine's GPUs through NVML (the snapshot also written to `save_nvml`)."""
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
        return nvml_inventory(snapshot, node or socket.gethostname(), mig=mig, naming=naming)
    except ValueError as error:
        fail("--mig", mig, str(error), f"use a MIG profile of this GPU or {ALL_BALANCED}")
