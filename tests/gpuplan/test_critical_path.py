"""`gpuplan preview` reports the modelled `pulumi up` and its critical path: the prod stack's path against
the lower bound (a model, not a timing), the JSON `criticalPath` object, the text lines."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpuplan.app import app


@pytest.fixture(scope="module")
def prod_json(tmp_path_factory):
    out = tmp_path_factory.mktemp("prod")
    result = CliRunner().invoke(app, ["preview", "--stack", "prod", "--out", str(out), "--format", "json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_prod_critical_path_is_at_least_its_lower_bound_cluster_system_nodes_operator(prod_json):
    path = prod_json["criticalPath"]
    assert path["modelledMinutes"] >= path["lowerBound"]["minutes"] and path["ratio"] >= 1
    assert path["ratio"] == pytest.approx(path["modelledMinutes"] / path["lowerBound"]["minutes"], abs=0.01)
    bound = path["lowerBound"]
    # The operator waits for the system nodes its pods need (through the provider) but not for the GPU pools, so the
    # slowest chain is cluster, system nodes, operator (12 + 5 + 5), not cluster + GPU pool (12 + 8).
    assert (bound["cluster"]["type"], bound["nodePool"]["step"], bound["release"]["step"]) == (
        "aws:eks/cluster:Cluster",
        "eks-node-group",
        "gpu-operator",
    )
    assert bound["gpuPool"] is None and bound["minutes"] == 12 + 5 + 5


def test_prod_path_runs_cluster_then_system_nodes_then_the_operator(prod_json):
    path = prod_json["criticalPath"]
    long_steps = [(s["step"], s["minutes"]) for s in path["path"] if s["minutes"] >= 1]
    assert long_steps == [("eks-cluster", 12), ("eks-node-group", 5), ("gpu-operator", 5)]
    finishes = [s["finishMinutes"] for s in path["path"]]
    assert finishes == sorted(finishes) and finishes[-1] == path["modelledMinutes"]
    assert all(s["source"] for s in path["path"])
    # The operator waits for the provider, which waits for the system node group its pods need.
    assert any(s["via"] == "provider" for s in path["path"])


def test_preview_json_keeps_its_keys_and_adds_critical_path(prod_json):
    assert {"stack", "resources", "plan", "manifests", "validation", "notes", "criticalPath"} <= set(prod_json)
    assert set(prod_json["criticalPath"]) == {"modelledMinutes", "path", "summary", "lowerBound", "ratio"}


def test_preview_text_prints_the_modelled_duration_and_path(tmp_path):
    result = CliRunner().invoke(app, ["preview", "--stack", "dev", "--out", str(tmp_path)], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    assert "Modelled `pulumi up`: 2 min" in result.output
    assert (
        "critical path: kind create cluster gpu-dev-kind-create 1 min → DRA example driver dra-example-driver 1 min"
        in result.output
    )
    assert (
        "lower bound: kind create cluster gpu-dev-kind-create 1 min + DRA example driver dra-example-driver 1 min = 2 min"
        in result.output
    )
