"""platform existing: the nodes a pool names get the pool's labels and taint from a NodePatch (server-side apply
through the cluster's provider); a pool that names none makes preview print the kubectl commands instead."""

from __future__ import annotations

import copy

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.plans.node_pools import label_commands, pool_labels
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from tests.conftest import clean_inputs, qualify, run_config, write_stack

NODE_PATCH = "kubernetes:core/v1:NodePatch"
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
            "labels": {"team": "research"},
            "nodes": ["gpu-a100-1", "gpu-a100-2"],
        },
        {"name": "h100", "gpu": "H100", "maxNodes": 4, "gpusPerNode": 8},
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_config(tmp_path_factory.mktemp("existing"), STACK, "lab")


def test_each_named_node_gets_one_patch_with_the_pools_labels_and_taint(run):
    patches = {r.name: r for r in run.of_type(NODE_PATCH)}
    assert sorted(patches) == ["lab-existing-node-gpu-a100-1", "lab-existing-node-gpu-a100-2"]
    config = run.config
    for node in ("gpu-a100-1", "gpu-a100-2"):
        inputs = clean_inputs(patches[f"lab-existing-node-{node}"])
        assert inputs["metadata"] == {"name": node, "labels": pool_labels(config.pool("a100-mig"))}
        assert inputs["spec"] == {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]}
        assert inputs["metadata"]["labels"]["team"] == "research"
        assert "nvidia.com/gpu.present" not in inputs["metadata"]["labels"]  # the operator's own label


def test_patches_use_the_clusters_provider_under_the_cluster_component(run):
    by_urn = run.by_urn()
    for patch in run.of_type(NODE_PATCH):
        assert patch.provider.endswith("::lab-existing-k8s")
        assert by_urn[patch.parent].type == "dra-gpu-platform:cluster:ExistingCluster"


def test_a_pool_without_nodes_gets_the_kubectl_commands(run):
    (warning,) = [m for severity, m in run.logs if severity == "warning" and m.startswith("pool h100")]
    assert warning.startswith("pool h100: no nodes listed")
    assert "will not run on any node until you run" in warning
    for command in label_commands(plan_stack(run.config).pool("h100")):
        assert command in warning
    assert "kubectl taint node NODE --overwrite nvidia.com/gpu=present:NoSchedule" in warning


def test_preview_prints_the_commands(tmp_path):
    result = CliRunner().invoke(
        app, ["preview", "--config", str(write_stack(tmp_path, STACK, "lab")), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output
    assert "kubectl label node NODE --overwrite dra-gpu-platform.io/gpu=H100" in result.output


def test_node_lists_are_checked(tmp_path):
    from dra_gpu_platform.inputs.problems import InputError

    twice = copy.deepcopy(STACK)
    twice["nodePools"][1]["nodes"] = ["gpu-a100-2"]
    eks = {
        "aws:region": "us-east-1",
        "cluster": {
            "platform": "eks",
            "name": "c",
            "kubernetesVersion": "1.35",
            "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
        },
        "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 1, "nodes": ["ip-10-0-0-1"]}],
    }
    bad_name = copy.deepcopy(STACK)
    bad_name["nodePools"][1]["nodes"] = ["GPU_Node"]
    found = []
    for config in (twice, eks, bad_name):
        with pytest.raises(InputError) as caught:
            parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml")
        found.append({p.path: p for p in caught.value.problems})
    assert "already listed by nodePools[0] (a100-mig)" in found[0]["nodePools[1].nodes[0]"].rule
    assert found[1]["nodePools[0].nodes"].fix == "remove nodes"
    assert "DNS subdomain" in found[2]["nodePools[1].nodes[0]"].rule


def test_named_nodes_and_max_nodes_must_agree():
    """An existing pool is exactly the nodes it names: fit and the policy pack simulate maxNodes of them."""
    from dra_gpu_platform.inputs.problems import InputError

    short = copy.deepcopy(STACK)
    short["nodePools"][0]["maxNodes"] = 3
    with pytest.raises(InputError) as caught:
        parse_config_map(qualify(short), stack="t", source="Pulumi.t.yaml")
    [problem] = [p for p in caught.value.problems if p.path == "nodePools[0].maxNodes"]
    assert problem.value == 3 and "2 in nodes" in problem.rule and problem.fix.startswith("set maxNodes: 2")
    plan = plan_stack(parse_config_map(qualify(STACK), stack="t", source="Pulumi.t.yaml"))
    from dra_gpu_platform.plans.stack_inventory import simulated_nodes

    assert simulated_nodes(plan.pool("a100-mig")) == ["gpu-a100-1", "gpu-a100-2"]  # the named nodes, not a100-mig-<i>
