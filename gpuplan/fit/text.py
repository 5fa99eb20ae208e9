"""The text view of a `gpuplan fit` report (tables for people; the JSON is the contract)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuplan.cli import output

_STYLE = {"allocated": "green", "unschedulable": "red", "error": "red", "rejected": "magenta"}


def binds(claim: dict[str, Any]) -> str:
    """What limits how many claims run at once: the namespace quota or the capacity."""
    quota, capacity = claim["quotaLimit"], claim["maxConcurrent"]
    if not claim["satisfiable"]:
        return "-"
    if quota is None or capacity < quota:
        return "capacity"
    return "quota" if quota < capacity else "both"


def _source(source: str) -> str:
    return source if source.startswith("stack:") else Path(source).name


def render_text(name: str, report: dict[str, Any]) -> None:
    from rich.table import Table

    console = output.console()
    inventory, gates = report["inventory"], report["featureGates"]
    console.print(
        f"gpuplan fit: stack {name}, inventory {inventory['source']}: {inventory['nodes']} nodes, "
        f"{inventory['devices']} devices ({', '.join(inventory['drivers']) or 'no driver'}), "
        f"{inventory['nodeClasses']} node classes, {inventory['shapes']} device shapes"
    )
    changed = ", ".join(f"{k}={str(v).lower()}" for k, v in gates["changed"].items()) or "defaults"
    console.print(f"Kubernetes {gates['kubernetes']} feature gates: {changed}; allocator {gates['allocator']}")
    for note in inventory["notes"] + report["notes"]:
        console.print(f"[yellow]note:[/] {note}", highlight=False)
    for change in report["apiServer"]:
        for line in change["dropped"]:
            console.print(f"[yellow]api server:[/] {change['object']}: {line}", highlight=False)
        for line in change["rejected"]:
            console.print(f"[magenta]rejected:[/] {change['object']}: {line}", highlight=False)
    table = Table(show_lines=False)
    for column in ("claim", "source", "result", "pools (subrequest)", "at once", "quota", "binds"):
        table.add_column(column)
    for claim in report["claims"]:
        kind = claim["outcome"]
        status = f"[{_STYLE[kind]}]{'fits' if claim['satisfiable'] else kind}[/]"
        pools: dict[str, set[str]] = {}
        for allocation in claim["allocations"]:
            pools.setdefault(str(allocation["pool"]), set())
            if allocation["subrequest"]:
                pools[str(allocation["pool"])].add(f"{allocation['request']}/{allocation['subrequest']}")
        shown = ", ".join(f"{p} ({', '.join(sorted(s))})" if s else p for p, s in pools.items()) or "-"
        quota = "-" if claim["quotaLimit"] is None else str(claim["quotaLimit"])
        table.add_row(
            f"{claim['namespace']}/{claim['name']}",
            _source(claim["source"]),
            status,
            shown,
            str(claim["maxConcurrent"]),
            quota,
            binds(claim),
        )
    console.print(table)
    if report["pods"]:
        pods = Table(show_lines=False)
        for column in ("pod / workload", "source", "result", "placed", "nodes"):
            pods.add_column(column)
        for pod in report["pods"]:
            nodes = sorted({i["node"] for i in pod["instances"] if i["node"]})
            shown = ", ".join(nodes[:3]) + (f", … ({len(nodes)})" if len(nodes) > 3 else "") or "-"
            pods.add_row(
                f"{pod['kind']} {pod['namespace']}/{pod['name']}",
                _source(pod["source"]),
                f"[{_STYLE[pod['outcome']]}]{pod['outcome']}[/]",
                f"{pod['placed']}/{pod['replicas']}",
                shown,
            )
        console.print(pods)
    for claim in report["claims"]:
        for line in claim["errors"]:
            console.print(f"[red]error[/] {claim['namespace']}/{claim['name']}: {line}", markup=True, highlight=False)
        for line in claim["reasons"]:
            console.print(f"[red]why[/] {claim['namespace']}/{claim['name']}: {line}", markup=True, highlight=False)
    for pod in report["pods"]:
        for line in pod["errors"] + (pod["reasons"] if pod["outcome"] != "allocated" else []):
            console.print(
                f"[red]why[/] {pod['kind']} {pod['namespace']}/{pod['name']}: {line}", markup=True, highlight=False
            )
    bad = sum(1 for c in report["claims"] if not c["satisfiable"] or c["errors"])
    unplaced = sum(1 for p in report["pods"] if p["outcome"] != "allocated")
    console.print(
        f"{len(report['claims']) - bad} of {len(report['claims'])} claim(s) fit"
        + (f"; {bad} unsatisfiable, rejected or in error" if bad else "")
        + (
            f"; {len(report['pods']) - unplaced} of {len(report['pods'])} pod(s)/workload(s) placed"
            if report["pods"]
            else ""
        )
    )
