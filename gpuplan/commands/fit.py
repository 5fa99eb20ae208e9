"""`gpuplan fit`: will every claim schedule? The stack's own claim templates (and --claims manifests) against
the stack's simulated DRA inventory (or a cluster dump), with the scheduler's allocation rules."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from components.dra.allocator import Simulator
from components.dra.quota import quota_limit
from components.config.models import StackConfig
from components.dra.slices import Inventory, chart_device_classes, dump_inventory
from components.plans.stack_inventory import stack_inventory
from components.config.problems import InputError
from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.fit.inputs import ADMIN_ACCESS_LABEL, ClaimEntry, FitInputs, add_claim_files, add_stack_objects, read_documents

STACK_KINDS = ("DeviceClass", "ResourceClaimTemplate", "ResourceQuota", "Namespace", "DeviceTaintRule")
RESULT_KEYS = ("source", "namespace", "name", "satisfiable", "allocations", "maxConcurrent", "quotaLimit", "reasons", "errors")


def stack_manifests(run) -> list[dict[str, Any]]:
    """The DRA objects the stack would deploy, exactly as recorded by the offline program run."""
    from gpuplan.engine.outputs import is_kubernetes_object, manifest

    return [manifest(r) for r in run.resources if is_kubernetes_object(r) and r.inputs.get("kind") in STACK_KINDS]


def chart_classes(config: StackConfig) -> list[dict[str, Any]]:
    version = None if config.uses_example_driver else config.dra_driver.version
    return chart_device_classes(config.driver_device_classes(), version)


def load_inventory(config: StackConfig, inventory_file: Optional[Path]) -> Inventory:
    simulated = stack_inventory(config)
    if inventory_file is None:
        return simulated
    documents, problems = read_documents(inventory_file)
    if problems:
        raise InputError(problems, str(inventory_file))
    # A dump of this stack's cluster names nodes as the simulation does (kind workers): keep its pool names.
    return dump_inventory(documents, str(inventory_file)).with_node_pools(simulated.node_pools)


def fit_report(run, claim_files: list[Path] | None = None, inventory_file: Optional[Path] = None) -> dict[str, Any]:
    """Evaluate a recorded program run; returns {"claims": [...], "inventory": {...}, "notes": [...]}.
    Raises InputError for unreadable or invalid claim files and inventories."""
    config: StackConfig = run.config
    source = f"stack:{run.stack}"
    inputs = FitInputs(extended_gate=config.dra_driver.extended_resource_bridge,
                       plugin_pools=tuple(p.name for p in config.device_plugin_pools))
    add_stack_objects(inputs, stack_manifests(run), chart_classes(config), source)
    problems = add_claim_files(inputs, list(claim_files or []), config.cluster.kubernetes_version, source)
    if problems:
        raise InputError(problems, "the claim files")
    inventory = load_inventory(config, inventory_file)
    nodes = inventory.nodes(inputs.taint_rules)
    simulator = Simulator(nodes, inputs.classes)
    claims = [evaluate_entry(simulator, entry, inputs) for entry in inputs.entries]
    drivers = sorted({d.driver for n in nodes for d in n.devices})
    return {
        "claims": claims,
        "inventory": {"source": inventory.source, "nodes": len(nodes), "devices": sum(len(n.devices) for n in nodes),
                      "drivers": drivers, "notes": list(inventory.notes)},
        "notes": inputs.notes,
        "stats": {"selectorEvaluations": simulator.stats.evaluations, "selectorLookups": simulator.stats.lookups},
    }


def evaluate_entry(simulator: Simulator, entry: ClaimEntry, inputs: FitInputs) -> dict[str, Any]:
    result: dict[str, Any] = {
        "source": entry.source, "namespace": entry.namespace, "name": entry.name, "satisfiable": False,
        "allocations": [], "maxConcurrent": 0, "quotaLimit": None, "reasons": list(entry.reasons), "errors": list(entry.errors),
    }
    spec = entry.spec
    if spec is None or entry.errors:
        return result
    result["quotaLimit"] = quota_limit(spec, inputs.quotas.get(entry.namespace, []))
    outcome = simulator.evaluate_claim(spec, single=entry.single)
    result["errors"] += outcome.errors
    blockers = list(entry.reasons)
    if spec.admin_access and entry.namespace in inputs.namespaces and inputs.namespaces[entry.namespace].get(ADMIN_ACCESS_LABEL) != "true":
        blockers.append(f"adminAccess needs the namespace label {ADMIN_ACCESS_LABEL}: \"true\"; namespace {entry.namespace} "
                        "lacks it, so the API server rejects the claim")
    if entry.kind == "extended-resources" and spec.requests and not inputs.extended_gate:
        resources = ", ".join(dict.fromkeys(entry.extended_resources))
        fits = f"; with the gate the claim would fit on pool(s) {', '.join(outcome.pools)}" if outcome.pools else ""
        blockers.append(f"DRA serves extended resources ({resources}) only with the DRAExtendedResource feature gate (alpha in "
                        f"Kubernetes 1.34/1.35), which this stack leaves off (draDriver.extendedResourceBridge: false){fits}")
    if blockers:
        result["reasons"] = blockers
        return result
    result["satisfiable"] = outcome.satisfiable and not outcome.errors
    result["allocations"] = outcome.allocations
    result["maxConcurrent"] = outcome.max_concurrent
    result["reasons"] = outcome.reasons
    return result


def failing(claims: list[dict[str, Any]]) -> bool:
    return any(not c["satisfiable"] or c["errors"] for c in claims)


def binds(claim: dict[str, Any]) -> str:
    """What limits how many claims run at once: the namespace quota or the capacity."""
    quota, capacity = claim["quotaLimit"], claim["maxConcurrent"]
    if not claim["satisfiable"]:
        return "-"
    if quota is None or capacity < quota:
        return "capacity"
    return "quota" if quota < capacity else "both"


def render_text(name: str, report: dict[str, Any]) -> None:
    from rich.table import Table

    console = output.console()
    inventory = report["inventory"]
    console.print(f"gpuplan fit: stack {name}, inventory {inventory['source']}: {inventory['nodes']} nodes, "
                  f"{inventory['devices']} devices ({', '.join(inventory['drivers']) or 'no driver'})")
    for note in inventory["notes"] + report["notes"]:
        console.print(f"[yellow]note:[/] {note}")
    table = Table(show_lines=False)
    for column in ("claim", "source", "result", "pools (subrequest)", "at once", "quota", "binds"):
        table.add_column(column)
    for claim in report["claims"]:
        status = ("[red]error[/]" if claim["errors"] else "[green]fits[/]" if claim["satisfiable"] else "[red]unsatisfiable[/]")
        pools: dict[str, set[str]] = {}
        for allocation in claim["allocations"]:
            pools.setdefault(allocation["pool"], set())
            if allocation["subrequest"]:
                pools[allocation["pool"]].add(f"{allocation['request']}/{allocation['subrequest']}")
        shown = ", ".join(f"{p} ({', '.join(sorted(s))})" if s else p for p, s in pools.items()) or "-"
        quota = "-" if claim["quotaLimit"] is None else str(claim["quotaLimit"])
        source = claim["source"] if claim["source"].startswith("stack:") else Path(claim["source"]).name
        table.add_row(f"{claim['namespace']}/{claim['name']}", source, status, shown, str(claim["maxConcurrent"]), quota, binds(claim))
    console.print(table)
    for claim in report["claims"]:
        for line in claim["errors"]:
            console.print(f"[red]error[/] {claim['namespace']}/{claim['name']}: {line}", markup=True, highlight=False)
        for line in claim["reasons"]:
            console.print(f"[red]why[/] {claim['namespace']}/{claim['name']}: {line}", markup=True, highlight=False)
    bad = sum(1 for c in report["claims"] if not c["satisfiable"] or c["errors"])
    console.print(f"{len(report['claims']) - bad} of {len(report['claims'])} claim(s) fit"
                  + (f"; {bad} unsatisfiable or in error" if bad else ""))


def register(app: typer.Typer) -> None:
    @app.command()
    def fit(
        stack: Optional[str] = options.StackOption,
        config: Optional[Path] = options.ConfigOption,
        out: Optional[Path] = options.OutOption,
        format: options.OutputFormat = options.FormatOption,
        claims: Optional[list[Path]] = typer.Option(
            None, "--claims", help="ResourceClaim/ResourceClaimTemplate/DeviceClass/Pod/workload manifests to evaluate too (repeatable)."
        ),
        inventory: Optional[Path] = typer.Option(
            None, "--inventory", help="ResourceSlices of a live cluster (kubectl get resourceslices -o json) instead of the simulation."
        ),
        more_claims: Optional[list[Path]] = typer.Argument(
            None, metavar="[FILE]...", help="More claim files: `--claims a.yaml b.yaml` reads both."
        ),
    ) -> None:
        """Will every claim schedule? Satisfiable or not, on which pools, how many at once, quota vs capacity."""

        def body() -> int:
            from gpuplan.engine.runtime import run_program

            name, stack_file = options.resolve_stack(stack, config)
            run = run_program(stack_file)
            report = fit_report(run, [*(claims or []), *(more_claims or [])], inventory)
            target = options.out_dir(out, name)
            document = {"claims": [{key: claim[key] for key in RESULT_KEYS} for claim in report["claims"]]}
            output.write_and_emit(target, "fit.json", document, format, lambda: render_text(name, report))
            return ExitCode.FINDINGS if failing(report["claims"]) else ExitCode.OK

        raise typer.Exit(run_command(format, body))
