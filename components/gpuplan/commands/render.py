"""`gpuplan render`: every Helm release of the stack through a real `helm template`, written under
<out>/rendered/ with a kustomization, validated like preview, and the placement table per node pool."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from dra_gpu_platform.inputs.problems import InputError, Problem
from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.output.emit import OutputFormat

HelmBinary = Annotated[
    str | None, typer.Option("--helm", metavar="FILE", help="helm binary (default: helm on the PATH).")
]
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
        metavar="DIR",
        help="Folder of charts, offline: <chart>-<version>.tgz as `helm pull --destination DIR` writes them (subcharts "
        "pulled alongside), or unpacked <chart>-<version>/; default: pulled from the chart repositories into <out>/charts.",
    ),
]

DOING = "previewing stack {stack} and rendering its Helm releases"  # the live status line while it works


def render(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
    helm: HelmBinary = None,
    charts: ChartsFolder = None,
    check_values: CheckValues = False,
) -> None:
    """Render every Helm release with a real helm, write <out>/rendered/ (+ kustomization.yaml), validate it, and
    show which DaemonSets land on which pool. Exit 1 on a failed render, an invalid object or a placement finding."""

    def work(job: Job) -> Result:
        from gpuplan.render import helm as helm_runner
        from gpuplan.render.report import as_json, render_text
        from gpuplan.render.stack import render_stack

        binary = helm_runner.find_helm(helm)
        if charts is not None and not Path(charts).is_dir():
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
        report = render_stack(job.source, job.out, binary, Path(charts) if charts else None, check_values)
        return Result(as_json(report), lambda console: render_text(report, console), findings=bool(report.findings))

    stack_command("render", DOING, work, format, stack, config, project, out)
