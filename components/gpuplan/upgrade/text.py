"""`gpuplan upgrade` for people: the text view on the terminal and the Markdown runbook (`<out>/runbook.md`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console

from gpuplan.output import emit as output

_MAX_RESOURCES = 6


def _versions(side: dict[str, Any]) -> str:
    parts = [f"Kubernetes {side['kubernetes']}"]
    if side["gpuOperator"]:
        parts.append(f"GPU Operator {side['gpuOperator']}")
    if side["draDriver"]:
        parts.append(f"DRA driver {side['draDriver']}")
    return ", ".join(parts)


def _short(urn: str) -> str:
    """`type::name` of a URN: what a person recognises."""
    kind = urn.split("::")[2].rsplit("$", 1)[-1] if urn.count("::") >= 3 else urn
    return f"{kind} {urn.rsplit('::', 1)[-1]}"


def render_text(document: dict[str, Any], console: Console) -> None:
    console.print(
        f"Upgrade of stack [bold]{document['stack']}[/]: {_versions(document['from'])} → {_versions(document['to'])}",
        highlight=False,
    )
    stage = None
    for step in document["steps"]:
        if step["stage"] != stage and step["stage"] is not None:
            stage = step["stage"]
            found = next((s for s in document["stages"] if s["stage"] == stage), None)
            if found:
                edits = ", ".join(f"{k}: {v}" for k, v in found["edits"].items())
                console.print(f"\n[bold]stage {stage}[/]: {found['title']}  (stack file: {edits}; then `pulumi up`)")
        pools = f" pools: {', '.join(step['pools'])}" if step["pools"] else ""
        console.print(
            f"\n  {step['step']:>2}. [cyan]{step['kind']}[/] [{_colour(step['disruption'])}]{step['disruption']}[/]{pools}",
            highlight=False,
        )
        output.say(console, f"      {step['what']}")
        for how in step["how"]:
            output.say(console, f"      → {how}")
        for urn in step["resources"][:_MAX_RESOURCES]:
            output.say(console, f"      · {_short(urn)}")
        if len(step["resources"]) > _MAX_RESOURCES:
            console.print(f"      · and {len(step['resources']) - _MAX_RESOURCES} more (see --format json)")
    if document["fitChanges"]:
        console.print("\n[bold]Claims whose fit changes[/]")
        for change in document["fitChanges"]:
            console.print(f"  {change['name']}: {change['before']} → {change['after']}", highlight=False)
            output.say(console, f"      {change['why']}")
    else:
        console.print("\n[green]✓[/] no claim's fit verdict changes")
    for note in document["notes"]:
        output.say(console, f"note: {note}", style="cyan", lead=5)
    if document["blockers"]:
        console.print(f"\n[bold red]{len(document['blockers'])} blocker(s)[/]")
        for blocker in document["blockers"]:
            output.say(console, f"  x {blocker['what']}")
            output.say(console, f"    why: {blocker['why']}")
            output.say(console, f"    fix: {blocker['fix']}")
    else:
        console.print("\n[green]✓[/] no blockers")


def _colour(disruption: str) -> str:
    return {"none": "green", "rolling": "yellow", "drain": "magenta", "replace": "red"}[disruption]


def runbook(document: dict[str, Any]) -> str:
    """The plan as a Markdown runbook: one section per stage (the stack-file edit, `gpuplan diff`, `pulumi up`),
    its steps with their disruption and checks, then the claims whose fit changes and the blockers."""
    lines = [
        f"# Upgrade runbook: stack `{document['stack']}`",
        "",
        f"From {_versions(document['from'])} to {_versions(document['to'])}. Written by `gpuplan upgrade`; "
        "do the stages in order, one `pulumi up` each.",
        "",
    ]
    if document["blockers"]:
        lines += ["## Blockers", ""]
        lines += [f"- **{b['what']}**: {b['why']}. Fix: {b['fix']}." for b in document["blockers"]]
        lines.append("")
    by_stage: dict[Any, list[dict[str, Any]]] = {}
    for step in document["steps"]:
        by_stage.setdefault(step["stage"], []).append(step)
    for stage in document["stages"]:
        edits = "\n".join(f"   - `{k}`: `{v}`" for k, v in stage["edits"].items())
        lines += [
            f"## Stage {stage['stage']}: {stage['title']}",
            "",
            f"1. Edit the stack file:\n{edits}",
            "2. Check what changes: `gpuplan diff --stack <stack> --against HEAD`",
            "3. Apply: `pulumi up`",
            "",
            "| step | kind | disruption | pools | what |",
            "|---|---|---|---|---|",
        ]
        for step in by_stage.get(stage["stage"], []):
            what = step["what"].replace("|", "\\|")
            lines.append(
                f"| {step['step']} | {step['kind']} | {step['disruption']} | {', '.join(step['pools']) or '-'} | {what} |"
            )
        checks = [h for step in by_stage.get(stage["stage"], []) for h in step["how"]]
        if checks:
            lines += ["", "Before and during the `pulumi up`:", "", *(f"- {h}" for h in checks)]
        lines.append("")
    outside = by_stage.get(None, [])
    if outside:
        lines += ["## Outside Pulumi", ""]
        lines += [f"- step {s['step']} ({s['kind']}, {s['disruption']}): {s['what']}" for s in outside]
        lines.append("")
    lines += ["## Claims whose fit changes", ""]
    if document["fitChanges"]:
        lines += [f"- `{c['name']}`: {c['before']} → {c['after']}. {c['why']}" for c in document["fitChanges"]]
    else:
        lines.append("None: every claim template, shared claim and --claims workload keeps its verdict.")
    if document["notes"]:
        lines += ["", "## Notes", "", *(f"- {n}" for n in document["notes"])]
    return "\n".join(lines) + "\n"
