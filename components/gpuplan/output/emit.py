"""How gpuplan prints: the text console, JSON documents on stdout, and each command's outputs under --out.

A command's result is printed before its files are written (gpuplan/output/atomic_out.py), so a folder that cannot
be written never costs the analysis: the text is on screen, the write problem follows with its fix, exit 2.
With --format json there is exactly one JSON document on stdout, whatever happens: the result, the result with
an `errors` list when writing failed, or `{"errors": [...]}`.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from enum import Enum
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.text import Text

from dra_gpu_platform.inputs.problems import InputError, short_text
from gpuplan.output import atomic_out, layout
from gpuplan.output.exit_codes import ExitCode


class OutputFormat(str, Enum):
    """`--format`: text for people, json for machines (one JSON document on stdout, whatever happens)."""

    text = "text"
    json = "json"


def console() -> Console:
    """stdout for text: the terminal's width (or $COLUMNS); in a pipe lines are left whole (gpuplan/output/layout.py)."""
    return layout.text_console()


def say(console: Console, text: str, *, style: str | None = None, lead: int = 0) -> None:
    """Print `text` (plain, no markup): on a terminal broken at spaces to its width, further lines indented under
    the first; in a pipe on one line. `style` colours its first `lead` characters (a `note:` label), or all of it."""
    lines = (
        layout.wrap(text, console.width, hanging="      " if lead else "    ")
        if layout.breaks_lines(console)
        else [text]
    )
    for number, line in enumerate(lines):
        if style and number == 0 and lead:
            console.print(Text(line[:lead], style=style) + Text(line[lead:]), soft_wrap=True)
        else:
            console.print(Text(line, style=style or ""), soft_wrap=True)


@contextmanager
def status(fmt: OutputFormat, message: str) -> Iterator[Callable[[str], None]]:
    """A live status line (a spinner and what is being done) on stderr while a slow step runs, only where a person
    watches: text output to a terminal. Never in a pipe, a CI log or with --format json. Yields a function that
    changes the message."""
    err = error_console()
    if fmt != OutputFormat.text or not err.is_terminal or err.is_dumb_terminal:
        yield lambda text: None
        return
    with err.status(message) as shown:
        yield shown.update


def error_console() -> Console:
    return Console(stderr=True, highlight=False, soft_wrap=True)


def dumps(document: Any) -> str:
    return json.dumps(document, indent=2, sort_keys=True, default=str) + "\n"


def emit_json(document: Any) -> None:
    sys.stdout.write(dumps(document))
    sys.stdout.flush()


def publish(
    target: Path,
    files: Mapping[str, str],
    document: Any,
    fmt: OutputFormat,
    render_text: Callable[[], None],
    *,
    owned: Iterable[str] = (),
    after_write: Callable[[], None] | None = None,
) -> int | None:
    """Show the result and write `files` under `target` all at once. Returns None when written, else
    ExitCode.INVALID_INPUT with the problem shown (stderr, or the JSON document's `errors`)."""
    if fmt == OutputFormat.json:
        try:
            atomic_out.commit(target, files, owned=owned)
        except atomic_out.OutputError as error:
            emit_json({**document, "errors": [p.as_json() for p in error.problems]})
            return ExitCode.INVALID_INPUT
        emit_json(document)
        return None
    render_text()
    try:
        atomic_out.commit(target, files, owned=owned)
    except atomic_out.OutputError as error:
        report_input_error(error, fmt)
        return ExitCode.INVALID_INPUT
    if after_write is not None:
        after_write()
    return None


def write_and_emit(
    target: Path, filename: str, document: Any, fmt: OutputFormat, render_text: Callable[[], None]
) -> int | None:
    """Every command's result: the same JSON as `<out>/<filename>` and on stdout (or the text view)."""
    return publish(target, {filename: dumps(document)}, document, fmt, render_text)


def report_input_error(error: InputError, fmt: OutputFormat) -> None:
    """Every problem at once: file, field path, value, rule, fix; on stdout as JSON with --format json."""
    if fmt == OutputFormat.json:
        emit_json({"errors": [p.as_json() for p in error.problems]})
        return
    err = error_console()
    err.print(
        f"[bold red]error:[/] {len(error.problems)} problem(s) in {escape(short_text(error.what, 300))}", markup=True
    )
    for problem in error.problems:
        err.print("- " + problem.render(), markup=False)
