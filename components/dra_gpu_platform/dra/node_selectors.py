"""Label and node selection: the one implementation of a pod's nodeSelector, a required node affinity or a
ResourceSlice's NodeSelector (core/v1 NodeSelector), and a metav1 LabelSelector. Pure: no Pulumi imports, no I/O.

Works on plain mappings and sequences, so manifests, plan data and the policy pack's props all go through it.
Sources: kubernetes/component-helpers `scheduling/corev1/nodeaffinity/nodeaffinity.go` (NodeSelector.Match,
RequiredNodeAffinity.Match) and apimachinery's label selectors; docs/references.md#kubernetes-node-selection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

# A node's only field a NodeSelector term may match (matchFields).
NODE_NAME_FIELD = "metadata.name"


def _values(requirement: Mapping[str, Any]) -> list[str]:
    values = requirement.get("values")
    if not isinstance(values, Sequence) or isinstance(values, (str, bytes)):
        return []
    return [str(values[i]) for i in range(len(values))]


def requirement_matches(requirement: Mapping[str, Any], value: str | None) -> bool:
    """One NodeSelectorRequirement or LabelSelectorRequirement against a label's value (None: no such label).
    In, NotIn, Exists, DoesNotExist; Gt and Lt compare integers (node selectors only; an unknown operator fails)."""
    operator = requirement.get("operator")
    values = _values(requirement)
    if operator == "In":
        return value is not None and value in values
    if operator == "NotIn":
        return value is None or value not in values
    if operator == "Exists":
        return value is not None
    if operator == "DoesNotExist":
        return value is None
    if operator in ("Gt", "Lt"):
        if len(values) != 1 or value is None:
            return False  # "for 'Gt', 'Lt' operators, exactly one value is required"; no label, no number
        try:
            have, bound = int(value), int(values[0])
        except ValueError:
            return False
        return have > bound if operator == "Gt" else have < bound
    return False


def labels_match(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A pod's `nodeSelector` (or a LabelSelector's matchLabels): every pair is a label of the node."""
    return all(labels.get(str(key)) == str(value) for key, value in selector.items())


def _requirements(raw: Any) -> list[Mapping[str, Any]]:
    if not isinstance(raw, Sequence) or isinstance(raw, (str, bytes)):
        return []
    return [raw[i] for i in range(len(raw)) if isinstance(raw[i], Mapping)]


def _valid_field(requirement: Mapping[str, Any]) -> bool:
    """nodeSelectorRequirementsAsFieldSelector: metadata.name with In or NotIn and exactly one value; anything else
    is a parse error, and a term with a parse error matches nothing."""
    return (
        requirement.get("key") == NODE_NAME_FIELD
        and requirement.get("operator") in ("In", "NotIn")
        and len(_values(requirement)) == 1
    )


def node_selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str], name: str | None = None) -> bool:
    """core/v1 NodeSelector (NodeSelector.Match): terms ORed; within a term, matchExpressions on the labels and
    matchFields on the node's name ANDed; an empty term, and a term whose fields do not parse, match nothing."""
    for term in _requirements(selector.get("nodeSelectorTerms")):
        expressions = _requirements(term.get("matchExpressions"))
        fields = _requirements(term.get("matchFields"))
        if not expressions and not fields:
            continue
        if not all(_valid_field(r) for r in fields):
            continue
        if all(requirement_matches(r, labels.get(str(r.get("key")))) for r in expressions) and all(
            requirement_matches(r, name if r.get("key") == NODE_NAME_FIELD else None) for r in fields
        ):
            return True
    return False


def required_node_affinity_matches(
    node_selector: Mapping[str, Any] | None,
    required: Mapping[str, Any] | None,
    labels: Mapping[str, str],
    name: str | None = None,
) -> bool:
    """RequiredNodeAffinity.Match of a pod spec: its nodeSelector map, then its required node affinity (a
    NodeSelector); either may be absent."""
    if node_selector and not labels_match(node_selector, labels):
        return False
    return required is None or node_selector_matches(required, labels, name)


def label_selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """metav1 LabelSelector: matchLabels and matchExpressions ANDed; an empty selector matches everything."""
    match_labels = selector.get("matchLabels")
    if isinstance(match_labels, Mapping) and not labels_match(match_labels, labels):
        return False
    return all(
        requirement_matches(r, labels.get(str(r.get("key")))) for r in _requirements(selector.get("matchExpressions"))
    )
