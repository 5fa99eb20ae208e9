"""The `gpuplan` entry point (pyproject.toml [project.scripts], `python -m gpuplan`). Loading typer, pydantic, the
Pulumi SDK and the commands takes a second: the signal handlers go in first, so a Ctrl-C or SIGTERM then is one
line, not a traceback."""

from __future__ import annotations

import gc

from gpuplan.output import signals

# engine.runtime.GC_THRESHOLDS, not imported from there: it would load pulumi before the handlers are in.
GC_THRESHOLDS = (10_000, 50, 100)


def main() -> None:
    signals.install_handlers()
    try:
        from gpuplan.app import app
    except KeyboardInterrupt as stopped:
        signals.exit_while_starting(stopped)
    # A short-lived process holding every loaded SDK class: the fewer, larger garbage collections of the
    # program run for the work after it too.
    gc.set_threshold(*GC_THRESHOLDS)
    app()
