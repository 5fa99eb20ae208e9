"""The charts `gpuplan render` renders, had before anything is rendered: from `--charts DIR` (the archives
`helm pull` writes, `<chart>-<version>.tgz`, or unpacked charts, `DIR/<chart>-<version>/` or `DIR/<chart>/`) or,
online, pulled with `helm pull` into the output folder (where `--charts` finds them the next time). Each chart is
unpacked (or copied) into a working folder with its subcharts: those in its own `charts/` folder, else those
pulled alongside it into DIR (`helm pull <dependency>` writes `<dependency>-<version>.tgz` there too).

A chart or subchart that cannot be had (no network, no local copy) is invalid input, every one named with its
version and the exact `helm pull` command that fetches it: never a render failure, never placement findings.
"""

from __future__ import annotations

import shutil
import subprocess
import tarfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem

PULL_TIMEOUT_S = 120


@dataclass(frozen=True)
class ChartSource:
    origin: str  # what the user has: DIR/<chart>-<version>.tgz, DIR/<chart>-<version>/, or the pulled archive
    folder: Path  # the chart unpacked with its subcharts: what `helm template` renders
    version: str | None  # what its Chart.yaml says


def normal(version: str) -> str:
    return version[1:] if version.startswith("v") else version


def pull_command(chart: str, version: str, repository: str | None, destination: Path | str) -> str:
    """The `helm pull` that writes `<chart>-<version>.tgz` into `destination`."""
    where = f"{chart} --repo {repository}" if repository else chart
    return f"helm pull {where} --version {version} --destination {destination}"


def _chart_yaml(folder: Path) -> dict[str, Any]:
    data = (
        yaml.safe_load((folder / "Chart.yaml").read_text(encoding="utf-8")) if (folder / "Chart.yaml").is_file() else {}
    )
    return data if isinstance(data, dict) else {}


def _unpack(archive: Path, into: Path) -> Path:
    """The chart folder inside a chart archive (its one top folder), unpacked under `into`."""
    into.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(into, filter="data")
    folders = [p for p in into.iterdir() if (p / "Chart.yaml").is_file()]
    if len(folders) != 1:
        raise InputError(
            [
                Problem(
                    str(archive),
                    "",
                    MISSING,
                    "not a chart archive: it holds no single folder with a Chart.yaml",
                    "pass the archive `helm pull` wrote, or the unpacked chart folder",
                )
            ],
            "the charts folder",
        )
    return folders[0]


def find_local(charts_dir: Path, chart: str, version: str) -> Path | None:
    """`<chart>-<version>.tgz` (as `helm pull` names it, with or without the version's `v`), else the chart folder
    `<chart>-<version>/` (or the chart one level down in it, as `helm pull --untar --untardir` leaves it), else
    `<chart>/`."""
    for candidate in dict.fromkeys((version, normal(version), f"v{normal(version)}")):
        archive = charts_dir / f"{chart}-{candidate}.tgz"
        if archive.is_file():
            return archive
    for folder in (charts_dir / f"{chart}-{version}", charts_dir / f"{chart}-{normal(version)}", charts_dir / chart):
        if (folder / "Chart.yaml").is_file():
            return folder
        if (folder / chart / "Chart.yaml").is_file():
            return folder / chart
    return None


def _any_version(charts_dir: Path, chart: str) -> Path | None:
    """An archive or folder of `chart` in any version (a subchart whose dependency names a range)."""
    found = sorted(charts_dir.glob(f"{chart}-*.tgz")) + sorted(
        p for p in charts_dir.glob(f"{chart}-*") if (p / "Chart.yaml").is_file()
    )
    return found[-1] if found else None


class ChartSet:
    """Every chart of a render, had at once: `add` for each release, then `problems` says what is missing."""

    def __init__(self, helm: str, workdir: Path, charts_dir: Path | None, pulled: Path) -> None:
        self.helm = helm
        self.workdir = workdir
        self.charts_dir = charts_dir
        self.pulled = pulled  # where online pulls go (reusable as --charts)
        self.problems: list[Problem] = []

    def add(self, release: str, chart_ref: str, chart: str, version: str, repository: str | None) -> ChartSource | None:
        """The chart of `release`, unpacked with its subcharts, or None (with its problem recorded)."""
        target = self.workdir / release
        if target.exists():
            shutil.rmtree(target)
        if self.charts_dir is not None:
            found = find_local(self.charts_dir, chart, version)
            if found is None:
                self.problems.append(
                    Problem(
                        str(self.charts_dir),
                        f"{release}.chart",
                        f"{chart} {version}",
                        f"no chart {chart} {version} in {self.charts_dir} (neither {chart}-{version}.tgz nor an "
                        "unpacked chart folder)",
                        pull_command(chart_ref, version, repository, self.charts_dir),
                    )
                )
                return None
        else:
            found = self._pull(release, chart_ref, chart, version, repository, self.pulled)
            if found is None:
                return None
        if found.is_file():
            folder = _unpack(found, target)
        else:
            folder = target / found.name
            shutil.copytree(found, folder, symlinks=False)
        self._subcharts(release, chart, version, folder)
        return ChartSource(str(found), folder, str(_chart_yaml(folder).get("version", "")) or None)

    def _pull(
        self, release: str, chart_ref: str, chart: str, version: str, repository: str | None, into: Path
    ) -> Path | None:
        """`helm pull` of the chart into `into`; None (and its problem) when it cannot be fetched."""
        existing = find_local(into, chart, version) if into.is_dir() else None
        if existing is not None and existing.is_file():
            return existing  # pulled by an earlier run
        into.mkdir(parents=True, exist_ok=True)
        command = [self.helm, "pull", chart_ref, "--version", version, "--destination", str(into)]
        if repository:
            command += ["--repo", repository]
        try:
            done = subprocess.run(command, capture_output=True, text=True, timeout=PULL_TIMEOUT_S, check=False)
            message = done.stderr.strip().splitlines()[-1] if done.returncode and done.stderr.strip() else ""
            failed = done.returncode != 0
        except subprocess.TimeoutExpired:
            failed, message = True, f"helm pull ran longer than {PULL_TIMEOUT_S} s"
        found = find_local(into, chart, version) if not failed else None
        if found is None:
            self.problems.append(
                Problem(
                    "(network)",
                    f"{release}.chart",
                    f"{chart} {version}",
                    f"chart {chart} {version} cannot be fetched"
                    + (f" from {repository}" if repository else f" ({chart_ref})")
                    + (f": {message}" if message else ""),
                    f"{pull_command(chart_ref, version, repository, 'charts')} where the network reaches it, then "
                    "gpuplan render --charts charts",
                )
            )
        return found

    def _subcharts(self, release: str, chart: str, version: str, folder: Path) -> None:
        """Each dependency of the chart's Chart.yaml in its `charts/` folder: there already, else from DIR (or
        pulled online); what neither has is a problem naming the `helm pull` of the dependency."""
        inside = folder / "charts"
        for dependency in _chart_yaml(folder).get("dependencies") or []:
            if not isinstance(dependency, dict) or not dependency.get("name"):
                continue
            name, wanted = str(dependency["name"]), str(dependency.get("version") or "")
            repository = str(dependency.get("repository") or "")
            if repository.startswith(("file://", "@", "alias:")):
                repository = ""  # a local or aliased repository: only what is vendored or in DIR can serve
            # an OCI dependency is pulled by its reference, a Helm repository's by name and --repo
            ref, repo = (
                (f"{repository}/{name}", None) if repository.startswith("oci://") else (name, repository or None)
            )
            if self._vendored(inside, name):
                continue
            found = None
            if self.charts_dir is not None:
                found = find_local(self.charts_dir, name, wanted) if wanted else None
                found = found or _any_version(self.charts_dir, name)
            elif repository and wanted:
                found = self._pull(release, ref, name, wanted, repo, self.pulled)
                if found is None:
                    continue  # its problem is recorded
            if found is None:
                where = f"nor in {self.charts_dir}" if self.charts_dir is not None else "and it names no repository"
                self.problems.append(
                    Problem(
                        str(self.charts_dir or "(network)"),
                        f"{release}.chart",
                        f"{name} {wanted}",
                        f"subchart {name} {wanted} of {chart} {version} is not in the chart's charts/ folder {where}",
                        pull_command(ref, wanted or "<version>", repo, self.charts_dir or "charts"),
                    )
                )
                continue
            inside.mkdir(exist_ok=True)
            if found.is_file():
                shutil.copy2(found, inside / found.name)
            else:
                shutil.copytree(found, inside / name)

    @staticmethod
    def _vendored(inside: Path, name: str) -> bool:
        if not inside.is_dir():
            return False
        for entry in inside.iterdir():
            if entry.is_dir() and _chart_yaml(entry).get("name") == name:
                return True
            if entry.is_file() and entry.name.startswith(f"{name}-") and entry.name.endswith(".tgz"):
                return True
        return False

    def check(self) -> None:
        """Invalid input listing every chart and subchart that could not be had."""
        if self.problems:
            raise InputError(self.problems, "the charts")
