"""`gpuplan fit`: will every claim schedule? Options and the text view; the evaluation is gpuplan/fit/report.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer

from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.fit.report import RESULT_KEYS, binds, failing, fit_report

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
