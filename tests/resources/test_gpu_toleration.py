"""GpuTolerationPolicy: the MutatingAdmissionPolicy and binding strict-valid at 1.36 and 1.37, created from 1.36 only,
and what it does to pods as the API server runs it (dra_gpu_platform/dra/admission.py on the policy's own CEL)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.dra.admission import Request, mutate
from dra_gpu_platform.plans.gpu_toleration import (
    MATCH_CONDITIONS,
    PATCH,
    GpuTolerationPlan,
    plan_gpu_toleration,
    toleration,
)
from gpuplan.checks.kube_validate import validate_document
from tests.resources.alone import inputs, of_type, provider, register

PLAN = GpuTolerationPlan("gpu-toleration", ("ml-a", "ml-b"), MATCH_CONDITIONS, PATCH)
MAP = "kubernetes:admissionregistration.k8s.io/v1:MutatingAdmissionPolicy"
MAPB = "kubernetes:admissionregistration.k8s.io/v1:MutatingAdmissionPolicyBinding"


def _objects():
    from dra_gpu_platform.resources.tenancy.gpu_toleration import GpuTolerationPolicy, GpuTolerationPolicyArgs

    registered = register(lambda: GpuTolerationPolicy("lab-gpu-toleration", GpuTolerationPolicyArgs(PLAN, provider())))
    (policy,) = of_type(registered, MAP)
    (binding,) = of_type(registered, MAPB)
    return [
        {"apiVersion": "admissionregistration.k8s.io/v1", "kind": kind, **inputs(r)}
        for kind, r in (("MutatingAdmissionPolicy", policy), ("MutatingAdmissionPolicyBinding", binding))
    ]


@pytest.mark.parametrize("version", ["1.36.0", "1.37.0"])
def test_policy_and_binding_are_strict_valid(version):
    for document in _objects():
        assert validate_document(document, version) == [], document["kind"]
    policy, binding = _objects()
    assert policy["spec"]["mutations"][0]["patchType"] == "JSONPatch"  # tolerations is an atomic list
    assert policy["spec"]["reinvocationPolicy"] == "Never" and policy["spec"]["failurePolicy"] == "Ignore"
    expression = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]
    assert expression == {"key": "kubernetes.io/metadata.name", "operator": "In", "values": ["ml-a", "ml-b"]}


def _config(version: str, **namespace) -> StackConfig:
    return StackConfig.model_validate(
        {
            "stack": "t",
            "source": None,
            "cluster": {"platform": "kind", "name": "lab", "kubernetesVersion": version},
            "nodePools": [
                {"name": "gpus", "gpu": "H100", "maxNodes": 1},
                {"name": "legacy", "gpu": "T4", "maxNodes": 1, "gpuStack": "device-plugin"},
            ],
            "namespaces": [{"name": "ml", **namespace}],
        }
    )


@pytest.mark.parametrize(
    "version, namespace, emitted",
    [
        ("1.35", {}, False),  # no MutatingAdmissionPolicy v1 below 1.36
        ("1.36", {}, True),  # auto is the default for dra-only
        ("1.37", {"migration": "dual"}, True),
        ("1.36", {"gpuToleration": "off"}, False),
    ],
)
def test_created_only_where_served_and_wanted(version, namespace, emitted):
    from dra_gpu_platform.plans.stack import plan_stack
    from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs

    plan = plan_stack(_config(version, **namespace))
    assert (plan.gpu_toleration is not None) == ("gpuToleration" not in namespace)
    registered = register(lambda: GpuPlatform("lab", GpuPlatformArgs(plan)))
    assert bool(of_type(registered, MAP)) is emitted
    if emitted:
        (binding,) = of_type(registered, MAPB)
        assert inputs(binding)["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"][0]["values"] == ["ml"]
    assert plan_gpu_toleration(_config(version, gpuToleration="off")) is None


POD = {"metadata": {"name": "p", "namespace": "ml-a"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}
CLAIMS = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "one"}]}


@pytest.mark.parametrize(
    "spec, namespace, expected",
    [
        (CLAIMS, "ml-a", [toleration()]),  # no list yet: created
        (
            {**CLAIMS, "tolerations": [{"key": "a", "operator": "Exists"}]},
            "ml-a",
            [{"key": "a", "operator": "Exists"}, toleration()],
        ),
        (
            {**CLAIMS, "tolerations": [{"operator": "Exists"}]},
            "ml-a",
            [{"operator": "Exists"}],
        ),  # tolerates all already
        (
            {**CLAIMS, "tolerations": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
            "ml-a",
            [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
        ),
        ({}, "ml-a", None),  # no claims: left alone
        (CLAIMS, "other", None),  # not a selected namespace
    ],
    ids=["created", "appended", "wildcard", "equal-value", "no-claims", "other-namespace"],
)
def test_the_mutation_as_the_api_server_applies_it(spec, namespace, expected):
    pod = {**POD, "metadata": {**POD["metadata"], "namespace": namespace}, "spec": {**POD["spec"], **spec}}
    request = Request("pods", "", "Pod", namespace, "p", pod, {"kubernetes.io/metadata.name": namespace})
    mutated, decision = mutate(PLAN.policy(), request, pod)
    assert decision.denied is None
    assert mutated["spec"].get("tolerations") == expected
