"""ResourceQuota keys and charges for DRA and the device plugin (dra.md section 3). Pure: no Pulumi imports."""

from __future__ import annotations

from components.config.models import ClaimTemplateConfig, QuotaConfig

CLAIMS_KEY = "count/resourceclaims.resource.k8s.io"
LEGACY_GPU_KEY = "requests.nvidia.com/gpu"
DEVICES_SUFFIX = ".deviceclass.resource.k8s.io/devices"
# allocationMode: All is charged as the API maximum of devices per request (AllocationResultsMaxSize).
ALL_MODE_CHARGE = 32


def devices_key(device_class: str) -> str:
    return f"{device_class}{DEVICES_SUFFIX}"


def quota_hard(quota: QuotaConfig) -> dict[str, str]:
    hard: dict[str, str] = {}
    if quota.claims is not None:
        hard[CLAIMS_KEY] = str(quota.claims)
    for device_class, limit in sorted(quota.devices.items()):
        hard[devices_key(device_class)] = str(limit)
    if quota.legacy_gpus is not None:
        hard[LEGACY_GPU_KEY] = str(quota.legacy_gpus)
    return hard


def _charge(count: int | None, mode: str | None) -> int:
    return ALL_MODE_CHARGE if mode == "All" else (count or 1)


def template_charge(template: ClaimTemplateConfig) -> dict[str, int]:
    """Devices one claim from this template is charged per device class, as the quota evaluator does:
    Σ exactly.count, All = 32, firstAvailable = the maximum per class over its subrequests."""
    if template.first_available:
        charge: dict[str, int] = {}
        for sub in template.first_available:
            charge[sub.device_class] = max(charge.get(sub.device_class, 0), _charge(sub.count, sub.allocation_mode))
        return charge
    assert template.device_class is not None
    return {template.device_class: _charge(template.count, template.allocation_mode)}


def claims_allowed_by_quota(quota: QuotaConfig | None, template: ClaimTemplateConfig) -> int | None:
    """How many claims of this template the namespace quota admits at once (None: no limit)."""
    if quota is None:
        return None
    limits: list[int] = []
    if quota.claims is not None:
        limits.append(quota.claims)
    for device_class, devices in template_charge(template).items():
        if device_class in quota.devices:
            limits.append(quota.devices[device_class] // devices if devices else quota.devices[device_class])
    return min(limits) if limits else None
