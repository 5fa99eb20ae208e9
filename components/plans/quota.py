"""The ResourceQuota `hard` map of a namespace's quota settings. Pure: no Pulumi imports.

Keys and charges are DRA facts (components/dra/quota.py); this module only maps the stack's `quota` block.
"""

from __future__ import annotations

from dra_gpu_platform.config.models import QuotaConfig
from dra_gpu_platform.dra.quota import CLAIMS_KEY, LEGACY_GPU_KEY, devices_key


def quota_hard(quota: QuotaConfig) -> dict[str, str]:
    hard: dict[str, str] = {}
    if quota.claims is not None:
        hard[CLAIMS_KEY] = str(quota.claims)
    for device_class, limit in sorted(quota.devices.items()):
        hard[devices_key(device_class)] = str(limit)
    if quota.legacy_gpus is not None:
        hard[LEGACY_GPU_KEY] = str(quota.legacy_gpus)
    return hard
