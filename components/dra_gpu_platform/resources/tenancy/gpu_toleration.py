"""GpuTolerationPolicy: the MutatingAdmissionPolicy and its binding that add the GPU pools' taint toleration to pods
that use resourceClaims in the namespaces that want it (its GpuTolerationPlan: dra_gpu_platform/plans/gpu_toleration.py).
Created only where the cluster serves admissionregistration.k8s.io/v1 MutatingAdmissionPolicy (Kubernetes 1.36+)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.admissionregistration import v1 as admission_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.gpu_toleration import NAMESPACE_NAME_LABEL, GpuTolerationPlan


@dataclass(frozen=True)
class GpuTolerationPolicyArgs:
    plan: GpuTolerationPlan
    provider: k8s.Provider


class GpuTolerationPolicy(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuTolerationPolicyArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.GPU_TOLERATION_POLICY, name, None, opts)
        plan = args.plan
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        policy = admission_v1.MutatingAdmissionPolicy(
            child(name, "policy"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
            spec=admission_v1.MutatingAdmissionPolicySpecArgs(
                failure_policy=plan.failure_policy,
                reinvocation_policy=plan.reinvocation_policy,
                match_constraints=admission_v1.MatchResourcesArgs(
                    resource_rules=[
                        admission_v1.NamedRuleWithOperationsArgs(
                            api_groups=[""], api_versions=["v1"], operations=["CREATE"], resources=["pods"]
                        )
                    ]
                ),
                match_conditions=[
                    admission_v1.MatchConditionArgs(name=n, expression=e) for n, e in plan.match_conditions
                ],
                # tolerations is an atomic list: ApplyConfiguration may not change it, a JSONPatch may
                mutations=[
                    admission_v1.MutationArgs(
                        patch_type="JSONPatch", json_patch=admission_v1.JSONPatchArgs(expression=plan.patch)
                    )
                ],
            ),
            opts=child_opts,
        )
        admission_v1.MutatingAdmissionPolicyBinding(
            child(name, "binding"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
            spec=admission_v1.MutatingAdmissionPolicyBindingSpecArgs(
                policy_name=policy.metadata.name,
                match_resources=admission_v1.MatchResourcesArgs(
                    namespace_selector=k8s.meta.v1.LabelSelectorArgs(
                        match_expressions=[
                            k8s.meta.v1.LabelSelectorRequirementArgs(
                                key=NAMESPACE_NAME_LABEL, operator="In", values=list(plan.namespaces)
                            )
                        ]
                    )
                ),
            ),
            opts=child_opts,
        )
        self.register_outputs({"policy": plan.name, "namespaces": list(plan.namespaces)})
