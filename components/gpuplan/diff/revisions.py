"""The two sides of `gpuplan diff`: a stack file at a git revision (what is deployed) and a recorded program run
whose problems name where the text came from."""

from __future__ import annotations

import subprocess
from pathlib import Path

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from gpuplan.engine.runtime import ProgramError, ProgramRun
from gpuplan.engine.sources import StackFileSource, stack_file_of_working_project


def git(directory: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["git", "-C", str(directory), *args], capture_output=True, text=True, check=False)


def read_revision(stack_file: Path, stack: str, revision: str) -> tuple[str, str]:
    """(text of the stack file at a git revision, a label `REV:path`). A stack file outside the checkout
    (--config /tmp/Pulumi.prod.yaml) is compared with the same stack's file in the project you are in (stacks/ here).
    Raises InputError."""

    def problem(rule: str, fix: str) -> InputError:
        return InputError([Problem("(command line)", "--against", revision, rule, fix)], "--against")

    try:
        # The checkout the stack file is in; a stack file outside any (--config /tmp/Pulumi.prod.yaml) is compared
        # with the same stack's file in the project you are in.
        tracked = stack_file.resolve()
        top = git(tracked.parent, "rev-parse", "--show-toplevel")
        if top.returncode != 0:
            tracked = stack_file_of_working_project(stack).resolve()
            top = git(tracked.parent, "rev-parse", "--show-toplevel")
    except FileNotFoundError:
        raise problem("git is not installed", "install git, or compare with --against-config FILE") from None
    if top.returncode != 0:
        raise problem("the project is not in a git checkout", "compare with --against-config FILE instead")
    root = Path(top.stdout.strip()).resolve()
    relative = tracked.relative_to(root).as_posix()
    if git(root, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").returncode != 0:
        raise problem(
            "not a git revision in this repository", "pass a commit, branch or tag (`git log --oneline` lists them)"
        )
    shown = git(root, "show", f"{revision}:{relative}")
    if shown.returncode != 0:
        raise problem(
            f"{relative} does not exist at {revision}",
            "pick a revision where the stack file exists, or use --against-config",
        )
    return shown.stdout, f"{revision}:{relative}"


def default_revision(stack_file: Path) -> str:
    """What `gpuplan diff` compares with when neither --against nor --against-config is given: HEAD, where git tracks
    the stack file there. Raises InputError (exit 2) saying why not and what to pass."""
    where = stack_file.resolve()

    def problem(rule: str) -> InputError:
        return InputError(
            [
                Problem(
                    "(command line)",
                    "--against",
                    MISSING,
                    f"no --against or --against-config given, and {rule}, so there is no HEAD version to compare with",
                    "pass --against REV (a git revision of the stack file as deployed, e.g. origin/main) or "
                    "--against-config FILE (the stack file as deployed)",
                )
            ],
            "--against",
        )

    try:
        found = git(where.parent, "cat-file", "-e", f"HEAD:./{where.name}")
    except FileNotFoundError:
        raise problem("git is not installed") from None
    if found.returncode != 0:
        inside = git(where.parent, "rev-parse", "--show-toplevel").returncode == 0
        raise problem(f"{stack_file} is not tracked by git" if inside else f"{stack_file} is not in a git checkout")
    return "HEAD"


def _relabel(error: InputError, temp: Path, label: str) -> InputError:
    problems = [
        Problem(label if p.file == str(temp) else p.file, p.path, p.value, p.rule, p.fix) for p in error.problems
    ]
    return InputError(problems, label)


def run_labelled(source: StackFileSource, label: str) -> ProgramRun:
    """Run the program on the stack file; problems name `label` (a git revision or the file) instead of a temp
    file."""
    try:
        return source.run()
    except InputError as error:
        raise _relabel(error, source.path, label) from None
    except ProgramError as error:
        raise InputError(
            [Problem(label, "", "(program)", str(error), "fix the stack file as the message says")], label
        ) from None
