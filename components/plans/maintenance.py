"""DeviceTaintRules of the stack's `maintenance` block (resource.k8s.io/v1alpha3, alpha): keep new claims off
degraded devices. Pure: no Pulumi imports. Config rules allow them only on kind, where the stack turns the gates on
(components/plans/kind.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import MaintenanceConfig

TAINT_RULE_API = "resource.k8s.io/v1alpha3"


@dataclass(frozen=True)
class DeviceTaintRulePlan:
    name: str
    driver: str
    pool: str  # the ResourceSlice pool (the node name for node-local drivers)
    device: str
    key: str
    value: str | None
    effect: str  # NoSchedule | NoExecute | None

    def manifest(self) -> dict[str, Any]:
        taint = {"key": self.key, "effect": self.effect, **({"value": self.value} if self.value is not None else {})}
        return {
            "apiVersion": TAINT_RULE_API,
            "kind": "DeviceTaintRule",
            "metadata": {"name": self.name},
            "spec": {
                "deviceSelector": {"driver": self.driver, "pool": self.pool, "device": self.device},
                "taint": taint,
            },
        }


def plan_device_taints(maintenance: MaintenanceConfig) -> tuple[DeviceTaintRulePlan, ...]:
    return tuple(
        DeviceTaintRulePlan(t.name, t.driver, t.pool, t.device, t.key, t.value, t.effect)
        for t in sorted(maintenance.device_taints, key=lambda t: t.name)
    )
