"""`gpuplan`: the offline CLI. Each command lives in gpuplan/commands/<name>.py and registers itself."""

from __future__ import annotations

import gc
import importlib
import pkgutil

import typer

from gpuplan import commands

app = typer.Typer(
    name="gpuplan",
    help="Know a dra-gpu-platform stack before deploying it: preview, render, policy, fit, inventory, preflight, diff.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



@app.callback()
def _group() -> None:
    """Every command takes --stack NAME or --config FILE, --out DIR and --format text|json.
    Exit codes: 0 ok, 1 findings, 2 invalid input, 3 internal error (a bug; the traceback goes to a file)."""


for module_info in sorted(pkgutil.iter_modules(commands.__path__), key=lambda m: m.name):
    importlib.import_module(f"gpuplan.commands.{module_info.name}").register(app)


def main() -> None:
    # A short-lived process holding every loaded SDK class: the fewer, larger garbage collections of
    # engine.GC_THRESHOLDS (not imported: it would load pulumi for --help) for the work after the run too.
    gc.set_threshold(10_000, 50, 100)
    # Click's standalone mode: usage errors exit 2 (invalid input) with a short message.
    app()


if __name__ == "__main__":
    main()
