"""`cluster.kubernetesVersion` per platform (dra_gpu_platform/config/rules/kubernetes_version.py): EKS and AKS take only
a minor the service has started to offer (dra_gpu_platform/facts/kubernetes.py OFFERS), kind and existing every minor
this package knows; the error names the newest minor the service offers."""

from __future__ import annotations

import copy
from datetime import date

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.facts import kubernetes
from dra_gpu_platform.inputs.problems import InputError
from tests.config.test_cloud_rules import AKS, EKS
from tests.conftest import KIND_BASE, qualify

ON = date(2026, 12, 3)


@pytest.fixture(autouse=True)
def the_facts_day(monkeypatch):
    monkeypatch.setattr(kubernetes, "today", lambda: ON)


def at(base: dict, version: str) -> dict:
    config = copy.deepcopy(base)
    config["cluster"]["kubernetesVersion"] = version
    return qualify(config)


def problems(config: dict) -> list:
    with pytest.raises(InputError) as error:
        parse_config_map(config, stack="t", source="t.yaml")
    return [p for p in error.value.problems if p.path == "cluster.kubernetesVersion"]


def test_kind_and_existing_take_1_37():
    assert parse_config_map(at(KIND_BASE, "1.37"), stack="t", source="t.yaml").cluster.kubernetes_version == "1.37"


@pytest.mark.parametrize("base", [EKS, AKS], ids=["eks", "aks"])
def test_1_37_on_a_managed_service_names_the_newest_minor_it_offers(base):
    [problem] = problems(at(base, "1.37"))
    service = base["cluster"]["platform"].upper()
    assert f"{service} does not offer Kubernetes 1.37 on 2026-12-03" in problem.rule
    assert problem.fix.startswith(f'use "1.36", the newest minor {service} offers')


def test_a_minor_whose_support_ended_stays_valid_and_its_notes_say_what_is_left():
    """EKS keeps 1.34 under extended support; AKS keeps it only under Premium-tier LTS. Neither is refused: a stack
    file never turns invalid by the calendar alone (the notes tell the operator)."""
    assert parse_config_map(at(EKS, "1.34"), stack="t", source="t.yaml").cluster.kubernetes_version == "1.34"
    assert parse_config_map(at(AKS, "1.34"), stack="t", source="t.yaml").cluster.kubernetes_version == "1.34"
    [note] = [n for n in kubernetes.lifecycle_notes("aks", "1.34", ON) if n.startswith("AKS")]
    assert "long-term support (LTS) (Premium tier clusters only) until Nov 2027" in note


def test_the_offer_follows_the_day(monkeypatch):
    monkeypatch.setattr(kubernetes, "today", lambda: date(2027, 4, 2))  # AKS 1.35 standard support ended Mar 2027
    assert parse_config_map(at(AKS, "1.35"), stack="t", source="t.yaml").cluster.kubernetes_version == "1.35"
    assert any("ended in Mar 2027" in n for n in kubernetes.lifecycle_notes("aks", "1.35", date(2027, 4, 2)))
    monkeypatch.setattr(kubernetes, "today", lambda: date(2026, 5, 1))  # before EKS offered 1.36
    [problem] = problems(at(EKS, "1.36"))
    assert "from 2026-06-02" in problem.rule and '"1.35"' in problem.fix


def test_once_eks_offers_1_37_the_autoscaler_still_has_no_image_for_it(monkeypatch):
    # no cluster-autoscaler-1.37.x tag yet (dra_gpu_platform/facts/autoscaler.py NO_IMAGE_YET): refused until one exists
    from dataclasses import replace

    offer = replace(kubernetes.OFFERS[("eks", "1.37")], available_from=date(2026, 10, 28))
    monkeypatch.setitem(kubernetes.OFFERS, ("eks", "1.37"), offer)
    [problem] = problems(at(EKS, "1.37"))
    assert "no cluster-autoscaler image exists for Kubernetes 1.37 yet" in problem.rule
    assert problem.fix.startswith("set autoscaler.enabled: false")
    config = at(EKS, "1.37")
    config["dra-gpu-platform:autoscaler"] = {"enabled": False}
    for pool in config["dra-gpu-platform:nodePools"]:
        pool.pop("minNodes", None)
    assert parse_config_map(config, stack="t", source="t.yaml").cluster.kubernetes_version == "1.37"
