"""`gpuplan`: the Typer app, its commands (one module each in gpuplan/commands/) and the options of the group.

The top of gpuplan's one direction: app -> commands -> features (diff, fit, inventory, policy, preflight, preview,
render) -> engine -> output (pyproject.toml's import contracts). Importing this module only defines things;
`gpuplan/main.py` is the entry point that installs the signal handlers first and then loads it.

`--help` speaks in metavars (`--stack NAME`, `--claims FILE...`), never in Python types: typer's rich help prints
an option's annotation (`<bool>`, `<list[Path]>`) unless a metavar is set, so every option declares one, a flag and
the help option show none, and an argument shows only its name. A command's description is its docstring with the
line breaks of the source taken out, so the terminal's width decides where lines break.
"""

from __future__ import annotations

import inspect
import signal
import sys
from collections.abc import Callable, Sequence
from importlib import metadata
from typing import Annotated, Any

import typer
from typer.core import TyperArgument, TyperCommand, TyperGroup

from dra_gpu_platform.inputs.problems import MISSING, Problem
from gpuplan.commands import diff, fit, inventory, policy, preflight, preview, render, runner, upgrade
from gpuplan.output import signals
from gpuplan.output.emit import OutputFormat, emit_json
from gpuplan.output.exit_codes import ExitCode

DISTRIBUTION = "dra-gpu-platform"  # the distribution that installs gpuplan (pyproject.toml [project].name)


def json_requested(args: Sequence[str]) -> bool:
    """`--format json` (or `--format=json`) anywhere on the command line, even one click could not parse."""
    args = list(args)
    return any(a == "--format=json" for a in args) or any(
        a == "--format" and i + 1 < len(args) and args[i + 1] == "json" for i, a in enumerate(args)
    )


def _plain_help_option(option: Any) -> Any:
    if option is not None:
        option.metavar = ""  # `--help   Show this message and exit.`, not `--help <bool>`
    return option


class GpuplanCommand(TyperCommand):
    """A command whose help names no Python type: flags show no metavar, an argument only its name."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for param in self.params:
            if getattr(param, "is_flag", False) and param.metavar is None:
                param.metavar = ""
            if isinstance(param, TyperArgument):
                # typer prints an argument's annotation beside its metavar (`FILE <list[Path]>`), metavar or not
                param.display_type_rich = _no_type  # type: ignore[method-assign]

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))


def _no_type(ctx: Any = None) -> None:
    return None


class GpuplanGroup(TyperGroup):
    """Signals, usage errors and interrupts handled once for every command: a usage error with --format json
    is a JSON document too (exit 2), SIGINT/SIGTERM exit 130/143 with one line."""

    def get_help_option(self, ctx: Any) -> Any:
        return _plain_help_option(super().get_help_option(ctx))

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
    typer.Option(
        "--version", metavar="", callback=_print_version, is_eager=True, help="Print gpuplan's version and exit."
    ),
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
    """The options of `gpuplan` itself (--version); each command's are its own (docs/gpuplan/index.md)."""


def reflowed(command: Callable[..., Any]) -> str:
    """The command's docstring as its help: each paragraph one line, for the terminal to break."""
    paragraphs = inspect.cleandoc(command.__doc__ or "").split("\n\n")
    return "\n\n".join(" ".join(paragraph.split()) for paragraph in paragraphs)


# In `gpuplan --help` order (the README and docs/gpuplan/index.md list them so).
app.command(cls=GpuplanCommand, help=reflowed(diff.diff))(diff.diff)
app.command(cls=GpuplanCommand, help=reflowed(fit.fit))(fit.fit)
app.command(cls=GpuplanCommand, help=reflowed(inventory.inventory))(inventory.inventory)
app.command(cls=GpuplanCommand, help=reflowed(policy.policy))(policy.policy)
app.command(cls=GpuplanCommand, help=reflowed(preflight.preflight))(preflight.preflight)
app.command(cls=GpuplanCommand, help=reflowed(preview.preview))(preview.preview)
app.command(cls=GpuplanCommand, help=reflowed(render.render))(render.render)
app.command(cls=GpuplanCommand, help=reflowed(upgrade.upgrade))(upgrade.upgrade)
