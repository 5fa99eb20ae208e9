"""Kubernetes minors as facts (dra_gpu_platform/facts/kubernetes.py): gates per minor and component, served APIs,
dates, what EKS and AKS offer, and the notes on a minor's support."""

from __future__ import annotations

from datetime import date

import pytest

from dra_gpu_platform.facts import kubernetes as k8s

ON = date(2026, 12, 3)


def test_every_component_sees_the_same_stage():
    """The scheduler's gate table is added to the one gate registry all binaries share
    (SetupCurrentKubernetesSpecificFeatureGates), so stage, default and lock do not depend on the component."""
    for gate in k8s.GATES:
        for minor in (34, 35, 36, 37):
            stages = {k8s.gate_stage(gate, minor, component) for component in k8s.COMPONENTS}
            assert len(stages) == 1
    with pytest.raises(ValueError, match="unknown Kubernetes component"):
        k8s.gate_stage(k8s.DRA_DEVICE_TAINTS, 36, "kube-proxy")


@pytest.mark.parametrize(
    "gate, minor, expected",
    [
        (k8s.DRA_DEVICE_TAINTS, 35, ("Alpha", False, False)),
        (k8s.DRA_DEVICE_TAINTS, 36, ("Beta", True, False)),
        (k8s.DRA_DEVICE_TAINTS, 37, ("GA", True, False)),  # lock in 1.38
        (k8s.DRA_DEVICE_TAINT_RULES, 36, ("Beta", False, False)),  # depends on the off-by-default v1beta2 API
        (k8s.DRA_DEVICE_TAINT_RULES, 37, ("GA", True, False)),
        (k8s.DRA_EXTENDED_RESOURCE, 37, ("GA", True, True)),
        (k8s.DRA_PRIORITIZED_LIST, 36, ("GA", True, False)),
        (k8s.DRA_PRIORITIZED_LIST, 37, ("GA", True, True)),
        (k8s.DRA_ADMIN_ACCESS, 36, ("GA", True, True)),
        (k8s.DRA_DEVICE_STATUS, 37, ("GA", True, True)),
        (k8s.DRA_WORKLOAD_RESOURCE_CLAIMS, 37, ("Beta", False, False)),
        (k8s.DRA_CONSUMABLE_CAPACITY, 37, ("Beta", True, False)),
    ],
)
def test_gate_rows_of_the_versioned_table(gate, minor, expected):
    stage = k8s.gate_stage(gate, minor)
    assert (stage.prerelease, stage.default, stage.locked) == expected


def test_gates_newer_than_a_minor_do_not_exist_there():
    assert k8s.gate_stage(k8s.DRA_DEVICE_TAINT_RULES, 34) is None
    assert k8s.gate_stage(k8s.DRA_OPTIONAL_NODE_OPERATIONS, 36) is None


def test_device_taint_rules_are_served_by_default_from_1_37_in_v1():
    assert [m.device_taint_rule_default for m in k8s.MINORS.values()] == [False, False, False, True]
    assert k8s.MINORS["1.37"].device_taint_rule_apis[0] == "resource.k8s.io/v1"
    assert all(m.resource_apis == ("resource.k8s.io/v1",) for m in k8s.MINORS.values())


def test_what_the_services_offer_on_the_day():
    assert k8s.offered_minors("eks", ON) == ["1.34", "1.35", "1.36"]
    assert k8s.availability("eks", "1.34", ON).support == "extended support"
    assert k8s.offered_minors("aks", ON) == ["1.35", "1.36"]  # 1.34 only under Premium-tier LTS
    assert k8s.newest_offered("eks", ON) == k8s.newest_offered("aks", ON) == "1.36"
    assert k8s.availability("kind", "1.37", ON).offered and k8s.availability("existing", "1.37", ON).offered
    assert not k8s.availability("eks", "1.37", ON).offered and k8s.OFFERS[("eks", "1.37")].planned


def test_next_minor_is_one_up_where_the_service_offers_it():
    assert k8s.next_minor("eks", "1.35", ON) == "1.36" and k8s.next_minor("eks", "1.36", ON) is None
    assert k8s.next_minor("kind", "1.36", ON) == "1.37" and k8s.next_minor("kind", "1.37", ON) is None


def test_1_34_notes_carry_its_dates():
    notes = k8s.lifecycle_notes("kind", "1.34", ON)
    assert "left upstream support on 2026-10-27" in notes[0]
    assert "EKS standard support for 1.34 ended on 2026-12-02; extended support until 2027-12-02" in notes[1]
    assert "AKS standard support for 1.34 ended in Nov 2026" in notes[2] and "LTS" in notes[2]
    assert k8s.lifecycle_notes("eks", "1.35", ON) == [] and k8s.lifecycle_notes("aks", "1.34", ON)[1].startswith("AKS")


def test_release_dates_come_before_end_of_life_and_minors_are_in_order():
    versions = list(k8s.MINORS)
    assert versions == sorted(versions, key=k8s.minor_number)
    for minor in k8s.MINORS.values():
        assert minor.released < minor.maintenance_from < minor.end_of_life
