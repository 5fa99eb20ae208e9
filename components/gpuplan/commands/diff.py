"""`gpuplan diff`: what a stack-file change will create, update, replace or delete, before `pulumi up`."""

from __future__ import annotations

import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import STACK_FILE, read_text
from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.engine.sources import StackFileSource
from gpuplan.output import emit, signals
from gpuplan.output.emit import OutputFormat

AgainstRevision = Annotated[
    str | None,
    typer.Option(
        "--against",
        metavar="REV",
        help="Git revision of the same stack file to compare with (what is deployed), e.g. origin/main; default: "
        "HEAD where git tracks the stack file.",
    ),
]
AgainstStackFile = Annotated[
    Path | None,
    typer.Option("--against-config", metavar="FILE", help="Another stack file to compare with (what is deployed)."),
]
AllowedReplacements = Annotated[
    list[str] | None,
    typer.Option(
        "--allow-replace",
        metavar="NAME",
        help="Accept one refused replace/delete on purpose: its name as gpuplan diff prints it (the resource's "
        "name, or type::name), or its URN. Repeatable.",
    ),
]

DOING = "comparing stack {stack} with what is deployed"  # the live status line while it works


def diff(
    stack: options.StackName = None,
    config: options.StackFile = None,
    against: AgainstRevision = None,
    against_config: AgainstStackFile = None,
    allow_replace: AllowedReplacements = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
) -> None:
    """Compare the stack file with what is deployed (a git revision or another file): create, update, replace,
    delete per resource. Exit 1 when a change would replace or delete a node pool, cluster, protected resource
    or a namespace with claim templates (unless --allow-replace names it)."""

    def work(job: Job) -> Result:
        from gpuplan.diff.report import allow, diff_runs
        from gpuplan.diff.revisions import default_revision, read_revision, run_labelled
        from gpuplan.diff.text import offer_names, render_text

        source = job.source
        assert isinstance(source, StackFileSource)  # diff compares stack files (no --project)
        name, stack_file = source.stack, source.path
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
                emit.error_console().print(
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
        job.step(f"gpuplan diff: running stack {name} as of {label}")
        with tempfile.TemporaryDirectory(prefix="gpuplan-diff-") as tmp:
            signals.remove_on_exit(Path(tmp))  # a signal during the run exits at once (gpuplan/output/signals.py)
            # Same file name as the stack file: same stack name, so the URNs of both runs match.
            before_path = Path(tmp) / stack_file.name
            before_path.write_text(text, encoding="utf-8")
            before = run_labelled(StackFileSource(name, before_path), label)
            signals.forget(Path(tmp))
        job.step(f"gpuplan diff: running stack {name} as {stack_file} has it")
        after = run_labelled(source, str(stack_file))
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
        return Result(report.as_json(), lambda console: render_text(report, console), findings=bool(report.refused))

    stack_command("diff", DOING, work, format, stack, config, None, out)
