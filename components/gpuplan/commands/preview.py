"""`gpuplan preview`: run the program offline, print the tree, write plan.json and manifests, validate them."""

from __future__ import annotations

import typer

from dra_gpu_platform.plans.capacity import stack_capacity
from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.engine import capacity_table
from gpuplan.engine.outputs import PREVIEW_ENTRIES
from gpuplan.engine.preview import render_preview


def preview(
    stack: options.StackName = None,
    config: options.StackFile = None,
    project: options.ProjectDir = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
) -> None:
    """Run the stack's program offline (or your own with --project): resource tree, plan.json, manifests, schema
    validation."""

    def body() -> int:
        source = options.resolve_source(stack, config, project)
        name = source.stack
        target = options.out_dir(out, name)
        with output.status(
            format, f"gpuplan preview: running the program of stack {name} offline and validating its manifests"
        ):
            preview = render_preview(source, target)
        run, manifests, checked, errors = preview.run, preview.manifests, preview.checked, preview.errors
        notes = [message for severity, message in run.logs]
        from gpuplan.timing import critical_path

        deploy = critical_path.model_run(run)
        capacity = stack_capacity(run.plan) if run.plan is not None else None
        document = {
            "stack": name,
            "resources": len(run.resources),
            "plan": str(target / "plan.json"),
            "manifests": [str(p) for p in manifests],
            "validation": {"kubernetesVersions": list(checked), "errors": [e.__dict__ for e in errors]},
            "notes": notes,
            "criticalPath": critical_path.as_json(deploy),
        }
        if capacity is not None:
            document["capacity"] = capacity.as_json()
        console = output.console()

        def render_text() -> None:
            from gpuplan.engine.tree import render_tree

            render_tree(run, console)
            for note in notes:
                output.say(console, f"note: {note}", style="yellow", lead=len("note:"))
            if errors:
                console.print(f"[bold red]{len(errors)} manifest validation error(s)[/]:")
                for error in errors:
                    output.say(console, "  " + error.render())
            else:
                output.say(
                    console,
                    f"✓ all manifests valid (kubernetes-validate --strict, Kubernetes {', '.join(checked)})",
                    style="green",
                    lead=1,
                )
            for line in critical_path.text_lines(deploy):
                output.say(console, line)
            for line in capacity_table.text_lines(capacity) if capacity is not None else ():
                output.say(console, line)

        def wrote() -> None:
            output.say(
                console, f"Wrote {target / 'plan.json'} and {len(manifests)} manifests under {target / 'manifests'}"
            )

        failed = output.publish(
            target, preview.files, document, format, render_text, owned=PREVIEW_ENTRIES, after_write=wrote
        )
        return failed or (ExitCode.FINDINGS if errors else ExitCode.OK)

    raise typer.Exit(run_command(format, body))
