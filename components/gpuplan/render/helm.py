"""Render one Helm release with a real `helm template`, from its chart as gpuplan/render/charts.py has it (from
`--charts DIR` or pulled from its repository). What the program declares (chart, version, repository, namespace,
values) comes from the recorded run, so the render uses exactly the values `pulumi up` would send."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.inputs.yamlio import dump_yaml
from gpuplan.render.charts import ChartSource, normal

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
    chart_path: str | None  # the chart as the user has it: DIR/<chart>-<version>.tgz, a folder, or the pulled archive
    chart_version: str | None  # what the chart's Chart.yaml says
    documents: list[dict[str, Any]]
    error: str | None  # helm's message when it failed
    source: ChartSource | None = None  # the chart rendered (its unpacked folder), for renders of variants


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


def render(
    helm: str,
    release: ReleaseSpec,
    workdir: Path,
    *,
    kube_version: str,
    api_versions: list[str],
    chart: ChartSource,
) -> Rendered:
    """`helm template` of `release` from its chart, had before (gpuplan/render/charts.py: from --charts or pulled)."""
    workdir.mkdir(parents=True, exist_ok=True)
    values_file = workdir / f"{release.name}.values.yaml"
    values_file.write_text(dump_yaml(release.values, sort_keys=True), encoding="utf-8")
    chart_path, chart_version = chart.origin, chart.version
    command = [helm, "template", release.name, str(chart.folder)]
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
            release, command, chart_path, chart_version, [], f"helm template ran longer than {HELM_TIMEOUT_S} s", chart
        )
    if done.returncode != 0:
        return Rendered(
            release,
            command,
            chart_path,
            chart_version,
            [],
            done.stderr.strip() or f"helm exited {done.returncode}",
            chart,
        )
    documents = [d for d in yaml.load_all(done.stdout, Loader=_Loader) if isinstance(d, dict)]
    return Rendered(release, command, chart_path, chart_version, documents, None, chart)


def version_mismatch(rendered: Rendered) -> str | None:
    """A local chart whose Chart.yaml names another version than the stack pins."""
    if rendered.chart_version is None or normal(rendered.chart_version) == normal(rendered.release.version):
        return None
    return (
        f"{rendered.chart_path} is chart version {rendered.chart_version}, the stack pins {rendered.release.version}: "
        "the render does not prove the pinned release"
    )
