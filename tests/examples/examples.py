"""The examples/ folder as the tests see it: which example is which language, and one mock-engine run per Python
example (cached, so each test module of a worker runs a program once)."""

from __future__ import annotations

import functools
from pathlib import Path

import yaml

from tests.conftest import ROOT

EXAMPLES = ROOT / "examples"
# The program file of each Pulumi runtime an example uses.
PROGRAMS = {"python": "__main__.py", "yaml": "Pulumi.yaml", "nodejs": "index.ts"}


def runtime(example: str) -> str:
    declared = yaml.safe_load((EXAMPLES / example / "Pulumi.yaml").read_text(encoding="utf-8"))["runtime"]
    return declared if isinstance(declared, str) else declared["name"]


def examples(kind: str | None = None) -> list[str]:
    """Every example folder (each holds a Pulumi.yaml), or those of one runtime."""
    found = sorted(p.parent.name for p in EXAMPLES.glob("*/Pulumi.yaml"))
    return [name for name in found if kind is None or runtime(name) == kind]


def folder(example: str) -> Path:
    return EXAMPLES / example


@functools.cache
def run(example: str):
    """The example's program run by gpuplan's engine for its `dev` stack (`gpuplan preview --project`'s run)."""
    from gpuplan.engine.user_program import run_project

    return run_project(folder(example), "dev")
