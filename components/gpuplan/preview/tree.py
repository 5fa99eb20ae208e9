"""The resource tree, printed like `pulumi preview` prints it, in the console's width: aligned columns (type, name,
info) where they fit; else each resource on one line where it fits and, where it does not, its name on a second
line under its type. Names and types are never cut; the one Kubernetes provider every resource shares is said
once under the tree."""

from __future__ import annotations

from dataclasses import dataclass

from rich.cells import cell_len
from rich.console import Console
from rich.markup import escape

from dra_gpu_platform.facts.type_tokens import Upstream
from gpuplan.engine.runtime import ProgramRun, Registration
from gpuplan.output import layout


@dataclass(frozen=True)
class Row:
    branch: str  # the tree drawing before the type: "   ├─ "
    below: str  # the drawing of the lines under this one: "   │  "
    type: str
    name: str
    info: str


def _children(run: ProgramRun) -> dict[str, list[Registration]]:
    children: dict[str, list[Registration]] = {}
    for resource in run.resources:
        children.setdefault(resource.parent, []).append(resource)
    return children


def _provider(resource: Registration) -> str:
    return resource.provider.rsplit("::", 1)[-1] if resource.provider else ""


def tree_rows(run: ProgramRun) -> tuple[list[Row], str | None]:
    """The rows of the tree and the provider every provider-bound resource shares (None: they differ, so each
    row names its own)."""
    providers = {_provider(r) for r in run.resources if r.provider}
    shared = next(iter(providers)) if len(providers) == 1 else None
    rows = [Row("", " ", Upstream.STACK, f"{run.project}-{run.stack}", "")]
    children = _children(run)

    def walk(parent: str, prefix: str) -> None:
        kids = sorted(children.get(parent, []), key=lambda r: (r.type, r.name))
        for index, resource in enumerate(kids):
            last = index == len(kids) - 1
            info = ["protected"] if resource.protect else []
            if resource.provider and shared is None:
                info.append("provider: " + _provider(resource))
            below = prefix + ("   " if last else "│  ")
            rows.append(Row(prefix + ("└─ " if last else "├─ "), below, resource.type, resource.name, ", ".join(info)))
            walk(resource.urn, below)

    walk("", " ")
    return rows, shared


def tree_lines(run: ProgramRun, width: int) -> list[str]:
    """The tree as plain lines of at most `width` cells where a line can be that short (a name or type longer than
    the width stays whole)."""
    rows, shared = tree_rows(run)
    heads = [f"+ {row.branch}{row.type}" for row in rows]
    type_width = max(cell_len(head) for head in heads)
    name_width = max(cell_len(row.name) for row in rows)
    info_width = max(cell_len(row.info) for row in rows)
    aligned = type_width + 2 + name_width + (2 + info_width if info_width else 0)
    lines: list[str] = []
    if aligned <= width:
        lines.append(f"{'  Type':<{type_width}}  {'Name':<{name_width}}" + ("  Info" if info_width else ""))
        for head, row in zip(heads, rows, strict=True):
            line = f"{head:<{type_width}}  {row.name:<{name_width}}  {row.info}"
            lines.append(line.rstrip())
    else:
        for head, row in zip(heads, rows, strict=True):
            one = f"{head}  {row.name}" + (f"  ({row.info})" if row.info else "")
            if cell_len(one) <= width:
                lines.append(one)
            else:
                lines.append(head)
                continuation = f"  {row.below}   "
                second = f"{continuation}{row.name}" + (f"  ({row.info})" if row.info else "")
                if cell_len(second) <= width or not row.info:
                    lines.append(second)
                else:  # the name alone on its line, what is said of it on the next
                    lines += [f"{continuation}{row.name}", f"{continuation}({row.info})"]
    if shared:
        lines.append(f"Provider of every resource above that names one: {shared}")
    return lines


def render_tree(run: ProgramRun, console: Console) -> None:
    for line in tree_lines(run, layout.layout_width(console)):
        console.print(escape(line), soft_wrap=True, highlight=False)
    custom = sum(1 for r in run.resources if r.custom)
    console.print(
        f"\nResources:\n    [green]+ {len(run.resources) + 1} to create[/] ({custom} custom, "
        f"{len(run.resources) - custom} components, 1 stack)"
    )
