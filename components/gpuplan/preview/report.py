"""The `gpuplan preview` report: the preview of gpuplan/preview/stack.py with the modelled first `pulumi up`
(gpuplan/timing/) and each GPU pool's capacity and cost, as the JSON document on stdout and as text for people
(the resource tree, notes, the manifest validation, the critical path, the capacity table)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.console import Console

from dra_gpu_platform.plans.capacity import Capacity, stack_capacity
from gpuplan.engine.sources import StackSource
from gpuplan.output import emit
from gpuplan.preview import capacity_table
from gpuplan.preview.stack import Preview, render_preview
from gpuplan.preview.tree import render_tree
from gpuplan.timing import critical_path
from gpuplan.timing.deploy_model import DeployModel


@dataclass
class PreviewReport:
    stack: str
    out: Path
    preview: Preview
    deploy: DeployModel
    capacity: Capacity | None

    @property
    def notes(self) -> list[str]:
        return [message for _severity, message in self.preview.run.logs]

    @property
    def findings(self) -> bool:
        """Exit 1: an invalid manifest."""
        return bool(self.preview.errors)

    def as_json(self) -> dict[str, Any]:
        preview = self.preview
        document: dict[str, Any] = {
            "stack": self.stack,
            "resources": len(preview.run.resources),
            "plan": str(self.out / "plan.json"),
            "manifests": [str(p) for p in preview.manifests],
            "validation": {"kubernetesVersions": list(preview.checked), "errors": [e.__dict__ for e in preview.errors]},
            "notes": self.notes,
            "criticalPath": critical_path.as_json(self.deploy),
        }
        if self.capacity is not None:
            document["capacity"] = self.capacity.as_json()
        return document

    def render_text(self, console: Console) -> None:
        preview = self.preview
        render_tree(preview.run, console)
        for note in self.notes:
            emit.say(console, f"note: {note}", style="yellow", lead=len("note:"))
        if preview.errors:
            console.print(f"[bold red]{len(preview.errors)} manifest validation error(s)[/]:")
            for error in preview.errors:
                emit.say(console, "  " + error.render())
        else:
            emit.say(
                console,
                f"✓ all manifests valid (kubernetes-validate --strict, Kubernetes {', '.join(preview.checked)})",
                style="green",
                lead=1,
            )
        for line in critical_path.text_lines(self.deploy):
            emit.say(console, line)
        for line in capacity_table.text_lines(self.capacity) if self.capacity is not None else ():
            emit.say(console, line)

    def wrote(self) -> str:
        return (
            f"Wrote {self.out / 'plan.json'} and {len(self.preview.manifests)} manifests under {self.out / 'manifests'}"
        )


def preview_report(source: StackSource, out: Path) -> PreviewReport:
    """Run the program, render and validate every output (nothing written yet), and model the deploy."""
    preview = render_preview(source, out)
    run = preview.run
    capacity = stack_capacity(run.plan) if run.plan is not None else None
    return PreviewReport(source.stack, out, preview, critical_path.model_run(run), capacity)
