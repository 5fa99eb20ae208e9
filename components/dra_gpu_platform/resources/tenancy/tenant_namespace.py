"""TenantNamespace: one namespace with its migration state (label gpu-mode) and Pod Security labels, its closed GPU
ResourceQuota and system-priority quota, its NetworkPolicies, its ResourceClaimTemplates and its shared ResourceClaims
(keyed by name: a claim's identity, and its allocation, follow its name). In a protected stack all of them are
protected and the namespace is also kept in the cluster when it leaves the stack (retainOnDelete): deleting it would
delete every tenant pod and claim in it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.networking import v1 as networking_v1
from pulumi_kubernetes.resource import v1 as resource_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import parts
from dra_gpu_platform.plans.claim_templates import ClaimPlan, TolerationPlan
from dra_gpu_platform.plans.namespaces import QUOTA_NAME, NamespacePlan
from dra_gpu_platform.resources.tenancy.typed_args import network_policy_spec


@dataclass(frozen=True)
class TenantNamespaceArgs:
    plan: NamespacePlan
    provider: k8s.Provider
    protect: bool = False  # cluster.protect

    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> TenantNamespaceArgs:
        """The namespace named `namespace` of the sections' namespaces (a stack file's sections but `cluster`, keys
        without the prefix) on an existing `platform` cluster (eks, aks or existing) of `kubernetes_version`,
        reached by `provider`. Validated as a stack file is (one ConfigError listing every problem). The arguments
        and their docs: dra_gpu_platform/config/descriptors.py TENANT_NAMESPACE (docs/library.md)."""
        part = parts.plan_part(parts.TENANT_NAMESPACE, sections, arguments, stack=pulumi.get_stack())
        return cls(part.plan, **part.kept(parts.TENANT_NAMESPACE))


def _selectors(expressions: tuple[str, ...]) -> list[resource_v1.DeviceSelectorArgs] | None:
    if not expressions:
        return None
    return [resource_v1.DeviceSelectorArgs(cel=resource_v1.CELDeviceSelectorArgs(expression=e)) for e in expressions]


def _tolerations(tolerations: tuple[TolerationPlan, ...]) -> list[resource_v1.DeviceTolerationArgs] | None:
    if not tolerations:
        return None
    return [
        resource_v1.DeviceTolerationArgs(
            key=t.key, operator=t.operator, value=t.value, effect=t.effect, toleration_seconds=t.toleration_seconds
        )
        for t in tolerations
    ]


def device_claim(plan: ClaimPlan) -> resource_v1.DeviceClaimArgs:
    """The template's DeviceClaim in the SDK's typed arguments, field for field the plan's body
    (dra_gpu_platform/plans/claim_templates.py devices_manifest; tests/gpuplan/test_fit_stack.py checks they agree)."""
    if plan.exactly is not None:
        exact = plan.exactly
        request = resource_v1.DeviceRequestArgs(
            name=plan.request,
            exactly=resource_v1.ExactDeviceRequestArgs(
                device_class_name=exact.device_class,
                allocation_mode=exact.allocation_mode,
                count=exact.count,
                selectors=_selectors(exact.selectors),
                admin_access=True if exact.admin_access else None,
                tolerations=_tolerations(exact.tolerations),
            ),
        )
    else:
        request = resource_v1.DeviceRequestArgs(
            name=plan.request,
            first_available=[
                resource_v1.DeviceSubRequestArgs(
                    name=sub.name,
                    device_class_name=sub.device_class,
                    allocation_mode=sub.allocation_mode,
                    count=sub.count,
                    selectors=_selectors(sub.selectors),
                    tolerations=_tolerations(sub.tolerations),
                )
                for sub in plan.first_available
            ],
        )
    constraints = None
    if plan.match_attribute:
        constraints = [resource_v1.DeviceConstraintArgs(requests=[plan.request], match_attribute=plan.match_attribute)]
    return resource_v1.DeviceClaimArgs(requests=[request], constraints=constraints)


class TenantNamespace(pulumi.ComponentResource):
    namespace: k8s.core.v1.Namespace
    templates: dict[str, resource_v1.ResourceClaimTemplate]
    shared_claims: dict[str, resource_v1.ResourceClaim]

    def __init__(self, name: str, args: TenantNamespaceArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.TENANT_NAMESPACE, name, None, opts)
        ns = args.plan
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider, protect=args.protect)
        self.namespace = k8s.core.v1.Namespace(
            child(name, "namespace"),
            metadata=k8s.meta.v1.ObjectMetaArgs(name=ns.name, labels=labels(**ns.labels)),
            opts=pulumi.ResourceOptions.merge(
                child_opts, pulumi.ResourceOptions(retain_on_delete=args.protect or None)
            ),
        )
        # Namespaced objects take the namespace from the Namespace's output, so they wait for it.
        namespace_name = self.namespace.metadata.name
        if ns.quota:
            k8s.core.v1.ResourceQuota(
                child(name, "quota"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=QUOTA_NAME, namespace=namespace_name, labels=labels()),
                spec=k8s.core.v1.ResourceQuotaSpecArgs(hard=dict(ns.quota)),
                opts=child_opts,
            )
        priority = ns.priority_quota
        if priority is not None:
            k8s.core.v1.ResourceQuota(
                child(name, "priority-quota"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=priority.name, namespace=namespace_name, labels=labels()),
                spec=k8s.core.v1.ResourceQuotaSpecArgs(
                    hard=dict(priority.hard),
                    # its own quota: a scope applies to every key of the quota it is in
                    scope_selector=k8s.core.v1.ScopeSelectorArgs(
                        match_expressions=[
                            k8s.core.v1.ScopedResourceSelectorRequirementArgs(
                                scope_name=priority.scope, operator=priority.operator, values=list(priority.values)
                            )
                        ]
                    ),
                ),
                opts=child_opts,
            )
        for policy in ns.network_policies:
            networking_v1.NetworkPolicy(
                child(name, "netpol", policy.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=policy.name, namespace=namespace_name, labels=labels()),
                spec=network_policy_spec(policy),
                opts=child_opts,
            )
        self.templates = {}
        for template in ns.claim_templates:
            self.templates[template.name] = resource_v1.ResourceClaimTemplate(
                child(name, "template", template.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=template.name, namespace=namespace_name, labels=labels()),
                spec=resource_v1.ResourceClaimTemplateSpecArgs(
                    spec=resource_v1.ResourceClaimSpecArgs(devices=device_claim(template.claim))
                ),
                opts=child_opts,
            )
        self.shared_claims = {}
        for claim in ns.shared_claims:
            self.shared_claims[claim.name] = resource_v1.ResourceClaim(
                child(name, "claim", claim.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=claim.name, namespace=namespace_name, labels=labels()),
                spec=resource_v1.ResourceClaimSpecArgs(devices=device_claim(claim.claim)),
                opts=child_opts,
            )
        self.register_outputs(
            {
                "namespace": namespace_name,
                "templates": sorted(self.templates),
                "sharedClaims": sorted(self.shared_claims),
            }
        )
