"""Kubernetes minors as facts: release and end-of-life dates, the DRA feature gates of each minor, the
resource.k8s.io versions served by default, and what EKS and AKS offer and until when. Pure data and functions.

Every fact here has an entry in docs/references.md:
- dates: docs/references.md#kubernetes-minor-dates;
- gates: docs/references.md#kubernetes-dra-gates-per-minor (the versioned gate table of kubernetes
  `staging/src/k8s.io/kube-scheduler/pkg/features/kube_features.go`, which keeps every minor's row) and
  docs/references.md#kubernetes-gates-shared-by-components;
- served APIs: docs/references.md#kubernetes-resource-api-versions;
- EKS: docs/references.md#eks-kubernetes-versions; AKS: docs/references.md#aks-kubernetes-versions.

dra_gpu_platform/dra/gates.py reads its gate table from here; dra_gpu_platform/config/rules/kubernetes_version.py reads the
platform offers; gpuplan/checks/kube_validate.py the minors a stack can move to; gpuplan/diff/safety.py the
control-plane steps one `pulumi up` cannot take (version_step).
"""

from __future__ import annotations

import calendar
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from typing import NamedTuple

KUBE_APISERVER = "kube-apiserver"
KUBE_SCHEDULER = "kube-scheduler"
KUBELET = "kubelet"
COMPONENTS = (KUBE_APISERVER, KUBE_SCHEDULER, KUBELET)

# Gate names (the keys of the versioned gate table).
DYNAMIC_RESOURCE_ALLOCATION = "DynamicResourceAllocation"
DRA_ADMIN_ACCESS = "DRAAdminAccess"
DRA_PRIORITIZED_LIST = "DRAPrioritizedList"
DRA_DEVICE_STATUS = "DRAResourceClaimDeviceStatus"
DRA_FILTER_TIMEOUT = "DRASchedulerFilterTimeout"
DRA_DEVICE_TAINTS = "DRADeviceTaints"
DRA_DEVICE_TAINT_RULES = "DRADeviceTaintRules"
DRA_PARTITIONABLE_DEVICES = "DRAPartitionableDevices"
DRA_CONSUMABLE_CAPACITY = "DRAConsumableCapacity"
DRA_BINDING_CONDITIONS = "DRADeviceBindingConditions"
DRA_EXTENDED_RESOURCE = "DRAExtendedResource"
DRA_LIST_TYPE_ATTRIBUTES = "DRAListTypeAttributes"
DRA_NODE_ALLOCATABLE_RESOURCES = "DRANodeAllocatableResources"
DRA_WORKLOAD_RESOURCE_CLAIMS = "DRAWorkloadResourceClaims"
DRA_GRANULAR_STATUS_AUTHORIZATION = "DRAResourceClaimGranularStatusAuthorization"
DRA_OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"
DRA_DERIVED_ATTRIBUTES = "DRADerivedAttributes"
DRA_DEVICE_COMPATIBILITY_GROUPS = "DRADeviceCompatibilityGroups"
DRA_FRACTIONAL_CAPACITY_RANGE = "DRAFractionalCapacityRange"
RESOURCE_HEALTH_STATUS = "ResourceHealthStatus"
# admissionregistration.k8s.io/v1 MutatingAdmissionPolicy is served by default from 1.36 (GA; the
# MutatingAdmissionPolicy gate beta and off in 1.34/1.35): docs/references.md#mutating-admission-policy-v1.
MUTATING_ADMISSION_POLICY_V1_SINCE = 36


@dataclass(frozen=True)
class GateStage:
    """One row of a gate's VersionedSpecs: from Kubernetes 1.<since> on."""

    since: int
    default: bool
    prerelease: str  # Alpha | Beta | GA
    locked: bool = False  # LockToDefault


@dataclass(frozen=True)
class Gate:
    name: str
    stages: tuple[GateStage, ...]
    # The components whose behaviour the gate changes in this package's models (the API server's field
    # dropping and validation, the scheduler's allocator features, the kubelet). Every component registers
    # every gate, so each accepts it on its --feature-gates with the same stage.
    acts_in: frozenset[str]

    def stage(self, minor: int) -> GateStage | None:
        """The row in effect at 1.<minor> (featureSpecAtEmulationAndMinCompatVersion), None before the gate."""
        found = None
        for row in self.stages:
            if row.since <= minor:
                found = row
        return found


def _gate(name: str, acts_in: tuple[str, ...], *stages: tuple[int, bool, str] | tuple[int, bool, str, bool]) -> Gate:
    return Gate(name, tuple(GateStage(*row) for row in stages), frozenset(acts_in))


_ALL = COMPONENTS
_API_SCHED = (KUBE_APISERVER, KUBE_SCHEDULER)

# docs/references.md#kubernetes-dra-gates-per-minor. (since, default, prerelease[, locked])
GATES: Mapping[str, Gate] = {
    g.name: g
    for g in (
        _gate(
            DYNAMIC_RESOURCE_ALLOCATION,
            _ALL,
            (26, False, "Alpha"),
            (32, False, "Beta"),
            (34, True, "GA"),
            (35, True, "GA", True),
        ),
        _gate(DRA_ADMIN_ACCESS, _ALL, (32, False, "Alpha"), (34, True, "Beta"), (36, True, "GA", True)),
        _gate(
            DRA_PRIORITIZED_LIST,
            _API_SCHED,
            (33, False, "Alpha"),
            (34, True, "Beta"),
            (36, True, "GA"),
            (37, True, "GA", True),
        ),
        _gate(DRA_DEVICE_STATUS, _API_SCHED, (32, False, "Alpha"), (33, True, "Beta"), (37, True, "GA", True)),
        _gate(DRA_FILTER_TIMEOUT, (KUBE_SCHEDULER,), (34, True, "Beta")),
        _gate(DRA_DEVICE_TAINTS, _API_SCHED, (33, False, "Alpha"), (36, True, "Beta"), (37, True, "GA")),
        _gate(DRA_DEVICE_TAINT_RULES, _API_SCHED, (35, False, "Alpha"), (36, False, "Beta"), (37, True, "GA")),
        _gate(DRA_PARTITIONABLE_DEVICES, _API_SCHED, (33, False, "Alpha"), (36, True, "Beta")),
        _gate(DRA_CONSUMABLE_CAPACITY, _API_SCHED, (34, False, "Alpha"), (36, True, "Beta")),
        _gate(DRA_BINDING_CONDITIONS, _API_SCHED, (34, False, "Alpha"), (36, True, "Beta")),
        _gate(DRA_EXTENDED_RESOURCE, _ALL, (34, False, "Alpha"), (36, True, "Beta"), (37, True, "GA", True)),
        _gate(DRA_LIST_TYPE_ATTRIBUTES, _API_SCHED, (36, False, "Alpha")),
        _gate(DRA_NODE_ALLOCATABLE_RESOURCES, _ALL, (36, False, "Alpha")),
        _gate(DRA_WORKLOAD_RESOURCE_CLAIMS, _API_SCHED, (36, False, "Alpha"), (37, False, "Beta")),
        _gate(DRA_GRANULAR_STATUS_AUTHORIZATION, (KUBE_APISERVER,), (36, True, "Beta")),
        _gate(DRA_OPTIONAL_NODE_OPERATIONS, _ALL, (37, False, "Alpha")),
        _gate(DRA_DERIVED_ATTRIBUTES, _API_SCHED, (37, False, "Alpha")),
        _gate(DRA_DEVICE_COMPATIBILITY_GROUPS, _API_SCHED, (37, False, "Alpha")),
        # Beta and off at 1.37 with the default compatibility version (1.36); on only with
        # --min-compatibility-version=1.37.
        _gate(DRA_FRACTIONAL_CAPACITY_RANGE, _API_SCHED, (37, False, "Beta")),
        _gate(RESOURCE_HEALTH_STATUS, (KUBE_APISERVER, KUBELET), (31, False, "Alpha"), (36, True, "Beta")),
    )
}

# defaultKubernetesFeatureGateDependencies (from 1.35): a gate may only be on when these are on.
DEPENDENCIES: Mapping[str, tuple[str, ...]] = {
    DRA_ADMIN_ACCESS: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_CONSUMABLE_CAPACITY: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_BINDING_CONDITIONS: (DYNAMIC_RESOURCE_ALLOCATION, DRA_DEVICE_STATUS),
    DRA_DEVICE_TAINT_RULES: (DRA_DEVICE_TAINTS,),
    DRA_DEVICE_TAINTS: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_EXTENDED_RESOURCE: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_PARTITIONABLE_DEVICES: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_PRIORITIZED_LIST: (DYNAMIC_RESOURCE_ALLOCATION,),
    DRA_FILTER_TIMEOUT: (DYNAMIC_RESOURCE_ALLOCATION,),
}
DEPENDENCY_CHECK_SINCE = 35  # component-base v0.35 added AddDependencies


def gate_stage(gate: str, minor: int, component: str = KUBE_SCHEDULER) -> GateStage | None:
    """Stage, default and lock of a gate in one component of Kubernetes 1.<minor>; None where the gate does not
    exist. All three components register the same table (docs/references.md#kubernetes-gates-shared-by-components),
    so the component only has to be one of them."""
    if component not in COMPONENTS:
        raise ValueError(f"unknown Kubernetes component {component!r}; one of {', '.join(COMPONENTS)}")
    return GATES[gate].stage(minor)


# ---------------------------------------------------------------------------------------------------
# minors


@dataclass(frozen=True)
class Minor:
    version: str  # "1.36"
    released: date
    maintenance_from: date
    end_of_life: date
    # resource.k8s.io versions served without --runtime-config (DeviceClass, ResourceClaim(Template), ResourceSlice)
    resource_apis: tuple[str, ...]
    # where DeviceTaintRule is served at all, and whether by default
    device_taint_rule_apis: tuple[str, ...]
    device_taint_rule_default: bool
    # what the DRA allocator runs: kubernetes/dynamic-resource-allocation at this tag (the oracle's tags)
    allocator_module: str

    @property
    def minor(self) -> int:
        return int(self.version.split(".")[1])


MINORS: Mapping[str, Minor] = {
    m.version: m
    for m in (
        Minor(
            "1.34",
            date(2025, 8, 27),
            date(2026, 8, 27),
            date(2026, 10, 27),
            ("resource.k8s.io/v1",),
            ("resource.k8s.io/v1alpha3",),
            False,
            "v0.34.9",
        ),
        Minor(
            "1.35",
            date(2025, 12, 17),
            date(2026, 12, 28),
            date(2027, 2, 28),
            ("resource.k8s.io/v1",),
            ("resource.k8s.io/v1alpha3",),
            False,
            "v0.35.6",
        ),
        Minor(
            "1.36",
            date(2026, 4, 22),
            date(2027, 4, 28),
            date(2027, 6, 28),
            ("resource.k8s.io/v1",),
            ("resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"),
            False,
            "v0.36.2",
        ),
        Minor(
            "1.37",
            date(2026, 8, 26),
            date(2027, 8, 28),
            date(2027, 10, 28),
            ("resource.k8s.io/v1",),
            ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1alpha3"),
            True,
            "v0.37.0-alpha.2",
        ),
    )
}


def minor_number(version: str) -> int:
    return int(str(version).split(".")[1])


# The newest patch release of each minor seen on 2026-12-01 (docs/references.md#kubernetes-newest-patches): k8s.io/api
# v0.<minor>.<patch> is tagged with each kubernetes v1.<minor>.<patch>. 1.34 left upstream support on 2026-10-27.
NEWEST_PATCH: Mapping[str, str] = {"1.34": "1.34.11", "1.35": "1.35.9", "1.36": "1.36.6", "1.37": "1.37.2"}


@dataclass(frozen=True)
class Announced:
    """A minor the Kubernetes release team has scheduled but not released: never served or offered here until it is
    released and its facts (gates, APIs, allocator) are read into MINORS."""

    version: str
    due: date
    source: str
    # what changes for DRA, each with its pull request (the draft release notes)
    dra_changes: tuple[str, ...]
    # resource.k8s.io versions the minor stops serving
    removes_apis: tuple[str, ...] = ()
    # feature gates the minor removes (a component given one fails to start: "unrecognized feature gate")
    removes_gates: tuple[str, ...] = ()

    def status(self, on: date) -> str:
        if on < self.due:
            return f"Kubernetes {self.version} is not released yet (due {self.due.isoformat()})"
        return (
            f"Kubernetes {self.version} was due on {self.due.isoformat()}; this package has not read its facts "
            "(gates, APIs, allocator) yet"
        )


# docs/references.md#kubernetes-1-38
ANNOUNCED: Mapping[str, Announced] = {
    "1.38": Announced(
        "1.38",
        date(2026, 12, 16),
        "kubernetes/sig-release releases/release-1.38/README.md; release-notes-draft.md (alpha.1, alpha.2)",
        (
            "resource.k8s.io/v1beta1 is no longer served (kubernetes/api resource/v1beta1 "
            "zz_generated.prerelease-lifecycle.go:38-39, APILifecycleRemoved 1.38)",
            "the DynamicResourceAllocation feature gate is removed (kubernetes/kubernetes#141946): a kind or kubeadm "
            "config that still sets it stops the components from starting",
            "DRADeviceTaints and DRADeviceTaintRules are locked to GA (kubernetes/kubernetes#140256)",
            "a DeviceTaintRule without deviceSelector matches no device (it matched every device before); "
            "deviceSelector: {} matches all (kubernetes/kubernetes#141648, #141831)",
            "NoExecute device taints also evict pods using DRA-backed extended resources (kubernetes/kubernetes#142289)",
        ),
        removes_apis=("resource.k8s.io/v1beta1",),
        removes_gates=(DYNAMIC_RESOURCE_ALLOCATION,),
    )
}


# ---------------------------------------------------------------------------------------------------
# what the managed services offer


@dataclass(frozen=True)
class Offer:
    """One minor on one managed service. Dates the vendor gives as a month only are kept as the month's first
    (from) or last day (until)."""

    platform: str  # eks | aks
    version: str
    available_from: date | None  # None: not offered (announced plans only, see `planned`)
    standard_until: date
    extended_until: date | None = None  # EKS extended support; AKS long-term support (LTS)
    extended_kind: str = ""  # "extended support" | "long-term support (LTS)"
    # Extended support that a cluster this package creates can use (EKS: any cluster; AKS LTS: Premium tier only,
    # and this package creates Standard-tier AKS clusters).
    extended_usable: bool = True
    planned: str = ""  # what the vendor announced but no source confirms as shipped
    by_month: bool = False  # the vendor gives months, not days

    def when(self, day: date) -> str:
        return day.strftime("%b %Y") if self.by_month else day.isoformat()

    def at(self, day: date) -> str:
        """ "on <day>" or "in <month>"."""
        return f"in {self.when(day)}" if self.by_month else f"on {self.when(day)}"


def _month_end(year: int, month: int) -> date:
    return date(year, month, calendar.monthrange(year, month)[1])


_EKS_EXTENDED = "extended support"
_AKS_LTS = "long-term support (LTS)"

OFFERS: Mapping[tuple[str, str], Offer] = {
    (o.platform, o.version): o
    for o in (
        # docs/references.md#eks-kubernetes-versions
        Offer("eks", "1.34", date(2025, 10, 6), date(2026, 12, 2), date(2027, 12, 2), _EKS_EXTENDED),
        Offer("eks", "1.35", date(2026, 1, 28), date(2027, 3, 27), date(2028, 3, 27), _EKS_EXTENDED),
        Offer("eks", "1.36", date(2026, 6, 2), date(2027, 8, 2), date(2028, 8, 2), _EKS_EXTENDED),
        Offer(
            "eks",
            "1.37",
            None,
            date(2027, 10, 28),
            planned="requested in aws/containers-roadmap#2864 (open in the stored copy); no EKS announcement found",
        ),
        # docs/references.md#aks-kubernetes-versions
        Offer("aks", "1.34", date(2025, 11, 1), _month_end(2026, 11), _month_end(2027, 11), _AKS_LTS, False, "", True),
        Offer("aks", "1.35", date(2026, 3, 1), _month_end(2027, 3), _month_end(2028, 3), _AKS_LTS, False, "", True),
        Offer("aks", "1.36", date(2026, 6, 1), _month_end(2027, 6), _month_end(2028, 6), _AKS_LTS, False, "", True),
        Offer(
            "aks",
            "1.37",
            None,
            _month_end(2027, 10),
            _month_end(2028, 10),
            _AKS_LTS,
            False,
            planned="the AKS release calendar (2026-08-21) plans preview Sep 2026 and GA Oct 2026; no release note "
            "confirms the GA",
            by_month=True,
        ),
    )
}

MANAGED_PLATFORMS = ("eks", "aks")


@dataclass(frozen=True)
class Availability:
    offered: bool
    support: str  # "standard support" | extended kind | "" when not offered
    until: date | None
    offer: Offer | None


def availability(platform: str, version: str, on: date) -> Availability:
    """Whether a new cluster of that minor can be created on the managed service on that day, and under which
    support. Platforms that are not managed services (kind, existing) have no offers: always offered."""
    if platform not in MANAGED_PLATFORMS:
        return Availability(version in MINORS, "", None, None)
    offer = OFFERS.get((platform, version))
    if offer is None or offer.available_from is None or on < offer.available_from:
        return Availability(False, "", None, offer)
    if on <= offer.standard_until:
        return Availability(True, "standard support", offer.standard_until, offer)
    if offer.extended_until is not None and on <= offer.extended_until and offer.extended_usable:
        return Availability(True, offer.extended_kind, offer.extended_until, offer)
    return Availability(False, "", None, offer)


def offered_minors(platform: str, on: date) -> list[str]:
    return [v for v in MINORS if availability(platform, v, on).offered]


def newest_offered(platform: str, on: date) -> str | None:
    found = offered_minors(platform, on)
    return found[-1] if found else None


# ---------------------------------------------------------------------------------------------------
# upgrade steps: a managed control plane moves one minor at a time


def minor_after(minor: int) -> int:
    """The one minor an EKS or AKS control plane can upgrade 1.<minor> to in one step (they upgrade one minor at a
    time: docs/references.md#eks-version-steps, docs/references.md#aks-version-steps)."""
    return minor + 1


def next_minor(platform: str, version: str, on: date) -> str | None:
    """The minor an upgrade goes to: one step up (minor_after), if the service offers it; on kind and existing
    clusters the next minor this package knows."""
    target = f"1.{minor_after(minor_number(version))}"
    if target not in MINORS:
        return None
    return target if availability(platform, target, on).offered else None


EKS_UPDATE = "https://docs.aws.amazon.com/eks/latest/userguide/update-cluster.html"
EKS_ROLLBACK = "https://docs.aws.amazon.com/eks/latest/userguide/rollback-cluster.html"
AKS_UPGRADE = "https://learn.microsoft.com/en-us/azure/aks/upgrade-cluster"


@dataclass(frozen=True)
class VersionSteps:
    """How a managed service moves a control plane between minors (docs/references.md#eks-version-steps,
    docs/references.md#aks-version-steps): one minor up at a time, and back one minor in place or not at all."""

    service: str  # how messages name it
    upgrade_guide: str
    rollback_guide: str | None  # one minor back, within 7 days of an in-place upgrade; None: no downgrade


# By service, as OFFERS is (dra_gpu_platform/facts/platforms.py ControlPlane.service names the key).
VERSION_STEPS: Mapping[str, VersionSteps] = {
    "eks": VersionSteps("EKS", EKS_UPDATE, EKS_ROLLBACK),
    "aks": VersionSteps("AKS", AKS_UPGRADE, None),
}


class VersionStep(NamedTuple):
    """A control-plane version change one `pulumi up` cannot make: why, how to get there, and whether it can be
    accepted on purpose (`gpuplan diff --allow-replace`)."""

    why: str
    how: str
    allowable: bool


def version_step(platform: str, old_minor: int, new_minor: int) -> VersionStep | None:
    """Why a managed control plane cannot go from 1.<old> to 1.<new> in one `pulumi up`; None when it can. EKS and
    AKS upgrade one minor at a time (minor_after); AKS has no downgrade; EKS rolls back exactly one minor, and only
    within 7 days of an in-place upgrade (VERSION_STEPS)."""
    steps = VERSION_STEPS.get(platform)
    if steps is None or new_minor in (old_minor, minor_after(old_minor)):
        return None
    change = f"Kubernetes 1.{old_minor} → 1.{new_minor}"
    if new_minor > old_minor:
        path = [old_minor]
        while path[-1] < new_minor:
            path.append(minor_after(path[-1]))
        return VersionStep(
            f"{change} skips {len(path) - 2} minor version(s): {steps.service} upgrades a control plane one minor at "
            f"a time ({steps.upgrade_guide}), so the update fails part way",
            f"upgrade in steps, one `pulumi up` per minor: {' → '.join(f'1.{m}' for m in path)}",
            False,
        )
    if steps.rollback_guide is not None and old_minor == minor_after(new_minor):
        return VersionStep(
            f"{change} is a downgrade: {steps.service} can only roll a control plane back one minor, within 7 days "
            f"of an in-place upgrade from 1.{new_minor} ({steps.rollback_guide}); gpuplan cannot see when the "
            "upgrade was",
            f"if the cluster was upgraded from 1.{new_minor} in place in the last 7 days, roll back with "
            f"{steps.service} (then --allow-replace the cluster to accept this diff); otherwise keep 1.{old_minor}",
            True,
        )
    rollback = (
        f" {steps.service} rolls a control plane back one minor at most"
        if steps.rollback_guide is not None
        else f" {steps.service} has no control-plane downgrade, its upgrades only go forward, one minor at a time"
    )
    return VersionStep(
        f"{change} is a downgrade:{rollback} ({steps.rollback_guide or steps.upgrade_guide})",
        f'keep kubernetesVersion "1.{old_minor}"; to run 1.{new_minor}, build a new cluster (another stack) and move '
        "the workloads",
        False,
    )


def lifecycle_notes(platform: str, version: str, on: date) -> list[str]:
    """What an operator should know about the minor's support on that day: past upstream end of life, or past a
    managed service's standard support (and what extended support or LTS remains). For kind and existing
    clusters both services are named, for EKS and AKS their own."""
    minor = MINORS.get(version)
    if minor is None:
        return []
    notes = []
    if on > minor.end_of_life:
        notes.append(
            f"Kubernetes {version} left upstream support on {minor.end_of_life.isoformat()} (released "
            f"{minor.released.isoformat()}; no more upstream patches)"
        )
    for name in MANAGED_PLATFORMS if platform not in MANAGED_PLATFORMS else (platform,):
        offer = OFFERS.get((name, version))
        if offer is None or offer.available_from is None or on <= offer.standard_until:
            continue
        service = name.upper()
        if offer.extended_until is not None and on <= offer.extended_until:
            where = "" if offer.extended_usable else " (Premium tier clusters only)"
            notes.append(
                f"{service} standard support for {version} ended {offer.at(offer.standard_until)}; "
                f"{offer.extended_kind}{where} until {offer.when(offer.extended_until)}"
            )
        else:
            notes.append(f"{service} support for {version} ended {offer.at(offer.standard_until)}")
    return notes


# When the offers and dates above were last checked against their sources.
CHECKED = date(2026, 12, 3)


def today() -> date:
    """The day the rules judge offers on (the real date; tests pass their own)."""
    return date.today()
