"""Runs a command's body and turns what it raises into the contract's exit codes: invalid input is exit 2 with
every problem listed, a bug is exit 3 with one line and the traceback in a file, never a traceback on screen."""

from __future__ import annotations

import os
import tempfile
import traceback
from typing import Callable

from components.config.problems import InputError, Problem
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.options import OutputFormat
from gpuplan.cli.output import emit_json, error_console, report_input_error
from gpuplan.engine.runtime import ProgramError


def run_command(fmt: OutputFormat, body: Callable[[], int]) -> int:
    try:
        return int(body())
    except InputError as error:
        report_input_error(error, fmt)
        return ExitCode.INVALID_INPUT
    except ProgramError as error:
        report_input_error(InputError([Problem("(program)", "", "", str(error), "fix the stack file as the message says")],
                                      "the stack"), fmt)
        return ExitCode.INVALID_INPUT
    except KeyboardInterrupt:
        return ExitCode.INTERRUPTED
    except Exception as error:  # a bug in gpuplan, not in the input
        return report_internal_error(error, fmt)


def report_internal_error(error: BaseException, fmt: OutputFormat) -> int:
    where = write_traceback(error)
    summary = f"{type(error).__name__}: {error}"
    if fmt == OutputFormat.json:
        emit_json({"errors": [{"kind": "internal", "message": summary, "traceback": where}]})
    error_console().print(
        f"[bold red]internal error[/] (a bug in gpuplan, not in your input): {summary}; traceback written to {where}",
        markup=True,
    )
    return ExitCode.INTERNAL_ERROR


def write_traceback(error: BaseException) -> str:
    """The traceback in a new file of the temp dir ($GPUPLAN_TRACEBACK_DIR when set): never in --out, which may be
    what failed."""
    directory = os.environ.get("GPUPLAN_TRACEBACK_DIR") or tempfile.gettempdir()
    try:
        handle, path = tempfile.mkstemp(prefix="gpuplan-traceback-", suffix=".txt", dir=directory)
        with os.fdopen(handle, "w", encoding="utf-8") as file:
            file.write("".join(traceback.format_exception(type(error), error, error.__traceback__)))
        return path
    except OSError as failure:
        return f"(not written: {failure})"
