"""`gpuplan fit` says what to change, per failing filter and per refusal, from the stack's plan (the prod stack: EKS,
H100 training nodes with EFA, MIG inference nodes, T4 device-plugin nodes, quotas, the GPU guard): the exact
toleration, the namespace's gpuToleration from 1.36, the labels the pools carry, what the pools advertise per node,
the quota entry to raise, and the guard's own words; in the JSON (`fix`) and in the text, with the workload's counts
and the capacity left per pool within 100 columns."""

from __future__ import annotations

import dataclasses

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from tests.conftest import ROOT
from tests.gpuplan.test_fit_scenarios import TOLERATE, judge, pod_spec, workload

TOLERATION_TEXT = "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}"


@pytest.fixture(scope="module")
def prod():
    return plan_stack(load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml"))


def only(plan, tmp_path, document, version=None):
    [found] = judge(plan, tmp_path, document, version=version).values()
    return found


def test_an_untolerated_gpu_taint_names_the_toleration_per_filter(prod, tmp_path):
    verdict = only(prod, tmp_path, workload("Deployment", "d", pod_spec("training-gpus"), replicas=2))
    [instance, _] = verdict["instances"]
    taint = next(f for f in instance["filters"] if f["plugin"] == "TaintToleration")
    assert taint["pools"] == ["h100-infer", "h100-train", "t4-legacy"]
    assert f"add the toleration {TOLERATION_TEXT} to the pod template's spec.tolerations" in taint["fix"]
    # 1.35 serves no MutatingAdmissionPolicy: the namespace's policy adds it only from 1.36
    assert "from 1.36 the namespace's gpuToleration: auto adds it" in taint["fix"]
    assert verdict["fix"] == [f"TaintToleration on pools h100-infer, h100-train, t4-legacy (14 nodes): {taint['fix']}"]
    dra = next(f for f in instance["filters"] if f["plugin"] == "DynamicResources")
    assert dra["fix"] is None  # DynamicResources says why in its own words


def test_from_1_36_a_namespace_without_the_policy_is_told_to_turn_it_on(prod, tmp_path):
    off = dataclasses.replace(prod, gpu_toleration=None)
    verdict = only(off, tmp_path, workload("Pod", "p", pod_spec("training-gpus")), version="1.36")
    assert verdict["outcome"] == "unschedulable"
    assert any("or set gpuToleration: auto on namespace ml-research in the stack" in f for f in verdict["fix"])
    assert any("to the pod's spec.tolerations, or" in f and TOLERATION_TEXT in f for f in verdict["fix"])


def test_a_pod_without_a_gpu_is_not_told_to_tolerate_the_gpu_taint(prod, tmp_path):
    # a GPU pool's label without a GPU claim: the GPU guard would refuse the toleration
    cpu = pod_spec(nodeSelector={"dra-gpu-platform.io/pool": "h100-train"})
    verdict = only(prod, tmp_path, workload("Pod", "p", cpu))
    taint = next(
        f for f in verdict["fix"] if f.startswith("TaintToleration on pools h100-infer, h100-train, t4-legacy")
    )
    assert "the pod claims no GPU" in taint and "toleration {" not in taint
    assert any(f.startswith("NodeAffinity on ") for f in verdict["fix"])


def test_too_much_cpu_names_what_each_pool_advertises(prod, tmp_path):
    verdict = only(prod, tmp_path, workload("Pod", "p", pod_spec("training-gpus", TOLERATE, resources={"cpu": "500"})))
    fix = next(f for f in verdict["fix"] if f.startswith("NodeResourcesFit"))
    assert "cpu: the pod requests 500000m, a node advertises 15890m on h100-infer, 191450m on h100-train" in fix
    assert "request at most 191450m per pod" in fix


def test_a_selector_that_matches_no_pool_gets_the_labels_the_pools_carry(prod, tmp_path):
    spec = pod_spec("training-gpus", TOLERATE, nodeSelector={"team": "nobody"})
    [fix] = only(prod, tmp_path, workload("Pod", "p", spec))["fix"]
    assert fix.startswith("NodeAffinity on pools h100-infer, h100-train, t4-legacy, (system) (16 nodes): ")
    assert "nodeSelector team=nobody matches no node" in fix
    assert "the pools carry team=inference (h100-infer), team=research (h100-train)" in fix
    assert "the closest pool, h100-infer, carries " in fix and "team=inference" in fix
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "gpu-tier", "operator": "In", "values": ["a"]}]}]
            }
        }
    }
    [fix] = only(prod, tmp_path, workload("Pod", "q", pod_spec("training-gpus", TOLERATE, affinity=affinity)))["fix"]
    assert "node affinity gpu-tier In ['a'] matches no node; no pool carries gpu-tier" in fix


def test_insufficient_resources_name_what_the_pools_advertise_per_node(prod, tmp_path):
    spec = pod_spec("training-gpus", TOLERATE, resources={"vpc.amazonaws.com/efa": 64})
    [fix] = only(prod, tmp_path, workload("Pod", "p", spec))["fix"]
    assert "vpc.amazonaws.com/efa: the pod requests 64, a node advertises 32 on h100-train" in fix
    assert "request at most 32 per pod" in fix
    # nine pods of 32 EFA interfaces on four EFA nodes: the nodes are full, the pool may grow
    many = pod_spec(resources={"vpc.amazonaws.com/efa": 32}, tolerations=TOLERATE)
    verdict = only(prod, tmp_path, workload("Deployment", "efa", many, namespace="default", replicas=5))
    assert verdict["placed"] == 4
    assert any("raise maxNodes of h100-train (maxNodes 4) in the stack" in f for f in verdict["fix"]), verdict["fix"]


def test_quota_refusals_name_the_stack_entry_to_raise_for_all_of_them(prod, tmp_path):
    trainer = only(prod, tmp_path, workload("Deployment", "trainer", pod_spec("training-gpus", TOLERATE), replicas=12))
    # 8 claims of 2 devices fill 16; the 4 refused need 8 more
    assert trainer["fix"] == [
        "h100.deviceclass.resource.k8s.io/devices: raise quota.devices.h100 of namespace ml-research in the stack "
        "to at least 24 (it allows 16)"
    ]
    assert trainer["instances"][-1]["fix"][0].endswith("to at least 18 (it allows 16)")  # that pod alone
    legacy = only(
        prod, tmp_path, workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 7}), namespace="ml-legacy")
    )
    assert legacy["fix"] == [
        "requests.nvidia.com/gpu: raise quota.legacyGpus of namespace ml-legacy in the stack to at least 7 (it allows 6)"
    ]


def test_a_guard_denial_keeps_the_policys_own_words(prod, tmp_path):
    verdict = only(prod, tmp_path, workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 1})))
    [fix] = verdict["fix"]
    assert fix.startswith("namespace ml-research is gpu-mode=dra-only: container(s) main request nvidia.com/*")
    assert verdict["reasons"][0].endswith(f"denied request: {fix}")


# k/k pkg/apis/core/validation validatePodResourceClaims: a container's resources.claims names a pod claim
def test_a_field_validation_refusal_names_the_field_to_change(prod, tmp_path):
    spec = pod_spec()
    spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    verdict = only(prod, tmp_path, workload("Deployment", "d", spec, replicas=2))
    assert verdict["outcome"] == "rejected"
    assert verdict["fix"] == [
        "add an entry named gpu to spec.resourceClaims of the pod template, or drop it from container main's "
        "resources.claims"
    ]
    assert verdict["instances"][0]["fix"] == verdict["fix"]


def test_the_text_shows_counts_capacity_left_and_fixes_within_100_columns(tmp_path):
    documents = [
        workload("Pod", "lonely", pod_spec("training-gpus")),  # its claim is created (and charged), it waits
        workload("Deployment", "trainer", pod_spec("training-gpus", TOLERATE), replicas=12),
        workload("Pod", "legacy", pod_spec(resources={"nvidia.com/gpu": 1})),
    ]
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    result = CliRunner().invoke(app, ["fit", "--stack", "prod", "--claims", str(path)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    header = next(i for i, line in enumerate(lines) if "pod / workload" in line)
    assert all(word in lines[header] for word in ("created", "admitted", "placed"))
    trainer = next(line for line in lines[header:] if "ml-research/trainer" in line)
    assert [cell.strip() for cell in trainer.split("│")[2:6]] == ["unschedulable", "12", "12", "7/12"]
    title = lines.index("capacity left after Deployment ml-research/trainer (free/total)")
    train = next(line for line in lines[title:] if "h100-train" in line)
    assert "18/32" in train and "393/400" in train and "vpc.amazonaws.com/efa 128/128" in train
    tables = [line for line in lines[header:] if line[:1] in "┏┃┡│└"]
    assert tables and max(len(line) for line in tables) <= 100
    assert "fix Pod ml-research/lonely: TaintToleration on pools h100-infer, h100-train, t4-legacy (14 nodes): " in (
        result.output
    )
    assert "fix Deployment ml-research/trainer: h100.deviceclass.resource.k8s.io/devices: raise" in result.output
    assert "fix Pod ml-research/legacy" not in result.output  # the denial's own words are the reason line
