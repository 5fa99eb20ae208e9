"""ResourceClaimTemplate device requests built from a stack's claim templates. Pure: no Pulumi imports.

Shapes follow resource.k8s.io/v1 (docs/references.md#dra-api-request-shapes): each request has `exactly` or
`firstAvailable` (ordered, no priority field); constraints carry `matchAttribute` (no operator field).
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.config.models import ClaimTemplateConfig, SubRequestConfig


@dataclass(frozen=True)
class ExactPlan:
    device_class: str
    allocation_mode: str
    count: int | None
    selectors: tuple[str, ...] = ()
    admin_access: bool = False


@dataclass(frozen=True)
class SubRequestPlan:
    name: str
    device_class: str
    allocation_mode: str
    count: int | None
    selectors: tuple[str, ...] = ()


@dataclass(frozen=True)
class ClaimPlan:
    request: str
    exactly: ExactPlan | None
    first_available: tuple[SubRequestPlan, ...]
    match_attribute: str | None


def subrequest_name(sub: SubRequestConfig) -> str:
    # DeviceSubRequest names are DNS labels; driver class names contain dots
    return sub.name or sub.device_class.replace(".", "-")


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
                SubRequestPlan(subrequest_name(sub), sub.device_class, mode, count, tuple(sub.selectors))
            )
    else:
        assert template.device_class is not None
        mode, count = _mode_and_count(template.count, template.allocation_mode)
        exactly = ExactPlan(template.device_class, mode, count, tuple(template.selectors), template.admin_access)
    return ClaimPlan(template.request_name, exactly, tuple(subrequests), template.same_attribute)
