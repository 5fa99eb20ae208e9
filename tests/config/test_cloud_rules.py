"""Cloud pool mistakes are config errors: `gpuplan preview --config` exits 2 and names the field path,
the value, the rule and a fix, for every mistake at once."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from gpuplan.cli.app import app
from tests.conftest import write_stack

EKS = {
    "aws:region": "us-east-1",
    "cluster": {"platform": "eks", "name": "gpu-test", "kubernetesVersion": "1.35"},
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "availabilityZone": "us-east-1a"},
        # Bottlerocket: its own device plugin lets the GPU Operator serve the DRA pool (one stack per operator)
        {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin", "amiType": "BOTTLEROCKET_x86_64_NVIDIA"},
    ],
}
AKS = {
    "azure-native:location": "eastus",
    "cluster": {"platform": "aks", "name": "gpu-test", "kubernetesVersion": "1.35"},
    "nodePools": [
        {"name": "a100", "gpu": "A100-80GB", "maxNodes": 2, "mig": {"profile": "3g.40gb"}},
        {"name": "t4", "gpu": "T4", "maxNodes": 2},
    ],
}


def with_pool(base: dict, index: int, **changes) -> dict:
    config = copy.deepcopy(base)
    config["nodePools"][index].update(changes)
    return config


def errors(tmp_path, config: dict) -> dict[str, dict]:
    result = CliRunner().invoke(app, ["preview", "--config", str(write_stack(tmp_path, config)), "--format", "json",
                                      "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    found = {e["path"]: e for e in json.loads(result.output)["errors"]}
    assert all(e["file"].endswith("Pulumi.test.yaml") and e["rule"] and e["fix"] for e in found.values())
    return found


CASES = {
    "capacity block without reservation": (
        with_pool(EKS, 0, capacity="capacity-block"), "nodePools[0].capacityReservationId", "reservation id", "capacityReservationId: cr-"),
    "capacity block on AKS": (
        with_pool(AKS, 1, capacity="capacity-block"), "nodePools[1].capacity", "do not exist on AKS", "spot"),
    "EC2 type carrying another GPU": (
        with_pool(EKS, 1, instanceType="p5.48xlarge"), "nodePools[1].instanceType", "carries H100, not T4", "g4dn.xlarge"),
    "Azure size carrying another GPU": (
        with_pool(AKS, 1, instanceType="Standard_NC24ads_A100_v4"), "nodePools[1].instanceType", "carries A100-80GB, not T4", "Standard_NC4as_T4_v3"),
    "no Azure size for the GPU": (
        with_pool(AKS, 1, gpu="L4"), "nodePools[1].gpu", "no AKS VM size in the catalog carries L4", "T4"),
    "unknown Azure size": (
        with_pool(AKS, 1, instanceType="Standard_NC6s_v3"), "nodePools[1].instanceType", "unknown AKS VM size", "Standard_NC4as_T4_v3"),
    "zone outside the region": (
        with_pool(EKS, 0, availabilityZone="us-west-2a"), "nodePools[0].availabilityZone", "not a zone of the stack's region us-east-1", "us-east-1a"),
    "AKS pool name starting with a digit": (
        with_pool(AKS, 1, name="4-legacy"), "nodePools[1].name", "must start with a letter", "rename"),
    "AKS MIG profile it cannot express": (
        with_pool(AKS, 0, mig={"profile": "1g.20gb"}), "nodePools[0].mig.profile", "slice count", "1g.10gb"),
    "existing resource group without a name": (
        {**AKS, "cluster": {**AKS["cluster"], "aks": {"existingResourceGroup": True}}}, "cluster.aks.resourceGroup", "needs the group's name", "resourceGroup"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cloud_mistake_is_a_config_error(tmp_path, case):
    config, path, rule, fix = CASES[case]
    found = errors(tmp_path, config)
    assert path in found, found
    assert rule in found[path]["rule"] and fix in found[path]["fix"], found[path]


def test_colliding_aks_pool_names_are_reported_with_a_fix(tmp_path):
    config = copy.deepcopy(AKS)
    config["nodePools"] = [
        {"name": "a100-training-1", "gpu": "A100-80GB", "maxNodes": 1},
        {"name": "a100-training-2", "gpu": "A100-80GB", "maxNodes": 1},
    ]
    found = errors(tmp_path, config)
    assert set(found) == {"nodePools[1].name"}
    assert "a100training" in found["nodePools[1].name"]["rule"] and "rename one of them" in found["nodePools[1].name"]["fix"]


def test_every_mistake_is_reported_at_once(tmp_path):
    config = with_pool(EKS, 0, capacity="capacity-block", availabilityZone="eu-west-1a")
    config = with_pool(config, 1, instanceType="p4d.24xlarge")
    assert {"nodePools[0].capacityReservationId", "nodePools[0].availabilityZone", "nodePools[1].instanceType"} <= set(errors(tmp_path, config))


def test_al2_is_not_an_ami_type(tmp_path):
    found = errors(tmp_path, with_pool(EKS, 1, amiType="AL2_x86_64_GPU"))
    assert "AL2023_x86_64_NVIDIA" in found["nodePools[1].amiType"]["fix"]


@pytest.mark.parametrize("base", [EKS, AKS], ids=["eks", "aks"])
def test_the_valid_bases_preview(tmp_path, base):
    result = CliRunner().invoke(app, ["preview", "--config", str(write_stack(tmp_path, base)), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
