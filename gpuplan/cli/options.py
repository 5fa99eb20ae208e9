"""The options every gpuplan command takes: --stack NAME | --config FILE, --out DIR, --format text|json."""

from __future__ import annotations

from enum import Enum
from pathlib import Path

import typer

from dra_gpu_platform.config.loading import stack_file_path, stack_name_from_path
from dra_gpu_platform.config.problems import InputError, Problem

PROJECT_ROOT = Path(__file__).resolve().parents[2]


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


StackOption = typer.Option(None, "--stack", help="Stack name: reads stacks/Pulumi.<NAME>.yaml.")
ConfigOption = typer.Option(None, "--config", help="Any stack file (same format); stack name from the file name.")
OutOption = typer.Option(None, "--out", help="Output folder (default build/<stack>).")
FormatOption = typer.Option(OutputFormat.text, "--format", help="text for people, json for machines.")


def resolve_stack(stack: str | None, config: Path | None) -> tuple[str, Path]:
    """(stack name, stack file) from --stack or --config."""
    if stack and config:
        raise InputError(
            [
                Problem(
                    "(command line)",
                    "--stack/--config",
                    f"{stack} / {config}",
                    "give --stack or --config, not both",
                    "drop one of them",
                )
            ],
            "the command line",
        )
    if config is not None:
        return stack_name_from_path(config), Path(config)
    if stack:
        return stack, stack_file_path(stack, PROJECT_ROOT)
    raise InputError(
        [Problem("(command line)", "--stack", None, "no stack chosen", "pass --stack NAME or --config FILE")],
        "the command line",
    )


def out_dir(out: Path | None, stack: str) -> Path:
    return Path(out) if out is not None else Path("build") / stack
