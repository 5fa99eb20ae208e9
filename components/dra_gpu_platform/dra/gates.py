"""Kubernetes feature gates that change DRA scheduling, per Kubernetes minor, and `--feature-gates` parsing.
Pure: no Pulumi imports, no I/O.

The gate table (stage, default, lock per minor; dependencies) is a fact of dra_gpu_platform/facts/kubernetes.py
(docs/references.md#kubernetes-dra-gates-per-minor). Flag syntax and errors: kubernetes/component-base
`featuregate/feature_gate.go` `(*featureGate).Set` and `unsafeSetFromMap` (v0.35.6); 1.34's component-base has
no dependency check (v0.34.10). Which allocator a scheduler picks: dynamic-resource-allocation
`structured/allocator.go` `NewAllocator` at the tag of each minor (docs/references.md#allocator-variants).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from dra_gpu_platform.facts import kubernetes as k8s

DYNAMIC_RESOURCE_ALLOCATION = k8s.DYNAMIC_RESOURCE_ALLOCATION
ADMIN_ACCESS = k8s.DRA_ADMIN_ACCESS
PRIORITIZED_LIST = k8s.DRA_PRIORITIZED_LIST
DEVICE_STATUS = k8s.DRA_DEVICE_STATUS
FILTER_TIMEOUT = k8s.DRA_FILTER_TIMEOUT
DEVICE_TAINTS = k8s.DRA_DEVICE_TAINTS
DEVICE_TAINT_RULES = k8s.DRA_DEVICE_TAINT_RULES
PARTITIONABLE_DEVICES = k8s.DRA_PARTITIONABLE_DEVICES
CONSUMABLE_CAPACITY = k8s.DRA_CONSUMABLE_CAPACITY
BINDING_CONDITIONS = k8s.DRA_BINDING_CONDITIONS
EXTENDED_RESOURCE = k8s.DRA_EXTENDED_RESOURCE
LIST_TYPE_ATTRIBUTES = k8s.DRA_LIST_TYPE_ATTRIBUTES
NODE_ALLOCATABLE_RESOURCES = k8s.DRA_NODE_ALLOCATABLE_RESOURCES
WORKLOAD_RESOURCE_CLAIMS = k8s.DRA_WORKLOAD_RESOURCE_CLAIMS
ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"

Stage = k8s.GateStage
# gate -> stages in version order (the versioned gate table).
SPECS: Mapping[str, tuple[Stage, ...]] = {name: gate.stages for name, gate in k8s.GATES.items()}
DEPENDENCIES = k8s.DEPENDENCIES
_DEPENDENCY_CHECK_SINCE = k8s.DEPENDENCY_CHECK_SINCE

# strconv.ParseBool
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")

# Gates whose effect on scheduling and on the API server this package models; the others are accepted and
# reported as not modelled when on.
MODELLED = frozenset(
    {
        DYNAMIC_RESOURCE_ALLOCATION,
        ADMIN_ACCESS,
        PRIORITIZED_LIST,
        DEVICE_STATUS,
        FILTER_TIMEOUT,
        DEVICE_TAINTS,
        DEVICE_TAINT_RULES,
        PARTITIONABLE_DEVICES,
        CONSUMABLE_CAPACITY,
        BINDING_CONDITIONS,
        EXTENDED_RESOURCE,
        k8s.DRA_GRANULAR_STATUS_AUTHORIZATION,  # RBAC of drivers and schedulers only: nothing to model in fit
        k8s.RESOURCE_HEALTH_STATUS,  # kubelet pod status only
    }
)

# The allocator features each variant supports, per the minor's dynamic-resource-allocation
# (structured/internal/*/allocator_*.go SupportedFeatures): up to v0.35 `stable` supports none and `incubating`
# the four older ones; from v0.36 `stable` took over incubating's set and `incubating` experimental's.
_OLDER = frozenset({"AdminAccess", "PrioritizedList", "PartitionableDevices", "DeviceTaints"})
_NEWER = _OLDER | {"DeviceBindingAndStatus", "ConsumableCapacity"}
VARIANTS: Mapping[int, tuple[tuple[str, frozenset[str]], ...]] = {
    34: (("stable", frozenset()), ("incubating", _OLDER), ("experimental", _NEWER)),
    35: (("stable", frozenset()), ("incubating", _OLDER), ("experimental", _NEWER)),
    36: (("stable", _OLDER), ("incubating", _NEWER), ("experimental", _NEWER | {"ListTypeAttributes"})),
    37: (("stable", _OLDER), ("incubating", _NEWER), ("experimental", _NEWER | {"ListTypeAttributes"})),
}


class GateError(ValueError):
    """`--feature-gates` is not what the Kubernetes components of that minor accept."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


def stage_at(gate: str, minor: int) -> Stage | None:
    """The stage in effect at 1.<minor> (featureSpecAtEmulationAndMinCompatVersion), None before it existed."""
    return k8s.GATES[gate].stage(minor)


def _minor(kubernetes_version: str) -> int:
    parts = str(kubernetes_version).split(".")
    try:
        return int(parts[1])
    except (IndexError, ValueError):
        raise GateError([f"Kubernetes version {kubernetes_version!r} is not <major>.<minor>"]) from None


@dataclass(frozen=True)
class FeatureGates:
    """The DRA gates in effect for one Kubernetes minor: defaults plus what was set explicitly."""

    minor: int
    explicit: Mapping[str, bool] = field(default_factory=dict)

    @property
    def kubernetes(self) -> str:
        return f"1.{self.minor}"

    def enabled(self, gate: str) -> bool:
        if gate in self.explicit:
            return self.explicit[gate]
        stage = stage_at(gate, self.minor)
        return bool(stage and stage.default)

    def as_dict(self) -> dict[str, bool]:
        """Every known gate of this minor and its value."""
        return {gate: self.enabled(gate) for gate in sorted(SPECS) if stage_at(gate, self.minor) is not None}

    def changed(self) -> dict[str, bool]:
        """Gates whose value differs from the minor's default."""
        defaults = FeatureGates(self.minor)
        return {gate: value for gate, value in self.as_dict().items() if value != defaults.enabled(gate)}

    # -- what the scheduler derives (dynamicresources.go AllocatorFeatures) -------------------------
    @property
    def admin_access(self) -> bool:
        return self.enabled(ADMIN_ACCESS)

    @property
    def prioritized_list(self) -> bool:
        return self.enabled(PRIORITIZED_LIST)

    @property
    def device_taints(self) -> bool:
        return self.enabled(DEVICE_TAINTS)

    @property
    def device_taint_rules(self) -> bool:
        """Whether DeviceTaintRules reach the scheduler's slices: the tracker's EnableDeviceTaintRules is
        DRADeviceTaintRules from 1.35 on and DRADeviceTaints in 1.34 (resourceslice/tracker Options)."""
        return self.enabled(DEVICE_TAINT_RULES) if self.minor >= 35 else self.enabled(DEVICE_TAINTS)

    @property
    def partitionable_devices(self) -> bool:
        return self.enabled(PARTITIONABLE_DEVICES)

    @property
    def consumable_capacity(self) -> bool:
        return self.enabled(CONSUMABLE_CAPACITY)

    @property
    def binding_conditions(self) -> bool:
        """Features.DeviceBindingAndStatus: both gates."""
        return self.enabled(BINDING_CONDITIONS) and self.enabled(DEVICE_STATUS)

    @property
    def extended_resource(self) -> bool:
        return self.enabled(EXTENDED_RESOURCE)

    def allocator_features(self) -> frozenset[str]:
        """dynamicresources.go AllocatorFeatures (structured.Features), by field name. The stored plugin maps
        these six; ListTypeAttributes (alpha) reaches the CEL cache, not this struct
        (docs/references.md#allocator-variants)."""
        flags = {
            "AdminAccess": self.admin_access,
            "PrioritizedList": self.prioritized_list,
            "PartitionableDevices": self.partitionable_devices,
            "DeviceTaints": self.device_taints,
            "DeviceBindingAndStatus": self.binding_conditions,
            "ConsumableCapacity": self.consumable_capacity,
        }
        return frozenset(name for name, on in flags.items() if on)

    def allocator_variant(self) -> str:
        """structured/allocator.go NewAllocator: the first of stable, incubating, experimental whose supported
        features cover the enabled ones, at this minor's dynamic-resource-allocation."""
        enabled = self.allocator_features()
        variants = VARIANTS[min(max(self.minor, 34), 37)]
        for name, supported in variants:
            if enabled <= supported:
                return name
        return variants[-1][0]


def defaults(kubernetes_version: str) -> FeatureGates:
    return FeatureGates(_minor(kubernetes_version))


def parse(value: str | None, kubernetes_version: str, base: Mapping[str, bool] | None = None) -> FeatureGates:
    """`--feature-gates key=value,...` as the components of that minor parse it; `base` holds gates the stack
    sets itself (applied first, the flag overrides). Raises GateError listing every problem."""
    minor = _minor(kubernetes_version)
    requested: dict[str, bool] = {}
    problems: list[str] = []
    for part in (value or "").split(","):
        if not part:
            continue
        key, sep, raw = part.partition("=")
        key = key.strip()
        if not sep:
            problems.append(f"missing bool value for {key}")
            continue
        raw = raw.strip()
        if raw in _TRUE:
            requested[key] = True
        elif raw in _FALSE:
            requested[key] = False
        else:
            problems.append(f"invalid value of {key}={raw}, err: strconv.ParseBool: parsing {raw!r}: invalid syntax")
    if problems:
        raise GateError(problems)
    explicit: dict[str, bool] = dict(base or {})
    for bulk, stage_name in ((ALL_ALPHA, "Alpha"), (ALL_BETA, "Beta")):
        if bulk in requested:
            for gate in SPECS:
                stage = stage_at(gate, minor)
                if stage is not None and stage.prerelease == stage_name and gate not in requested:
                    explicit[gate] = requested[bulk]
    for key, enabled in requested.items():
        if key in (ALL_ALPHA, ALL_BETA):
            continue
        if key not in SPECS:
            # Gates that do not touch DRA are accepted by the cluster but change nothing here.
            if key.startswith("DRA") or key == DYNAMIC_RESOURCE_ALLOCATION:
                problems.append(f"unrecognized feature gate: {key}")
            continue
        stage = stage_at(key, minor)
        if stage is None:
            problems.append(f"unrecognized feature gate: {key} (it does not exist in Kubernetes 1.{minor})")
            continue
        if stage.locked and stage.default != enabled:
            problems.append(
                f"cannot set feature gate {key} to {str(enabled).lower()}, feature is locked to "
                f"{str(stage.default).lower()}"
            )
            continue
        explicit[key] = enabled
    gates = FeatureGates(minor, explicit)
    if not problems and minor >= _DEPENDENCY_CHECK_SINCE:
        for gate, needs in sorted(DEPENDENCIES.items()):
            if stage_at(gate, minor) is None or not gates.enabled(gate):
                continue
            off = [need for need in needs if not gates.enabled(need)]
            if off:
                problems.append(f"{gate} is enabled, but depends on features that are disabled: [{' '.join(off)}]")
    if problems:
        raise GateError(problems)
    return gates
