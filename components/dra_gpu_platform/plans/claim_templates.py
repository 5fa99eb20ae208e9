"""ResourceClaimTemplates (and the shared ResourceClaims, which have the same keys) built from a stack's claim
templates: the one place their body is decided. Pure: no Pulumi imports.

Shapes follow resource.k8s.io/v1 (docs/references.md#dra-api-request-shapes): each request has `exactly` or
`firstAvailable` (ordered, no priority field); constraints carry `matchAttribute` (no operator field). The plan
holds every field as it is sent (None: left out); `devices_manifest` is its JSON form, which `gpuplan fit` reads and
TenantNamespace's typed SDK arguments mirror field by field.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import ClaimTemplateConfig, DeviceTolerationConfig, SubRequestConfig
from dra_gpu_platform.facts.naming import dns_label


@dataclass(frozen=True)
class TolerationPlan:
    """resource.k8s.io/v1 DeviceToleration (docs/references.md#dra-api-device-tolerations)."""

    key: str | None
    operator: str  # Exists | Equal
    value: str | None
    effect: str | None  # NoSchedule | NoExecute | None; None (absent): every effect
    toleration_seconds: int | None = None

    def manifest(self) -> dict[str, Any]:
        body: dict[str, Any] = {"operator": self.operator}
        for field, value in (
            ("key", self.key),
            ("value", self.value),
            ("effect", self.effect),
            ("tolerationSeconds", self.toleration_seconds),
        ):
            if value is not None:
                body[field] = value
        return body


@dataclass(frozen=True)
class ExactPlan:
    device_class: str
    allocation_mode: str
    count: int | None
    selectors: tuple[str, ...] = ()
    admin_access: bool = False
    tolerations: tuple[TolerationPlan, ...] = ()


@dataclass(frozen=True)
class SubRequestPlan:
    name: str
    device_class: str
    allocation_mode: str
    count: int | None
    selectors: tuple[str, ...] = ()
    tolerations: tuple[TolerationPlan, ...] = ()


@dataclass(frozen=True)
class ClaimPlan:
    request: str
    exactly: ExactPlan | None
    first_available: tuple[SubRequestPlan, ...]
    match_attribute: str | None


@dataclass(frozen=True)
class ClaimTemplatePlan:
    """One ResourceClaimTemplate: its name and the claim its pods get."""

    name: str
    claim: ClaimPlan

    def devices(self) -> dict[str, Any]:
        return devices_manifest(self.claim)


def subrequest_name(sub: SubRequestConfig) -> str:
    # DeviceSubRequest names are DNS labels; class names are DNS subdomains (docs/references.md#dra-api-object-names)
    return sub.name or dns_label(sub.device_class)


def plan_tolerations(tolerations: list[DeviceTolerationConfig]) -> tuple[TolerationPlan, ...]:
    """In the stack file's order (the API keeps the list as given)."""
    return tuple(TolerationPlan(t.key, t.operator, t.value, t.effect, t.toleration_seconds) for t in tolerations)


def _mode_and_count(count: int | None, mode: str | None) -> tuple[str, int | None]:
    if mode == "All":
        return "All", None
    return "ExactCount", count or 1


def plan_claim(template: ClaimTemplateConfig) -> ClaimPlan:
    exactly = None
    subrequests: list[SubRequestPlan] = []
    if template.first_available:
        for sub in template.first_available:
            mode, count = _mode_and_count(sub.count, sub.allocation_mode)
            subrequests.append(
                SubRequestPlan(
                    subrequest_name(sub),
                    sub.device_class,
                    mode,
                    count,
                    tuple(sub.selectors),
                    plan_tolerations(sub.tolerations),
                )
            )
    else:
        assert template.device_class is not None
        mode, count = _mode_and_count(template.count, template.allocation_mode)
        exactly = ExactPlan(
            template.device_class,
            mode,
            count,
            tuple(template.selectors),
            template.admin_access,
            plan_tolerations(template.tolerations),
        )
    return ClaimPlan(template.request_name, exactly, tuple(subrequests), template.same_attribute)


def plan_claim_templates(templates: list[ClaimTemplateConfig]) -> tuple[ClaimTemplatePlan, ...]:
    """A namespace's templates, sorted by name (the order of the stack file never matters)."""
    return tuple(ClaimTemplatePlan(t.name, plan_claim(t)) for t in sorted(templates, key=lambda t: t.name))


def selectors_manifest(expressions: tuple[str, ...]) -> list[dict[str, Any]]:
    """DeviceSelectors: one CEL selector per expression."""
    return [{"cel": {"expression": e}} for e in expressions]


def devices_manifest(plan: ClaimPlan) -> dict[str, Any]:
    """`spec.spec.devices` of the template (resource.k8s.io/v1 DeviceClaim), fields left out as the API leaves them."""
    if plan.exactly is not None:
        exact = plan.exactly
        body: dict[str, Any] = {"deviceClassName": exact.device_class, "allocationMode": exact.allocation_mode}
        if exact.count is not None:
            body["count"] = exact.count
        if exact.selectors:
            body["selectors"] = selectors_manifest(exact.selectors)
        if exact.admin_access:
            body["adminAccess"] = True
        if exact.tolerations:
            body["tolerations"] = [t.manifest() for t in exact.tolerations]
        request: dict[str, Any] = {"name": plan.request, "exactly": body}
    else:
        subs = []
        for sub in plan.first_available:
            entry: dict[str, Any] = {
                "name": sub.name,
                "deviceClassName": sub.device_class,
                "allocationMode": sub.allocation_mode,
            }
            if sub.count is not None:
                entry["count"] = sub.count
            if sub.selectors:
                entry["selectors"] = selectors_manifest(sub.selectors)
            if sub.tolerations:
                entry["tolerations"] = [t.manifest() for t in sub.tolerations]
            subs.append(entry)
        request = {"name": plan.request, "firstAvailable": subs}
    devices: dict[str, Any] = {"requests": [request]}
    if plan.match_attribute:
        devices["constraints"] = [{"requests": [plan.request], "matchAttribute": plan.match_attribute}]
    return devices
