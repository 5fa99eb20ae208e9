"""`gpuplan inventory`: ResourceSlice YAML from the catalog, an NVML snapshot, live NVML (a fake pynvml built
from the real H200 dump, since no GPU is at hand here) and a stack; clear exit-2 messages."""

from __future__ import annotations

import json
import sys

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.dra.cluster import build_cluster
from dra_gpu_platform.dra.dump import read_cluster_dump
from gpuplan.app import app
from tests.conftest import H200_NVML, shared_path
from tests.fixtures import fake_pynvml

H200 = H200_NVML / "nvml.json"


def invoke(*args: str):
    return CliRunner().invoke(app, ["inventory", *args])


def devices(output: str) -> list[dict]:
    return [d for doc in yaml.safe_load_all(output) if doc for d in doc["spec"]["devices"]]


def test_from_nvml_prints_the_h200_slice():
    shared_path(H200)
    result = invoke("--from-nvml", str(H200), "--node", "h200-node")
    assert result.exit_code == 0, result.output
    [piece] = [d for d in yaml.safe_load_all(result.output) if d]
    assert piece["kind"] == "ResourceSlice" and piece["apiVersion"] == "resource.k8s.io/v1"
    assert piece["spec"]["nodeName"] == "h200-node" and piece["spec"]["driver"] == "gpu.nvidia.com"
    [gpu] = piece["spec"]["devices"]
    assert gpu["attributes"]["productName"] == {"string": "NVIDIA H200"}
    assert gpu["capacity"]["memory"] == {"value": "143771Mi"}


def test_live_with_fake_pynvml_equals_the_snapshot(monkeypatch, tmp_path):
    shared_path(H200)
    monkeypatch.setitem(sys.modules, "pynvml", fake_pynvml)
    saved = tmp_path / "live.json"
    live = invoke("--live", "--node", "h200-node", "--save-nvml", str(saved))
    assert live.exit_code == 0, live.output
    assert live.output == invoke("--from-nvml", str(H200), "--node", "h200-node").output
    # the saved snapshot is a valid --from-nvml input that gives the same slices
    assert invoke("--from-nvml", str(saved), "--node", "h200-node").output == live.output
    mig = invoke("--live", "--node", "h200-node", "--mig", "7g.141gb")
    assert [d["name"] for d in devices(mig.output)] == ["gpu-0-mig-7g141gb-0-0"]


def test_live_without_nvml_is_a_clear_exit_2():
    import pynvml

    try:
        pynvml.nvmlInit()
    except pynvml.NVMLError:
        result = invoke("--live")
        assert result.exit_code == 2
        assert "NVML could not be initialised" in result.output and "--from-nvml" in result.output
        assert "Traceback" not in result.output
    else:  # pragma: no cover - a machine with a GPU
        pynvml.nvmlShutdown()
        pytest.skip("this machine has NVML; --live works here")


def test_catalog_node_with_instance_type_and_json_list():
    result = invoke("--gpu", "H100", "--instance-type", "p5.48xlarge", "--format", "json")
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["kind"] == "List"
    cluster = build_cluster(
        read_cluster_dump([document], "stdout").slices, constraint_attributes=["resource.kubernetes.io/pcieRoot"]
    )
    [node] = cluster.nodes  # what fit --inventory reads
    devices_ = [d for pool in cluster.pools(node) for s in pool.slices for d in s.devices]
    assert len(devices_) == 8
    roots = {d.shape.attributes["resource.kubernetes.io/pcieRoot"] for d in devices_}
    assert len(roots) == 4


def test_catalog_mig_layout():
    result = invoke("--gpu", "H100", "--count", "2", "--mig", "3g.40gb")
    assert result.exit_code == 0, result.output
    names = [d["name"] for d in devices(result.output)]
    assert names == ["gpu-0-mig-3g40gb-9-0", "gpu-0-mig-3g40gb-9-4", "gpu-1-mig-3g40gb-9-0", "gpu-1-mig-3g40gb-9-4"]


def test_stack_inventory_is_the_one_fit_simulates():
    result = invoke("--stack", "dev")
    assert result.exit_code == 0, result.output
    nodes = {doc["spec"]["nodeName"] for doc in yaml.safe_load_all(result.output) if doc}
    assert nodes == {"gpu-dev-worker", "gpu-dev-worker2"}


@pytest.mark.parametrize(
    "args, rule",
    [
        ((), "choose exactly one source"),
        (("--gpu", "H100", "--live"), "choose exactly one source"),
        (("--gpu", "GB300"), "not a GPU of the catalog"),
        (("--gpu", "L4", "--mig", "1g.5gb"), "L4 has no MIG profiles"),
        (("--gpu", "H100", "--mig", "1g.18gb"), "not a MIG profile of this GPU"),
        (("--gpu", "H100", "--instance-type", "p4d.24xlarge"), "not a catalog instance type with H100"),
        (("--from-nvml", "/nonexistent/nvml.json"), "does not exist"),
    ],
)
def test_bad_options_exit_2_with_the_rule(args, rule):
    result = invoke(*args, "--format", "json")
    assert result.exit_code == 2, result.output
    [problem] = json.loads(result.output)["errors"]
    assert rule in problem["rule"] and problem["fix"]
