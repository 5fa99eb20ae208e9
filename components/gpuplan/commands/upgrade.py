"""`gpuplan upgrade`: the ordered plan from the stack as it is to a Kubernetes minor and GPU software releases
(gpuplan/upgrade/, dra_gpu_platform/plans/upgrade.py; docs/gpuplan/upgrade.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.commands.fit import ClaimFiles  # the one --claims option, judged at both ends here

Target = Annotated[str, typer.Option("--to", help="The Kubernetes minor to reach, e.g. 1.36.")]
GpuOperatorTarget = Annotated[
    str | None,
    typer.Option(
        "--gpu-operator",
        help="The GPU Operator release to reach (default: the stack's, or the newest NVIDIA supports on the target).",
    ),
]
DraDriverTarget = Annotated[
    str | None,
    typer.Option("--dra-driver", help="The NVIDIA DRA driver chart release to reach (default: the stack's)."),
]


def upgrade(
    to: Target,
    stack: options.StackName = None,
    config: options.StackFile = None,
    gpu_operator: GpuOperatorTarget = None,
    dra_driver: DraDriverTarget = None,
    claims: ClaimFiles = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
) -> None:
    """The ordered upgrade plan: control plane one minor at a time, node pools, add-ons, GPU software, API
    migrations; the claims whose fit changes; blockers with fixes. Writes upgrade.json and runbook.md.
    Exit 1 when something blocks the upgrade."""

    def body() -> int:
        from gpuplan.upgrade.report import upgrade_report
        from gpuplan.upgrade.text import render_text, runbook

        name, stack_file = options.resolve_stack(stack, config)
        with output.status(format, f"gpuplan upgrade: planning stack {name} to Kubernetes {to}"):
            report = upgrade_report(
                stack_file, name, to, gpu_operator=gpu_operator, dra_driver=dra_driver, claims=list(claims or [])
            )
        document = report.as_json()
        failed = output.publish(
            options.out_dir(out, name),
            {"upgrade.json": output.dumps(document), "runbook.md": runbook(document)},
            document,
            format,
            lambda: render_text(document, output.console()),
        )
        return failed or (ExitCode.FINDINGS if report.blockers else ExitCode.OK)

    raise typer.Exit(run_command(format, body))
