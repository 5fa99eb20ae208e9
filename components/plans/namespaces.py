"""One NamespacePlan per tenant namespace: its labels (migration state, admin access, the stack's own), its
ResourceQuota `hard` map, its ResourceClaimTemplates and its shared ResourceClaims (one claim that several pods use by
`resourceClaimName`: one allocation, so a time-sliced or MPS class shares one GPU only this way). Pure: no Pulumi
imports.

TenantNamespace creates exactly this; `gpuplan fit` reads the same plan as manifests (`manifests`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import NamespaceConfig
from dra_gpu_platform.dra.slices import RESOURCE_API
from dra_gpu_platform.plans.claim_templates import ClaimTemplatePlan, plan_claim_templates
from dra_gpu_platform.plans.migration import namespace_labels
from dra_gpu_platform.plans.quota import quota_hard

QUOTA_NAME = "gpu-quota"


@dataclass(frozen=True)
class NamespacePlan:
    name: str
    migration: str  # legacy | dual | dra-only
    labels: dict[str, str]  # gpu-mode, admin access and the stack's labels, sorted
    quota: dict[str, str]  # the ResourceQuota's spec.hard; empty: no ResourceQuota
    claim_templates: tuple[ClaimTemplatePlan, ...] = ()  # sorted by name
    shared_claims: tuple[ClaimTemplatePlan, ...] = ()  # ResourceClaims, sorted by name

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


def plan_namespace(namespace: NamespaceConfig) -> NamespacePlan:
    return NamespacePlan(
        name=namespace.name,
        migration=namespace.migration,
        labels=namespace_labels(namespace.migration, namespace.admin_access, namespace.labels),
        quota=quota_hard(namespace.quota) if namespace.quota is not None else {},
        claim_templates=plan_claim_templates(namespace.claim_templates),
        shared_claims=plan_claim_templates(namespace.shared_claims),
    )


def plan_namespaces(namespaces: list[NamespaceConfig]) -> tuple[NamespacePlan, ...]:
    return tuple(plan_namespace(ns) for ns in sorted(namespaces, key=lambda n: n.name))
