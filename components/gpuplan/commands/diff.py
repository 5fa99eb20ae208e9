"""`gpuplan diff`: what a stack-file change will create, update, replace or delete, before `pulumi up`."""

from __future__ import annotations

import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer

from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import STACK_FILE, read_text
from gpuplan.cli import layout, options, output, signals
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.diff.names import short_name
from gpuplan.diff.revisions import default_revision, read_revision, run_labelled

AgainstRevision = Annotated[
    str | None,
    typer.Option(
        "--against",
        help="Git revision of the same stack file to compare with (what is deployed), e.g. origin/main; default: "
        "HEAD where git tracks the stack file.",
    ),
]
AgainstStackFile = Annotated[
    Path | None, typer.Option("--against-config", help="Another stack file to compare with (what is deployed).")
]
AllowedReplacements = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-replace",
        help="Accept one refused replace/delete on purpose: its name as gpuplan diff prints it (the resource's "
        "name, or type::name), or its URN. Repeatable.",
    ),
]

_SYMBOL = {"create": "+", "update": "~", "replace": "+-", "delete": "-"}
_COLOUR = {"create": "green", "update": "yellow", "replace": "magenta", "delete": "red"}
_MAX_PATHS = 8


def _text(value: Any) -> str:
    from gpuplan.diff.compare import _MISSING

    if value is _MISSING:
        return "(none)"
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text.replace("\n", "\\n")


def change_text(old: Any, new: Any) -> str:
    """`old → new` for a changed value: whole when short; else where the two differ, with the same text before
    and after it counted, not shown (two long CEL selectors that share a beginning show their difference)."""
    before, after = layout.difference(_text(old), _text(new))
    return f"{before} → {after}"


def render_text(report, console) -> None:
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
            output.say(console, f"       {path}{value}{forces}{rolls}")
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
            output.say(console, f"       note: {consequence}")
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
            output.say(console, f"  x {change.urn}")
            output.say(console, f"    what would be lost: {change.why}")
            if change.how:
                output.say(console, f"    how to do it safely: {change.how}")
            if not change.allowable:
                console.print("    --allow-replace cannot accept it: the cloud refuses this step", markup=False)
            else:
                output.say(
                    console, f"    to accept it on purpose: --allow-replace {short_name(change, report.changes)}"
                )
        if any(c.allowable for c in report.refused):
            console.print("\nTo accept one on purpose: --allow-replace NAME (repeatable; the URN works too).")
    elif any(c.allowed for c in report.changes):
        console.print("\n[cyan]refused changes accepted on purpose with --allow-replace[/]")


def offer_names(report) -> str:
    """The fix of a value --allow-replace cannot match: the names of the changes it can accept."""
    acceptable = [short_name(c, report.changes) for c in report.refused if c.allowable]
    if not acceptable:
        return "this diff refuses no change that --allow-replace can accept: drop the flag"
    return f"pass one of: {', '.join(acceptable)} (a change's name, its type::name, or its URN)"


def diff(
    stack: options.StackName = None,
    config: options.StackFile = None,
    against: AgainstRevision = None,
    against_config: AgainstStackFile = None,
    allow_replace: AllowedReplacements = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
) -> None:
    """Compare the stack file with what is deployed (a git revision or another file): create, update, replace,
    delete per resource. Exit 1 when a change would replace or delete a node pool, cluster, protected resource
    or a namespace with claim templates (unless --allow-replace names it)."""

    def body() -> int:
        from gpuplan.diff.compare import allow, diff_runs

        name, stack_file = options.resolve_stack(stack, config)
        if against is not None and against_config is not None:
            raise InputError(
                [
                    Problem(
                        "(command line)",
                        "--against/--against-config",
                        against,
                        "give one thing to compare with, not both",
                        "pass --against REV (git) or --against-config FILE",
                    )
                ]
            )
        read_text(stack_file, STACK_FILE, missing_fix="check --stack/--config")  # a readable stack file first
        revision = against
        if against is None and against_config is None:
            revision = default_revision(stack_file)  # HEAD where git tracks the file, else exit 2
        if revision is not None:
            text, label = read_revision(stack_file, name, revision)
            if against is None:
                output.error_console().print(
                    f"gpuplan diff: no --against given; comparing with {label} (the last commit)", markup=False
                )
        else:
            try:
                text = read_text(
                    against_config,
                    replace(STACK_FILE, what="stack file to compare with"),
                    missing_fix="check the path given to --against-config",
                )
            except InputError as error:
                raise InputError(
                    [replace(p, path="--against-config") for p in error.problems], "--against-config"
                ) from None
            label = str(against_config)
        with (
            output.status(format, f"gpuplan diff: running stack {name} as of {label}") as step,
            tempfile.TemporaryDirectory(prefix="gpuplan-diff-") as tmp,
        ):
            signals.remove_on_exit(Path(tmp))  # a signal during the run exits at once (gpuplan/cli/signals.py)
            # Same file name as the stack file: same stack name, so the URNs of both runs match.
            before_path = Path(tmp) / stack_file.name
            before_path.write_text(text, encoding="utf-8")
            before = run_labelled(before_path, label)
            signals.forget(Path(tmp))
            step(f"gpuplan diff: running stack {name} as {stack_file} has it")
            after = run_labelled(stack_file, str(stack_file))
        report = diff_runs(before, after, against=label)
        unmatched = allow(report, allow_replace or [])
        if unmatched:
            raise InputError(
                [
                    Problem(
                        "(command line)",
                        "--allow-replace",
                        value,
                        "names no change in this diff (or more than one)",
                        offer_names(report),
                    )
                    for value in unmatched
                ]
            )
        failed = output.write_and_emit(
            options.out_dir(out, name),
            "diff.json",
            report.as_json(),
            format,
            lambda: render_text(report, output.console()),
        )
        return failed or (ExitCode.FINDINGS if report.refused else ExitCode.OK)

    raise typer.Exit(run_command(format, body))
