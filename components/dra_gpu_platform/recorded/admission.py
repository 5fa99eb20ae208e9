"""The ValidatingAdmissionPolicies a stack declares, with their bindings, read from recorded props: which of them
apply to a request in a namespace, and whether they deny it (their CEL evaluated the way the API server does,
dra_gpu_platform/plans/admission_policy.py `denials`). Rules ask "is this attack refused here?", not "does the text look
like a guard?", so a policy written by hand is judged by what it does."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra.node_selectors import label_selector_matches
from dra_gpu_platform.plans.admission_policy import AdmissionRequest, denials
from dra_gpu_platform.recorded import props as c


@dataclass(frozen=True)
class BoundPolicy:
    name: str
    spec: dict[str, Any]  # the policy's spec
    binding: dict[str, Any]  # the binding's spec
    urn: str


def bound_policies(resources: Iterable[Any]) -> list[BoundPolicy]:
    """Every (policy, binding) pair whose binding denies (validationActions include Deny)."""
    resources = list(resources)
    policies = {
        c.metadata_name(r.props) or r.name: (c.plain(c.dig(r.props, "spec", default={})), r.urn)
        for r in resources
        if c.VAP_RE.match(r.resource_type)
    }
    bound = []
    for r in resources:
        if not c.VAP_BINDING_RE.match(r.resource_type):
            continue
        binding = c.plain(c.dig(r.props, "spec", default={}))
        name = str(binding.get("policyName", ""))
        if name in policies and "Deny" in (binding.get("validationActions") or []):
            spec, urn = policies[name]
            bound.append(BoundPolicy(name, spec, binding, urn))
    return bound


def _matches_rule(spec: Mapping[str, Any], group: str, resource: str, operation: str) -> bool:
    for rule in c.as_list(c.dig(spec, "matchConstraints", "resourceRules")):
        groups = {str(g) for g in c.as_list(c.dig(rule, "apiGroups"))}
        resources = {str(x) for x in c.as_list(c.dig(rule, "resources"))}
        operations = {str(o) for o in c.as_list(c.dig(rule, "operations"))}
        if (groups & {group, "*"}) and (resources & {resource, "*"}) and (operations & {operation, "*"}):
            return True
    return False


def _selects(selector: Any, labels: Mapping[str, str]) -> bool:
    # an absent namespaceSelector is the API's default {}: every namespace
    return label_selector_matches(c.as_dict(selector), dict(labels))


def applying(
    bound: Iterable[BoundPolicy], labels: Mapping[str, str], group: str, resource: str, operation: str
) -> list[BoundPolicy]:
    """The bound policies that see this request: resource and operation match, and both the binding's and the
    policy's namespaceSelector select the namespace's labels (for a Namespace object: its own labels)."""
    return [
        p
        for p in bound
        if _matches_rule(p.spec, group, resource, operation)
        and _selects(c.dig(p.binding, "matchResources", "namespaceSelector"), labels)
        and _selects(c.dig(p.spec, "matchConstraints", "namespaceSelector"), labels)
    ]


def refused(
    bound: Iterable[BoundPolicy],
    namespace: Mapping[str, Any],
    group: str,
    resource: str,
    request: AdmissionRequest,
    selector_labels: Mapping[str, str] | None = None,
) -> list[str]:
    """The denial messages of every bound policy that sees the request (empty: admitted)."""
    labels = selector_labels if selector_labels is not None else c.string_map(c.dig(namespace, "metadata", "labels"))
    found: list[str] = []
    for policy in applying(bound, labels, group, resource, request.operation):
        found += denials(policy.spec, request)
    return found


def namespace_object(name: str, labels: Mapping[str, str]) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": dict(labels)}}
