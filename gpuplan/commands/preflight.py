"""`gpuplan preflight`: ask the AWS account, read-only, whether an EKS stack's GPU pools can launch."""

from __future__ import annotations

import typer
from rich.table import Table
from rich.text import Text

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.config.problems import MISSING, InputError, Problem
from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.preflight import checks


def preflight(
    stack: options.StackName = None,
    config: options.StackFile = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
) -> None:
    """EKS stacks: GPU instance types offered in the pools' zones, GPUs per instance, EC2 vCPU quotas,
    capacity reservations. Calls AWS (read-only) with the standard credential chain."""

    def body() -> int:
        name, stack_file = options.resolve_stack(stack, config)
        stack_config = load_stack_file(stack_file)
        if stack_config.platform != "eks":
            return _not_covered(name, stack_config.platform, format)
        try:
            ec2, quotas = checks.aws_clients(stack_config.region)
            report = checks.run_preflight(stack_config, ec2, quotas)
        except checks.AwsAccessError as error:
            where = f"AWS account access (region {stack_config.region})"
            raise InputError(
                [Problem(where, error.action or "credentials", error.code or MISSING, error.reason, error.fix)],
                "the AWS access preflight needs",
            ) from None
        document = report.as_json()
        target = options.out_dir(out, name)
        failed = output.publish(
            target,
            {"preflight.json": output.dumps(document)},
            document,
            format,
            lambda: _render(report),
            after_write=lambda: output.console().print(
                f"Wrote {target / 'preflight.json'}", markup=False, soft_wrap=True
            ),
        )
        return failed or (ExitCode.OK if report.ok else ExitCode.FINDINGS)

    raise typer.Exit(run_command(format, body))


def _not_covered(stack: str, platform: str, format: options.OutputFormat) -> int:
    message = f"preflight covers EKS stacks only; stack {stack} runs on {platform}, so there is nothing to check"
    if format == options.OutputFormat.json:
        output.emit_json({"stack": stack, "platform": platform, "covered": False, "ok": True, "message": message})
    else:
        output.console().print(message)
    return ExitCode.OK


def _render(report: checks.PreflightReport) -> None:
    console = output.console()
    console.print(f"Preflight of stack [bold]{report.stack}[/] in {report.region}")
    for pool in report.pools:
        verdict = "[green]pass[/]" if pool.ok else "[bold red]FAIL[/]"
        table = Table(
            title=f"{pool.name}: up to {pool.max_nodes} × {pool.instance_type} ({pool.capacity}) {verdict}",
            title_justify="left",
            show_lines=False,
        )
        table.add_column("check")
        table.add_column("result")
        table.add_column("detail", overflow="fold")
        for check in pool.checks:
            table.add_row(check.name, "[green]pass[/]" if check.ok else "[bold red]FAIL[/]", Text(check.message))
        console.print(table)
    failed = [p.name for p in report.pools if not p.ok]
    if failed:
        console.print(
            f"[bold red]preflight failed[/] for {len(failed)} of {len(report.pools)} pool(s): {', '.join(failed)}"
        )
    else:
        console.print(f"[green]✓[/] all {len(report.pools)} GPU pool(s) pass")
