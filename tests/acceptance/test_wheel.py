"""The package as a platform team gets it: a wheel built from this repository and installed with its `cli` extra into a
fresh virtualenv outside the repository, by the commands README.md gives (its install block: the same build command,
the wheel file it names, the same requirement), used from a folder with no repository around it.

- the distribution installs the top-level packages `dra_gpu_platform` and `gpuplan` only (no `components`, no
  `policies`), found under the source root: a subpackage added there ships without being listed anywhere; the venv
  satisfies every requirement of `dra-gpu-platform[cli]`;
- a short user program (its own Pulumi.yaml and __main__.py) builds GpuPlatform from a sections dict with
  `GpuPlatformArgs.from_sections`; that venv's `gpuplan preview --project DIR --stack dev` registers exactly the
  resources that `gpuplan preview --config` of the equivalent stack file registers;
- that `gpuplan preview --config /elsewhere/Pulumi.dev.yaml` works with the working directory elsewhere.

Offline and fast: README's build command runs as written plus `--offline` (setuptools from uv's cache), `uv sync
--frozen` first installs the locked dependencies of the `cli` extra from the cache `make setup` filled (so CI on a
clean machine can too), and README's `pip install '<wheel>[cli]'` runs as `uv pip install --offline` (the venv has
no pip), which finds every requirement met; the requirement check below proves it. Skipped, with the reason, only
when no wheel can be built here (no uv, or nothing cached to build with).
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from dra_gpu_platform.config.models import PROJECT
from tests.conftest import ROOT, STACKS_DIR
from tests.docs.markdown import DOCS, README

UV = ROOT / ".tools" / "bin" / "uv"
INSTALL_MARKER = (
    "<!-- install: kept true by tests/acceptance/test_wheel.py (it builds and installs the wheel this way) -->"
)
NEW_SUBPACKAGE = "wheel_probe"
USER_PROJECT = "team-gpu"  # the user's own project name: their URNs carry it
# Messages of uv meaning "not in the cache and no network": the machine cannot build, which is a skip, not a failure.
CANNOT_FETCH = ("network was disabled", "needs to be downloaded", "Failed to fetch", "error sending request")

# Run inside the fresh venv: what the distribution installs, and whether `dra-gpu-platform[cli]` is satisfied.
INSPECT = """
import importlib.util, json
from importlib import metadata
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

files = metadata.files("dra-gpu-platform")
top = sorted({f.parts[0] for f in files if not f.parts[0].endswith(".dist-info") and f.parts[0] != ".."})
requirements = [Requirement(text) for text in metadata.requires("dra-gpu-platform") or []]
unmet, extras, seen = [], ["", "cli"], set()
while extras:
    extra = extras.pop()
    if extra in seen:
        continue
    seen.add(extra)
    for requirement in requirements:
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        if canonicalize_name(requirement.name) == "dra-gpu-platform":
            extras.extend(requirement.extras)
            continue
        try:
            version = metadata.version(requirement.name)
        except metadata.PackageNotFoundError:
            unmet.append(f"{requirement}: not installed")
            continue
        if not requirement.specifier.contains(version, prereleases=True):
            unmet.append(f"{requirement}: {version} installed")
print(json.dumps({
    "top": top,
    "extras": sorted(seen),
    "unmet": unmet,
    "components": importlib.util.find_spec("components") is not None,
    "new_subpackage": importlib.util.find_spec("dra_gpu_platform.plans.wheel_probe") is not None,
    "policies": importlib.util.find_spec("policies") is not None,
}))
"""


def _uv(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(UV), *args], cwd=cwd, env=env or _clean_env(), capture_output=True, text=True, timeout=300
    )


def _clean_env() -> dict[str, str]:
    """The environment without this checkout's virtualenv or paths: nothing of the repository leaks in."""
    drop = ("VIRTUAL_ENV", "PYTHONPATH", "UV_PROJECT_ENVIRONMENT", "PYTHONHOME")
    return {key: value for key, value in os.environ.items() if key not in drop and not key.startswith("PYTEST_")}


def _require(result: subprocess.CompletedProcess, what: str) -> None:
    if result.returncode == 0:
        return
    if any(marker in result.stderr for marker in CANNOT_FETCH):
        pytest.skip(
            f"{what} is impossible here: uv's cache lacks a file and there is no network ({result.stderr[-400:]})"
        )
    raise AssertionError(f"{what} failed:\n{result.stdout}\n{result.stderr}")


def install_commands(page: Path) -> tuple[list[str], str, str]:
    """The install block of a page: the build command's arguments, the wheel it names (relative to the clone) and
    the extra the install asks for."""
    found = re.search(re.escape(INSTALL_MARKER) + r"\n```sh\n(.*?)```", page.read_text(encoding="utf-8"), re.DOTALL)
    assert found, f"{page.name} has no install block"
    build, install = [shlex.split(line, comments=True) for line in found.group(1).splitlines() if line.strip()]
    assert install[:2] == ["pip", "install"] and len(install) == 3, install
    named = re.fullmatch(r"(dist/[^\[\]]+\.whl)\[(\w+)\]", install[2])
    assert named, install
    return build, named[1], named[2]


def test_the_documented_install_names_the_wheel_this_version_builds():
    """Cheap, and run where the wheel test skips: README and library.md give the same build command and wheel file,
    whose name carries the distribution's version (the wheel test then builds and installs it)."""
    import tomllib

    build, wheel, extra = install_commands(README)
    assert build == [".tools/bin/uv", "build", "--wheel"] and extra == "cli"
    version = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert wheel == f"dist/dra_gpu_platform-{version}-py3-none-any.whl"
    library_build, library_wheel, library_extra = install_commands(DOCS / "library.md")
    assert (library_build, library_wheel, library_extra) == (build, wheel, "aws")


def build_and_install(work: Path) -> Path:
    """The wheel built from a copy of the package's sources by README's commands, installed into work/venv. Returns
    the venv's bin/."""
    if not UV.exists():
        pytest.skip(f"{UV} is absent: `make setup` bootstraps uv, which builds the wheel offline")
    build, documented_wheel, extra = install_commands(README)
    source = work / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    shutil.copytree(  # the source root: packages are found there, never listed
        ROOT / "components", source / "components", ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info")
    )
    # A subpackage nobody listed anywhere: found, it ships (a hand-kept package list once dropped such a folder).
    probe = source / "components" / "dra_gpu_platform" / "plans" / NEW_SUBPACKAGE
    probe.mkdir()
    (probe / "__init__.py").write_text('"""A subpackage added after the package list was written."""\n')
    # README's build command in the clone's copy, as written (its uv is .tools/bin/uv there) plus --offline
    assert (ROOT / build[0]).resolve() == UV.resolve(), build
    _require(_uv(*build[1:], "--offline", cwd=source), "building")
    assert sorted(p.name for p in (source / "dist").glob("*.whl")) == [Path(documented_wheel).name]

    # The locked dependencies of the `cli` extra, as `make setup` installs them (same cache, same files).
    lock = work / "lock"
    lock.mkdir()
    for name in ("pyproject.toml", "uv.lock"):
        shutil.copy2(ROOT / name, lock / name)
    venv = work / "venv"
    env = {**_clean_env(), "UV_PROJECT_ENVIRONMENT": str(venv)}
    sync = ("sync", "--offline", "--frozen", "--no-install-project", "--extra", "cli", "--no-default-groups")
    _require(_uv(*sync, "--python", sys.executable, "--quiet", cwd=lock, env=env), "installing the locked dependencies")
    # README's `pip install 'dist/<wheel>[cli]'`, in the clone's copy: every requirement is met by the locked ones
    python = str(venv / "bin" / "python")
    install = ("pip", "install", "--offline", "--quiet", "--python", python, f"{documented_wheel}[{extra}]")
    _require(_uv(*install, cwd=source), "installing the wheel")
    return venv / "bin"


def sections_of(stack_file: Path) -> dict:
    values = yaml.safe_load(stack_file.read_text(encoding="utf-8"))["config"]
    return {key.split(":", 1)[1]: value for key, value in values.items() if key.startswith(f"{PROJECT}:")}


def write_user_program(directory: Path, stack_file: Path) -> None:
    """A team's own Pulumi program: its own project name and stack config folder, the library, a sections dict."""
    (directory / "stacks").mkdir(parents=True)
    (directory / "Pulumi.yaml").write_text(
        f"name: {USER_PROJECT}\nruntime: python\nstackConfigDir: stacks\n", encoding="utf-8"
    )
    # The stack's settings other than the library's sections stay in the stack's config, as Pulumi keeps them.
    others = {
        key: value
        for key, value in yaml.safe_load(stack_file.read_text(encoding="utf-8"))["config"].items()
        if not key.startswith(f"{PROJECT}:")
    }
    (directory / "stacks" / "Pulumi.dev.yaml").write_text(yaml.safe_dump({"config": others}), encoding="utf-8")
    (directory / "__main__.py").write_text(
        "import pulumi\n"
        "from dra_gpu_platform import GpuPlatform, GpuPlatformArgs\n\n"
        f"SECTIONS = {sections_of(stack_file)!r}\n\n"
        'platform = GpuPlatform(SECTIONS["cluster"]["name"], GpuPlatformArgs.from_sections(SECTIONS))\n'
        'pulumi.export("kubeconfig", platform.kubeconfig)\n',
        encoding="utf-8",
    )


def preview(gpuplan: Path, cwd: Path, out: Path, *args: str) -> dict:
    result = subprocess.run(
        [str(gpuplan), "preview", *args, "--out", str(out), "--format", "json"],
        cwd=cwd,
        env=_clean_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert json.loads(result.stdout)["validation"]["errors"] == []
    return json.loads((out / "plan.json").read_text(encoding="utf-8"))


def resources(plan: dict) -> list[tuple]:
    """What each resource is, with the project name of the URNs taken out (the user's project has its own)."""

    def urn(text: str) -> str:
        return text.replace(f"::{plan['project']}::", "::PROJECT::")

    return [
        (urn(r["urn"]), r["type"], urn(r["parent"]), urn(r["provider"]), json.dumps(r["inputs"], sort_keys=True))
        for r in plan["resources"]
    ]


@pytest.mark.wheel
def test_the_wheel_installed_elsewhere_runs_a_users_program_and_any_stack_file(tmp_path):
    bin_dir = build_and_install(tmp_path)
    elsewhere = tmp_path / "elsewhere"  # no Pulumi.yaml, no repository at or above it
    elsewhere.mkdir()

    # (a) the installed distribution: its top-level packages, and every requirement of [cli] met
    inspected = subprocess.run(
        [str(bin_dir / "python"), "-c", INSPECT], cwd=elsewhere, env=_clean_env(), capture_output=True, text=True
    )
    assert inspected.returncode == 0, inspected.stderr
    installed = json.loads(inspected.stdout)
    assert installed["top"] == ["dra_gpu_platform", "gpuplan"]
    assert not installed["components"] and not installed["policies"]
    assert installed["new_subpackage"], "a subpackage added under the source root ships in the wheel"
    assert installed["unmet"] == [] and {"cli", "aws", "azure", "policy"} <= set(installed["extras"])

    # (b) a user's own program, previewed by that venv's gpuplan, against (c) the equivalent stack file elsewhere
    stack_file = elsewhere / "Pulumi.dev.yaml"
    shutil.copy2(STACKS_DIR / "Pulumi.dev.yaml", stack_file)
    program = tmp_path / "team-program"
    write_user_program(program, stack_file)
    from_program = preview(
        bin_dir / "gpuplan", elsewhere, tmp_path / "out-program", "--project", str(program), "--stack", "dev"
    )
    from_file = preview(bin_dir / "gpuplan", elsewhere, tmp_path / "out-file", "--config", str(stack_file))
    assert from_program["project"] == USER_PROJECT and from_file["project"] == PROJECT
    assert from_program["stack"] == from_file["stack"] == "dev"
    assert len(from_file["resources"]) > 20
    assert resources(from_program) == resources(from_file)
    # the same manifests, too (kind-config.yaml included: the program's GpuPlatform told gpuplan its config)
    written = sorted(p.relative_to(tmp_path / "out-file").as_posix() for p in (tmp_path / "out-file").rglob("*.yaml"))
    assert written == sorted(
        p.relative_to(tmp_path / "out-program").as_posix() for p in (tmp_path / "out-program").rglob("*.yaml")
    )
    assert "kind-config.yaml" in written
