"""The text view of a `gpuplan diff` report: each change with its paths and old → new values, what it costs, the
counts, and the refused changes with how to make them safely (diff.json, DiffReport.as_json, is the contract)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from gpuplan.diff.names import short_name
from gpuplan.diff.paths import MISSING
from gpuplan.diff.report import DiffReport
from gpuplan.output import emit, layout

_SYMBOL = {"create": "+", "update": "~", "replace": "+-", "delete": "-"}
_COLOUR = {"create": "green", "update": "yellow", "replace": "magenta", "delete": "red"}
_MAX_PATHS = 8


def _text(value: Any) -> str:
    if value is MISSING:
        return "(none)"
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text.replace("\n", "\\n")


def change_text(old: Any, new: Any) -> str:
    """`old → new` for a changed value: whole when short; else where the two differ, with the same text before
    and after it counted, not shown (two long CEL selectors that share a beginning show their difference)."""
    before, after = layout.difference(_text(old), _text(new))
    return f"{before} → {after}"


def render_text(report: DiffReport, console: Console) -> None:
    console.print(f"Diff of stack [bold]{report.stack}[/] against {report.against}", highlight=False)
    changed = [c for c in report.changes if c.op != "same"]
    if not changed:
        console.print("\n[green]✓[/] no changes: every resource stays the same")
    for change in changed:
        colour = _COLOUR[change.op]
        mark = " [bold red]REFUSED[/]" if change.refused else " [cyan]allowed[/]" if change.allowed else ""
        console.print(
            f"\n[{colour}]{_SYMBOL[change.op]:>2} {change.op:<8}[/] {change.type}  [bold]{change.name}[/]{mark}",
            highlight=False,
            soft_wrap=True,
        )
        for path in change.paths[:_MAX_PATHS]:
            if path in change.values:
                old, new = change.values[path]
                value = f": {change_text(old, new)}"
            else:
                value = " (known after apply)"
            forces = " (forces replacement)" if path in change.replace_reasons else ""
            rolls = " (rolls every node)" if path in change.rolling else ""
            emit.say(console, f"       {path}{value}{forces}{rolls}")
        if len(change.paths) > _MAX_PATHS:
            console.print(f"       and {len(change.paths) - _MAX_PATHS} more (see --format json)")
        if "provider" in change.replace_reasons:
            console.print("       provider (forces replacement)", markup=False)
        if change.may_replace:
            console.print(
                f"       may replace: {', '.join(change.may_replace)} (not in the replacement rules)",
                markup=False,
                soft_wrap=True,
            )
        for consequence in change.consequences:
            emit.say(console, f"       note: {consequence}")
    counts = report.summary()
    console.print("\nResources:")
    for op, word in (
        ("create", "to create"),
        ("update", "to update"),
        ("replace", "to replace"),
        ("delete", "to delete"),
    ):
        if counts[op]:
            console.print(f"    [{_COLOUR[op]}]{_SYMBOL[op]:>2} {counts[op]} {word}[/]")
    console.print(f"    {counts['same']} unchanged")
    if report.refused:
        console.print(
            f"\n[bold red]{len(report.refused)} change(s) refused[/]: they would destroy running capacity or data."
        )
        for change in report.refused:
            console.print()
            emit.say(console, f"  x {change.urn}")
            emit.say(console, f"    what would be lost: {change.why}")
            if change.how:
                emit.say(console, f"    how to do it safely: {change.how}")
            if not change.allowable:
                console.print("    --allow-replace cannot accept it: the cloud refuses this step", markup=False)
            else:
                emit.say(console, f"    to accept it on purpose: --allow-replace {short_name(change, report.changes)}")
        if any(c.allowable for c in report.refused):
            console.print("\nTo accept one on purpose: --allow-replace NAME (repeatable; the URN works too).")
    elif any(c.allowed for c in report.changes):
        console.print("\n[cyan]refused changes accepted on purpose with --allow-replace[/]")


def offer_names(report: DiffReport) -> str:
    """The fix of a value --allow-replace cannot match: the names of the changes it can accept."""
    acceptable = [short_name(c, report.changes) for c in report.refused if c.allowable]
    if not acceptable:
        return "this diff refuses no change that --allow-replace can accept: drop the flag"
    return f"pass one of: {', '.join(acceptable)} (a change's name, its type::name, or its URN)"
