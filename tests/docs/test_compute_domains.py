"""docs/gpu-software.md's ComputeDomain workload stays true: its stack is valid and turns ComputeDomains on, the
ComputeDomain uses only the CRD fields recorded in dra_gpu_platform/facts/compute_domains.py (the chart is not committed),
the Job is a valid batch/v1 Job whose pods the namespace's Pod Security admits, and its claims name the stack's claim
template and the ComputeDomain's."""

from __future__ import annotations

import re

import jsonschema
import pytest
import yaml

from dra_gpu_platform.config import parse_config_map
from dra_gpu_platform.dra import pod_security
from dra_gpu_platform.facts import compute_domains
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.checks.kube_validate import validate_document
from tests.docs.markdown import DOCS

PAGE = DOCS / "gpu-software.md"


def _block(marker: str) -> str:
    text = PAGE.read_text(encoding="utf-8")
    [block] = re.findall(
        re.escape(f"<!-- compute-domain example {marker}: tests load it -->") + r"\n```yaml\n(.*?)```", text, re.DOTALL
    )
    return block


@pytest.fixture(scope="module")
def stack():
    document = yaml.safe_load(_block("stack"))
    return plan_stack(parse_config_map(document["config"], stack="nvl72", source="docs/gpu-software.md"))


@pytest.fixture(scope="module")
def workload():
    documents = list(yaml.safe_load_all(_block("workload")))
    by_kind = {d["kind"]: d for d in documents}
    assert sorted(by_kind) == ["ComputeDomain", "Job"]
    return by_kind["ComputeDomain"], by_kind["Job"]


def test_the_stack_turns_compute_domains_on(stack):
    assert stack.software.dra_driver is not None
    assert stack.software.dra_driver.values["resources"]["computeDomains"]["enabled"] is True
    assert compute_domains.CHANNEL_CLASS in stack.driver_device_classes


def test_the_compute_domain_uses_only_recorded_crd_fields(workload):
    domain, _ = workload
    jsonschema.validate(domain, compute_domains.spec_schema())


def test_the_recorded_schema_refuses_what_the_crd_does_not_have(workload):
    domain, _ = workload
    for broken in (
        {**domain, "spec": {**domain["spec"], "nodes": 2}},  # no such field
        {**domain, "spec": {"numNodes": 0}},  # channel is required
        {**domain, "spec": {"channel": {**domain["spec"]["channel"], "allocationMode": "Many"}}},
        {**domain, "apiVersion": "resource.nvidia.com/v1"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, compute_domains.spec_schema())


def test_the_job_is_valid_and_claims_the_gpus_and_the_domains_channel(stack, workload):
    domain, job = workload
    assert validate_document(job, f"{stack.kubernetes_version}.0", "docs/gpu-software.md") == []
    pod = job["spec"]["template"]["spec"]
    templates = {c["name"]: c["resourceClaimTemplateName"] for c in pod["resourceClaims"]}
    channel = domain["spec"]["channel"]["resourceClaimTemplate"]["name"]
    assert channel in templates.values()
    [namespace] = [
        ns for ns in stack.namespaces if ns.name == job["metadata"]["namespace"] == domain["metadata"]["namespace"]
    ]
    stack_templates = {t.name for t in namespace.claim_templates}
    assert set(templates.values()) - {channel} <= stack_templates
    claimed = {claim["name"] for c in pod["containers"] for claim in c["resources"]["claims"]}
    assert claimed == set(templates)
    # on the GPU nodes: their taint tolerated, the NVLink domain's clique label selected
    assert {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"} in pod["tolerations"]
    terms = pod["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    assert any(e["key"] == compute_domains.GPU_CLIQUE_LABEL for t in terms for e in t["matchExpressions"])


def test_the_jobs_pods_pass_the_namespaces_pod_security(stack, workload):
    _, job = workload
    [namespace] = [ns for ns in stack.namespaces if ns.name == job["metadata"]["namespace"]]
    template = job["spec"]["template"]
    minor = int(stack.kubernetes_version.split(".")[1])
    decision = pod_security.admit(namespace.labels, template, minor, spec_path="spec.template.spec")
    assert decision.evaluated and decision.denied is None, decision.denied
