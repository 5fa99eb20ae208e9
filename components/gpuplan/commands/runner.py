"""Runs a command's body and turns what it raises into the contract's exit codes: invalid input or an unusable
environment is exit 2 with every problem listed, SIGINT/SIGTERM stop cleanly with 130/143 and one line, a bug is
exit 3 with one line and the traceback in a file, never a traceback on screen. With --format json each of these
prints one JSON document."""

from __future__ import annotations

import errno
import os
import signal
import sys
import tempfile
import traceback
from collections.abc import Callable

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem, short_text
from gpuplan.engine.runtime import ProgramError
from gpuplan.engine.user_program import UserProgramFailed
from gpuplan.output import atomic_out, signals
from gpuplan.output.emit import OutputFormat, dumps, emit_json, error_console, report_input_error
from gpuplan.output.exit_codes import ExitCode
from gpuplan.output.signals import signal_number

# OSErrors that are the machine's state, never gpuplan's logic: reported with the path (exit 2), not as bugs.
_ENVIRONMENT_ERRNOS = frozenset(
    {errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT, errno.EMFILE, errno.ENFILE}
)


def run_command(fmt: OutputFormat, body: Callable[[], int]) -> int:
    atomic_out.COMMITS.clear()  # what this command writes (an interrupt's message says it), not an earlier one
    signals.report_with(lambda signum: interrupt_texts(signum, fmt))  # for a signal during the program run
    try:
        return int(body())
    except InputError as error:
        report_input_error(error, fmt)
        return ExitCode.INVALID_INPUT
    except ProgramError as error:
        report_input_error(
            InputError(
                [Problem("(program)", "", "", str(error), "fix the stack file as the message says")], "the stack"
            ),
            fmt,
        )
        return ExitCode.INVALID_INPUT
    except UserProgramFailed as error:
        return report_program_failure(error, fmt)
    except KeyboardInterrupt as error:
        return report_interrupted(signal_number(error), fmt)
    except BrokenPipeError:
        return _stdout_closed()
    except OSError as error:
        if error.errno in _ENVIRONMENT_ERRNOS:
            report_input_error(_environment_problem(error), fmt)
            return ExitCode.INVALID_INPUT
        return report_internal_error(error, fmt)
    except MemoryError:
        report_input_error(
            InputError(
                [
                    Problem(
                        "(machine)",
                        "",
                        MISSING,
                        "gpuplan ran out of memory",
                        "give it more memory, or smaller input files",
                    )
                ],
                "the environment",
            ),
            fmt,
        )
        return ExitCode.INVALID_INPUT
    except Exception as error:  # a bug in gpuplan, not in the input
        return report_internal_error(error, fmt)


def _environment_problem(error: OSError) -> InputError:
    path = error.filename or "(unknown path)"
    fix = {
        errno.EROFS: "the file system is read-only: run where it is writable, or point --out (and TMPDIR) elsewhere",
        errno.ENOSPC: "free some space on that device",
        errno.EDQUOT: "free some space (the quota is exhausted)",
        errno.EMFILE: "raise the open-file limit (`ulimit -n`)",
        errno.ENFILE: "close other programs' files",
    }.get(error.errno, "give this user access to the path, or point --out (and TMPDIR) elsewhere")
    return InputError([Problem(str(path), "", MISSING, f"{error.strerror or error}", fix)], "the environment")


def interrupt_texts(signum: int, fmt: OutputFormat) -> tuple[str, str]:
    """(stderr line, stdout JSON document or "") of a command stopped by `signum`."""
    name = signal.Signals(signum).name
    message = atomic_out.interrupted(signum)
    document = dumps({"errors": [{"kind": "interrupted", "signal": name, "message": message}]})
    return message + "\n", document if fmt == OutputFormat.json else ""


def report_interrupted(signum: int, fmt: OutputFormat) -> int:
    stderr, stdout = interrupt_texts(signum, fmt)
    for stream, text in ((sys.stdout, stdout), (sys.stderr, stderr)):
        try:
            stream.write(text)
            stream.flush()
        except (OSError, ValueError):
            pass
    return 128 + signum


def _stdout_closed() -> int:
    # A reader that went away (`gpuplan preview | head`): say so once, without a traceback at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        error_console().print("gpuplan: stdout was closed before the output was printed", markup=False)
    except (OSError, ValueError):
        pass
    return ExitCode.INVALID_INPUT


def report_internal_error(error: BaseException, fmt: OutputFormat) -> int:
    where = write_traceback(error)
    summary = short_text(f"{type(error).__name__}: {error}", 300)
    if fmt == OutputFormat.json:
        emit_json({"errors": [{"kind": "internal", "message": summary, "traceback": where}]})
    error_console().print(
        f"internal error (a bug in gpuplan, not in your input): {summary}; traceback written to {where}",
        markup=False,
    )
    return ExitCode.INTERNAL_ERROR


def report_program_failure(error: UserProgramFailed, fmt: OutputFormat) -> int:
    """A user's program (--project) raised: its bug, not gpuplan's; exit 3 with its traceback in a file."""
    where = write_traceback(error)
    summary = short_text(str(error), 300)
    if fmt == OutputFormat.json:
        emit_json({"errors": [{"kind": "program", "message": summary, "traceback": where}]})
    error_console().print(
        f"your program failed (a bug in the program, not in gpuplan): {summary}; traceback written to {where}",
        markup=False,
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
