"""`gpuplan upgrade`: the ordered plan from the stack as it is to a Kubernetes minor and GPU software releases
(gpuplan/upgrade/, dra_gpu_platform/plans/upgrade.py; docs/gpuplan/upgrade.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.commands.fit import ClaimFiles  # the one --claims option, judged at both ends here
from gpuplan.engine.sources import StackFileSource
from gpuplan.output.emit import OutputFormat, dumps

Target = Annotated[str, typer.Option("--to", metavar="MINOR", help="The Kubernetes minor to reach, e.g. 1.36.")]
GpuOperatorTarget = Annotated[
    str | None,
    typer.Option(
        "--gpu-operator",
        metavar="VERSION",
        help="The GPU Operator release to reach (default: the stack's, or the newest NVIDIA supports on the target).",
    ),
]
DraDriverTarget = Annotated[
    str | None,
    typer.Option(
        "--dra-driver",
        metavar="VERSION",
        help="The NVIDIA DRA driver chart release to reach (default: the stack's).",
    ),
]

DOING = "planning the upgrade of stack {stack}"  # the live status line while it works


def upgrade(
    to: Target,
    stack: options.StackName = None,
    config: options.StackFile = None,
    gpu_operator: GpuOperatorTarget = None,
    dra_driver: DraDriverTarget = None,
    claims: ClaimFiles = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
) -> None:
    """The ordered upgrade plan: control plane one minor at a time, node pools, add-ons, GPU software, API
    migrations; the claims whose fit changes; blockers with fixes. Writes upgrade.json and runbook.md. Exit 1 when
    something blocks the upgrade."""

    def work(job: Job) -> Result:
        from gpuplan.upgrade.report import upgrade_report
        from gpuplan.upgrade.text import render_text, runbook

        source = job.source
        assert isinstance(source, StackFileSource)  # the plan edits the stack file (no --project)
        report = upgrade_report(
            source, to, gpu_operator=gpu_operator, dra_driver=dra_driver, claims=list(claims or []), step=job.step
        )
        document = report.as_json()
        files = {"upgrade.json": dumps(document), "runbook.md": runbook(document)}
        return Result(document, lambda console: render_text(document, console), bool(report.blockers), files)

    stack_command("upgrade", DOING, work, format, stack, config, None, out)
