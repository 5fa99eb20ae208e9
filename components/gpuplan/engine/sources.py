"""The one way a command reaches its stack: a `StackSource`, from the command line's --stack, --config or --project.

- `--config FILE`: any stack file, anywhere; the stack name is the file name's (Pulumi.<stack>.yaml).
- `--stack NAME`: `Pulumi.NAME.yaml` of the Pulumi project around the working directory (its Pulumi.yaml's
  stackConfigDir).
- `--project DIR --stack NAME`: the user's own Pulumi program in DIR (gpuplan/engine/user_program.py).

Every source gives the stack's `config()`, its `plan()` (the StackPlan) and its `run()` (the program recorded under
Pulumi's mock runtime), each made once and kept: a stack file is read and validated once and planned once, here, with
the environment `pulumi up` would run in (the only place gpuplan reads the environment for a plan); its run is the
package's stack program on that very config and plan. A user's program builds its own config and plan: both come
from its run (the plan its GpuPlatform is built from), so `config()` is None there. Each source knows the project
it belongs to (where `policies/config/<stack>.json` is looked up) and where its outputs go by default: build/<stack>
under the working directory for a stack file, DIR/build/<stack> for a project (never the repository's).
"""

from __future__ import annotations

import os
from abc import ABC, abstractmethod
from functools import cached_property
from pathlib import Path
from typing import Any

from dra_gpu_platform.config.loading import parse_config_map, read_stack_file, stack_name_from_path
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.plans.stack import StackPlan, plan_stack
from gpuplan.engine import runtime, user_program
from gpuplan.engine.project import enclosing_project_root, read_project
from gpuplan.engine.runtime import ProgramRun

OUTPUTS = Path("build")  # default --out: OUTPUTS/<stack> under the working directory, or under --project DIR


class StackSource(ABC):
    """A stack a command works on: its config, plan and recorded run, each made once."""

    stack: str

    @abstractmethod
    def config(self) -> StackConfig | None:
        """The stack's validated config; None for a user's program (it builds its own; only its plan is known)."""

    @abstractmethod
    def plan(self) -> StackPlan:
        """The StackPlan. Raises InputError (an invalid stack file, a program that builds no GpuPlatform)."""

    @abstractmethod
    def run(self) -> ProgramRun:
        """The program run under the mocks, every registration recorded."""

    @abstractmethod
    def project_root(self) -> Path | None:
        """The Pulumi project the stack belongs to, if any."""

    @abstractmethod
    def default_out(self) -> Path:
        """Where the command's outputs go without --out."""

    def out_dir(self, out: Path | str | None) -> Path:
        return Path(out) if out is not None else self.default_out()


class StackFileSource(StackSource):
    """A stack file anywhere, run through the package's stack program."""

    def __init__(self, stack: str, path: Path | str):
        self.stack = stack
        self.path = Path(path)

    @classmethod
    def of(cls, path: Path | str) -> StackFileSource:
        """The stack file at `path`, its stack named by the file (Pulumi.<stack>.yaml)."""
        return cls(stack_name_from_path(path), Path(path))

    def __repr__(self) -> str:
        return f"StackFileSource({self.stack!r}, {str(self.path)!r})"

    @cached_property
    def _values(self) -> dict[str, Any]:
        # Parsed once: a stack file with thousands of objects takes PyYAML's pure-Python loader half a second.
        return read_stack_file(self.path)

    @cached_property
    def _config(self) -> StackConfig:
        return parse_config_map(self._values, stack=stack_name_from_path(self.path), source=str(self.path))

    @cached_property
    def _plan(self) -> StackPlan:
        # The environment `pulumi up` runs in (only the AKS kubeconfig's login mode reads it).
        return plan_stack(self._config, environ=os.environ)

    @cached_property
    def _run(self) -> ProgramRun:
        return runtime.run_stack_program(str(self.path), self._values, self._config, self._plan)

    def config(self) -> StackConfig:
        return self._config

    def plan(self) -> StackPlan:
        return self._plan

    def run(self) -> ProgramRun:
        return self._run

    def project_root(self) -> Path | None:
        """The nearest Pulumi.yaml above the stack file."""
        return enclosing_project_root(self.path.parent)

    def default_out(self) -> Path:
        return OUTPUTS / self.stack


class ProjectSource(StackSource):
    """A user's Pulumi Python program in `directory` (its Pulumi.yaml), for one stack."""

    def __init__(self, stack: str, directory: Path | str):
        self.stack = stack
        self.directory = Path(directory)

    def __repr__(self) -> str:
        return f"ProjectSource({self.stack!r}, {str(self.directory)!r})"

    @cached_property
    def _run(self) -> ProgramRun:
        return user_program.run_project(self.directory, self.stack)

    def config(self) -> None:
        return None

    def plan(self) -> StackPlan:
        plan = self._run.plan
        if plan is None:
            raise InputError(
                [
                    Problem(
                        str(self.directory),
                        "--project",
                        MISSING,
                        f"the program builds no GpuPlatform for stack {self.stack}, so it has no stack plan to read",
                        "build a GpuPlatform in the program (docs/library.md), or pass the stack file with --config FILE",
                    )
                ],
                "the program",
            )
        return plan

    def run(self) -> ProgramRun:
        return self._run

    def project_root(self) -> Path | None:
        return self.directory

    def default_out(self) -> Path:
        return self.directory / OUTPUTS / self.stack


# ---------------------------------------------------------------------------------------------------
# the command line's choice


def _command_line(path: str, value: object, rule: str, fix: str) -> InputError:
    return InputError([Problem("(command line)", path, value, rule, fix)], "the command line")


def stack_file_of_working_project(stack: str) -> Path:
    """--stack NAME without --project: the stack file of the Pulumi project around the working directory."""
    root = enclosing_project_root(Path.cwd())
    if root is None:
        raise _command_line(
            "--stack",
            stack,
            f"no Pulumi.yaml in {Path.cwd()} or above, so there is no project whose stack {stack} this could be",
            "run gpuplan inside your Pulumi project, or pass the stack file with --config FILE",
        )
    return read_project(root).stack_file(stack)


def resolve_stack(stack: str | None, config: Path | str | None) -> StackFileSource:
    """The stack file of --stack or --config."""
    if stack and config:
        raise _command_line(
            "--stack/--config", f"{stack} / {config}", "give --stack or --config, not both", "drop one of them"
        )
    if config is not None:
        return StackFileSource(stack_name_from_path(config), Path(config))
    if stack:
        return StackFileSource(stack, stack_file_of_working_project(stack))
    raise _command_line("--stack", None, "no stack chosen", "pass --stack NAME or --config FILE")


def resolve_source(stack: str | None, config: Path | str | None, project: Path | str | None) -> StackSource:
    """What a command works on: a stack file through the package's program, or the program in --project."""
    if project is None:
        return resolve_stack(stack, config)
    if config is not None:
        raise _command_line(
            "--project/--config",
            f"{project} / {config}",
            "give --project (your program and its stack) or --config (a stack file), not both",
            "drop one of them; with --project the stack's config is the project's Pulumi.<stack>.yaml",
        )
    if not stack:
        raise _command_line(
            "--stack", MISSING, "--project needs the stack to run", "pass --stack NAME (the program sees that stack)"
        )
    return ProjectSource(stack, Path(project))
