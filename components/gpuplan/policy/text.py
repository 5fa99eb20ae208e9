"""The text view of a `gpuplan policy` report: violations grouped by policy, remediations and notes (the JSON,
PolicyReport.as_json, is the contract)."""

from __future__ import annotations

from rich.console import Console

from dra_gpu_platform.policies.pack import POLICIES
from gpuplan.output import emit
from gpuplan.policy.runner import PolicyReport, Violation


def render_text(report: PolicyReport, console: Console) -> None:
    config = report.policy_config or "none (each policy's default level)"
    console.print(
        f"Policy pack [bold]dra-gpu-platform[/] on stack [bold]{report.stack}[/]: {len(POLICIES)} policies, "
        f"{report.resources} resources, config {config}"
    )
    by_policy: dict[str, list[Violation]] = {}
    for violation in report.violations:
        by_policy.setdefault(violation.policy, []).append(violation)
    for name, violations in by_policy.items():
        level = "mandatory" if any(v.level == "mandatory" for v in violations) else "advisory"
        colour = "red" if level == "mandatory" else "yellow"
        console.print(f"\n[bold {colour}]{name}[/] [{colour}]({level})[/]: {len(violations)} violation(s)")
        for violation in violations:
            emit.say(console, f"  [{violation.level}] {violation.urn or '(stack)'}")
            for line in violation.message.splitlines():
                emit.say(console, f"      {line}")
    for remediation in report.remediations:
        emit.say(console, f"remediated by {remediation.policy}: {remediation.urn}", style="cyan", lead=10)
    for note in report.notes:
        emit.say(console, f"note: {note}", style="yellow", lead=5)
    mandatory, advisory = len(report.mandatory), len(report.violations) - len(report.mandatory)
    if report.violations:
        console.print(f"\n{mandatory} mandatory and {advisory} advisory violation(s)")
    else:
        console.print("\n[green]✓[/] no policy violations")
