"""Admission as the API server runs it: ValidatingAdmissionPolicy messages and actions, ExtendedResourceToleration,
ResourceQuota's running tally and its message (dra_gpu_platform/dra/admission.py, quota.py)."""

from __future__ import annotations

import dataclasses

from dra_gpu_platform.dra import admission as adm
from dra_gpu_platform.dra.claims import ClaimSpec, Request, SubRequest
from dra_gpu_platform.dra.quota import CLAIMS_KEY, QuotaLedger, claim_usage

POD = {"metadata": {"name": "p", "namespace": "ns"}, "spec": {"containers": [{"name": "c", "image": "x"}]}}


def request(labels=None, name="p"):
    return adm.Request("pods", "", "Pod", "ns", name, POD, labels or {})


def policy(**kw):
    base = {
        "name": "deny",
        "binding": "deny-b",
        "match": adm.PolicyMatch(("pods",), ("CREATE",), {"matchLabels": {"mode": "strict"}}),
        "validations": (adm.Validation("false"),),
    }
    return adm.ValidatingPolicy(**{**base, **kw})


# apiserver validating/validator_test.go TestValidate: message fallbacks
def test_validation_messages_fall_back_as_upstream():
    strict = request({"mode": "strict"})
    assert adm.validate(policy(), strict).denied == (
        "pods \"p\" is forbidden: ValidatingAdmissionPolicy 'deny' with binding 'deny-b' denied request: "
        "failed expression: false"
    )
    with_message = policy(validations=(adm.Validation("false", "no", "'ns ' + namespaceObject.metadata.name"),))
    assert adm.validate(with_message, strict).denied.endswith("denied request: ns ns")
    multi_line = policy(validations=(adm.Validation("false", " plain ", "'a\\nb'"),))
    assert adm.validate(multi_line, strict).denied.endswith("denied request: plain")
    assert adm.validate(policy(), request({"mode": "lax"})).denied is None  # binding selects other namespaces
    skipped = policy(match_conditions=(("never", "false"),))
    assert adm.validate(skipped, strict).denied is None


def test_warn_only_bindings_admit_with_a_warning_and_errors_follow_failure_policy():
    warn = adm.validate(policy(actions=(adm.WARN,)), request({"mode": "strict"}))
    assert warn.denied is None and warn.warnings[0].startswith("Validation failed for ValidatingAdmissionPolicy 'deny'")
    broken = policy(validations=(adm.Validation("object.nothing.here"),))
    assert adm.validate(broken, request({"mode": "strict"})).denied is not None
    assert (
        adm.validate(
            policy(validations=broken.validations, failure_policy=adm.IGNORE), request({"mode": "strict"})
        ).denied
        is None
    )
    assert adm.forbidden(request(name="trainer-"), "x") == 'pods "trainer-" is forbidden: x'  # generateName


def test_extended_resource_toleration_adds_one_per_requested_extended_resource():
    pod = {
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "resources": {"requests": {"nvidia.com/gpu": "1", "cpu": "1", "vpc.amazonaws.com/efa": "4"}},
                }
            ],
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        }
    }
    mutated, added = adm.extended_resource_toleration(pod)
    assert added == ("vpc.amazonaws.com/efa",)
    assert [t["key"] for t in mutated["spec"]["tolerations"]] == ["nvidia.com/gpu", "vpc.amazonaws.com/efa"]
    claims_only = {"spec": {"containers": [{"name": "c"}], "resourceClaims": [{"name": "g"}]}}
    assert adm.extended_resource_toleration(claims_only)[1] == ()  # pods with claims get nothing from it


def _spec(count, device_class="gpu.nvidia.com"):
    return ClaimSpec((Request("gpu", (SubRequest("gpu", None, device_class, (), "ExactCount", count),)),))


# apiserver resourcequota admission_test.go TestPrettyPrint; 20 pods against a quota of 12 claims
def test_the_quota_tally_admits_until_full_and_says_why_not():
    ledger = QuotaLedger(
        {"ml": [("gpu-quota", {CLAIMS_KEY: "12", "gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "30"})]}
    )
    results = [ledger.charge("ml", claim_usage(_spec(2))) for _ in range(20)]
    assert results[:12] == [None] * 12
    assert results[12] == (
        "exceeded quota: gpu-quota, requested: count/resourceclaims.resource.k8s.io=1,"
        "gpu.nvidia.com.deviceclass.resource.k8s.io/devices=2, used: count/resourceclaims.resource.k8s.io=12,"
        "gpu.nvidia.com.deviceclass.resource.k8s.io/devices=24, limited: count/resourceclaims.resource.k8s.io=12,"
        "gpu.nvidia.com.deviceclass.resource.k8s.io/devices=30"
    ) or results[12].startswith("exceeded quota: gpu-quota, requested: count/resourceclaims.resource.k8s.io=1")
    assert ledger.left("ml")["gpu-quota"][CLAIMS_KEY] == 0
    assert ledger.charge("other", claim_usage(_spec(2))) is None  # no quota, no limit


def test_bridge_keys_are_charged_only_for_classes_that_name_an_extended_resource():
    usage = claim_usage(_spec(2), {"gpu.nvidia.com": "nvidia.com/gpu"}, extended_resource=True)
    assert (
        usage["requests.nvidia.com/gpu"] == 2
        and usage["requests.deviceclass.resource.kubernetes.io/gpu.nvidia.com"] == 2
    )
    assert "requests.nvidia.com/gpu" not in claim_usage(_spec(2), {"gpu.nvidia.com": "nvidia.com/gpu"})
    assert "requests.nvidia.com/gpu" not in claim_usage(
        _spec(2, "other"), {"gpu.nvidia.com": "nvidia.com/gpu"}, extended_resource=True
    )


# apiserver cel/condition.go CreateAdmissionRequest: userInfo (username, groups) is in `request`
def test_user_info_reaches_the_cel_context():
    deployers = policy(
        match=adm.PolicyMatch(("namespaces",), ("UPDATE",)),
        validations=(
            adm.Validation(
                "request.userInfo.groups.exists(g, g == 'deployers') && request.userInfo.username == 'ci'",
                "only the deployer",
            ),
        ),
    )
    namespace = {"metadata": {"name": "ml", "labels": {"gpu-mode": "dra-only"}}}

    def update(**who):
        return adm.Request("namespaces", "", "Namespace", "", "ml", namespace, operation="UPDATE", **who)

    assert adm.validate(deployers, update(username="ci", groups=("deployers",))).denied is None
    assert adm.validate(deployers, update(username="ci", groups=("tenants",))).failures == (
        adm.Failure("only the deployer"),
    )
    assert adm.validate(deployers, update()).denied.endswith("denied request: only the deployer")


# validator.go Validate evaluates every validation; dispatcher.go reports the first denial, warns for each
def test_every_validation_is_evaluated_and_the_first_failure_is_the_error():
    both = policy(
        validations=(adm.Validation("false", "first"), adm.Validation("true"), adm.Validation("false", "2nd"))
    )
    decision = adm.validate(both, request({"mode": "strict"}))
    assert [f.message for f in decision.failures] == ["first", "2nd"]
    assert decision.denied.endswith("denied request: first")
    warned = adm.validate(policy(validations=both.validations, actions=(adm.WARN,)), request({"mode": "strict"}))
    assert warned.denied is None and len(warned.warnings) == 2


# composition.go variableAccessor: a variable is evaluated where an expression reads it; its error is that
# expression's error (activation.go: "expression '<e>' resulted in error: …")
def test_a_failing_variable_fails_only_the_validations_that_read_it():
    broken = policy(
        variables=(("missing", "object.spec.nothing.here"),),
        validations=(adm.Validation("true"), adm.Validation("variables.missing == 'x'"), adm.Validation("false", "no")),
    )
    decision = adm.validate(broken, request({"mode": "strict"}))
    [error, denial] = decision.failures
    assert error.error and error.message.startswith("expression 'variables.missing == 'x'' resulted in error: ")
    assert 'composited variable "missing" fails to evaluate' in error.message
    assert denial == adm.Failure("no")
    ignored = adm.validate(dataclasses.replace(broken, failure_policy=adm.IGNORE), request({"mode": "strict"}))
    assert ignored.failures == (adm.Failure("no"),)  # errors admit under Ignore; the false validation still denies


# matchconditions/matcher.go Match: a false condition leaves the request out even when another fails to evaluate
def test_a_false_match_condition_wins_over_an_error():
    conditions = (("broken", "object.spec.nothing.here == 1"), ("never", "false"))
    assert adm.validate(policy(match_conditions=conditions), request({"mode": "strict"})).denied is None
    erroring = policy(match_conditions=conditions[:1])
    assert "resulted in error" in adm.validate(erroring, request({"mode": "strict"})).denied


def test_manifests_read_as_the_api_server_runs_them():
    manifest = {
        "metadata": {"name": "guard"},
        "spec": {
            "failurePolicy": "Ignore",
            "matchConstraints": {
                "resourceRules": [
                    {"operations": ["UPDATE", "CREATE"], "resources": ["pods"]},
                    {"operations": ["CREATE"], "resources": ["jobs"]},
                ]
            },
            "variables": [{"name": "v", "expression": "1"}],
            "validations": [{"expression": "false", "messageExpression": "'m'", "reason": "Forbidden"}],
        },
    }
    binding = {"metadata": {"name": "guard-b"}, "spec": {"policyName": "guard", "validationActions": ["Warn"]}}
    assert adm.policy_from_manifests(manifest, binding) == adm.ValidatingPolicy(
        "guard",
        "guard-b",
        adm.PolicyMatch(("jobs", "pods"), ("CREATE", "UPDATE")),
        (adm.Validation("false", "", "'m'", "Forbidden"),),
        variables=(("v", "1"),),
        actions=(adm.WARN,),
        failure_policy=adm.IGNORE,
    )
    # without a binding the caller has matched the request: the policy sees it and denies
    alone = adm.policy_from_manifests(manifest)
    assert alone.match.matches(adm.Request("secrets", "", "Secret", "", "s", {}, operation="DELETE"))
    assert alone.actions == (adm.DENY,)
