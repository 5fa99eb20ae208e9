"""`gpuplan policy`: run the program offline and feed every resource and the stack through the policy pack."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command

PolicyConfigFile = Annotated[
    Path | None,
    typer.Option(
        "--policy-config",
        help="Policy pack config (JSON); default policies/config/<stack>.json of the stack's project, else the "
        "package's config of that name, else each policy's default level.",
    ),
]


def render_text(report, console) -> None:
    from dra_gpu_platform.policies.pack import POLICIES

    config = report.policy_config or "none (each policy's default level)"
    console.print(
        f"Policy pack [bold]dra-gpu-platform[/] on stack [bold]{report.stack}[/]: {len(POLICIES)} policies, "
        f"{report.resources} resources, config {config}"
    )
    by_policy: dict[str, list] = {}
    for violation in report.violations:
        by_policy.setdefault(violation.policy, []).append(violation)
    for name, violations in by_policy.items():
        level = "mandatory" if any(v.level == "mandatory" for v in violations) else "advisory"
        colour = "red" if level == "mandatory" else "yellow"
        console.print(f"\n[bold {colour}]{name}[/] [{colour}]({level})[/]: {len(violations)} violation(s)")
        for violation in violations:
            output.say(console, f"  [{violation.level}] {violation.urn or '(stack)'}")
            for line in violation.message.splitlines():
                output.say(console, f"      {line}")
    for remediation in report.remediations:
        output.say(console, f"remediated by {remediation.policy}: {remediation.urn}", style="cyan", lead=10)
    for note in report.notes:
        output.say(console, f"note: {note}", style="yellow", lead=5)
    mandatory, advisory = len(report.mandatory), len(report.violations) - len(report.mandatory)
    if report.violations:
        console.print(f"\n{mandatory} mandatory and {advisory} advisory violation(s)")
    else:
        console.print("\n[green]✓[/] no policy violations")


def policy(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    policy_config: PolicyConfigFile = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
) -> None:
    """Check the stack (or your own program with --project) against the CrossGuard policy pack, offline. Exit 1 on
    a mandatory violation."""

    def body() -> int:
        from gpuplan.checks.policy_runner import run_policies

        source = options.resolve_source(stack, config, project)
        with output.status(format, f"gpuplan policy: running stack {source.stack} offline through the policy pack"):
            report = run_policies(source, policy_config)
        failed = output.write_and_emit(
            options.out_dir(out, source.stack),
            "policy.json",
            report.as_json(),
            format,
            lambda: render_text(report, output.console()),
        )
        return failed or (ExitCode.FINDINGS if report.mandatory else ExitCode.OK)

    raise typer.Exit(run_command(format, body))
