"""A described GPU on an existing cluster and unlisted instance types on EKS, through every offline command: preview
(notes, the capacity table and JSON, valid manifests), fit (the simulated devices carry the described GPU), render's
placement (no helm: the DRA kubelet plugin's node selection from the stack's values), the policy pack (its adapter
reads the pools back as the plan made them) and preflight's expectations. A wrong declaration is exit 2 with its
path."""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts.node_labels import GPU_LABEL, GPUS_PER_NODE_LABEL, NFD_NVIDIA_PCI_LABEL
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.recorded.pools import stack_pools
from gpuplan.app import app
from gpuplan.preflight.checks import gpus_check, pool_shape
from gpuplan.render.placement import DRA_PLUGIN
from gpuplan.render.stack import place_pools
from tests.conftest import write_stack
from tests.recorded.test_pool_adapter import _as_policy_resources
from tests.resources.alone import cluster_alone

A5000 = {"product": "NVIDIA RTX A5000", "memory": "24564Mi", "computeCapability": "8.6", "architecture": "Ampere"}
A30 = {
    "product": "NVIDIA A30",
    "memory": "24576Mi",
    "computeCapability": "8.0",
    "architecture": "Ampere",
    "migProfiles": [{"name": "1g.6gb", "maxCount": 4, "memorySlices": 2, "memory": "5952Mi"}],
}
EXISTING = {
    "cluster": {
        "platform": "existing",
        "name": "lab",
        "kubernetesVersion": "1.35",
        "existing": {"context": "lab", "deployerGroups": ["platform-deployers"]},
    },
    "kubeconfig": {"secure": "v1:offline-placeholder"},
    "nodePools": [
        {"name": "a5000", "gpu": A5000, "gpusPerNode": 4, "maxNodes": 2, "nodes": ["ws-1", "ws-2"]},
        {"name": "a30", "gpu": A30, "gpusPerNode": 2, "maxNodes": 1, "mig": {"profile": "1g.6gb"}, "nodes": ["ws-3"]},
    ],
    "deviceClasses": [
        {"name": "a5000", "selectors": ["device.attributes['gpu.nvidia.com'].productName == 'NVIDIA RTX A5000'"]},
        {
            "name": "a30-slice",
            "selectors": [
                "device.attributes['gpu.nvidia.com'].type == 'mig' && "
                "device.attributes['gpu.nvidia.com'].profile == '1g.6gb'"
            ],
        },
    ],
    "namespaces": [
        {
            "name": "ml",
            "quota": {"claims": 16, "devices": {"a5000": 8, "a30-slice": 8}},
            "claimTemplates": [
                {"name": "two", "deviceClass": "a5000", "count": 2},
                {"name": "slice", "deviceClass": "a30-slice"},
            ],
        }
    ],
}
EKS = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "g7",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [
        {
            "name": "g7",
            "gpu": "L4",
            "instanceType": "g7.16xlarge",
            "allowUnlisted": True,
            "instanceFacts": {"gpus": 4, "vcpu": 64, "memory": "256Gi"},
            "maxNodes": 2,
        },
        {
            "name": "b300",
            "gpu": "B200",
            "instanceType": "p6-b300.96xlarge",
            "allowUnlisted": True,
            "instanceFacts": {"gpus": 8, "vcpu": 192, "memory": "4096Gi", "efaInterfaces": 16, "nvmeDisks": 8},
            "maxNodes": 2,
        },
    ],
    "deviceClasses": [{"name": "l4", "gpu": "L4"}],
    "namespaces": [
        {
            "name": "ml",
            "quota": {"claims": 4, "devices": {"l4": 8}},
            "claimTemplates": [{"name": "four", "deviceClass": "l4", "count": 4}],
        }
    ],
}


def invoke(*args: str) -> tuple[int, dict]:
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    return result.exit_code, json.loads(result.stdout)


@pytest.fixture(scope="module", params=["existing", "eks"])
def stack(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp(request.param)
    path = write_stack(folder, EXISTING if request.param == "existing" else EKS, stack=request.param)
    return request.param, path, folder / "out"


def test_preview_notes_unlisted_types_and_prints_capacity(stack):
    name, path, out = stack
    code, document = invoke("preview", "--config", str(path), "--out", str(out))
    assert code == 0 and document["validation"]["errors"] == []
    plan = json.loads((out / "plan.json").read_text())
    assert plan["capacity"] == document["capacity"]
    rows = {row["pool"]: row for row in document["capacity"]["pools"]}
    if name == "existing":
        assert rows["a5000"]["gpu"] == "NVIDIA RTX A5000" and rows["a5000"]["maxGpus"] == 8
        assert rows["a30"]["purchase"] == "owned" and rows["a30"]["price"] is None
    else:
        assert rows["g7"]["unlisted"] and (rows["g7"]["gpusPerNode"], rows["g7"]["maxGpus"]) == (4, 8)
        unlisted = [n for n in document["notes"] if "is not in the catalog (allowUnlisted)" in n]
        assert len(unlisted) == 2 and "16 EFA interface(s)" in next(n for n in unlisted if "b300" in n)
        templates = [r for r in plan["resources"] if r["type"] == "aws:ec2/launchTemplate:LaunchTemplate"]
        efa = next(t for t in templates if "b300" in t["name"])["inputs"]["networkInterfaces"]
        assert len(efa) == 16 and efa[0]["interfaceType"] == "efa"
    assert document["capacity"]["totals"]["unpriced"] == sorted(rows)  # no price is recorded: nothing guessed


def test_fit_simulates_the_declared_gpus(stack):
    name, path, out = stack
    code, document = invoke("fit", "--config", str(path), "--out", str(out))
    assert code == 0
    verdicts = {c["name"]: c for c in document["claims"]}
    assert all(c["satisfiable"] for c in verdicts.values())
    if name == "existing":
        assert verdicts["slice"]["maxConcurrent"] == 8  # 2 A30 × 4 slices of 1g.6gb
        assert verdicts["two"]["maxConcurrent"] == 4  # 2 nodes × 4 A5000, two per claim
    else:
        assert verdicts["four"]["maxConcurrent"] == 2  # quota claims 4, l4 devices 8: two claims of four


def test_the_plan_and_the_policy_adapter_agree_on_every_pool(stack):
    name, path, _ = stack
    plan = plan_stack(load_stack_file(path))
    resources = _as_policy_resources(cluster_alone(EXISTING if name == "existing" else EKS, name))
    read = {pool.name: pool for _, pool in stack_pools(resources)}
    assert set(read) == {p.name for p in plan.pools}
    for pool in plan.pools:
        back = read[pool.name]
        if pool.platform == "existing":
            # node patches: one per listed node, each pool as many nodes as it lists; the GPU from its labels
            model, read_model = pool.model, back.model
            assert read_model is not None and model is not None
            assert (read_model.product_name, read_model.published_memory, read_model.compute_capability) == (
                model.product_name,
                model.published_memory,
                model.compute_capability,
            )
            if pool.mig_profile:
                assert read_model.mig_profiles == (model.mig_profile(pool.mig_profile),)
            assert (back.gpu, back.gpus_per_node, back.labels, back.taints, back.nodes, back.mig_profile) == (
                pool.gpu,
                pool.gpus_per_node,
                pool.labels,
                pool.taints,
                pool.nodes,
                pool.mig_profile,
            )
        else:
            # an unlisted type's GPUs come from the pool's label, not its whole shape; zones live in subnets
            assert replace(back, zone=None, shape=None) == replace(pool, zone=None, shape=None), pool.name


def test_the_policy_pack_passes(stack):
    _, path, _ = stack
    code, document = invoke("policy", "--config", str(path))
    assert code == 0 and document["violations"] == []


def test_the_dra_kubelet_plugin_lands_on_the_described_pools():
    plan = plan_stack(load_stack_file_from(EXISTING))
    values = plan.software.dra_driver.values["kubeletPlugin"]
    plugin = {
        "kind": "DaemonSet",
        "metadata": {"name": "kubelet-plugin"},
        "spec": {"template": {"spec": {"nodeSelector": values["nodeSelector"], "tolerations": values["tolerations"]}}},
    }
    nfd = {
        "kind": "DaemonSet",
        "metadata": {
            "name": "nfd-worker",
            "labels": {"app.kubernetes.io/name": "node-feature-discovery", "role": "worker"},
        },
        "spec": {"template": {"spec": {"tolerations": values["tolerations"]}}},
    }
    placements = place_pools(plan.pools, {"dra-driver-nvidia-gpu": [plugin], "gpu-operator": [nfd]})
    for placement in placements:
        assert [d.role for d in placement.landed if d.release == "dra-driver-nvidia-gpu"] == [DRA_PLUGIN]
        assert placement.labels[GPU_LABEL] in ("NVIDIA_RTX_A5000", "NVIDIA_A30")
        assert placement.labels[NFD_NVIDIA_PCI_LABEL] == "true" and GPUS_PER_NODE_LABEL in placement.labels


def load_stack_file_from(config: dict):
    from dra_gpu_platform.config.loading import parse_config_map
    from tests.conftest import qualify

    return parse_config_map(qualify(config), stack="lab", source="Pulumi.lab.yaml")


def test_preflight_expects_the_declared_facts():
    config = load_stack_file_from({**EKS, "cluster": {**EKS["cluster"]}})
    g7 = next(pool for pool in plan_stack(config).pools if pool.name == "g7")
    spec = {
        "GpuInfo": {"Gpus": [{"Name": "L4", "Count": 4, "MemoryInfo": {"SizeInMiB": 22888}}]},
        "VCpuInfo": {"DefaultVCpus": 64},
    }
    check = gpus_check("g7.16xlarge", spec, pool_shape(g7))
    assert check.ok, check.message
    wrong = gpus_check(
        "g7.16xlarge",
        {**spec, "GpuInfo": {"Gpus": [{"Name": "L4", "Count": 8, "MemoryInfo": {"SizeInMiB": 22888}}]}},
        pool_shape(g7),
    )
    assert not wrong.ok and "the catalog says 4" in wrong.message


def test_a_described_gpu_on_eks_is_exit_2_with_its_path(tmp_path):
    config = {**EKS, "nodePools": [{"name": "a5000", "gpu": A5000, "maxNodes": 1}]}
    code, document = invoke("preview", "--config", str(write_stack(tmp_path, config)), "--out", str(tmp_path / "out"))
    assert code == 2
    assert [e["path"] for e in document["errors"]] == ["nodePools[0].gpu"]
