"""What a command runs: a stack file through the package's stack program (`--stack`, `--config`), or a user's own
Pulumi program (`--project DIR --stack NAME`). Both give a ProgramRun; each knows the project folder it belongs to
(where `policies/config/<stack>.json` is looked up)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from gpuplan.engine import runtime, user_program
from gpuplan.engine.project import enclosing_project_root
from gpuplan.engine.runtime import ProgramRun


@dataclass(frozen=True)
class StackFileSource:
    """A stack file anywhere; its stack name is the file name's (Pulumi.<stack>.yaml)."""

    stack: str
    path: Path

    def run(self) -> ProgramRun:
        return runtime.run_program(self.path)

    def project_root(self) -> Path | None:
        """The Pulumi project the stack file belongs to (the nearest Pulumi.yaml above it), if any."""
        return enclosing_project_root(self.path.parent)


@dataclass(frozen=True)
class ProjectSource:
    """A user's Pulumi Python program in `directory` (its Pulumi.yaml), for one stack."""

    stack: str
    directory: Path

    def run(self) -> ProgramRun:
        return user_program.run_project(self.directory, self.stack)

    def project_root(self) -> Path | None:
        return self.directory


ProgramSource = StackFileSource | ProjectSource
