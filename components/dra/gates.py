"""Kubernetes feature gates that change DRA scheduling, per Kubernetes minor, and `--feature-gates` parsing.
Pure: no Pulumi imports, no I/O.

Defaults and stages: kubernetes `pkg/features/kube_features.go` `defaultVersionedKubernetesFeatureGates` (1.35
table; the 1.36 rows from the later table, which keeps history). Dependencies: the same file's
`defaultKubernetesFeatureGateDependencies` (1.35). Flag syntax and errors: kubernetes/component-base
`featuregate/feature_gate.go` `(*featureGate).Set` and `unsafeSetFromMap` (v0.35.6); 1.34's component-base has no
dependency check (v0.34.10).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
ADMIN_ACCESS = "DRAAdminAccess"
PRIORITIZED_LIST = "DRAPrioritizedList"
DEVICE_STATUS = "DRAResourceClaimDeviceStatus"
FILTER_TIMEOUT = "DRASchedulerFilterTimeout"
DEVICE_TAINTS = "DRADeviceTaints"
DEVICE_TAINT_RULES = "DRADeviceTaintRules"
PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
BINDING_CONDITIONS = "DRADeviceBindingConditions"
EXTENDED_RESOURCE = "DRAExtendedResource"
LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes"
NODE_ALLOCATABLE_RESOURCES = "DRANodeAllocatableResources"
WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
ALL_ALPHA = "AllAlpha"
ALL_BETA = "AllBeta"


@dataclass(frozen=True)
class Stage:
    since: int  # Kubernetes minor (1.<since>)
    default: bool
    prerelease: str  # Alpha | Beta | GA
    locked: bool = False


# gate -> stages in version order (kube_features.go VersionedSpecs).
SPECS: dict[str, tuple[Stage, ...]] = {
    DYNAMIC_RESOURCE_ALLOCATION: (
        Stage(26, False, "Alpha"),
        Stage(32, False, "Beta"),
        Stage(34, True, "GA"),
        Stage(35, True, "GA", locked=True),
    ),
    ADMIN_ACCESS: (Stage(32, False, "Alpha"), Stage(34, True, "Beta"), Stage(36, True, "GA", locked=True)),
    PRIORITIZED_LIST: (Stage(33, False, "Alpha"), Stage(34, True, "Beta"), Stage(36, True, "GA")),
    DEVICE_STATUS: (Stage(32, False, "Alpha"), Stage(33, True, "Beta")),
    FILTER_TIMEOUT: (Stage(34, True, "Beta"),),
    DEVICE_TAINTS: (Stage(33, False, "Alpha"), Stage(36, True, "Beta")),
    DEVICE_TAINT_RULES: (Stage(35, False, "Alpha"), Stage(36, False, "Beta")),
    PARTITIONABLE_DEVICES: (Stage(33, False, "Alpha"), Stage(36, True, "Beta")),
    CONSUMABLE_CAPACITY: (Stage(34, False, "Alpha"), Stage(36, True, "Beta")),
    BINDING_CONDITIONS: (Stage(34, False, "Alpha"), Stage(36, True, "Beta")),
    EXTENDED_RESOURCE: (Stage(34, False, "Alpha"), Stage(36, True, "Beta")),
    LIST_TYPE_ATTRIBUTES: (Stage(36, False, "Alpha"),),
    NODE_ALLOCATABLE_RESOURCES: (Stage(36, False, "Alpha"),),
    WORKLOAD_RESOURCE_CLAIMS: (Stage(36, False, "Alpha"),),
}

# defaultKubernetesFeatureGateDependencies (1.35): a gate may only be on when these are on.
DEPENDENCIES: dict[str, tuple[str, ...]] = {
    ADMIN_ACCESS: (DYNAMIC_RESOURCE_ALLOCATION,),
    CONSUMABLE_CAPACITY: (DYNAMIC_RESOURCE_ALLOCATION,),
    BINDING_CONDITIONS: (DYNAMIC_RESOURCE_ALLOCATION, DEVICE_STATUS),
    DEVICE_TAINT_RULES: (DEVICE_TAINTS,),
    DEVICE_TAINTS: (DYNAMIC_RESOURCE_ALLOCATION,),
    EXTENDED_RESOURCE: (DYNAMIC_RESOURCE_ALLOCATION,),
    PARTITIONABLE_DEVICES: (DYNAMIC_RESOURCE_ALLOCATION,),
    PRIORITIZED_LIST: (DYNAMIC_RESOURCE_ALLOCATION,),
    FILTER_TIMEOUT: (DYNAMIC_RESOURCE_ALLOCATION,),
}
_DEPENDENCY_CHECK_SINCE = 35  # component-base v0.35 added AddDependencies

# strconv.ParseBool
_TRUE = ("1", "t", "T", "TRUE", "true", "True")
_FALSE = ("0", "f", "F", "FALSE", "false", "False")

# Gates the allocator in this package follows (1.35 semantics); newer ones are accepted and reported as not modelled.
MODELLED = frozenset(SPECS) - {LIST_TYPE_ATTRIBUTES, NODE_ALLOCATABLE_RESOURCES, WORKLOAD_RESOURCE_CLAIMS}


class GateError(ValueError):
    """`--feature-gates` is not what the Kubernetes components of that minor accept."""

    def __init__(self, problems: list[str]):
        self.problems = problems
        super().__init__("; ".join(problems))


def stage_at(gate: str, minor: int) -> Stage | None:
    """The stage in effect at 1.<minor> (featureSpecAtEmulationAndMinCompatVersion), None before it existed."""
    found = None
    for stage in SPECS[gate]:
        if stage.since <= minor:
            found = stage
    return found


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

    def allocator_variant(self) -> str:
        """structured/allocator.go NewAllocator: the first of stable, incubating, experimental whose supported
        features cover the enabled ones."""
        if self.consumable_capacity or self.binding_conditions:
            return "experimental"
        if self.admin_access or self.prioritized_list or self.partitionable_devices or self.device_taints:
            return "incubating"
        return "stable"


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
