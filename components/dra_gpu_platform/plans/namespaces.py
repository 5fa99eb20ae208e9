"""One NamespacePlan per tenant namespace: its labels (migration state, admin access, Pod Security Admission, the
stack's own), its ResourceQuotas (the closed GPU quota and the system-priority quota), its NetworkPolicies, its
ResourceClaimTemplates and its shared ResourceClaims (one claim that several pods use by `resourceClaimName`: one
allocation, so a time-sliced or MPS class shares one GPU only this way). Pure: no Pulumi imports.

TenantNamespace creates exactly this; `gpuplan fit` reads the same plan as manifests (`manifests`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import NamespaceConfig
from dra_gpu_platform.dra.devices import RESOURCE_API
from dra_gpu_platform.facts import pod_security
from dra_gpu_platform.plans.claim_templates import ClaimTemplatePlan, plan_claim_templates
from dra_gpu_platform.plans.migration import namespace_labels
from dra_gpu_platform.plans.network_policy import NetworkPolicyPlan, tenant_policies
from dra_gpu_platform.plans.quota import PRIORITY_QUOTA, PriorityQuotaPlan, QuotaContext, quota_hard

QUOTA_NAME = "gpu-quota"


def pod_security_labels(level: str, minor: int) -> dict[str, str]:
    """Enforce the level at the cluster's own minor (a fixed version: an upgrade never tightens it unannounced);
    audit and warn at `latest`, so the next minor's checks show up in the audit log and kubectl before an upgrade."""
    return {
        pod_security.ENFORCE: level,
        pod_security.ENFORCE_VERSION: pod_security.version_label(minor),
        pod_security.AUDIT: level,
        pod_security.AUDIT_VERSION: pod_security.LATEST,
        pod_security.WARN: level,
        pod_security.WARN_VERSION: pod_security.LATEST,
    }


@dataclass(frozen=True)
class NamespacePlan:
    name: str
    migration: str  # legacy | dual | dra-only
    labels: dict[str, str]  # gpu-mode, admin access, Pod Security and the stack's labels, sorted
    quota: dict[str, str]  # the GPU ResourceQuota's spec.hard (closed: every DeviceClass of the cluster)
    claim_templates: tuple[ClaimTemplatePlan, ...] = ()  # sorted by name
    shared_claims: tuple[ClaimTemplatePlan, ...] = ()  # ResourceClaims, sorted by name
    priority_quota: PriorityQuotaPlan | None = PRIORITY_QUOTA
    network_policies: tuple[NetworkPolicyPlan, ...] = ()  # sorted by name

    def manifests(self) -> list[dict[str, Any]]:
        """The Namespace, its ResourceQuota, its ResourceClaimTemplates and shared ResourceClaims as Kubernetes
        objects."""
        documents: list[dict[str, Any]] = [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": self.name, "labels": dict(self.labels)}}
        ]
        if self.quota:
            documents.append(
                {
                    "apiVersion": "v1",
                    "kind": "ResourceQuota",
                    "metadata": {"name": QUOTA_NAME, "namespace": self.name},
                    "spec": {"hard": dict(self.quota)},
                }
            )
        if self.priority_quota is not None:
            documents.append(
                {
                    "apiVersion": "v1",
                    "kind": "ResourceQuota",
                    "metadata": {"name": self.priority_quota.name, "namespace": self.name},
                    "spec": self.priority_quota.spec(),
                }
            )
        documents += [policy.manifest(self.name) for policy in self.network_policies]
        documents += [
            {
                "apiVersion": RESOURCE_API,
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": template.name, "namespace": self.name},
                "spec": {"spec": {"devices": template.devices()}},
            }
            for template in self.claim_templates
        ]
        documents += [
            {
                "apiVersion": RESOURCE_API,
                "kind": "ResourceClaim",
                "metadata": {"name": claim.name, "namespace": self.name},
                "spec": {"devices": claim.devices()},
            }
            for claim in self.shared_claims
        ]
        return documents


def plan_namespace(namespace: NamespaceConfig, quota: QuotaContext, minor: int) -> NamespacePlan:
    labels = {
        **namespace_labels(namespace.migration, namespace.admin_access, namespace.labels),
        **pod_security_labels(namespace.pod_security, minor),
    }
    return NamespacePlan(
        name=namespace.name,
        migration=namespace.migration,
        labels=dict(sorted(labels.items())),
        quota=quota_hard(namespace, quota),
        claim_templates=plan_claim_templates(namespace.claim_templates),
        shared_claims=plan_claim_templates(namespace.shared_claims),
        network_policies=tenant_policies(namespace.egress),
    )


def plan_namespaces(namespaces: list[NamespaceConfig], quota: QuotaContext, minor: int) -> tuple[NamespacePlan, ...]:
    return tuple(plan_namespace(ns, quota, minor) for ns in sorted(namespaces, key=lambda n: n.name))
