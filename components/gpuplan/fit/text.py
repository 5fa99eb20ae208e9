"""The text view of a `gpuplan fit` report (tables for people; the JSON is the contract)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from gpuplan.output import emit, layout

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
    from rich.markup import escape

    console = emit.console()
    # a long selector (CEL) is printed once and named afterwards (S1, S2, ...): every pool's reason quotes it
    legend = layout.Legend()
    inventory, gates = report["inventory"], report["featureGates"]
    emit.say(
        console,
        f"gpuplan fit: stack {name}, inventory {inventory['source']}: {inventory['nodes']} nodes, "
        f"{inventory['devices']} devices ({', '.join(inventory['drivers']) or 'no driver'}), "
        f"{inventory['nodeClasses']} node classes, {inventory['shapes']} device shapes",
    )
    changed = ", ".join(f"{k}={str(v).lower()}" for k, v in gates["changed"].items()) or "defaults"
    emit.say(console, f"Kubernetes {gates['kubernetes']} feature gates: {changed}; allocator {gates['allocator']}")
    for note in inventory["notes"] + report["notes"]:
        emit.say(console, legend.shorten(f"note: {note}"), style="yellow", lead=len("note:"))
    for change in report["apiServer"]:
        for line in change["dropped"]:
            emit.say(console, f"api server: {change['object']}: {line}", style="yellow", lead=len("api server:"))
        for line in change["rejected"]:
            emit.say(console, f"rejected: {change['object']}: {line}", style="magenta", lead=len("rejected:"))
    # the source column only where a claim comes from a file (--claims): the stack's own templates need none
    with_source = any(not claim["source"].startswith("stack:") for claim in report["claims"])
    rows = []
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
        cells = [
            escape(f"{claim['namespace']}/{claim['name']}"),
            escape(_source(claim["source"])),
            status,
            escape(shown),
        ]
        rows.append(
            [*(cells if with_source else cells[:1] + cells[2:]), str(claim["maxConcurrent"]), quota, binds(claim)]
        )
    headers = ["claim", "source", "result", "pools (subrequest)", "at once", "quota", "binds"]
    headers = headers if with_source else [h for h in headers if h != "source"]
    short = ("result", "at once", "quota", "binds")
    console.print(layout.table(headers, rows, console.width, whole=short, show_lines=False))
    if report["pods"]:
        width = layout.layout_width(console)  # a pipe gets 100 columns too: these tables are read in CI logs
        console.print(_pods_table(report["pods"], width))
        for capacity in _capacity_tables(report, width):
            console.print(capacity)
    for claim in report["claims"]:
        for label, lines in (("error", claim["errors"]), ("why", claim["reasons"]), ("fix", claim.get("fix") or [])):
            for line in lines:
                text = legend.shorten(f"{label} {claim['namespace']}/{claim['name']}: {line}")
                emit.say(console, text, style="cyan" if label == "fix" else "red", lead=len(label))
    for pod in report["pods"]:
        label = f"{pod['kind']} {pod['namespace']}/{pod['name']}"
        for line in pod.get("warnings") or []:
            emit.say(console, legend.shorten(f"warning {label}: {line}"), style="yellow", lead=len("warning"))
        for line in pod["errors"] + (pod["reasons"] if pod["outcome"] != "allocated" else []):
            emit.say(console, legend.shorten(f"why {label}: {line}"), style="red", lead=3)
        said = " ".join(pod["reasons"])
        for line in pod.get("fix") or []:
            if line not in said:  # a policy's own message already says what to do
                emit.say(console, legend.shorten(f"fix {label}: {line}"), style="cyan", lead=3)
        # beside the pod's own lines (the guard's refusals among them): what the provisioner would do for it
        answer = pod.get("provisioning")
        if answer and answer["verdict"] != "placed":
            cost = "" if answer["perHour"] is None else f", ${answer['perHour']:,.2f}/h"
            emit.say(
                console,
                legend.shorten(f"provisioning {label}: {answer['verdict']}{cost}: {answer['why']}"),
                style="cyan" if answer["verdict"] == "scale-up" else "red",
                lead=len("provisioning"),
            )
    for service in report.get("services", []):
        label = f"Service {service['namespace']}/{service['name']}"
        for line in service["reasons"]:
            emit.say(console, legend.shorten(f"why {label}: {line}"), style="red", lead=3)
        said = " ".join(service["reasons"])
        for line in service["fix"]:
            if line not in said:  # a policy's own message already says what to do
                emit.say(console, legend.shorten(f"fix {label}: {line}"), style="cyan", lead=3)
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
        + (
            f"; {_admitted(report['services'])} of {len(report['services'])} Service(s) admitted"
            if report.get("services")
            else ""
        )
    )


def _admitted(services: list[dict[str, Any]]) -> int:
    return sum(1 for s in services if s["outcome"] == "admitted")


def _pods_table(pods: list[dict[str, Any]], width: int) -> Any:
    """One row per pod or workload: what the controller created, what the API server admitted, what was placed."""
    from rich.markup import escape

    with_source = len({pod["source"] for pod in pods}) > 1
    rows = []
    for pod in pods:
        nodes = sorted({i["node"] for i in pod["instances"] if i["node"]})
        shown = ", ".join(nodes[:3]) + (f" and {len(nodes) - 3} more" if len(nodes) > 3 else "") or "-"
        cells = [
            escape(f"{pod['kind']} {pod['namespace']}/{pod['name']}"),
            escape(_source(pod["source"])),
            f"[{_STYLE[pod['outcome']]}]{pod['outcome']}[/]",
            str(pod.get("created", "-")),
            str(pod.get("admitted", "-")),
            f"{pod['placed']}/{pod['replicas']}",
            escape(shown),
        ]
        rows.append(cells if with_source else cells[:1] + cells[2:])
    headers = ["pod / workload", "source", "result", "created", "admitted", "placed", "nodes"]
    headers = headers if with_source else [h for h in headers if h != "source"]
    whole = ("result", "created", "admitted", "placed")
    return layout.table(headers, rows, width, whole=whole, show_lines=False)


def _share(resource: str, bucket: dict[str, int]) -> str:
    """free/total of an allocatable resource, in the units people read (cores, GiB or TiB)."""
    free, total = bucket["free"], bucket["total"]
    if resource == "cpu":
        return f"{free / 1000:g}/{total / 1000:g}"
    if resource in ("memory", "ephemeral-storage"):
        if total >= 1024**4:
            return f"{free / 1024**4:.1f}/{total / 1024**4:.1f}Ti"
        return f"{free / 1024**3:.0f}/{total / 1024**3:.0f}Gi"
    return f"{free}/{total}"


def _capacity_tables(report: dict[str, Any], width: int) -> list[Any]:
    """What is left per pool after each workload, free/total, for the pools that workload took from (the JSON's
    capacityLeft holds every pool after every workload): one small table per workload that took something."""
    from rich.markup import escape

    previous = {p["pool"]: p for p in report.get("capacityBefore") or []}
    tables = []
    for pod in report["pods"]:
        current = {p["pool"]: p for p in pod.get("capacityLeft") or []}
        rows = []
        for name, pool in current.items():
            if previous.get(name) == pool:
                continue
            resources, devices = pool["allocatable"], pool["devices"]
            other = ", ".join(f"{r} {_share(r, b)}" for r, b in resources.items() if r not in ("cpu", "memory", "pods"))
            rows.append(
                [
                    escape(name),
                    str(pool["nodes"]),
                    f"{devices['free']}/{devices['total']}" if devices["total"] else "-",
                    *(_share(r, resources[r]) if r in resources else "-" for r in ("cpu", "memory", "pods")),
                    escape(other) or "-",
                ]
            )
        previous = current
        if rows:
            title = escape(f"capacity left after {pod['kind']} {pod['namespace']}/{pod['name']} (free/total)")
            headers = ["pool", "nodes", "devices", "cpu", "memory", "pods", "other"]
            whole = ("nodes", "devices", "cpu", "memory", "pods")
            tables.append(
                layout.table(headers, rows, width, whole=whole, show_lines=False, title=title, title_justify="left")
            )
    return tables
