"""The typed pulumi_kubernetes arguments of the tenancy plans (ValidatingAdmissionPolicies and their bindings,
NetworkPolicies, label selectors), shared by the components that create them. No resources here."""

from __future__ import annotations

from typing import Any

import pulumi_kubernetes as k8s
from pulumi_kubernetes.admissionregistration import v1 as admission_v1
from pulumi_kubernetes.networking import v1 as networking_v1

from dra_gpu_platform.plans.admission_policy import AdmissionPolicyPlan
from dra_gpu_platform.plans.network_policy import NetworkPolicyPlan, PeerPlan, RulePlan


def label_selector(selector: dict[str, Any]) -> k8s.meta.v1.LabelSelectorArgs:
    """A LabelSelector manifest ({"matchLabels": …, "matchExpressions": …}; {} selects everything)."""
    expressions = [
        k8s.meta.v1.LabelSelectorRequirementArgs(key=e["key"], operator=e["operator"], values=e.get("values"))
        for e in selector.get("matchExpressions", [])
    ]
    return k8s.meta.v1.LabelSelectorArgs(
        match_labels=dict(selector["matchLabels"]) if selector.get("matchLabels") else None,
        match_expressions=expressions or None,
    )


def policy_spec(plan: AdmissionPolicyPlan) -> admission_v1.ValidatingAdmissionPolicySpecArgs:
    return admission_v1.ValidatingAdmissionPolicySpecArgs(
        failure_policy=plan.failure_policy,
        match_constraints=admission_v1.MatchResourcesArgs(
            resource_rules=[
                admission_v1.NamedRuleWithOperationsArgs(
                    api_groups=list(rule.api_groups),
                    api_versions=list(rule.api_versions),
                    operations=list(rule.operations),
                    resources=list(rule.resources),
                )
                for rule in plan.resource_rules
            ]
        ),
        match_conditions=[admission_v1.MatchConditionArgs(name=n, expression=e) for n, e in plan.match_conditions]
        or None,
        variables=[admission_v1.VariableArgs(name=n, expression=e) for n, e in plan.variables],
        validations=[
            admission_v1.ValidationArgs(
                expression=v.expression, message_expression=v.message_expression, reason=v.reason
            )
            for v in plan.validations
        ],
    )


def binding_spec(plan: AdmissionPolicyPlan, policy_name: Any) -> admission_v1.ValidatingAdmissionPolicyBindingSpecArgs:
    return admission_v1.ValidatingAdmissionPolicyBindingSpecArgs(
        policy_name=policy_name,
        validation_actions=list(plan.validation_actions),
        match_resources=admission_v1.MatchResourcesArgs(namespace_selector=label_selector(plan.namespace_selector))
        if plan.namespace_selector is not None
        else None,
    )


def _peer(peer: PeerPlan) -> networking_v1.NetworkPolicyPeerArgs:
    return networking_v1.NetworkPolicyPeerArgs(
        ip_block=networking_v1.IPBlockArgs(cidr=peer.cidr, except_=list(peer.excepts) or None)
        if peer.cidr is not None
        else None,
        namespace_selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(peer.namespace_labels) or None)
        if peer.namespace_labels is not None
        else None,
        pod_selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(peer.pod_labels) or None)
        if peer.pod_labels is not None
        else None,
    )


def _ports(rule: RulePlan) -> list[networking_v1.NetworkPolicyPortArgs] | None:
    return [networking_v1.NetworkPolicyPortArgs(protocol=p.protocol, port=p.port) for p in rule.ports] or None


def network_policy_spec(plan: NetworkPolicyPlan) -> networking_v1.NetworkPolicySpecArgs:
    return networking_v1.NetworkPolicySpecArgs(
        pod_selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(plan.pod_labels) or None),
        policy_types=list(plan.policy_types),
        ingress=[
            networking_v1.NetworkPolicyIngressRuleArgs(from_=[_peer(p) for p in r.peers] or None, ports=_ports(r))
            for r in plan.ingress
        ]
        or None,
        egress=[
            networking_v1.NetworkPolicyEgressRuleArgs(to=[_peer(p) for p in r.peers] or None, ports=_ports(r))
            for r in plan.egress
        ]
        or None,
    )
