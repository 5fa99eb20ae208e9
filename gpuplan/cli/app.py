"""`gpuplan`: the offline CLI. Each command lives in gpuplan/commands/<name>.py and registers itself."""

from __future__ import annotations

import gc
import importlib
import pkgutil
import signal
import sys
from collections.abc import Sequence
from typing import Any

from gpuplan.cli import signals

# Loading typer, pydantic and the commands takes a second: a Ctrl-C or SIGTERM then is one line, not a traceback.
signals.install_handlers()
try:
    import typer
    from typer.core import TyperGroup

    from dra_gpu_platform.config.problems import MISSING, Problem
    from gpuplan import commands
    from gpuplan.cli import runner
    from gpuplan.cli.exit_codes import ExitCode
    from gpuplan.cli.options import OutputFormat
    from gpuplan.cli.output import emit_json
except KeyboardInterrupt as stopped:
    signals.exit_while_starting(stopped)


def json_requested(args: Sequence[str]) -> bool:
    """`--format json` (or `--format=json`) anywhere on the command line, even one click could not parse."""
    args = list(args)
    return any(a == "--format=json" for a in args) or any(
        a == "--format" and i + 1 < len(args) and args[i + 1] == "json" for i, a in enumerate(args)
    )


class GpuplanGroup(TyperGroup):
    """Signals, usage errors and interrupts handled once for every command: a usage error with --format json
    is a JSON document too (exit 2), SIGINT/SIGTERM exit 130/143 with one line."""

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        argv = list(sys.argv[1:] if args is None else args)
        fmt = OutputFormat.json if json_requested(argv) else OutputFormat.text
        signals.install_handlers()
        try:
            code = super().main(
                args=argv, prog_name=prog_name, complete_var=complete_var, standalone_mode=False, **extra
            )
        except typer.Abort:  # click's own Ctrl-C at a prompt
            code = runner.report_interrupted(signal.SIGINT, fmt)
        except typer.TyperException as error:  # click's usage errors (typer vendors click; this is their public base)
            code = _usage_error(error, fmt)
        except KeyboardInterrupt as error:
            code = runner.report_interrupted(signals.signal_number(error), fmt)
        code = code if isinstance(code, int) else ExitCode.OK
        if args is None and code in (ExitCode.INTERRUPTED, ExitCode.TERMINATED):
            signals.exit_watchdog(code)  # the real process (not a test runner's call): it must not linger
        if standalone_mode:
            sys.exit(code)
        return code


def _usage_error(error: typer.TyperException, fmt: OutputFormat) -> int:
    if fmt != OutputFormat.json:
        try:
            from typer import rich_utils

            rich_utils.rich_format_error(error)
        except ImportError:  # typer without rich
            error.show()
        return getattr(error, "exit_code", ExitCode.INVALID_INPUT)
    command = getattr(getattr(error, "ctx", None), "command_path", "gpuplan")
    param = getattr(error, "param", None)
    path = "/".join(param.opts) if param is not None and getattr(param, "opts", None) else ""
    message = error.format_message() if hasattr(error, "format_message") else str(error)
    problem = Problem("(command line)", path, MISSING, message, f"see `{command} --help`")
    emit_json({"errors": [problem.as_json()]})
    return ExitCode.INVALID_INPUT


app = typer.Typer(
    name="gpuplan",
    cls=GpuplanGroup,
    help="Know a dra-gpu-platform stack before deploying it: preview, render, policy, fit, inventory, preflight, diff.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group() -> None:
    """Every command takes --stack NAME or --config FILE, --out DIR and --format text|json.
    Exit codes: 0 ok, 1 findings, 2 invalid input or environment, 3 internal error (a bug; the traceback goes to
    a file), 130/143 stopped by SIGINT/SIGTERM (earlier outputs kept whole)."""


try:
    for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
        importlib.import_module(f"gpuplan.commands.{module_info.name}").register(app)
except KeyboardInterrupt as stopped:
    signals.exit_while_starting(stopped)


def main() -> None:
    # A short-lived process holding every loaded SDK class: the fewer, larger garbage collections of
    # engine.GC_THRESHOLDS (not imported: it would load pulumi for --help) for the work after the run too.
    gc.set_threshold(10_000, 50, 100)
    app()


if __name__ == "__main__":
    main()
