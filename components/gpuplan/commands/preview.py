"""`gpuplan preview`: run the program offline, print the tree, write plan.json and manifests, validate them."""

from __future__ import annotations

from gpuplan.commands import options
from gpuplan.commands.common import Job, Result, stack_command
from gpuplan.engine.outputs import PREVIEW_ENTRIES
from gpuplan.output.emit import OutputFormat

DOING = (
    "running the program of stack {stack} offline and validating its manifests"  # the live status line while it works
)


def preview(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: options.OutDir = None,
    format: options.Format = OutputFormat.text,
) -> None:
    """Run the stack's program offline (or your own with --project): resource tree, plan.json, manifests, schema
    validation."""

    def work(job: Job) -> Result:
        from gpuplan.preview.report import preview_report

        report = preview_report(job.source, job.out)
        return Result(
            report.as_json(),
            report.render_text,
            findings=report.findings,
            files=report.preview.files,
            owned=PREVIEW_ENTRIES,
            wrote=report.wrote(),
        )

    stack_command("preview", DOING, work, format, stack, config, project, out)
