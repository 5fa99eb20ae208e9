"""`gpuplan fit` judges what a user creates as the API server of the stack's minor does (the prod stack: EKS 1.35, every
tenant namespace enforcing Pod Security `restricted`, closed GPU quotas): a ResourceClaim created directly goes
through ResourceQuota at create (over the namespace's devices, or of a class it is not granted, it is rejected with the
API server's error and the stack entry to raise), and counts against what the pods' template claims may use later; a
pod without the security context restricted asks for is refused by Pod Security (the check names and a fix per field),
a workload's controller then creates no more pods, and the pod table's `admitted` counts both refusals; a Service goes
through the stack's policies on Services, then the namespace's quota (services, count/services, node ports, load
balancers)."""

from __future__ import annotations

import json

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.dra.quota import service_usage
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.fit.report import fit_report
from tests.conftest import ROOT
from tests.gpuplan.restricted_pods import restricted
from tests.gpuplan.test_fit_scenarios import TOLERATE, pod_spec, workload

PROD = ROOT / "stacks" / "Pulumi.prod.yaml"
DEVICES = "deviceclass.resource.k8s.io/devices"


@pytest.fixture(scope="module")
def prod():
    return plan_stack(load_stack_file(PROD))


def claim(name, device_class, count, namespace="ml-research"):
    request = {
        "name": "gpu",
        "exactly": {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": count},
    }
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [request]}},
    }


def report_of(plan, tmp_path, *documents):
    path = tmp_path / "objects.yaml"
    path.write_text(yaml.safe_dump_all(list(documents)), encoding="utf-8")
    return fit_report(plan, "prod", [path])


def rows(report):
    return {f"{c['namespace']}/{c['name']}": c for c in report["claims"]}


def pods(report):
    return {p["name"]: p for p in report["pods"]}


def typical_pod_spec():
    """What most examples show: a container using a GPU claim, an image and the GPU toleration; no securityContext."""
    container = {
        "name": "main",
        "image": "nvcr.io/nvidia/pytorch:25.01-py3",
        "resources": {"claims": [{"name": "gpu"}]},
    }
    return {
        "containers": [container],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "training-gpus"}],
        "tolerations": TOLERATE,
    }


# --- ResourceQuota on claims created directly -------------------------------------------------------------------


def test_a_claim_for_more_devices_than_the_quota_allows_is_rejected_with_the_entry_to_raise(prod, tmp_path):
    report = report_of(prod, tmp_path, claim("big", "h100-3g", 8))
    row = rows(report)["ml-research/big"]
    assert (row["outcome"], row["satisfiable"]) == ("rejected", False)
    assert row["reasons"] == [
        'rejected by the API server: resourceclaims "big" is forbidden: exceeded quota: gpu-quota, requested: '
        f"h100-3g.{DEVICES}=8, used: h100-3g.{DEVICES}=0, limited: h100-3g.{DEVICES}=4"
    ]
    assert row["fix"] == [
        f"h100-3g.{DEVICES}: raise quota.devices.h100-3g of namespace ml-research in the stack to at least 8 "
        "(it allows 4)"
    ]
    assert [c["object"] for c in report["apiServer"] if c["rejected"]] == ["ResourceClaim ml-research/big"]


def test_a_claim_of_a_class_the_namespace_is_not_granted_is_rejected(prod, tmp_path):
    row = rows(report_of(prod, tmp_path, claim("full", "h100", 1, namespace="ml-migrating")))["ml-migrating/full"]
    assert row["outcome"] == "rejected"
    assert f"limited: h100.{DEVICES}=0" in row["reasons"][0]
    assert row["fix"] == [
        f"h100.{DEVICES}: raise quota.devices.h100 of namespace ml-migrating in the stack to at least 1 (it allows 0)"
    ]


def test_claims_count_in_file_order_and_leave_less_for_the_pods_template_claims(prod, tmp_path):
    first, second = claim("a", "h100-3g", 3), claim("b", "h100-3g", 2)
    inference = workload("Deployment", "serve", pod_spec("inference", TOLERATE), replicas=2)
    report = report_of(prod, tmp_path, first, second, inference)
    assert rows(report)["ml-research/a"]["outcome"] != "rejected"
    assert "used: h100-3g.deviceclass.resource.k8s.io/devices=3" in rows(report)["ml-research/b"]["reasons"][0]
    serve = pods(report)["serve"]
    # `inference` asks for one h100-3g slice or else an h100: the quota counts the larger charge of either (1 of
    # each); one slice is left after claim a, so the first pod's claim is admitted and the second one's refused
    assert serve["admitted"] == 2 and serve["placed"] == 1
    assert "FailedResourceClaimCreation" in serve["instances"][1]["reasons"][0]


def test_a_pod_naming_a_rejected_claim_waits_for_it(prod, tmp_path):
    spec = pod_spec(None, TOLERATE, resourceClaims=[{"name": "gpu", "resourceClaimName": "big"}])
    spec["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}  # it uses the claim, as the GPU guard asks
    report = report_of(prod, tmp_path, claim("big", "h100-3g", 8), workload("Pod", "user", spec))
    user = pods(report)["user"]
    assert (user["admitted"], user["placed"]) == (1, 0)  # the pod is created; its claim never was
    assert "ResourceClaim ml-research/big is rejected by the API server" in " ".join(user["instances"][0]["reasons"])


# --- Pod Security ------------------------------------------------------------------------------------------------


def test_a_typical_pod_is_refused_by_restricted_and_told_each_field(prod, tmp_path):
    report = report_of(prod, tmp_path, workload("Pod", "trainer", typical_pod_spec()))
    trainer = pods(report)["trainer"]
    assert (trainer["outcome"], trainer["created"], trainer["admitted"], trainer["placed"]) == ("rejected", 1, 0, 0)
    [instance] = trainer["instances"]
    assert instance["reasons"] == [
        'pods "trainer" is forbidden: violates PodSecurity "restricted:v1.35": allowPrivilegeEscalation != false '
        '(container "main" must set securityContext.allowPrivilegeEscalation=false), unrestricted capabilities '
        '(container "main" must set securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or '
        'container "main" must set securityContext.runAsNonRoot=true), seccompProfile (pod or container "main" must '
        'set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")'
    ]
    security = instance["podSecurity"]
    assert security["enforce"] == "restricted:v1.35" and not security["allowed"] and security["meetsBaseline"]
    assert [v["check"] for v in security["violations"]] == [
        "allowPrivilegeEscalation",
        "capabilities_restricted",
        "runAsNonRoot",
        "seccompProfile_restricted",
    ]
    fixes = trainer["fix"]
    assert (
        "Pod Security allowPrivilegeEscalation: set spec.containers[0].securityContext.allowPrivilegeEscalation: false"
        in fixes
    )
    assert fixes[-1] == (
        "or, as the pod meets baseline, set podSecurity: baseline on namespace ml-research in the stack (it enforces "
        "restricted:v1.35)"
    )
    # the claim's row says the pod that would use it cannot run
    assert not rows(report)["ml-research/training-gpus"]["satisfiable"]


def test_the_same_pod_with_the_fields_set_is_admitted_and_placed(prod, tmp_path):
    report = report_of(prod, tmp_path, workload("Pod", "trainer", restricted(typical_pod_spec())))
    trainer = pods(report)["trainer"]
    assert (trainer["outcome"], trainer["admitted"], trainer["placed"]) == ("allocated", 1, 1)
    assert trainer["instances"][0]["podSecurity"]["allowed"]


def test_a_job_whose_pods_restricted_refuses_creates_none_and_is_warned_about(prod, tmp_path):
    job = workload("Job", "train", {**typical_pod_spec(), "restartPolicy": "Never"}, parallelism=3)
    train = pods(report_of(prod, tmp_path, job))["train"]
    assert (train["created"], train["admitted"], train["placed"]) == (1, 0, 0)
    assert train["instances"][1]["outcome"] == "not-created"
    assert train["warnings"][0].startswith('would violate PodSecurity "restricted:latest": allowPrivilegeEscalation')
    # the fix names the field where the Job has it
    assert any("spec.template.spec.containers[0].securityContext.capabilities.drop" in f for f in train["fix"])


def test_host_access_is_refused_even_at_baseline_with_no_baseline_way_out(prod, tmp_path):
    spec = restricted(typical_pod_spec())
    spec["hostNetwork"] = True
    spec["volumes"] = [{"name": "dev", "hostPath": {"path": "/dev"}}]
    user = pods(report_of(prod, tmp_path, workload("Pod", "user", spec)))["user"]
    security = user["instances"][0]["podSecurity"]
    assert [v["check"] for v in security["violations"]] == ["hostNamespaces", "restrictedVolumes"]
    assert security["meetsBaseline"] is False and not any(f.startswith("or, as the pod") for f in user["fix"])


def test_a_namespace_of_the_claim_files_is_judged_by_its_own_labels(prod, tmp_path):
    namespace = {
        "apiVersion": "v1",
        "kind": "Namespace",
        "metadata": {"name": "team-x", "labels": {"pod-security.kubernetes.io/enforce": "baseline"}},
    }
    privileged = {"containers": [{"name": "c", "image": "busybox", "securityContext": {"privileged": True}}]}
    report = report_of(
        prod,
        tmp_path,
        namespace,
        workload("Pod", "plain", {"containers": [{"name": "c", "image": "busybox"}]}, namespace="team-x"),
        workload("Pod", "root", privileged, namespace="team-x"),
        workload("Pod", "elsewhere", privileged, namespace="unlabelled"),  # no labels: the default, privileged
    )
    assert pods(report)["plain"]["admitted"] == 1
    assert pods(report)["plain"]["warnings"] == [] and pods(report)["plain"]["instances"][0]["admission"] == []
    root = pods(report)["root"]
    assert root["admitted"] == 0 and 'violates PodSecurity "baseline:latest": privileged' in root["reasons"][0]
    assert pods(report)["elsewhere"]["admitted"] == 1


def test_the_cli_shows_rejections_and_fixes_and_exits_1(tmp_path):
    path = tmp_path / "objects.yaml"
    path.write_text(
        yaml.safe_dump_all([claim("big", "h100-3g", 8), workload("Pod", "trainer", typical_pod_spec())]),
        encoding="utf-8",
    )
    out = tmp_path / "out"
    args = ["fit", "--config", str(PROD), "--claims", str(path), "--out", str(out)]
    text = CliRunner().invoke(app, args)
    assert text.exit_code == 1, text.output
    assert "fix ml-research/big: h100-3g.deviceclass.resource.k8s.io/devices: raise quota.devices.h100-3g" in " ".join(
        text.output.split()
    )
    assert "Pod Security runAsNonRoot: set spec.securityContext.runAsNonRoot: true" in " ".join(text.output.split())
    document = json.loads((out / "fit.json").read_text())
    big = next(c for c in document["claims"] if c["name"] == "big")
    assert big["outcome"] == "rejected" and big["fix"]


# --- ResourceQuota on Services ----------------------------------------------------------------------------------


def service(name, namespace="team-x", **spec):
    body = {"selector": {"app": name}, "ports": [{"port": 80}, {"port": 443}], **spec}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": body}


def test_services_go_through_the_namespaces_quota_after_the_stacks_policies(prod, tmp_path):
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "svc", "namespace": "team-x"},
        "spec": {"hard": {"services": "3", "services.nodeports": "2", "services.loadbalancers": "0"}},
    }
    report = report_of(
        prod,
        tmp_path,
        quota,
        service("web"),  # 2 ports, ClusterIP: no node port
        service("nodes", type="NodePort"),  # 2 node ports: the quota's 2
        service("more-nodes", type="NodePort"),  # 2 more: refused
        service("public", type="LoadBalancer"),  # a load balancer: refused at 0
        service("last"),  # the third Service; the refused ones counted nothing
        service("one-too-many"),
    )
    verdict = {s["name"]: s for s in report["services"]}
    assert {name: s["outcome"] for name, s in verdict.items()} == {
        "web": "admitted",
        "nodes": "admitted",
        "more-nodes": "rejected",
        "public": "rejected",
        "last": "admitted",
        "one-too-many": "rejected",
    }
    assert verdict["more-nodes"]["reasons"] == [
        'services "more-nodes" is forbidden: exceeded quota: svc, requested: services.nodeports=2, used: '
        "services.nodeports=2, limited: services.nodeports=2"
    ]
    assert verdict["more-nodes"]["fix"] == [
        "services.nodeports: raise spec.hard[services.nodeports] of ResourceQuota team-x/svc to at least 4 (now 2), "
        "or free what it counts"
    ]
    assert "services.loadbalancers=0" in verdict["public"]["reasons"][0]
    assert "requested: services=1, used: services=3" in verdict["one-too-many"]["reasons"][0]


def test_the_stacks_service_policy_refuses_before_quota_counts(prod, tmp_path):
    quota = {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": "svc", "namespace": "ml-research"},
        "spec": {"hard": {"count/services": "1"}},
    }
    intercept = service("intercept", "ml-research", externalIPs=["203.0.113.10"])
    report = report_of(prod, tmp_path, quota, intercept, service("web", "ml-research"), service("api", "ml-research"))
    verdict = {s["name"]: s for s in report["services"]}
    assert {name: s["outcome"] for name, s in verdict.items()} == {
        "intercept": "rejected",
        "web": "admitted",  # the refused Service counted nothing
        "api": "rejected",
    }
    assert "ValidatingAdmissionPolicy 'gpu-tenant-services'" in verdict["intercept"]["reasons"][0]
    assert "CVE-2020-8554" in verdict["intercept"]["fix"][0]
    assert verdict["api"]["reasons"] == [
        'services "api" is forbidden: exceeded quota: svc, requested: count/services=1, used: count/services=1, '
        "limited: count/services=1"
    ]


def test_a_load_balancer_without_node_ports_is_charged_only_the_ports_that_name_one():
    lb = service("lb", type="LoadBalancer", allocateLoadBalancerNodePorts=False)
    lb["spec"]["ports"][1]["nodePort"] = 30443
    assert service_usage(lb) == {
        "services": 1,
        "count/services": 1,
        "services.loadbalancers": 1,
        "services.nodeports": 1,
    }
    assert service_usage(service("lb", type="LoadBalancer"))["services.nodeports"] == 2
    assert service_usage(service("plain"))["services.nodeports"] == 0
