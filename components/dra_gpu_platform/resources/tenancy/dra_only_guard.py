"""DraOnlyGuard: the GPU guard of every tenant namespace, a ValidatingAdmissionPolicy and its binding on pods
(`gpu-dra-only`) and one each on the pod templates of workloads and CronJobs, all from their AdmissionPolicyPlans
(dra_gpu_platform/plans/admission_policy.py: what they deny and why)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.admissionregistration import v1 as admission_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.admission_policy import POLICY_NAME, AdmissionPolicyPlan
from dra_gpu_platform.resources.tenancy.typed_args import binding_spec, policy_spec


@dataclass(frozen=True)
class DraOnlyGuardArgs:
    plan: AdmissionPolicyPlan  # the guard on pods
    provider: k8s.Provider
    workloads: tuple[AdmissionPolicyPlan, ...] = ()  # the same rules on workload pod templates


def guard(name: str, plan: AdmissionPolicyPlan, opts: pulumi.ResourceOptions) -> admission_v1.ValidatingAdmissionPolicy:
    """One policy and its binding, children `<name>-policy` and `<name>-binding`."""
    policy = admission_v1.ValidatingAdmissionPolicy(
        child(name, "policy"),
        metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
        spec=policy_spec(plan),
        opts=opts,
    )
    admission_v1.ValidatingAdmissionPolicyBinding(
        child(name, "binding"),
        metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.name, labels=labels()),
        spec=binding_spec(plan, policy.metadata.name),
        opts=opts,
    )
    return policy


class DraOnlyGuard(pulumi.ComponentResource):
    def __init__(self, name: str, args: DraOnlyGuardArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.DRA_ONLY_GUARD, name, None, opts)
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        guard(name, args.plan, child_opts)
        for plan in args.workloads:
            # gpu-dra-only-workloads -> <name>-workloads-policy: named after the policy, which never changes
            guard(child(name, plan.name.removeprefix(f"{POLICY_NAME}-")), plan, child_opts)
        self.register_outputs({"policies": [args.plan.name, *(p.name for p in args.workloads)]})
