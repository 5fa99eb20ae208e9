"""`gpuplan render`: every Helm release of the stack through a real `helm template`, written under
<out>/rendered/ with a kustomization, validated like preview, and the placement table per node pool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from gpuplan.cli import layout, options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command

HelmBinary = Annotated[str | None, typer.Option("--helm", help="helm binary (default: helm on the PATH).")]
CheckValues = Annotated[
    bool,
    typer.Option(
        "--check-values", help="Also render once per values key with that key changed: report keys no template reads."
    ),
]
ChartsFolder = Annotated[
    Path | None,
    typer.Option(
        "--charts",
        help="Folder of charts, offline: <chart>-<version>.tgz as `helm pull --destination DIR` writes them (subcharts "
        "pulled alongside), or unpacked <chart>-<version>/; default: pulled from the chart repositories into <out>/charts.",
    ),
]


def as_json(report) -> dict[str, Any]:
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


def render_text(report, console) -> None:
    from rich.markup import escape

    for result in report.releases:
        r = result.rendered
        where = r.chart_path or (
            f"{r.release.chart} {r.release.version}" + (f" from {r.release.repository}" if r.release.repository else "")
        )
        state = f"failed: {r.error}" if r.error else f"{len(r.documents)} objects"
        output.say(console, f"helm template {r.release.name} ({where}): {state}")
        if result.hooks:
            output.say(
                console, f"  {len(result.hooks)} Helm hook object(s) kept apart under rendered/{r.release.name}/hooks/"
            )
        if result.unread is not None:
            output.say(console, f"  values keys read by no template: {', '.join(result.unread) or 'none'}")
    if report.kustomization:
        output.say(console, f"Wrote {report.kustomization} (everything the stack deploys)")
    for line in report.unvalidated:
        output.say(console, f"not validated (no schema, no CRD in this render): {line}", style="yellow", lead=13)
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
            output.say(console, f"  ✗ {finding}", style="bold red", lead=3)
    others = [f for f in report.findings if not f.startswith("pool ")]
    for finding in others:
        output.say(console, f"✗ {finding}", style="bold red", lead=1)
    if not report.findings:
        output.say(
            console, "✓ every release rendered and validated; one NVIDIA GPU stack on every pool", style="green", lead=1
        )
    else:
        console.print(f"[bold red]{len(report.findings)} finding(s)[/]")


def render(
    stack: options.StackName = None,
    config: options.StackFile = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
    helm: HelmBinary = None,
    charts: ChartsFolder = None,
    check_values: CheckValues = False,
) -> None:
    """Render every Helm release with a real helm, write <out>/rendered/ (+ kustomization.yaml), validate it, and
    show which DaemonSets land on which pool. Exit 1 on a failed render, an invalid object or a placement finding."""

    def body() -> int:
        from gpuplan.render import helm as helm_runner
        from gpuplan.render.stack import render_stack

        name, stack_file = options.resolve_stack(stack, config)
        binary = helm_runner.find_helm(helm)
        if charts is not None and not Path(charts).is_dir():
            from dra_gpu_platform.inputs.problems import InputError, Problem

            raise InputError(
                [
                    Problem(
                        "(command line)",
                        "--charts",
                        str(charts),
                        "not a folder",
                        "pass the folder that holds the unpacked charts",
                    )
                ],
                "the command line",
            )
        target = options.out_dir(out, name)
        with output.status(format, f"gpuplan render: previewing stack {name} and rendering its Helm releases"):
            report = render_stack(stack_file, target, binary, Path(charts) if charts else None, check_values)
        output.write_and_emit(
            target, "render.json", as_json(report), format, lambda: render_text(report, output.console())
        )
        return ExitCode.FINDINGS if report.findings else ExitCode.OK

    raise typer.Exit(run_command(format, body))
