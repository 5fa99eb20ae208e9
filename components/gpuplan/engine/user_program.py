"""`--project DIR --stack NAME`: a user's own Pulumi Python program, run offline under the same mocks as the
package's stack program, as the Pulumi CLI would run it (docs/references.md#pulumi-project-layout):

- the project is DIR's Pulumi.yaml (its `name` is the project of every URN), the program is its `main` (a folder's
  __main__.py, by default DIR's), run as `__main__` from its folder with that folder first on sys.path;
- the stack's config is `<stackConfigDir>/Pulumi.NAME.yaml` when it exists (bare keys belong to the project), so
  `pulumi.Config` reads work; without the file the program sees no config.

What the rest of gpuplan needs besides the recorded resources is the stack's StackPlan: the fake cloud's region
and subnets, the Kubernetes version the manifests are checked for, kind-config.yaml. It is the plan the program
builds its GpuPlatform from (captured as GpuPlatform is constructed, before any of its children is registered). A
program that builds none (only the finer components) is still recorded; `ProgramRun.plan` is then None and the
region comes from the stack's `aws:region` / `azure-native:location`. `ProgramRun.config` is None for a user's
program (a plan holds no config models).

A problem in the program's config (InputError / ConfigError, a pydantic ValidationError, pulumi.RunError) is
invalid input (exit 2); any other exception is the program's bug: UserProgramFailed (exit 3, traceback in a file).
"""

from __future__ import annotations

import contextlib
import os
import runpy
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from dra_gpu_platform.config.loading import read_stack_file
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.engine.mock_outputs import CloudScope
from gpuplan.engine.project import PulumiProject, read_project
from gpuplan.engine.runtime import ProgramError, ProgramRun, record_run, runtime_config_from_file

KUBERNETES_UNKNOWN_NOTE = (
    "the program built no GpuPlatform, so the stack's Kubernetes version is unknown: manifests were checked for "
    "Kubernetes {versions} (the versions dra-gpu-platform supports)"
)
# The keys a stack file names the cloud's region with (the same two the stack contract reads).
REGION_KEYS = ("aws:region", "azure-native:location")


class UserProgramFailed(Exception):
    """The user's program raised something that is not a config problem: a bug in that program."""

    def __init__(self, program: Path, error: BaseException):
        super().__init__(f"{program} raised {type(error).__name__}: {error}")
        self.program = program


def stack_plan_of(args: Any) -> StackPlan | None:
    """The StackPlan a GpuPlatform is built from (`GpuPlatformArgs.plan`)."""
    plan = getattr(args, "plan", None)
    return plan if isinstance(plan, StackPlan) else None


@contextlib.contextmanager
def platforms_built(into: list[StackPlan]) -> Iterator[None]:
    """Collect the plan of every GpuPlatform constructed inside the block (subclasses included: they call
    GpuPlatform.__init__). The class is restored on the way out."""
    from dra_gpu_platform.resources.platform import GpuPlatform

    original = GpuPlatform.__init__

    def init(self, name, args, *rest, **options):
        plan = stack_plan_of(args)
        if plan is not None:
            into.append(plan)
        original(self, name, args, *rest, **options)

    GpuPlatform.__init__ = init  # type: ignore[method-assign]
    try:
        yield
    finally:
        GpuPlatform.__init__ = original  # type: ignore[method-assign]


@contextlib.contextmanager
def program_folder(folder: Path) -> Iterator[None]:
    """Inside the program's folder, as `pulumi up` runs it: its working directory and the first sys.path entry.
    Modules imported from the folder are forgotten afterwards, so two projects in one process never share one."""
    before_modules = set(sys.modules)
    previous = os.getcwd()
    sys.path.insert(0, str(folder))
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(previous)
        with contextlib.suppress(ValueError):
            sys.path.remove(str(folder))
        for name in set(sys.modules) - before_modules:
            file = getattr(sys.modules[name], "__file__", None) or ""
            if file and Path(file).resolve().is_relative_to(folder):
                del sys.modules[name]


def run_project(directory: Path | str, stack: str) -> ProgramRun:
    """Run the Pulumi program of the project in `directory` for `stack` under the mocks and record it."""
    project: PulumiProject = read_project(directory)
    project.require_python()
    folder, program = project.entry_point()
    config_file = project.stack_file(stack)
    values = read_stack_file(config_file) if config_file.exists() else {}
    runtime, secret_keys = runtime_config_from_file(values, project.name)
    region = next((values[key] for key in REGION_KEYS if isinstance(values.get(key), str)), None)
    built: list[StackPlan] = []

    def scope() -> CloudScope:
        if built:
            found = CloudScope.of(built[0])
            return found if found.region else CloudScope(region, found.cluster_name, found.subnet_ids)
        return CloudScope(region)

    def run_main() -> None:
        runpy.run_path(str(program), run_name="__main__")

    try:
        with platforms_built(built), program_folder(folder.resolve()):
            recording = record_run(
                run_main, project=project.name, stack=stack, runtime=runtime, secret_keys=secret_keys, scope=scope
            )
    except (InputError, ProgramError):
        raise
    except ValidationError as error:  # a StackConfig the program validated itself
        raise ProgramError(str(error)) from None
    except ValueError as error:
        if not hasattr(error, "problems"):  # not the library's ConfigError (library.md: a ValueError with problems)
            raise UserProgramFailed(program, error) from error
        raise ProgramError(str(error)) from None
    except Exception as error:  # raised in the program's body or in one of its apply callbacks
        raise UserProgramFailed(program, error) from error
    return ProgramRun(
        stack,
        project.name,
        None,
        str(program),
        recording.resources,
        recording.outputs,
        recording.logs,
        recording.reads,
        built[0] if built else None,
    )
