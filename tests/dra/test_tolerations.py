"""Toleration matching, the one implementation (dra_gpu_platform/dra/tolerations.py) that node taints and DRA device
taints share: the cases of upstream's own table (k8s.io/api v0.35.6 core/v1 toleration_test.go
TestTolerationToleratesTaint; docs/references.md#kubernetes-toleration-matching), written out here."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from dra_gpu_platform.dra.claims import parse_claim_spec
from dra_gpu_platform.dra.tolerations import DeviceTaint, Taint, Toleration, tolerated, untolerated

GPU = Taint("nvidia.com/gpu", "present", "NoSchedule")


@pytest.mark.parametrize(
    "toleration, taint, expected",
    [
        (Toleration("foo", "Exists", "", "NoSchedule"), Taint("foo", "", "NoSchedule"), True),
        (Toleration("foo", "Exists", "", "NoSchedule"), Taint("foo", "bar", "NoSchedule"), True),
        (Toleration("", "Exists", "", "NoSchedule"), Taint("foo", "bar", "NoSchedule"), True),  # every key
        (Toleration("foo", "Equal", "bar", "NoSchedule"), Taint("foo", "bar", "NoSchedule"), True),
        (Toleration("foo", "Equal", "bar", "NoSchedule"), Taint("foo", "baz", "NoSchedule"), False),
        (Toleration("foo", "Equal", "bar", "NoSchedule"), Taint("foo", "bar", "NoExecute"), False),
        (Toleration("foo", "", "bar", ""), Taint("foo", "bar", "NoExecute"), True),  # empty operator: Equal
        (Toleration("foo", "Exists", "", ""), Taint("foo", "x", "PreferNoSchedule"), True),  # empty effect: all
        (Toleration("other", "Exists", "", ""), Taint("foo", "x", "NoSchedule"), False),
        (Toleration("foo", "In", "bar", ""), Taint("foo", "bar", "NoSchedule"), False),  # unknown operator
    ],
)
def test_upstream_cases(toleration, taint, expected):
    assert toleration.tolerates(taint) is expected
    # the same rule for a DRA device taint (resourceclaim.ToleratesTaint was copied from core/v1's)
    assert toleration.tolerates(DeviceTaint(taint.key, taint.value, taint.effect)) is expected


@pytest.mark.parametrize(
    "operator, bound, value, enabled, expected",
    [
        ("Gt", "100", "200", True, True),
        ("Gt", "100", "50", True, False),
        ("Gt", "100", "100", True, False),
        ("Lt", "100", "50", True, True),
        ("Lt", "-5", "-10", True, True),
        ("Lt", "100", "200", True, False),
        ("Gt", "100", "200", False, False),  # TaintTolerationComparisonOperators off: no match
        ("Gt", "abc", "200", True, False),
        ("Gt", "007", "200", True, False),  # not canonical
        ("Gt", "+1", "200", True, False),
        ("Gt", "1.5", "200", True, False),
        ("Gt", "1", str(2**63), True, False),  # beyond int64
    ],
)
def test_comparison_operators_only_with_their_gate(operator, bound, value, enabled, expected):
    toleration = Toleration("sla", operator, bound, "NoSchedule")
    assert toleration.tolerates(Taint("sla", value, "NoSchedule"), comparison_operators=enabled) is expected


def test_only_hard_effects_keep_a_pod_or_device_away():
    soft = Taint("slow", "", "PreferNoSchedule")
    none = DeviceTaint("degraded", "", "None")
    assert untolerated([], [GPU, soft, none]) == [GPU]
    assert untolerated([Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule")], [GPU, soft]) == []
    assert tolerated([Toleration("a"), Toleration("", "Exists")], GPU)


def test_manifest_tolerations_default_like_the_api():
    assert Toleration.of({"key": "nvidia.com/gpu"}) == Toleration("nvidia.com/gpu", "Equal", "", "")
    assert Toleration.of({"operator": "Exists"}).tolerates(GPU)


def test_a_claims_device_tolerations_are_the_same_toleration():
    spec, problems = parse_claim_spec(
        {
            "requests": [
                {
                    "name": "gpu",
                    "exactly": {
                        "deviceClassName": "gpu.nvidia.com",
                        "tolerations": [{"key": "example.com/degraded", "operator": "Exists", "effect": "NoSchedule"}],
                    },
                }
            ]
        },
        "spec.devices",
    )
    assert problems == []
    (alternative,) = spec.requests[0].alternatives
    assert alternative.tolerations == (Toleration("example.com/degraded", "Exists", "", "NoSchedule"),)


KEYS = st.sampled_from(["", "a", "b"])
EFFECTS = st.sampled_from(["", "NoSchedule", "NoExecute", "PreferNoSchedule"])


@given(KEYS, st.sampled_from(["Exists", "Equal", ""]), st.sampled_from(["", "x", "y"]), EFFECTS, KEYS, EFFECTS)
def test_exists_tolerates_whatever_equal_tolerates(key, operator, value, effect, taint_key, taint_effect):
    taint = Taint(taint_key, value, taint_effect or "NoSchedule")
    if Toleration(key, operator, value, effect).tolerates(taint):
        assert Toleration(key, "Exists", "", effect).tolerates(taint)
