"""Label and node selection, the one implementation (dra_gpu_platform/dra/node_selectors.py) the allocator, `gpuplan
render`'s placement and the policy pack share: component-helpers v0.35.6 nodeaffinity semantics and
apimachinery's LabelSelector (docs/references.md#kubernetes-node-selection)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra.node_selectors import (
    label_selector_matches,
    labels_match,
    node_selector_matches,
    required_node_affinity_matches,
)

NODE = {"gpu": "H100", "zone": "a", "gpus": "8"}


def term(*expressions, fields=()):
    return {"matchExpressions": list(expressions), "matchFields": list(fields)}


def expr(key, operator, *values):
    return {"key": key, "operator": operator, "values": list(values)}


@pytest.mark.parametrize(
    "requirement, expected",
    [
        (expr("gpu", "In", "H100", "H200"), True),
        (expr("gpu", "In", "T4"), False),
        (expr("gpu", "NotIn", "T4"), True),
        (expr("absent", "NotIn", "x"), True),  # NotIn holds for a missing label
        (expr("gpu", "Exists"), True),
        (expr("absent", "Exists"), False),
        (expr("absent", "DoesNotExist"), True),
        (expr("gpus", "Gt", "4"), True),
        (expr("gpus", "Lt", "4"), False),
        (expr("gpu", "Gt", "4"), False),  # not an integer
        (expr("gpu", "Sideways", "H100"), False),
    ],
)
def test_one_requirement(requirement, expected):
    assert node_selector_matches({"nodeSelectorTerms": [term(requirement)]}, NODE) is expected


def test_terms_are_ored_their_parts_anded_and_an_empty_term_matches_nothing():
    no, yes = term(expr("gpu", "In", "T4")), term(expr("gpu", "In", "H100"), expr("zone", "In", "a"))
    assert node_selector_matches({"nodeSelectorTerms": [no, yes]}, NODE)
    assert not node_selector_matches(
        {"nodeSelectorTerms": [term(expr("gpu", "In", "H100"), expr("zone", "In", "b"))]}, NODE
    )
    assert not node_selector_matches({"nodeSelectorTerms": [term()]}, NODE)
    assert not node_selector_matches({"nodeSelectorTerms": []}, NODE)


def test_match_fields_select_the_node_by_name():
    by_name = {"nodeSelectorTerms": [term(fields=[expr("metadata.name", "In", "node-1")])]}
    assert node_selector_matches(by_name, NODE, "node-1") and not node_selector_matches(by_name, NODE, "node-2")


def test_a_pods_node_selector_and_required_affinity_both_apply():
    affinity = {"nodeSelectorTerms": [term(expr("zone", "In", "a"))]}
    assert required_node_affinity_matches({"gpu": "H100"}, affinity, NODE)
    assert not required_node_affinity_matches({"gpu": "T4"}, affinity, NODE)
    assert required_node_affinity_matches(None, None, NODE) and labels_match({}, {})
    assert not labels_match({"gpu": "H100", "absent": "x"}, NODE)


@pytest.mark.parametrize(
    "selector, expected",
    [
        ({}, True),  # an empty LabelSelector selects everything
        ({"matchLabels": {"gpu-mode": "dra-only"}}, True),
        ({"matchLabels": {"gpu-mode": "legacy"}}, False),
        ({"matchExpressions": [expr("gpu-mode", "In", "dra-only", "dual")]}, True),
        ({"matchLabels": {"gpu-mode": "dra-only"}, "matchExpressions": [expr("team", "Exists")]}, False),
    ],
)
def test_label_selectors(selector, expected):
    assert label_selector_matches(selector, {"gpu-mode": "dra-only"}) is expected
