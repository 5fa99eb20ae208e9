"""`gpuplan render` offline (gpuplan/render/charts.py): `--charts DIR` takes the archives `helm pull` writes
(`<chart>-<version>.tgz`) as well as unpacked charts, subcharts included (in the chart's own charts/ folder, or
pulled alongside it into DIR); a chart that cannot be had is exit 2 naming it, its version and the `helm pull` that
fetches it, never placement findings. The charts are small ones written here with names of their own, packaged by
the real helm (tests/helm_binary.py)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from gpuplan.render import charts, helm
from tests.conftest import write_stack
from tests.gpuplan import probe_charts
from tests.gpuplan.test_render import STACK

SUB_TEMPLATE = {
    "greeting.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: probe-greeting\ndata:\n"
    "  greeting: {{ .Values.greeting | quote }}\n"
}
REPOSITORY = "https://charts.example.invalid/probe"


@pytest.fixture(autouse=True)
def _helm_homes(tmp_path, monkeypatch):
    """helm's cache, config and data in the test's folder, never the user's."""
    for name in ("HELM_CACHE_HOME", "HELM_CONFIG_HOME", "HELM_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / "helm-home" / name.lower()))


def package(helm_path: str, folder: Path, into: Path, as_name: str | None = None) -> Path:
    """The chart archive the real helm writes (`<name>-<version>.tgz`), renamed to `as_name` where the stack's
    release names the chart otherwise (what `helm pull` of that chart would have written)."""
    into.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [helm_path, "package", str(folder), "--destination", str(into)], capture_output=True, text=True, check=True
    )
    archive = Path(done.stdout.strip().rsplit(": ", 1)[-1])
    if as_name is None:
        return archive
    return archive.rename(into / as_name)


def test_render_takes_the_archives_helm_pull_writes(helm_path, tmp_path):
    unpacked = probe_charts.write_charts(tmp_path / "unpacked")
    pulled = tmp_path / "pulled"
    for folder in sorted(unpacked.iterdir()):
        package(helm_path, folder, pulled, f"{folder.name}.tgz")  # gpu-operator-v26.7.0.tgz, ...
    assert sorted(p.name for p in pulled.iterdir()) == ["dra-driver-nvidia-gpu-0.4.1.tgz", "gpu-operator-v26.7.0.tgz"]
    stack = write_stack(tmp_path, STACK, "lab")
    result = CliRunner().invoke(
        app,
        [
            "render",
            "--config",
            str(stack),
            "--out",
            str(tmp_path / "out"),
            "--helm",
            helm_path,
            "--charts",
            str(pulled),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert {Path(r["chartPath"]).name for r in report["releases"]} == {
        "dra-driver-nvidia-gpu-0.4.1.tgz",
        "gpu-operator-v26.7.0.tgz",
    }
    assert all(r["objects"] > 0 and r["error"] is None for r in report["releases"])
    assert not report["findings"] and {p["pool"] for p in report["placement"]} == {"a100-mig", "h100"}
    assert list(pulled.iterdir()) and not any(p.is_dir() for p in pulled.iterdir())  # nothing unpacked into DIR


def _parent(tmp_path: Path, vendored: Path | None = None) -> Path:
    parent = probe_charts.write_chart(tmp_path / "src" / "probe-parent", "probe-parent", "1.2.0", {}, {"sub": {}})
    chart = yaml.safe_load((parent / "Chart.yaml").read_text())
    chart["dependencies"] = [{"name": "probe-sub", "version": "0.1.0", "repository": REPOSITORY, "alias": "sub"}]
    (parent / "Chart.yaml").write_text(yaml.safe_dump(chart))
    if vendored is not None:
        (parent / "charts").mkdir()
        shutil.copy2(vendored, parent / "charts" / vendored.name)
    return parent


def _sub(helm_path: str, tmp_path: Path, into: Path) -> Path:
    folder = probe_charts.write_chart(
        tmp_path / "src" / "probe-sub", "probe-sub", "0.1.0", SUB_TEMPLATE, {"greeting": "hi"}
    )
    return package(helm_path, folder, into)


def _render(helm_path: str, charts_dir: Path, work: Path):
    spec = helm.ReleaseSpec("parent", "probe-parent", "1.2.0", REPOSITORY, "default", {"sub": {"greeting": "hello"}})
    chart_set = charts.ChartSet(helm_path, work / "charts", charts_dir, work / "pulled")
    source = chart_set.add(spec.name, spec.chart, spec.chart_name, spec.version, spec.repository)
    chart_set.check()
    return helm.render(helm_path, spec, work / "values", kube_version="1.35.0", api_versions=[], chart=source)


def test_a_subchart_pulled_alongside_its_chart_is_used(helm_path, tmp_path):
    charts_dir = tmp_path / "charts"
    _sub(helm_path, tmp_path, charts_dir)  # helm pull probe-sub ... --destination charts
    # the parent as its source tree has it (git archive of the chart folder): no charts/ folder
    shutil.copytree(_parent(tmp_path), charts_dir / "probe-parent-1.2.0")
    rendered = _render(helm_path, charts_dir, tmp_path / "work")
    assert rendered.error is None, rendered.error
    [config_map] = rendered.documents
    assert config_map["data"] == {"greeting": "hello"}  # the parent's values reach the subchart by its alias
    assert not (charts_dir / "probe-parent-1.2.0" / "charts").exists()  # DIR is read, never changed


def test_a_subchart_in_the_charts_own_folder_is_used(helm_path, tmp_path):
    sub = _sub(helm_path, tmp_path, tmp_path / "elsewhere")
    charts_dir = tmp_path / "charts"
    package(helm_path, _parent(tmp_path, vendored=sub), charts_dir)
    unpacked = charts_dir / "probe-parent-1.2.0"
    shutil.copytree(_parent(tmp_path / "again", vendored=sub), unpacked)
    for layout in ("archive", "folder"):
        if layout == "folder":
            (charts_dir / "probe-parent-1.2.0.tgz").unlink()
        rendered = _render(helm_path, charts_dir, tmp_path / f"work-{layout}")
        assert rendered.error is None and rendered.documents[0]["data"] == {"greeting": "hello"}, layout


def test_a_missing_subchart_is_named_with_its_pull_command(helm_path, tmp_path):
    charts_dir = tmp_path / "charts"
    shutil.copytree(_parent(tmp_path), charts_dir / "probe-parent")
    with pytest.raises(InputError) as caught:
        _render(helm_path, charts_dir, tmp_path / "work")
    [problem] = caught.value.problems
    assert problem.value == "probe-sub 0.1.0" and "subchart probe-sub 0.1.0 of probe-parent 1.2.0" in problem.rule
    assert problem.fix == f"helm pull probe-sub --repo {REPOSITORY} --version 0.1.0 --destination {charts_dir}"


def test_a_chart_that_cannot_be_fetched_is_exit_2_naming_it_and_its_pull(helm_path, tmp_path, monkeypatch):
    for name in ("HTTPS_PROXY", "HTTP_PROXY", "https_proxy", "http_proxy"):  # no network: every fetch is refused
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    stack = write_stack(tmp_path, STACK, "lab")
    result = CliRunner().invoke(
        app, ["render", "--config", str(stack), "--out", str(tmp_path / "out"), "--helm", helm_path, "--format", "json"]
    )
    assert result.exit_code == 2, result.output
    document = json.loads(result.stdout)
    assert set(document) == {"errors"}  # no placement, no findings
    by_chart = {e["value"]: e for e in document["errors"]}
    assert set(by_chart) == {"gpu-operator v26.7.0", "dra-driver-nvidia-gpu 0.4.1"}
    operator = by_chart["gpu-operator v26.7.0"]
    assert "cannot be fetched" in operator["rule"] and "https://helm.ngc.nvidia.com/nvidia" in operator["rule"]
    assert operator["fix"].startswith(
        "helm pull gpu-operator --repo https://helm.ngc.nvidia.com/nvidia --version v26.7.0 --destination charts"
    )
    driver = by_chart["dra-driver-nvidia-gpu 0.4.1"]["fix"]
    assert driver.startswith("helm pull oci://") and "--version 0.4.1" in driver
    text = CliRunner().invoke(
        app, ["render", "--config", str(stack), "--out", str(tmp_path / "out"), "--helm", helm_path]
    )
    assert text.exit_code == 2 and "placement" not in text.output and "✗" not in text.output
    assert "helm pull gpu-operator" in text.output
