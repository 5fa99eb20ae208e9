"""What every gpuplan command shares: stack selection, output folder, text/json output, exit codes."""

from __future__ import annotations

import json
import os
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Any, Callable, NoReturn, Optional

import typer
from rich.console import Console

from components.config.loading import stack_file_path, stack_name_from_path
from components.config.problems import InputError, Problem

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_INVALID = 2

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


StackOption = typer.Option(None, "--stack", help="Stack name: reads stacks/Pulumi.<NAME>.yaml.")
ConfigOption = typer.Option(None, "--config", help="Any stack file (same format); stack name from the file name.")
OutOption = typer.Option(None, "--out", help="Output folder (default build/<stack>).")
FormatOption = typer.Option(OutputFormat.text, "--format", help="text for people, json for machines.")


def console() -> Console:
    # Off a terminal (CI logs, pipes) rich would wrap at 80 columns and mangle the tree.
    probe = Console()
    return Console(highlight=False, width=None if probe.is_terminal else 200)


def resolve_stack(stack: Optional[str], config: Optional[Path]) -> tuple[str, Path]:
    """(stack name, stack file) from --stack or --config."""
    if stack and config:
        fail_input([Problem("(command line)", "--stack/--config", f"{stack} / {config}", "give --stack or --config, not both", "drop one of them")])
    if config is not None:
        return stack_name_from_path(config), Path(config)
    if stack:
        return stack, stack_file_path(stack, PROJECT_ROOT)
    fail_input([Problem("(command line)", "--stack", None, "no stack chosen", "pass --stack NAME or --config FILE")])


def out_dir(out: Optional[Path], stack: str) -> Path:
    return Path(out) if out is not None else Path("build") / stack


def emit_json(document: Any) -> None:
    sys.stdout.write(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n")


def write_and_emit(target: Path, filename: str, document: Any, fmt: "OutputFormat", render_text: Callable[[], None]) -> Path:
    """Every command's result: `<out>/<filename>` as JSON, then the same JSON on stdout or the text view."""
    target.mkdir(parents=True, exist_ok=True)
    path = target / filename
    path.write_text(json.dumps(document, indent=2, sort_keys=True, default=str) + "\n", encoding="utf-8")
    if fmt == OutputFormat.json:
        emit_json(document)
    else:
        render_text()
    return path


_FORMAT = {"value": OutputFormat.text}


def set_format(fmt: OutputFormat) -> None:
    _FORMAT["value"] = fmt


def fail_input(problems: list[Problem], what: str = "input") -> NoReturn:
    raise InputError(problems, what)


def report_input_error(error: InputError) -> int:
    if _FORMAT["value"] == OutputFormat.json:
        emit_json({"errors": [p.as_json() for p in error.problems]})
    else:
        err = Console(stderr=True, highlight=False, soft_wrap=True)
        err.print(f"[bold red]error:[/] {len(error.problems)} problem(s) in {error.what}", markup=True)
        for problem in error.problems:
            err.print("- " + problem.render(), markup=False)
    return EXIT_INVALID


def guarded(body: Callable[[], int]) -> int:
    """Run a command body; invalid input becomes exit 2 with every problem listed, never a traceback."""
    from gpuplan.engine.runtime import ProgramError

    try:
        return body()
    except InputError as error:
        return report_input_error(error)
    except ProgramError as error:
        return report_input_error(InputError([Problem("(program)", "", "", str(error), "fix the stack file as the message says")], "the stack"))
    except KeyboardInterrupt:
        return 130
    except Exception as error:  # a bug in gpuplan: say so plainly; the traceback only on request
        if os.environ.get("GPUPLAN_DEBUG"):
            traceback.print_exc()
        Console(stderr=True).print(
            f"[bold red]internal error:[/] {type(error).__name__}: {error}\n"
            "This is a bug in gpuplan, not in your input. Rerun with GPUPLAN_DEBUG=1 for the traceback.",
            markup=True,
        )
        return EXIT_INVALID
