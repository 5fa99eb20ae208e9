"""`gpuplan policy`: run the program offline and feed every resource and the stack through the policy pack."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.output.emit import OutputFormat

PolicyConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--policy-config",
        metavar="FILE",
        help="Policy pack config (JSON); default policies/config/<stack>.json of the stack's project, else each "
        "policy's default level.",
    ),
]

DOING = "running stack {stack} offline through the policy pack"  # the live status line while it works


def policy(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    policy_config: PolicyConfigFile = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
) -> None:
    """Check the stack (or your own program with --project) against the CrossGuard policy pack, offline. Exit 1 on
    a mandatory violation."""

    def work(job: Job) -> Result:
        from gpuplan.policy.runner import run_policies
        from gpuplan.policy.text import render_text

        report = run_policies(job.source, policy_config)
        return Result(report.as_json(), lambda console: render_text(report, console), findings=bool(report.mandatory))

    stack_command("policy", DOING, work, format, stack, config, project, out)
