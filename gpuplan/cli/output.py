"""How gpuplan prints: the text console, JSON documents on stdout, and each command's `<out>/<command>.json`."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, Callable

from rich.console import Console

from components.config.problems import InputError
from gpuplan.cli.options import OutputFormat


def console() -> Console:
    # Off a terminal (CI logs, pipes) rich would wrap at 80 columns and mangle the tree.
    probe = Console()
    return Console(highlight=False, width=None if probe.is_terminal else 200)


def error_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def dumps(document: Any) -> str:
    return json.dumps(document, indent=2, sort_keys=True, default=str) + "\n"


def emit_json(document: Any) -> None:
    sys.stdout.write(dumps(document))


def write_and_emit(target: Path, filename: str, document: Any, fmt: OutputFormat, render_text: Callable[[], None]) -> Path:
    """Every command's result: `<out>/<filename>` as JSON, then the same JSON on stdout or the text view."""
    target.mkdir(parents=True, exist_ok=True)
    path = target / filename
    path.write_text(dumps(document), encoding="utf-8")
    if fmt == OutputFormat.json:
        emit_json(document)
    else:
        render_text()
    return path


def report_input_error(error: InputError, fmt: OutputFormat) -> None:
    """Every problem at once: file, field path, value, rule, fix; on stdout as JSON with --format json."""
    if fmt == OutputFormat.json:
        emit_json({"errors": [p.as_json() for p in error.problems]})
        return
    err = error_console()
    err.print(f"[bold red]error:[/] {len(error.problems)} problem(s) in {error.what}", markup=True)
    for problem in error.problems:
        err.print("- " + problem.render(), markup=False)
