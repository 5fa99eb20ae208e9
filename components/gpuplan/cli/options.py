"""The options gpuplan commands share, each declared once (`typing.Annotated`, Typer's current style), and how
--stack / --config / --project turn into the stack a command works on.

- `--config FILE`: any stack file, anywhere; the stack name is the file name's.
- `--stack NAME`: `Pulumi.NAME.yaml` of the Pulumi project around the working directory (its Pulumi.yaml's
  stackConfigDir), or of `--project DIR` where a command takes it.
- `--project DIR --stack NAME` (preview, policy): the user's own Pulumi program in DIR (gpuplan/engine/user_program.py).
"""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from dra_gpu_platform.config.loading import stack_name_from_path
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from gpuplan.engine.project import enclosing_project_root, read_project
from gpuplan.engine.sources import ProgramSource, ProjectSource, StackFileSource


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


StackName = Annotated[
    str | None,
    typer.Option(
        "--stack",
        help="Stack name: reads Pulumi.<NAME>.yaml from the stackConfigDir of the Pulumi project you are in "
        "(stacks/ here).",
    ),
]
StackFile = Annotated[
    Path | None,
    typer.Option("--config", help="Any stack file (same format), anywhere; stack name from the file name."),
]
ProjectDir = Annotated[
    Path | None,
    typer.Option(
        "--project",
        help="Your own Pulumi Python program (the folder of its Pulumi.yaml), run offline for --stack NAME.",
    ),
]
OutDir = Annotated[Path | None, typer.Option("--out", help="Output folder (default build/<stack>).")]
Format = Annotated[OutputFormat, typer.Option("--format", help="text for people, json for machines.")]


def _command_line(path: str, value: object, rule: str, fix: str) -> InputError:
    return InputError([Problem("(command line)", path, value, rule, fix)], "the command line")


def stack_file_of_working_project(stack: str) -> Path:
    """--stack NAME without --project: the stack file of the Pulumi project around the working directory."""
    root = enclosing_project_root(Path.cwd())
    if root is None:
        raise _command_line(
            "--stack",
            stack,
            f"no Pulumi.yaml in {Path.cwd()} or above, so there is no project whose stack {stack} this could be",
            "run gpuplan inside your Pulumi project, or pass the stack file with --config FILE",
        )
    return read_project(root).stack_file(stack)


def resolve_stack(stack: str | None, config: Path | None) -> tuple[str, Path]:
    """(stack name, stack file) from --stack or --config."""
    if stack and config:
        raise _command_line(
            "--stack/--config", f"{stack} / {config}", "give --stack or --config, not both", "drop one of them"
        )
    if config is not None:
        return stack_name_from_path(config), Path(config)
    if stack:
        return stack, stack_file_of_working_project(stack)
    raise _command_line("--stack", None, "no stack chosen", "pass --stack NAME or --config FILE")


def resolve_source(stack: str | None, config: Path | None, project: Path | None) -> ProgramSource:
    """What preview and policy run: a stack file through the package's program, or the program in --project."""
    if project is None:
        name, stack_file = resolve_stack(stack, config)
        return StackFileSource(name, stack_file)
    if config is not None:
        raise _command_line(
            "--project/--config",
            f"{project} / {config}",
            "give --project (your program and its stack) or --config (a stack file), not both",
            "drop one of them; with --project the stack's config is the project's Pulumi.<stack>.yaml",
        )
    if not stack:
        raise _command_line(
            "--stack", MISSING, "--project needs the stack to run", "pass --stack NAME (the program sees that stack)"
        )
    return ProjectSource(stack, Path(project))


def out_dir(out: Path | None, stack: str) -> Path:
    return Path(out) if out is not None else Path("build") / stack
