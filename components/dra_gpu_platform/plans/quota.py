"""The ResourceQuotas of a tenant namespace. Pure: no Pulumi imports.

Quotas close: every namespace gets a `hard` entry for every DeviceClass of the cluster (the stack's and the driver
chart's) at 0 unless `quota.devices` grants it, so a class the stack forgot is refused, not unlimited. Keys and
charges are DRA facts (dra_gpu_platform/dra/quota.py):
- `<class>.deviceclass.resource.k8s.io/devices` on every minor; with DRAExtendedResource on (1.36 by default) also
  `requests.deviceclass.resource.kubernetes.io/<class>` at the same value (every claim of the class is charged it);
- `requests.nvidia.com/gpu`: device-plugin GPUs (`quota.legacyGpus`), and with DRAExtendedResource also every claim
  of the class whose `extendedResourceName` is nvidia.com/gpu, so the class's grant is added to it;
- `count/resourceclaims.resource.k8s.io`: `quota.claims`, by default as many claims as the grants can back (each
  claim holds a device), which also bounds claims of a DeviceClass created later outside the stack.
The extended-resource bridge: a legacy or dual namespace's `nvidia.com/gpu` pods on DRA nodes get a claim of the
bridge class from the scheduler, charged to that class and to the claim count: both grow by `legacyGpus` there.
A second quota holds pods of the `system-*` priority classes at 0 (a tenant could otherwise preempt the GPU
software's pods and other tenants). docs/references.md#dra-quota-charge, docs/references.md#quota-priority-scope.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dra_gpu_platform.config.models import NamespaceConfig, StackConfig
from dra_gpu_platform.dra.gates import FeatureGates
from dra_gpu_platform.dra.quota import (
    CLAIMS_KEY,
    IMPLICIT_KEYS_FROM_MINOR,
    LEGACY_GPU_KEY,
    devices_key,
    extended_key,
    implicit_key,
)
from dra_gpu_platform.facts import driver_charts

PRIORITY_QUOTA_NAME = "gpu-system-priority"
PRIORITY_SCOPE = "PriorityClass"
# Pod priority classes every cluster has; tenants must not use them (kube-scheduler's SystemPriorityClasses).
SYSTEM_PRIORITY_CLASSES = ("system-cluster-critical", "system-node-critical")
BRIDGED_MODES = ("legacy", "dual")  # namespaces whose pods may request nvidia.com/gpu


@dataclass(frozen=True)
class QuotaContext:
    """What a namespace's quota depends on besides its own settings."""

    classes: tuple[str, ...]  # every DeviceClass of the cluster, sorted
    implicit_keys: bool  # requests.deviceclass.resource.kubernetes.io/<class> is counted (DRAExtendedResource on)
    # class -> its extendedResourceName, for classes that have one while DRAExtendedResource is on
    extended: dict[str, str] = field(default_factory=dict)
    bridge_class: str | None = None  # serves nvidia.com/gpu pods (the extended-resource bridge is on)


@dataclass(frozen=True)
class PriorityQuotaPlan:
    name: str
    scope: str  # scopeSelector.matchExpressions[].scopeName
    operator: str  # In: an absent priorityClassName never matches
    values: tuple[str, ...]
    hard: dict[str, str]

    def spec(self) -> dict[str, object]:
        return {
            "hard": dict(self.hard),
            "scopeSelector": {
                "matchExpressions": [{"scopeName": self.scope, "operator": self.operator, "values": list(self.values)}]
            },
        }


PRIORITY_QUOTA = PriorityQuotaPlan(PRIORITY_QUOTA_NAME, PRIORITY_SCOPE, "In", SYSTEM_PRIORITY_CLASSES, {"pods": "0"})


def quota_hard(namespace: NamespaceConfig, context: QuotaContext) -> dict[str, str]:
    """The closed `hard` map of one tenant namespace (sorted keys)."""
    quota = namespace.quota
    granted = dict(quota.devices) if quota is not None else {}
    legacy = (quota.legacy_gpus if quota is not None else None) or 0
    bridged = legacy if context.bridge_class is not None and namespace.migration in BRIDGED_MODES else 0
    devices = {cls: granted.get(cls, 0) for cls in context.classes}
    if bridged and context.bridge_class in devices:
        devices[context.bridge_class] += bridged
    hard: dict[str, str] = {}
    for cls, amount in devices.items():
        hard[devices_key(cls)] = str(amount)
        if context.implicit_keys:
            hard[implicit_key(cls)] = str(amount)
    extended: dict[str, int] = {LEGACY_GPU_KEY: legacy}
    for cls, resource in context.extended.items():
        key = extended_key(resource)
        extended[key] = extended.get(key, 0) + granted.get(cls, 0)
    hard.update({key: str(amount) for key, amount in extended.items()})
    claims = quota.claims if quota is not None and quota.claims is not None else sum(granted.values())
    hard[CLAIMS_KEY] = str(claims + bridged)
    return dict(sorted(hard.items()))


def quota_context(config: StackConfig, feature_gates: Mapping[str, bool]) -> QuotaContext:
    """The cluster's DeviceClasses and what its Kubernetes minor and gates count (dra_gpu_platform/dra/gates.py)."""
    classes = {dc.name for dc in config.device_classes} | set(config.driver_device_classes())
    gates = FeatureGates(config.cluster.minor, dict(feature_gates))
    counted = gates.extended_resource
    extended: dict[str, str] = {}
    gpu_class = driver_charts.NVIDIA_GPU_CLASS
    if counted and config.driver_class_has_extended_resource() and gpu_class in classes:
        extended[gpu_class] = driver_charts.GPU_CLASS_EXTENDED_RESOURCE
    bridge = None
    if counted and config.bridge_serves_legacy_grants:
        bridge = next((c for c, r in extended.items() if r == driver_charts.GPU_CLASS_EXTENDED_RESOURCE), None)
    return QuotaContext(
        classes=tuple(sorted(classes)),
        implicit_keys=counted and config.cluster.minor >= IMPLICIT_KEYS_FROM_MINOR,
        extended=extended,
        bridge_class=bridge,
    )
