"""The escapes of the 2026-12 review as manifests passed to `gpuplan fit --claims` against the prod stack: fit's API
server runs the plan's own policies, so a claimed pod's unclaimed sidecar or init container, `envFrom`,
`runtimeClassName`, a legacy pod's sidecar, Service externalIPs and types, and a legacy grant reaching another team's
H100s through the bridge at 1.36 are refused as the cluster would refuse them."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.fit.report import fit_report
from tests.conftest import ROOT, load_committed, qualify
from tests.gpuplan.restricted_pods import restricted

PROD = ROOT / "stacks" / "Pulumi.prod.yaml"
TOLERATE = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
GUARD = "ValidatingAdmissionPolicy 'gpu-dra-only'"
CUDA = "nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04"


@pytest.fixture(scope="module")
def prod():
    return plan_stack(load_stack_file(PROD))


def claimed_pod(name: str, *extra_containers: dict, init: tuple[dict, ...] = (), **spec) -> dict:
    trainer = {"name": "trainer", "image": CUDA, "resources": {"claims": [{"name": "gpus"}]}}
    body = {
        "resourceClaims": [{"name": "gpus", "resourceClaimTemplateName": "training-gpus"}],
        "tolerations": TOLERATE,
        "containers": [trainer, *extra_containers],
        **spec,
    }
    if init:
        body["initContainers"] = list(init)
    # restricted's securityContext (ml-research enforces it): the guard, not Pod Security, is what these pods meet
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "ml-research"},
        "spec": restricted(body),
    }


def as_deployment(pod: dict) -> dict:
    name = pod["metadata"]["name"]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": pod["metadata"]["namespace"]},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod["spec"]},
        },
    }


def judge(plan, tmp_path, *documents, version: str | None = None) -> dict:
    path = tmp_path / "escapes.yaml"
    path.write_text(yaml.safe_dump_all(list(documents)), encoding="utf-8")
    return fit_report(plan, "prod", [path], kubernetes_version=version)


def pods(report: dict) -> dict[str, dict]:
    return {p["name"]: p for p in report["pods"]}


SIDECAR = {"name": "sidecar", "image": CUDA}
ESCAPES = {
    "sidecar": (claimed_pod("sidecar", SIDECAR), "container(s) sidecar list no claim"),
    "native-sidecar": (
        claimed_pod("native-sidecar", init=({"name": "proxy", "image": CUDA, "restartPolicy": "Always"},)),
        "container(s) proxy list no claim",
    ),
    "init": (claimed_pod("init", init=({"name": "fetch", "image": CUDA},)), "container(s) fetch list no claim"),
    "env-from": (
        claimed_pod("env-from", init=({"name": "setup", "image": CUDA, "resources": {"claims": [{"name": "gpus"}]},
                                       "envFrom": [{"configMapRef": {"name": "gpu-env"}}]},)),
        "container(s) setup take envFrom, which can carry NVIDIA_VISIBLE_DEVICES",
    ),
    "env-from-claimed": (
        claimed_pod("env-from-claimed", {**SIDECAR, "resources": {"claims": [{"name": "gpus"}]},
                                         "envFrom": [{"secretRef": {"name": "gpu-env"}}]}),
        "container(s) sidecar take envFrom",
    ),
    "runtime-class": (claimed_pod("runtime-class", runtimeClassName="nvidia"), "runtimeClassName nvidia"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(ESCAPES))
def test_a_claimed_pods_other_containers_are_refused(prod, tmp_path, case):
    pod, words = ESCAPES[case]
    report = judge(prod, tmp_path, pod, as_deployment({**pod, "metadata": {**pod["metadata"], "name": f"{case}-d"}}))
    for name in (case, f"{case}-d"):  # the Deployment's pods are refused alike (none is created)
        verdict = pods(report)[name]
        assert verdict["outcome"] == "rejected" and verdict["placed"] == 0, verdict
        assert GUARD in verdict["reasons"][0] and words in verdict["reasons"][0]
        assert words in " ".join(verdict["fix"])  # the policy's own words say what to change


def test_a_container_that_lists_the_claim_or_says_void_runs(prod, tmp_path):
    shares = claimed_pod("shares", {**SIDECAR, "resources": {"claims": [{"name": "gpus"}]}})
    void = claimed_pod("void", {**SIDECAR, "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}]})
    report = judge(prod, tmp_path, shares, void)
    assert {name: p["outcome"] for name, p in pods(report).items()} == {"shares": "allocated", "void": "allocated"}


def test_at_1_36_the_policy_added_toleration_brings_the_rule_to_every_claimed_pod(prod, tmp_path):
    pod = claimed_pod("no-toleration", SIDECAR)
    del pod["spec"]["tolerations"]  # the gpu-toleration MutatingAdmissionPolicy adds it from 1.36
    verdict = pods(judge(prod, tmp_path, pod, version="1.36"))["no-toleration"]
    assert verdict["outcome"] == "rejected" and "container(s) sidecar list no claim" in verdict["reasons"][0]


def test_a_legacy_pods_sidecar_is_refused_once_extended_resource_toleration_adds_the_toleration(prod, tmp_path):
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "legacy", "namespace": "ml-legacy"},
        "spec": restricted(
            {
                "containers": [
                    {"name": "main", "image": CUDA, "resources": {"limits": {"nvidia.com/gpu": "1"}}},
                    {"name": "logs", "image": CUDA},
                ]
            }
        ),
    }
    verdict = pods(judge(prod, tmp_path, pod))["legacy"]
    assert verdict["outcome"] == "rejected" and "container(s) logs list no claim" in verdict["reasons"][0]


# --- Services --------------------------------------------------------------------------------------------


def service(name: str, namespace: str = "ml-research", **spec) -> dict:
    body = {"selector": {"app": name}, "ports": [{"port": 80}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": body}


def test_services_with_external_ips_or_open_types_are_refused(prod, tmp_path):
    report = judge(
        prod,
        tmp_path,
        service("intercept", externalIPs=["203.0.113.10"]),
        service("public", type="LoadBalancer"),
        service("ports", type="NodePort"),
        service("internal"),
    )
    outcome = {s["name"]: s["outcome"] for s in report["services"]}
    assert outcome == {"intercept": "rejected", "public": "rejected", "ports": "rejected", "internal": "admitted"}
    intercept = next(s for s in report["services"] if s["name"] == "intercept")
    assert "CVE-2020-8554" in intercept["reasons"][0] and intercept["fix"]


def test_service_types_a_namespace_is_allowed_are_admitted_and_external_ips_never(tmp_path):
    config = load_committed("prod")
    config["namespaces"][0]["serviceTypes"] = ["LoadBalancer"]  # ml-research
    plan = plan_stack(parse_config_map(qualify(config), stack="prod", source="Pulumi.prod.yaml"))
    report = judge(
        plan,
        tmp_path,
        service("public", type="LoadBalancer"),
        service("public-ips", type="LoadBalancer", externalIPs=["203.0.113.10"]),
        service("elsewhere", namespace="ml-legacy", type="LoadBalancer"),
        service("ports", type="NodePort"),
    )
    outcome = {s["name"]: s["outcome"] for s in report["services"]}
    assert outcome == {"public": "admitted", "public-ips": "rejected", "elsewhere": "rejected", "ports": "rejected"}


def test_fit_exits_1_on_a_refused_service_and_reports_it_in_json(tmp_path):
    path = tmp_path / "svc.yaml"
    path.write_text(yaml.safe_dump(service("intercept", externalIPs=["203.0.113.10"])), encoding="utf-8")
    result = CliRunner().invoke(
        app, ["fit", "--stack", "prod", "--claims", str(path), "--format", "json", "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 1, result.output
    [row] = json.loads(result.output)["services"]
    assert (row["namespace"], row["name"], row["type"], row["outcome"]) == (
        "ml-research",
        "intercept",
        "ClusterIP",
        "rejected",
    )


# --- the bridge at 1.36 -------------------------------------------------------------------------------------


LEGACY_ON_H100 = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "legacy-on-h100", "namespace": "ml-legacy"},
    "spec": restricted(
        {
            "nodeSelector": {"team": "research"},  # the research team's Capacity Block
            "containers": [{"name": "main", "image": CUDA, "resources": {"limits": {"nvidia.com/gpu": "6"}}}],
        }
    ),
}


def test_at_1_36_a_legacy_grant_does_not_become_another_teams_h100s(prod, tmp_path):
    """Without an opt-in, ml-legacy's quota holds gpu.nvidia.com at 0: the scheduler's claim for the pod is refused."""
    verdict = pods(judge(prod, tmp_path, LEGACY_ON_H100, version="1.36"))["legacy-on-h100"]
    assert verdict["outcome"] != "allocated" and verdict["placed"] == 0
    assert "gpu.nvidia.com.deviceclass.resource.k8s.io/devices" in json.dumps(verdict)


def test_naming_the_model_in_the_opt_in_serves_it_on_purpose(tmp_path):
    config = load_committed("prod")
    config["cluster"]["kubernetesVersion"] = "1.36"
    config["draDriver"]["extendedResourceBridge"] = {"gpus": ["H100"]}
    plan = plan_stack(parse_config_map(qualify(config), stack="prod", source="Pulumi.prod.yaml"))
    legacy = next(ns for ns in plan.namespaces if ns.name == "ml-legacy")
    assert legacy.quota["gpu.nvidia.com.deviceclass.resource.k8s.io/devices"] == "6"
    assert any("may get the GPUs of the DRA pools h100-train (H100)" in note for note in plan.notes)
    verdict = pods(judge(dataclasses.replace(plan), tmp_path, LEGACY_ON_H100))["legacy-on-h100"]
    assert verdict["outcome"] == "allocated"
