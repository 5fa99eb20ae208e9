"""TenancyGuards: the ValidatingAdmissionPolicies that keep what makes a namespace a tenant in the deployer's hands:
its labels (gpu-mode, admin access, Pod Security) and the platform's NetworkPolicies in it
(dra_gpu_platform/plans/admission_policy.py tenancy_policies)."""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.admission_policy import AdmissionPolicyPlan
from dra_gpu_platform.resources.tenancy.dra_only_guard import guard


@dataclass(frozen=True)
class TenancyGuardsArgs:
    policies: tuple[AdmissionPolicyPlan, ...]
    provider: k8s.Provider


class TenancyGuards(pulumi.ComponentResource):
    def __init__(self, name: str, args: TenancyGuardsArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.TENANCY_GUARDS, name, None, opts)
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        for plan in args.policies:
            guard(child(name, plan.name), plan, child_opts)
        self.register_outputs({"policies": [p.name for p in args.policies]})
