"""`gpuplan preflight`: ask the cloud account, read-only, whether an EKS or AKS stack's GPU pools can launch, and
with --prices what they cost per hour."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.output.emit import OutputFormat

Prices = Annotated[
    bool,
    typer.Option(
        "--prices",
        help="Also read each GPU pool's live on-demand price (EKS: AWS Price List API; AKS: Azure Retail Prices "
        "API) and show the always-on and maximum cost per hour.",
    ),
]

DOING = "asking the cloud about stack {stack}"  # the live status line while it works


def preflight(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
    prices: Prices = False,
) -> None:
    """EKS and AKS stacks: GPU instance types / VM sizes offered where the pools launch, vCPU quotas against the
    pools' maxima, capacity reservations (EKS); calls the cloud read-only with its standard credentials."""

    def work(job: Job) -> Result:
        from gpuplan.preflight.stack import preflight_stack

        stack_config = job.source.config()
        order = [pool.name for pool in stack_config.node_pools] if stack_config is not None else []
        report = preflight_stack(job.source.stack, job.source.plan(), prices, order)
        return Result(
            report.as_json(),
            report.render_text,
            findings=not report.ok,
            files=None if report.covered else {},  # nothing asked, nothing written
        )

    stack_command("preflight", DOING, work, format, stack, config, project, out)
