"""The `gpuplan render` report as JSON (render.json, the contract) and as text: each release's render, the objects
not validated, the placement table per pool, the findings."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from gpuplan.output import emit, layout
from gpuplan.render.stack import RenderReport


def as_json(report: RenderReport) -> dict[str, Any]:
    return {
        "stack": report.stack,
        "releases": [
            {
                "release": r.rendered.release.name,
                "chart": r.rendered.release.chart,
                "version": r.rendered.release.version,
                "namespace": r.rendered.release.namespace,
                "chartPath": r.rendered.chart_path,
                "command": r.rendered.command,
                "objects": len(r.rendered.documents),
                "error": r.rendered.error,
                "hooks": r.hooks,
                "unreadValues": r.unread,
            }
            for r in report.releases
        ],
        "kustomization": str(report.kustomization) if report.kustomization else None,
        "validation": {"errors": [e.__dict__ for e in report.render_errors], "unvalidated": report.unvalidated},
        "placement": [
            {
                "pool": p.pool.name,
                "gpuStack": p.pool.gpu_stack,
                "provisioner": p.pool.provisioner,
                "labels": p.labels,
                "taints": [f"{t.key}={t.value}:{t.effect}" for t in p.pool.taints],
                "daemonSets": [
                    {"release": d.release, "name": d.name, "role": d.role, "source": d.source} for d in p.landed
                ]
                + [{"release": "", "name": name, "role": role, "source": "host"} for name, role in p.host_entries()],
                "findings": p.findings,
            }
            for p in report.placements
        ],
        "findings": report.findings,
    }


def render_text(report: RenderReport, console: Console) -> None:
    for result in report.releases:
        r = result.rendered
        where = r.chart_path or (
            f"{r.release.chart} {r.release.version}" + (f" from {r.release.repository}" if r.release.repository else "")
        )
        state = f"failed: {r.error}" if r.error else f"{len(r.documents)} objects"
        emit.say(console, f"helm template {r.release.name} ({where}): {state}")
        if result.hooks:
            emit.say(
                console, f"  {len(result.hooks)} Helm hook object(s) kept apart under rendered/{r.release.name}/hooks/"
            )
        if result.unread is not None:
            emit.say(console, f"  values keys read by no template: {', '.join(result.unread) or 'none'}")
    if report.kustomization:
        emit.say(console, f"Wrote {report.kustomization} (everything the stack deploys)")
    for line in report.unvalidated:
        emit.say(console, f"not validated (no schema, no CRD in this render): {line}", style="yellow", lead=13)
    for placement in report.placements:
        rows = [
            [
                escape(f"{d.name} ({d.release})"),  # a space to break at: the name stays whole at 80 columns
                d.role,
                "chart render" if d.source == "chart" else escape(f"operator facts: {d.source}"),
            ]
            for d in placement.landed
        ]
        rows += [[escape(name), role, "node image"] for name, role in placement.host_entries()]
        launched = f", nodes from a {placement.pool.provisioner}" if placement.pool.provisioner else ""
        title = f"pool {placement.pool.name} (gpuStack {placement.pool.gpu_stack}{launched})"
        headers = ["DaemonSet", "role", "placed by"]
        console.print(
            layout.table(headers, rows, console.width, whole=("role",), title=escape(title), title_justify="left")
        )
        for finding in placement.findings:
            emit.say(console, f"  ✗ {finding}", style="bold red", lead=3)
    others = [f for f in report.findings if not f.startswith("pool ")]
    for finding in others:
        emit.say(console, f"✗ {finding}", style="bold red", lead=1)
    if not report.findings:
        emit.say(
            console, "✓ every release rendered and validated; one NVIDIA GPU stack on every pool", style="green", lead=1
        )
    else:
        console.print(f"[bold red]{len(report.findings)} finding(s)[/]")
