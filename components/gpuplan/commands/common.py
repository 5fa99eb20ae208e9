"""The one shape of a command: resolve the stack (--stack, --config or --project), show what is being done while
the feature folder works, show and write its result, exit 0 or 1 (findings); whatever is raised becomes the
contract's exit codes (gpuplan/commands/runner.py). A command module declares its options and wires its feature
folder's report into a `Result`; a new command is a small file (and one line in gpuplan/app.py):

    DOING = "planning the upgrade of stack {stack}"  # the live status line while it works

    def upgrade(stack: options.StackName = None, config: options.StackFile = None,
                project: options.ProjectDir = None, out: options.OutDir = None,
                format: options.Format = OutputFormat.text) -> None:
        # its docstring is its `--help`

        def work(job: Job) -> Result:
            report = plan_upgrade(job.source.plan())  # the feature folder's work and its report
            return Result(report.as_json(), report.render_text, findings=bool(report.blockers))

        stack_command("upgrade", DOING, work, format, stack, config, project, out)  # writes <out>/upgrade.json
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer
from rich.console import Console

from gpuplan.commands.runner import run_command
from gpuplan.engine.sources import StackSource, resolve_source
from gpuplan.output import emit
from gpuplan.output.emit import OutputFormat
from gpuplan.output.exit_codes import ExitCode


@dataclass(frozen=True)
class Result:
    """What a command shows and writes, made from its feature folder's report."""

    document: Any  # the JSON: on stdout with --format json, and under --out
    text: Callable[[Console], None]  # the text view, printed on the console it is given
    findings: bool = False  # exit 1
    # What lands in --out (path relative to it -> text); None: the document as <command>.json; {}: nothing.
    files: Mapping[str, str] | None = None
    owned: tuple[
        str, ...
    ] = ()  # top-level entries of --out this command replaces as a whole (gpuplan/output/atomic_out.py)
    wrote: str | None = None  # the line saying what was written; None: "Wrote <each file>"; "": none


@dataclass(frozen=True)
class Job:
    """What a command's work gets: the stack, where its outputs go, and the live status line to update."""

    source: StackSource
    out: Path
    step: Callable[[str], None]


def run(fmt: OutputFormat, body: Callable[[], int]) -> NoReturn:
    """Run a command's body under the exit-code contract and exit with its code."""
    raise typer.Exit(run_command(fmt, body))


def publish(result: Result, out: Path | None, filename: str, fmt: OutputFormat) -> int:
    """Show the result and write its files under `out` at once (nothing when `out` is None or there are no files);
    the exit code: 2 when the files could not be written, 1 on findings, else 0."""
    files = result.files if result.files is not None else {filename: emit.dumps(result.document)}
    console = emit.console()
    if out is None or not files:
        if fmt == OutputFormat.json:
            emit.emit_json(result.document)
        else:
            result.text(console)
        return ExitCode.FINDINGS if result.findings else ExitCode.OK
    wrote = result.wrote if result.wrote is not None else "Wrote " + ", ".join(str(out / name) for name in files)
    failed = emit.publish(
        out,
        files,
        result.document,
        fmt,
        lambda: result.text(console),
        owned=result.owned,
        after_write=(lambda: emit.say(console, wrote)) if wrote else None,
    )
    return failed or (ExitCode.FINDINGS if result.findings else ExitCode.OK)


def stack_command(
    command: str,
    doing: str,
    work: Callable[[Job], Result],
    fmt: OutputFormat,
    stack: str | None,
    config: Path | None,
    project: Path | None = None,
    out: Path | None = None,
) -> NoReturn:
    """A command on one stack. `doing` is the live status line (`{stack}` is the stack's name); the result is
    written as <out>/<command>.json unless it names its files."""

    def body() -> int:
        source = resolve_source(stack, config, project)
        target = source.out_dir(out)
        with emit.status(fmt, f"gpuplan {command}: {doing.format(stack=source.stack)}") as step:
            result = work(Job(source, target, step))
        return publish(result, target, f"{command}.json", fmt)

    run(fmt, body)
