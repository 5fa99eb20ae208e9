"""Render one Helm release with a real `helm template`: from its chart repository (online) or from a folder of
unpacked charts (`--charts DIR`, air-gapped). What the program declares (chart, version, repository, namespace,
values) comes from the recorded run, so the render uses exactly the values `pulumi up` would send."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dra_gpu_platform.config.problems import InputError, Problem
from dra_gpu_platform.config.yamlio import dump_yaml

HELM_TIMEOUT_S = 300


class _Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):
    """YAML 1.1's `=` (the value tag) appears as a plain scalar in some charts' CRDs; Go's YAML reads it as a string."""


_Loader.add_constructor("tag:yaml.org,2002:value", lambda loader, node: loader.construct_scalar(node))


@dataclass(frozen=True)
class ReleaseSpec:
    name: str
    chart: str  # a chart name in `repository`, or a full oci:// reference
    version: str
    repository: str | None
    namespace: str
    values: dict[str, Any]

    @property
    def chart_name(self) -> str:
        return self.chart.rstrip("/").rsplit("/", 1)[-1]


@dataclass
class Rendered:
    release: ReleaseSpec
    command: list[str]
    chart_path: str | None  # the local chart folder (--charts), None online
    chart_version: str | None  # what the local chart's Chart.yaml says
    documents: list[dict[str, Any]]
    error: str | None  # helm's message when it failed


def find_helm(helm: str | None) -> str:
    """The helm binary: --helm PATH, else `helm` on the PATH; invalid input when there is none."""
    candidate = helm or "helm"
    found = shutil.which(candidate)
    if found is None:
        raise InputError(
            [
                Problem(
                    "(command line)",
                    "--helm",
                    candidate,
                    "no helm executable there",
                    "install helm 3.15+ or 4.x, or pass --helm /path/to/helm",
                )
            ],
            "the command line",
        )
    return found


def _normal(version: str) -> str:
    return version[1:] if version.startswith("v") else version


def local_chart(charts_dir: Path, release: ReleaseSpec) -> Path:
    """DIR/<chart>-<version>/ (as `helm pull --untar --untardir DIR/<chart>-<version>` leaves it, one level down, or
    the chart itself), else DIR/<chart>/. Invalid input when neither holds a Chart.yaml."""
    name = release.chart_name
    for folder in (
        charts_dir / f"{name}-{release.version}",
        charts_dir / f"{name}-{_normal(release.version)}",
        charts_dir / name,
    ):
        if (folder / "Chart.yaml").is_file():
            return folder
        if (folder / name / "Chart.yaml").is_file():
            return folder / name
    raise InputError(
        [
            Problem(
                str(charts_dir),
                f"{release.name}.chart",
                f"{name} {release.version}",
                f"no unpacked chart {name} {release.version} under {charts_dir}",
                f"helm pull {_pull_ref(release)} --version {release.version} --untar "
                f"--untardir {charts_dir / f'{name}-{release.version}'}",
            )
        ],
        "the charts folder",
    )


def _pull_ref(release: ReleaseSpec) -> str:
    return release.chart if release.repository is None else f"{release.chart} --repo {release.repository}"


def render(
    helm: str,
    release: ReleaseSpec,
    workdir: Path,
    *,
    kube_version: str,
    api_versions: list[str],
    charts_dir: Path | None = None,
) -> Rendered:
    workdir.mkdir(parents=True, exist_ok=True)
    values_file = workdir / f"{release.name}.values.yaml"
    values_file.write_text(dump_yaml(release.values, sort_keys=True), encoding="utf-8")
    command = [helm, "template", release.name]
    chart_path = chart_version = None
    if charts_dir is not None:
        chart = local_chart(charts_dir, release)
        chart_path = str(chart)
        chart_version = str(
            (yaml.safe_load((chart / "Chart.yaml").read_text(encoding="utf-8")) or {}).get("version", "")
        )
        command.append(chart_path)
    else:
        command += [release.chart, "--version", release.version]
        if release.repository:
            command += ["--repo", release.repository]
    command += [
        "--namespace",
        release.namespace,
        "--values",
        str(values_file),
        "--include-crds",
        "--kube-version",
        kube_version,
    ]
    for api in api_versions:
        command += ["--api-versions", api]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=HELM_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        return Rendered(
            release, command, chart_path, chart_version, [], f"helm template ran longer than {HELM_TIMEOUT_S} s"
        )
    if done.returncode != 0:
        return Rendered(
            release, command, chart_path, chart_version, [], done.stderr.strip() or f"helm exited {done.returncode}"
        )
    documents = [d for d in yaml.load_all(done.stdout, Loader=_Loader) if isinstance(d, dict)]
    return Rendered(release, command, chart_path, chart_version, documents, None)


def version_mismatch(rendered: Rendered) -> str | None:
    """A local chart whose Chart.yaml names another version than the stack pins."""
    if rendered.chart_version is None or _normal(rendered.chart_version) == _normal(rendered.release.version):
        return None
    return (
        f"{rendered.chart_path} is chart version {rendered.chart_version}, the stack pins {rendered.release.version}: "
        "the render does not prove the pinned release"
    )
