"""Workloads judged as the scheduler and the API server of the stack's minor judge them (the prod stack: EKS, H100
training nodes with EFA, MIG inference nodes, T4 device-plugin nodes, quotas, a dra-only guard): tolerations missing
or present, the GPU-toleration policy from 1.36, selectors, quotas, legacy requests, admission denials, EFA,
pre-scheduled pods and the controllers' own rules."""

from __future__ import annotations

import pytest
import yaml

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.fit.report import fit_report
from tests.conftest import ROOT
from tests.gpuplan.restricted_pods import restricted

TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
TAINT_EVENT = "node(s) had untolerated taint(s)"


@pytest.fixture(scope="module")
def prod():
    return plan_stack(load_stack_file(ROOT / "stacks" / "Pulumi.prod.yaml"))


def pod_spec(template=None, tolerations=(), resources=None, **spec):
    container = {"name": "main", "image": "busybox"}
    if resources:
        container["resources"] = {"limits": resources}
    body = {"containers": [container], **spec}
    if template:
        body["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
        # the container uses the claim (a container that lists none gets no GPU, and the guard refuses it)
        container.setdefault("resources", {})["claims"] = [{"name": "gpu"}]
    if tolerations:
        body["tolerations"] = list(tolerations)
    return restricted(body)  # what the tenant namespaces' Pod Security asks (tests of it build their own pods)


def workload(kind, name, spec, namespace="ml-research", **extra):
    if kind == "Pod":
        return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": namespace}, "spec": spec}
    api = "batch/v1" if kind == "Job" else "apps/v1"
    template = {"metadata": {"labels": {"app": name}}, "spec": spec}
    body = {"template": template, **extra}
    if kind != "Job":
        body["selector"] = {"matchLabels": {"app": name}}
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": namespace}, "spec": body}


def judge(plan, tmp_path, *documents, version=None):
    path = tmp_path / "w.yaml"
    path.write_text(yaml.safe_dump_all(list(documents)), encoding="utf-8")
    report = fit_report(plan, "prod", [path], kubernetes_version=version)
    return {p["name"]: p for p in report["pods"]}


CASES = [
    # (id, documents, version, name, outcome, placed, something every reason line of the verdict holds)
    (
        "no-toleration-1.35",
        [workload("Pod", "p", pod_spec("training-gpus"))],
        None,
        "p",
        "unschedulable",
        0,
        TAINT_EVENT,
    ),
    ("policy-adds-it-1.36", [workload("Pod", "p", pod_spec("training-gpus"))], "1.36", "p", "allocated", 1, None),
    ("toleration-1.35", [workload("Pod", "p", pod_spec("training-gpus", TOLERATE))], None, "p", "allocated", 1, None),
    (
        "legacy-gpu-denied-in-dra-only",
        [workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 1}))],
        None,
        "p",
        "rejected",
        0,
        "ValidatingAdmissionPolicy 'gpu-dra-only' with binding 'gpu-dra-only' denied request",
    ),
    (
        "legacy-gpu-on-device-plugin-pool",  # EKS runs ExtendedResourceToleration: the toleration comes by itself
        [workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 1}), namespace="ml-legacy")],
        None,
        "p",
        "allocated",
        1,
        None,
    ),
    (
        "legacy-gpu-over-quota",
        [workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 7}), namespace="ml-legacy")],
        None,
        "p",
        "rejected",
        0,
        "exceeded quota: gpu-quota, requested: requests.nvidia.com/gpu=7",
    ),
    (
        "selector-to-no-pool",
        [workload("Pod", "p", pod_spec("training-gpus", TOLERATE, nodeSelector={"team": "nobody"}))],
        None,
        "p",
        "unschedulable",
        0,
        "node(s) didn't match Pod's node affinity/selector",
    ),
    (
        "efa-beside-gpus",
        [workload("Pod", "p", pod_spec("training-gpus", TOLERATE, resources={"vpc.amazonaws.com/efa": 32}))],
        None,
        "p",
        "allocated",
        1,
        None,
    ),
    (
        "efa-more-than-a-node-has",
        [workload("Pod", "p", pod_spec("training-gpus", TOLERATE, resources={"vpc.amazonaws.com/efa": 64}))],
        None,
        "p",
        "unschedulable",
        0,
        "Insufficient vpc.amazonaws.com/efa",
    ),
    (
        # in a tenant namespace the GPU guard refuses spec.nodeName: it would skip the GPU taint (issue 28)
        "prescheduled-with-claim",
        [workload("Pod", "p", pod_spec("training-gpus", nodeName="h100-train-0"))],
        None,
        "p",
        "rejected",
        0,
        "skips the scheduler",
    ),
    (
        # outside the tenant namespaces the pod bypasses the scheduler; the kubelet checks only NoExecute taints
        "prescheduled-without-claim",
        [workload("Pod", "p", pod_spec(nodeName="h100-train-0"), namespace="default")],
        None,
        "p",
        "allocated",
        1,
        None,
    ),
    (
        "statefulset-ordered-ready",
        [workload("StatefulSet", "db", pod_spec("training-gpus"), replicas=3)],
        None,
        "db",
        "unschedulable",
        0,
        None,
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_workloads_as_the_cluster_judges_them(prod, tmp_path, case):
    _, documents, version, name, outcome, placed, reason = case
    verdict = judge(prod, tmp_path, *documents, version=version)[name]
    assert (verdict["outcome"], verdict["placed"]) == (outcome, placed), verdict["reasons"]
    if reason is not None:
        assert any(reason in line for line in verdict["reasons"]), verdict["reasons"]


def test_the_policy_and_the_plugin_say_what_they_added(prod, tmp_path):
    [instance] = judge(prod, tmp_path, workload("Pod", "p", pod_spec("training-gpus")), version="1.36")["p"][
        "instances"
    ]
    assert instance["admission"] == ["MutatingAdmissionPolicy gpu-toleration added the GPU toleration"]
    [legacy] = judge(
        prod, tmp_path, workload("Pod", "p", pod_spec(resources={"nvidia.com/gpu": 1}), namespace="ml-legacy")
    )["p"]["instances"]
    assert legacy["admission"] == ["ExtendedResourceToleration added the toleration for nvidia.com/gpu"]
    assert legacy["node"].startswith("t4-legacy-")


def test_claims_over_quota_leave_pods_pending_and_the_rest_run(prod, tmp_path):
    """ml-research: h100 16 devices, training-gpus charges 2: eight claims; pods 9 to 12 exist and wait."""
    trainer = judge(
        prod, tmp_path, workload("Deployment", "trainer", pod_spec("training-gpus", TOLERATE), replicas=12)
    )["trainer"]
    assert (trainer["created"], trainer["admitted"], trainer["placed"]) == (12, 12, 8)
    waiting = [i for i in trainer["instances"] if i["outcome"] != "allocated"]
    assert len(waiting) == 4 and all("FailedResourceClaimCreation" in i["reasons"][0] for i in waiting)
    assert 'resourceclaims "trainer-8-gpu-" is forbidden: exceeded quota: gpu-quota' in waiting[0]["reasons"][0]
    train = next(p for p in trainer["capacityLeft"] if p["pool"] == "h100-train")
    assert train["devices"] == {"free": 32 - 16, "total": 32}


def test_controllers_create_what_they_would(prod, tmp_path):
    found = judge(
        prod,
        tmp_path,
        workload(
            "Job", "batch", pod_spec("training-gpus", TOLERATE, restartPolicy="Never"), parallelism=4, completions=2
        ),
        workload("StatefulSet", "db", pod_spec("training-gpus"), replicas=3),
        workload("Deployment", "bad", pod_spec(resources={"nvidia.com/gpu": 1}), replicas=3),
    )
    assert found["batch"]["replicas"] == 2 and found["batch"]["placed"] == 2  # min(parallelism, completions)
    db = [i["outcome"] for i in found["db"]["instances"]]
    assert db == ["unschedulable", "not-created", "not-created"] and found["db"]["created"] == 1
    assert found["db"]["instances"][0]["event"].startswith("0/16 nodes are available: ")
    bad = found["bad"]
    assert bad["created"] == 1 and bad["admitted"] == 0 and bad["instances"][1]["outcome"] == "not-created"
    assert 'pods "bad-" is forbidden' in bad["instances"][0]["reasons"][0]
