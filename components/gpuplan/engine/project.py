"""A Pulumi project on disk, read the way the Pulumi CLI reads it: `Pulumi.yaml` (name, runtime, `main`,
`stackConfigDir`), where its program runs and where its stack files live (docs/references.md#pulumi-project-layout).

Used for `--project DIR` (a user's own program), for `--stack NAME` (the project around the working directory) and
to find the policy config next to a stack file (the project the file belongs to).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import STACK_FILE, load_stack_text, read_text

PROJECT_FILES = ("Pulumi.yaml", "Pulumi.yml")
PROJECT_FILE_LIMITS = replace(STACK_FILE, what="Pulumi project file")


@dataclass(frozen=True)
class PulumiProject:
    root: Path  # the folder of Pulumi.yaml
    file: Path  # Pulumi.yaml itself
    name: str
    runtime: str
    main: str  # as written ("" = the project folder)
    stack_config_dir: str  # as written ("" = next to Pulumi.yaml)

    def stack_file(self, stack: str) -> Path:
        """Pulumi.<stack>.yaml (the project file's extension, `/` as `-`) in stackConfigDir, else beside it."""
        folder = self.root / self.stack_config_dir if self.stack_config_dir else self.root
        return folder / f"Pulumi.{stack.replace('/', '-')}{self.file.suffix}"

    def entry_point(self) -> tuple[Path, Path]:
        """(working directory, program path) as the Pulumi engine computes them from `main`: a folder runs its
        __main__.py from inside it, a file runs from its folder."""
        main = (self.root / self.main).resolve() if self.main else self.root.resolve()
        if not main.exists():
            raise self._problem("main", self.main, "`main` names nothing that exists", "point it at the program")
        if main.is_dir():
            program = main / "__main__.py"
            if not program.is_file():
                raise self._problem(
                    "main",
                    self.main or ".",
                    f"no __main__.py in {main}",
                    "write the program in __main__.py, or point `main` at its file",
                )
            return main, program
        return main.parent, main

    def require_python(self) -> None:
        if self.runtime != "python":
            raise self._problem(
                "runtime",
                self.runtime,
                "gpuplan runs Pulumi programs written in Python",
                "use `runtime: python` (other languages use the component package: docs/library.md)",
            )

    def _problem(self, path: str, value: Any, rule: str, fix: str) -> InputError:
        return InputError([Problem(str(self.file), path, value, rule, fix)], str(self.file))


def project_file(directory: Path) -> Path | None:
    for name in PROJECT_FILES:
        if (directory / name).is_file():
            return directory / name
    return None


def read_project(directory: Path | str) -> PulumiProject:
    """The Pulumi project in `directory`. Raises InputError with every problem of its Pulumi.yaml."""
    directory = Path(directory)
    file = project_file(directory)
    if file is None:
        raise InputError(
            [
                Problem(
                    str(directory),
                    "",
                    MISSING,
                    "no Pulumi.yaml in this folder: it is not a Pulumi project",
                    "pass the folder that holds your program's Pulumi.yaml to --project",
                )
            ],
            str(directory),
        )
    document = load_stack_text(read_text(file, PROJECT_FILE_LIMITS), str(file))
    if not isinstance(document, dict):
        raise InputError(
            [Problem(str(file), "", document, "a Pulumi.yaml is a YAML mapping", "start with `name:` and `runtime:`")],
            str(file),
        )
    problems = []
    name = document.get("name")
    if not isinstance(name, str) or not name:
        problems.append(Problem(str(file), "name", name, "the project needs a name", "add `name: <project>`"))
    runtime = document.get("runtime")
    runtime_name = runtime.get("name") if isinstance(runtime, dict) else runtime
    if not isinstance(runtime_name, str) or not runtime_name:
        problems.append(
            Problem(str(file), "runtime", runtime_name, "the project needs a runtime", "add `runtime: python`")
        )
    # `config: <dir>` is the old spelling of stackConfigDir, which the CLI still rewrites (references.md).
    old_spelling = document.get("config") if isinstance(document.get("config"), str) else None
    texts = {"main": document.get("main"), "stackConfigDir": document.get("stackConfigDir") or old_spelling}
    for key, value in texts.items():
        if value is not None and not isinstance(value, str):
            problems.append(Problem(str(file), key, value, f"`{key}` is a path", "write it as text"))
    if problems:
        raise InputError(problems, str(file))
    return PulumiProject(
        root=directory,
        file=file,
        name=str(name),
        runtime=str(runtime_name),
        main=texts["main"] or "",
        stack_config_dir=texts["stackConfigDir"] or "",
    )


def enclosing_project_root(start: Path | str) -> Path | None:
    """The nearest folder at or above `start` that holds a Pulumi.yaml (the project a stack file belongs to)."""
    start = Path(start).resolve()
    for folder in (start, *start.parents):
        if project_file(folder) is not None:
            return folder
    return None
