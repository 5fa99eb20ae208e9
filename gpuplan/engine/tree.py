"""The resource tree, printed like `pulumi preview` prints it."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

from dra_gpu_platform.facts.type_tokens import Upstream
from gpuplan.engine.runtime import ProgramRun, Registration


def _children(run: ProgramRun) -> dict[str, list[Registration]]:
    children: dict[str, list[Registration]] = {}
    for resource in run.resources:
        children.setdefault(resource.parent, []).append(resource)
    return children


def render_tree(run: ProgramRun, console: Console) -> None:
    table = Table(box=None, show_edge=False, pad_edge=False, header_style="bold")
    table.add_column("", width=2)
    table.add_column("Type")
    table.add_column("Name")
    table.add_column("Plan")
    table.add_column("Info", style="dim")
    table.add_row("+", Upstream.STACK, f"{run.project}-{run.stack}", "create", "")
    children = _children(run)

    def walk(parent: str, prefix: str) -> None:
        kids = sorted(children.get(parent, []), key=lambda r: (r.type, r.name))
        for index, resource in enumerate(kids):
            last = index == len(kids) - 1
            branch = "└─ " if last else "├─ "
            info = []
            if resource.protect:
                info.append("protected")
            if resource.provider:
                info.append("provider: " + resource.provider.rsplit("::", 1)[-1])
            table.add_row("+", f"{prefix}{branch}{resource.type}", resource.name, "create", ", ".join(info))
            walk(resource.urn, prefix + ("   " if last else "│  "))

    walk("", " ")
    console.print(table)
    custom = sum(1 for r in run.resources if r.custom)
    console.print(
        f"\nResources:\n    [green]+ {len(run.resources) + 1} to create[/] ({custom} custom, "
        f"{len(run.resources) - custom} components, 1 stack)"
    )
