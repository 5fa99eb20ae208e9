"""DeviceTaintRules of the stack's `maintenance` block: keep new claims off degraded devices (NoSchedule), evict
the pods using them (NoExecute), or only mark them (None). Pure: no Pulumi imports.

The API version follows the stack's Kubernetes minor: resource.k8s.io/v1 on 1.37, where it is served by default;
v1beta2 on 1.36 and v1alpha3 on 1.34/1.35, which only kind stacks can turn on (dra_gpu_platform/config/rules/maintenance.py,
dra_gpu_platform/plans/kind.py). The selector has what upstream has: driver, pool and device, each optional (a rule
with driver and pool takes every device of one node, the NVIDIA driver's pool being the node name).
docs/references.md#kubernetes-resource-api-versions, docs/references.md#dra-api-device-taint-rule-selector.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import MaintenanceConfig
from dra_gpu_platform.facts import kubernetes


def taint_rule_api(kubernetes_version: str) -> str:
    """The newest resource.k8s.io version that serves DeviceTaintRule at that minor."""
    return kubernetes.MINORS[kubernetes_version].device_taint_rule_apis[0]


@dataclass(frozen=True)
class DeviceTaintRulePlan:
    name: str
    driver: str
    pool: str | None  # the ResourceSlice pool (the node name for node-local drivers); None: every pool
    device: str | None  # None: every device of the pool (or of the driver)
    key: str
    value: str | None
    effect: str  # NoSchedule | NoExecute | None
    api_version: str = "resource.k8s.io/v1alpha3"

    def selector(self) -> dict[str, str]:
        found = {"driver": self.driver, "pool": self.pool, "device": self.device}
        return {key: value for key, value in found.items() if value is not None}

    def manifest(self) -> dict[str, Any]:
        taint = {"key": self.key, "effect": self.effect, **({"value": self.value} if self.value is not None else {})}
        return {
            "apiVersion": self.api_version,
            "kind": "DeviceTaintRule",
            "metadata": {"name": self.name},
            "spec": {"deviceSelector": self.selector(), "taint": taint},
        }


def plan_device_taints(maintenance: MaintenanceConfig, kubernetes_version: str) -> tuple[DeviceTaintRulePlan, ...]:
    api = taint_rule_api(kubernetes_version)
    return tuple(
        DeviceTaintRulePlan(t.name, t.driver, t.pool, t.device, t.key, t.value, t.effect, api)
        for t in sorted(maintenance.device_taints, key=lambda t: t.name)
    )
