"""DraOnlyGuard: a ValidatingAdmissionPolicy and its binding that deny pods requesting nvidia.com/gpu in
namespaces labelled gpu-mode=dra-only (its AdmissionPolicyPlan: components/plans/admission_policy.py)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.admissionregistration import v1 as admission_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.admission_policy import AdmissionPolicyPlan


@dataclass(frozen=True)
class DraOnlyGuardArgs:
    plan: AdmissionPolicyPlan
    provider: k8s.Provider


class DraOnlyGuard(pulumi.ComponentResource):
    def __init__(self, name: str, args: DraOnlyGuardArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.DRA_ONLY_GUARD, name, None, opts)
        plan = args.plan
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        policy = admission_v1.ValidatingAdmissionPolicy(
            child(name, "policy"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
            spec=admission_v1.ValidatingAdmissionPolicySpecArgs(
                failure_policy="Fail",
                match_constraints=admission_v1.MatchResourcesArgs(
                    resource_rules=[
                        admission_v1.NamedRuleWithOperationsArgs(
                            api_groups=[""], api_versions=["v1"], operations=["CREATE", "UPDATE"], resources=["pods"]
                        )
                    ]
                ),
                match_conditions=[
                    admission_v1.MatchConditionArgs(name=n, expression=e) for n, e in plan.match_conditions
                ],
                variables=[admission_v1.VariableArgs(name=n, expression=e) for n, e in plan.variables],
                validations=[
                    admission_v1.ValidationArgs(
                        expression=plan.validation, message_expression=plan.message_expression, reason="Forbidden"
                    )
                ],
            ),
            opts=child_opts,
        )
        admission_v1.ValidatingAdmissionPolicyBinding(
            child(name, "binding"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
            spec=admission_v1.ValidatingAdmissionPolicyBindingSpecArgs(
                policy_name=policy.metadata.name,
                # Deny and Audit; Deny cannot be combined with Warn.
                validation_actions=["Deny", "Audit"],
                match_resources=admission_v1.MatchResourcesArgs(
                    namespace_selector=k8s.meta.v1.LabelSelectorArgs(match_labels=dict(plan.namespace_labels))
                ),
            ),
            opts=child_opts,
        )
        self.register_outputs({"policy": plan.name})
