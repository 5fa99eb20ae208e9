"""`gpuplan`: the Typer app, its commands (one module each in gpuplan/commands/) and the options of the group.

Importing this module only defines things; `gpuplan/cli/main.py` is the entry point that installs the signal
handlers first and then loads it.
"""

from __future__ import annotations

import signal
import sys
from collections.abc import Sequence
from importlib import metadata
from typing import Annotated, Any

import typer
from typer.core import TyperGroup

from dra_gpu_platform.inputs.problems import MISSING, Problem
from gpuplan.cli import runner, signals
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.options import OutputFormat
from gpuplan.cli.output import emit_json
from gpuplan.commands import diff, fit, inventory, policy, preflight, preview, render, upgrade

DISTRIBUTION = "dra-gpu-platform"  # the distribution that installs gpuplan (pyproject.toml [project].name)


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


def version_text() -> str:
    """`gpuplan <version>`: the installed distribution's version (its metadata, never a copy in the code)."""
    try:
        return f"gpuplan {metadata.version(DISTRIBUTION)}"
    except metadata.PackageNotFoundError:
        return f"gpuplan (version unknown: the {DISTRIBUTION} distribution is not installed)"


def _print_version(requested: bool) -> None:
    if requested:
        typer.echo(version_text())
        raise typer.Exit(ExitCode.OK)


ShowVersion = Annotated[
    bool,
    typer.Option("--version", callback=_print_version, is_eager=True, help="Print gpuplan's version and exit."),
]

app = typer.Typer(
    name="gpuplan",
    cls=GpuplanGroup,
    help="Know a dra-gpu-platform stack before deploying it: preview, render, policy, fit, inventory, preflight, diff, "
    "upgrade.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _group(version: ShowVersion = False) -> None:
    """Every command takes --stack NAME or --config FILE, --out DIR and --format text|json; preview and policy also
    run your own Pulumi program with --project DIR --stack NAME.
    Exit codes: 0 ok, 1 findings, 2 invalid input or environment, 3 internal error (a bug; the traceback goes to
    a file), 130/143 stopped by SIGINT/SIGTERM (earlier outputs kept whole)."""


# In `gpuplan --help` order (the README and docs/gpuplan/index.md list them so).
app.command()(diff.diff)
app.command()(fit.fit)
app.command()(inventory.inventory)
app.command()(policy.policy)
app.command()(preflight.preflight)
app.command()(preview.preview)
app.command()(render.render)
app.command()(upgrade.upgrade)
