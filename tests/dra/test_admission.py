"""Admission as the API server runs it: ValidatingAdmissionPolicy messages and actions, ExtendedResourceToleration,
ResourceQuota's running tally and its message (components/dra/admission.py, quota.py)."""

from __future__ import annotations

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
