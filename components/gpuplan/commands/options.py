"""The options gpuplan commands share, each declared once (`typing.Annotated`, Typer's current style), with the
metavar `--help` shows (`--stack NAME`), never a Python type. How they become the stack a command works on:
gpuplan/engine/sources.py (resolve_source).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from gpuplan.output.emit import OutputFormat

StackName = Annotated[
    str | None,
    typer.Option(
        "--stack",
        metavar="NAME",
        help="Stack name: reads Pulumi.<NAME>.yaml from the stackConfigDir of the Pulumi project you are in "
        "(stacks/ here), or of --project DIR.",
    ),
]
StackFile = Annotated[
    Path | None,
    typer.Option(
        "--config", metavar="FILE", help="Any stack file (same format), anywhere; stack name from the file name."
    ),
]
ProjectDir = Annotated[
    Path | None,
    typer.Option(
        "--project",
        metavar="DIR",
        help="Your own Pulumi Python program (the folder of its Pulumi.yaml), run offline for --stack NAME.",
    ),
]
OutDir = Annotated[
    Path | None,
    typer.Option(
        "--out", metavar="DIR", help="Output folder (default build/<stack>; with --project, DIR/build/<stack>)."
    ),
]
Format = Annotated[
    OutputFormat, typer.Option("--format", metavar="[text|json]", help="text for people, json for machines.")
]
