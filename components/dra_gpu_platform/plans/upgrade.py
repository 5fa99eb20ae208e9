"""The ordered plan that takes a stack from what it runs to a target Kubernetes minor and GPU software. Pure: no
Pulumi imports.

`plan_upgrade` walks the minors one at a time (facts/kubernetes.py minor_after: EKS and AKS move a control plane
one minor at a time) and, per minor, the control plane, then the node pools (how each pool rolls on its platform),
then the add-ons (dra_gpu_platform/plans/upgrade_steps.py, by the stack's platform profile). The GPU software follows: each GPU Operator major in turn (facts/gpu_software_support.py
operator_hops: "upgrades are only supported within a major release or to the next major release"), each hop at the
last minor of the walk its release supports, then the DRA driver. An operator that installs the driver reloads it on
every hop: claim-holding pods are drained first, or prepared claims would be stranded
(docs/gpuplan/upgrade.md#why-this-order). API migrations ride with the minor that moves them. Every change of the stack
file is a stage (one `pulumi up`); `gpuplan upgrade` runs `gpuplan diff`'s engine between consecutive stages for
the resources each step touches.

Blockers: a minor the platform does not offer (or that is only announced), an API the target no longer serves
that the stack still uses, a GPU software release its vendor does not support on the minor it would run on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from packaging.version import Version

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import chart_releases, driver_charts, gpu_operator, kubernetes
from dra_gpu_platform.facts import gpu_software_support as support
from dra_gpu_platform.plans.driver_ownership import operator_installs_driver
from dra_gpu_platform.plans.kind import runtime_config
from dra_gpu_platform.plans.node_pools import plan_pools
from dra_gpu_platform.plans.upgrade_steps import Blocker, Disruption, Edit, PlanBuilder, Stage, Step, minor_steps


@dataclass(frozen=True)
class Versions:
    kubernetes: str
    gpu_operator: str | None  # None: not installed
    dra_driver: str | None  # the NVIDIA DRA driver chart; None: not installed (or the dra-example-driver)

    def as_json(self) -> dict[str, str | None]:
        return {"kubernetes": self.kubernetes, "gpuOperator": self.gpu_operator, "draDriver": self.dra_driver}


@dataclass(frozen=True)
class UpgradePlan:
    stack: str | None
    platform: str
    before: Versions
    after: Versions
    stages: tuple[Stage, ...]
    steps: tuple[Step, ...]  # in order
    blockers: tuple[Blocker, ...]
    notes: tuple[str, ...] = ()
    minors: tuple[str, ...] = field(default=())  # the minors the control plane passes through, the target last

    def stage_edits(self, number: int) -> dict[tuple[str, ...], str]:
        """Every edit of stages 1..number (the stack file as that stage's `pulumi up` sees it)."""
        edits: dict[tuple[str, ...], str] = {}
        for stage in self.stages[:number]:
            edits.update({edit.path: edit.value for edit in stage.edits})
        return edits


class UpgradeInputError(ValueError):
    """A target the planner cannot plan for (not a known minor, a downgrade, an unknown release)."""

    def __init__(self, flag: str, value: str, rule: str, fix: str) -> None:
        super().__init__(f"{flag} {value}: {rule}")
        self.flag, self.value, self.rule, self.fix = flag, value, rule, fix


# ---------------------------------------------------------------------------------------------------
# what the stack runs


def current_versions(config: StackConfig) -> Versions:
    operator = config.gpu_operator.version if config.gpu_operator_enabled else None
    dra = (
        config.nvidia_dra_driver_version
        if config.dra_driver.enabled and not config.uses_example_driver and not config.uses_gpu_cluster
        else None
    )
    return Versions(config.cluster.kubernetes_version, operator, dra)


def software_notes(config: StackConfig, *, command_stack: str | None = None) -> list[str]:
    """What the preview says about GPU software its vendor no longer supports, with the `gpuplan upgrade` command
    that plans the way out."""
    if not config.gpu_operator_enabled:
        return []
    version = config.gpu_operator.version
    minor = config.cluster.minor
    target = support.default_gpu_operator(minor)
    state = support.status(version)
    unsupported_here = support.support(version) is not None and not support.operator_supports(version, minor)
    if state == support.SUPPORTED and not unsupported_here:
        return []
    reasons = []
    if state != support.SUPPORTED:
        reasons.append(
            f"its major {support.major(version)} is {state} in NVIDIA's life cycle ({support.LIFECYCLE_SOURCE})"
        )
    if unsupported_here:
        found = support.support(version)
        assert found is not None
        reasons.append(f"NVIDIA supports it on Kubernetes {found.text}, not {config.cluster.kubernetes_version}")
    where = f"--stack {command_stack or config.stack}" if (command_stack or config.stack) else "--config FILE"
    command = f"gpuplan upgrade {where} --to {config.cluster.kubernetes_version}"
    if target is not None and target != version:
        command += f" --gpu-operator {target}"
    return [f"GPU Operator {version}: {'; '.join(reasons)}. Plan the upgrade with `{command}`"]


# ---------------------------------------------------------------------------------------------------
# the plan


def plan_upgrade(
    config: StackConfig,
    to: str,
    *,
    gpu_operator_target: str | None = None,
    dra_driver_target: str | None = None,
    today: date,
) -> UpgradePlan:
    """The ordered plan from the stack as it is to Kubernetes `to` (and the GPU software releases given, or those
    a stack of that minor gets by default). Raises UpgradeInputError for a target it cannot plan for."""
    before = current_versions(config)
    start = kubernetes.minor_number(before.kubernetes)
    announced = kubernetes.ANNOUNCED.get(to)
    if to not in kubernetes.MINORS and announced is None:
        known = ", ".join([*kubernetes.MINORS, *kubernetes.ANNOUNCED])
        raise UpgradeInputError("--to", to, f"not a Kubernetes minor this package knows ({known})", "pass one of them")
    end = kubernetes.minor_number(to)
    if end < start:
        raise UpgradeInputError(
            "--to",
            to,
            f"below the stack's Kubernetes {before.kubernetes}: an upgrade only goes forward",
            f"pass {before.kubernetes} or newer; `gpuplan diff` tells what a downgrade refuses",
        )
    operator_to = _operator_target(config, before, to, gpu_operator_target)
    dra_to = _dra_target(before, dra_driver_target)
    b = PlanBuilder(config, plan_pools(config))
    walk = [start]
    while walk[-1] < end:
        walk.append(kubernetes.minor_after(walk[-1]))  # the one rule: one minor at a time
    minors = [f"1.{m}" for m in walk[1:]]
    if announced is not None:
        b.blockers.append(
            Blocker(
                f"Kubernetes {to}",
                f"{announced.status(today)}: nothing serves or offers it yet ({announced.source}). What it changes "
                f"for DRA: {'; '.join(announced.dra_changes)}",
                f"plan to {_newest_known()} now; plan to {to} once it is released and this package has read its facts",
            )
        )
    hops = support.operator_hops(before.gpu_operator, operator_to) if before.gpu_operator and operator_to else []
    placed = _place_hops(hops, start, [kubernetes.minor_number(m) for m in minors if m in kubernetes.MINORS])
    for hop, at in placed.items():
        if at is None:
            found = support.support(hop)
            b.blockers.append(
                Blocker(
                    f"GPU Operator {hop}",
                    f"NVIDIA supports {hop} on Kubernetes {found.text if found else '(no minor listed)'}, and no "
                    f"minor on the way from {before.kubernetes} to {to} is one of them; {support.UPGRADE_RULE} "
                    f"({support.LIFECYCLE_SOURCE}), so the upgrade cannot go round it",
                    "upgrade the GPU Operator before the control plane leaves the minors it supports, or pick a "
                    "--gpu-operator release that supports the target",
                )
            )
    if before.gpu_operator and operator_to and support.skips_major(before.gpu_operator, operator_to):
        stops = " → ".join([before.gpu_operator, *hops])
        b.blockers.append(
            Blocker(
                f"GPU Operator {before.gpu_operator} → {operator_to}",
                f"skips a major: {support.UPGRADE_RULE} ({support.LIFECYCLE_SOURCE})",
                f"go through each major as the plan does, one `pulumi up` per release: {stops}",
            )
        )
    current = start
    for minor in minors:
        if minor not in kubernetes.MINORS:
            continue
        _operator_hops_at(b, placed, current, before)
        minor_steps(b, minor, today)
        current = kubernetes.minor_number(minor)
    _operator_hops_at(b, placed, current, before)
    if operator_to and support.support(operator_to) is not None and not support.operator_supports(operator_to, end):
        found = support.support(operator_to)
        assert found is not None
        b.blockers.append(
            Blocker(
                f"GPU Operator {operator_to} on Kubernetes {to}",
                f"NVIDIA supports {operator_to} on Kubernetes {found.text}",
                f"pick a release that supports {to}"
                + (f", e.g. --gpu-operator {d}" if (d := support.default_gpu_operator(end)) else "")
                + f", or stay on {found.text.split('-')[-1]}",
            )
        )
    _dra_driver_step(b, before, dra_to, to, end)
    _removed_apis(b, to)
    after = Versions(to, operator_to if before.gpu_operator else None, dra_to)
    _final_stack_file_step(b, before, after)
    return UpgradePlan(
        stack=config.stack,
        platform=config.platform,
        before=before,
        after=after,
        stages=tuple(b.stages),
        steps=tuple(b.steps),
        blockers=tuple(b.blockers),
        notes=tuple(b.notes),
        minors=tuple(minors),
    )


def _operator_target(config: StackConfig, before: Versions, to: str, asked: str | None) -> str | None:
    if before.gpu_operator is None:
        if asked is not None:
            raise UpgradeInputError(
                "--gpu-operator", asked, "the stack does not install the GPU Operator", "enable gpuOperator first"
            )
        return None
    listed = list(chart_releases.GPU_OPERATOR_RELEASES)
    if asked is not None:
        if asked not in chart_releases.GPU_OPERATOR_RELEASES and not config.gpu_operator.allow_unlisted:
            raise UpgradeInputError(
                "--gpu-operator",
                asked,
                "not a gpu-operator release this package lists",
                f"use one of {', '.join(listed)}",
            )
        if Version(asked) < Version(before.gpu_operator):
            raise UpgradeInputError(
                "--gpu-operator",
                asked,
                f"older than the stack's {before.gpu_operator}: an upgrade only goes forward",
                f"pass {before.gpu_operator} or newer",
            )
        return asked
    minor = kubernetes.minor_number(to)
    keep = support.status(before.gpu_operator) == support.SUPPORTED and support.operator_supports(
        before.gpu_operator, minor
    )
    default = support.default_gpu_operator(minor)
    if keep or default is None or Version(default) <= Version(before.gpu_operator):
        return before.gpu_operator
    return default


def _dra_target(before: Versions, asked: str | None) -> str | None:
    if asked is None:
        return before.dra_driver
    if before.dra_driver is None:
        raise UpgradeInputError(
            "--dra-driver", asked, "the stack does not install the NVIDIA DRA driver chart", "enable draDriver first"
        )
    if asked not in driver_charts.DRA_DRIVER_RELEASES:
        why = driver_charts.NOT_LISTED.get(asked.removeprefix("v"))
        raise UpgradeInputError(
            "--dra-driver",
            asked,
            "not an NVIDIA DRA driver chart release this package lists" + (f": {why}" if why else ""),
            f"use one of {', '.join(driver_charts.DRA_DRIVER_RELEASES)}",
        )
    if Version(asked) < Version(before.dra_driver) and driver_charts.lineage_of(asked) == driver_charts.lineage_of(
        before.dra_driver
    ):
        raise UpgradeInputError(
            "--dra-driver", asked, f"older than the stack's {before.dra_driver}", f"pass {before.dra_driver} or newer"
        )
    return asked


def _place_hops(hops: list[str], start: int, minors: list[int]) -> dict[str, int | None]:
    """Each operator hop goes after the last minor of the walk that its release supports (GPU software after the
    cluster), but never before an earlier hop: None where no minor on the way is one it supports."""
    walk = [start, *minors]
    placed: dict[str, int | None] = {}
    floor = 0
    for hop in hops:
        found = support.support(hop)
        if found is None:  # an unlisted release pinned on purpose: after the cluster
            placed[hop] = walk[-1]
            continue
        fits = [i for i, minor in enumerate(walk) if i >= floor and found.covers(minor)]
        if not fits:
            placed[hop] = None
            continue
        floor = fits[-1]
        placed[hop] = walk[floor]
    return placed


def _operator_hops_at(b: PlanBuilder, placed: Mapping[str, int | None], minor: int, before: Versions) -> None:
    """The hops placed after 1.<minor>'s steps (and before the next minor's)."""
    for hop, at in placed.items():
        if at == minor:
            _operator_hop(b, hop, before)


def _newest_known() -> str:
    return list(kubernetes.MINORS)[-1]


def _operator_hop(b: PlanBuilder, hop: str, before: Versions) -> None:
    config = b.config
    previous = next(
        (s.edits[0].value for s in reversed(b.stages) if s.edits[0].path == ("gpuOperator", "version")),
        before.gpu_operator,
    )
    stage = b.stage(f"GPU Operator {hop}", Edit(("gpuOperator", "version"), hop))
    pools = tuple(p.name for p in b.pools)
    operands = support.OPERANDS.get(hop)
    owns_driver = operator_installs_driver(config)
    dra_pools = [p.name for p in b.pools if p.dra]
    parts = [
        f"GPU Operator {previous} → {hop}: every operand DaemonSet (validator, toolkit, GPU feature discovery, "
        "dcgm-exporter, MIG manager) rolls to the release's images, one node at a time (maxUnavailable 1); running "
        "GPU pods stay"
    ]
    disruption: Disruption = "rolling"
    how: list[str] = [f"set gpuOperator.version: {hop} in the stack file"]
    if owns_driver:
        disruption = "drain"
        driver = f" {operands.driver}" if operands else ""
        parts.append(
            f"the operator installs the driver here, so each node's driver is reloaded{driver}: the driver manager "
            "evicts the node's GPU pods first"
        )
        dm = operands.driver_manager if operands else ""
        if dra_pools and (not dm or Version(dm) < Version(support.DRIVER_MANAGER_DRA_AWARE_FROM)):
            parts.append(
                f"its driver manager {dm or '(unknown)'} does not evict pods holding DRA claims "
                f"(NVIDIA/k8s-driver-manager#203, #219 are in {support.DRIVER_MANAGER_DRA_AWARE_FROM}), so drain "
                f"the DRA pools ({', '.join(dra_pools)}) node by node before the reload, or their prepared claims "
                "are stranded"
            )
            how.append(
                f"per node of {', '.join(dra_pools)}: `kubectl drain <node> --ignore-daemonsets "
                "--delete-emptydir-data`, wait for the driver pod to be Ready, `kubectl uncordon <node>`"
            )
    if gpu_operator.strips_deploy_labels_without_gpu_present(
        hop
    ) and not gpu_operator.strips_deploy_labels_without_gpu_present(previous):
        parts.append(
            "from v26.7.0 the operator removes every nvidia.com/gpu.deploy.* label from nodes whose "
            "nvidia.com/gpu.present is not true and adds nvidia.com/gpu.deploy.client to GPU nodes "
            "(controllers/nodelabeling_controller.go:259-261), so operands restart on GPU nodes"
        )
    b.step("gpu-software", "; ".join(parts), pools, disruption, stage, *how)


def _dra_driver_step(b: PlanBuilder, before: Versions, target: str | None, to: str, end: int) -> None:
    if target is None or before.dra_driver is None:
        return
    modelled = tuple(kubernetes.minor_number(m) for m in kubernetes.MINORS)
    if not support.dra_driver_supports(target, end, modelled):
        b.blockers.append(
            Blocker(
                f"NVIDIA DRA driver {target} on Kubernetes {to}",
                f"its documents name Kubernetes 1.{support.DRA_DRIVER_LOWEST.get(driver_charts.lineage_of(target) or '', 34)} "
                f"or newer and this package models it on {', '.join(kubernetes.MINORS)} only "
                f"({support.DRA_DRIVER_SOURCE}); no statement covers {to}",
                f"stay on {_newest_known()} until the driver documents {to}",
            )
        )
    if target == before.dra_driver:
        return
    stage = b.stage(f"NVIDIA DRA driver {target}", Edit(("draDriver", "version"), target))
    dra_pools = tuple(p.name for p in b.pools if p.dra)
    what = (
        f"NVIDIA DRA driver {before.dra_driver} → {target} after the GPU Operator: the kubelet plugin DaemonSet is "
        "replaced in place under the same driver name gpu.nvidia.com, so the kubelet still finds the plugin for the "
        "claims it prepared; pods cannot start on a node for the moment its plugin restarts, running pods stay "
        "(kubernetes/dynamic-resource-allocation kubeletplugin/doc.go)"
    )
    how = [f"set draDriver.version: {target} in the stack file"]
    if driver_charts.lineage_of(target) != driver_charts.lineage_of(before.dra_driver):
        what += (
            f"; {before.dra_driver} → {target} changes the chart (nvidia-dra-driver-gpu → dra-driver-nvidia-gpu): "
            "upstream's upgrade guide applies the CRDs first and keeps the old object names, and the move is "
            "forward-only (kubernetes-sigs/dra-driver-nvidia-gpu@v0.4.1 docs/upgrade.md)"
        )
    b.step("gpu-software", what, dra_pools, "rolling", stage, *how)


def _removed_apis(b: PlanBuilder, to: str) -> None:
    announced = kubernetes.ANNOUNCED.get(to)
    if announced is None:
        return
    config = b.config
    used: list[tuple[str, str, str]] = []
    runtime = runtime_config(config) if config.profile.kubernetes.sets_feature_gates else {}
    for api in announced.removes_apis:
        if api in runtime:
            used.append(
                (
                    api,
                    "the kind cluster turns it on (--runtime-config) for dcgm-exporter's DRA pod mapping or a 25.3 "
                    "DRA driver chart",
                    "move draDriver.version to 0.4.1 and turn the dcgm-exporter DRA pod mapping off before the move",
                )
            )
        release = driver_charts.dra_driver_release(config.dra_driver.version) if config.dra_driver.enabled else None
        if release is not None and release.resource_api == api.rsplit("/", 1)[1] and not config.uses_example_driver:
            used.append(
                (
                    api,
                    f"the DRA driver chart {config.dra_driver.version} writes its DeviceClasses as {api}",
                    f"use --dra-driver {driver_charts.DRA_DRIVER_DEFAULT} (it detects resource.k8s.io/v1)",
                )
            )
    for api, why, fix in used:
        b.blockers.append(Blocker(f"{api} on Kubernetes {to}", f"{to} no longer serves {api}, and {why}", fix))
    if config.profile.kubernetes.sets_feature_gates:  # kind: the stack sets the gates itself
        for gate in announced.removes_gates:
            b.notes.append(
                f"Kubernetes {to} removes the {gate} feature gate, which the kind config sets today "
                "(dra_gpu_platform/plans/kind.py feature_gates): it goes once this package reads 1.38's facts"
            )


def _final_stack_file_step(b: PlanBuilder, before: Versions, after: Versions) -> None:
    pins = []
    if after.gpu_operator and (
        after.gpu_operator != before.gpu_operator or "version" not in b.config.gpu_operator.model_fields_set
    ):
        pins.append(f"gpuOperator.version: {after.gpu_operator}")
    if after.dra_driver and (
        after.dra_driver != before.dra_driver or "version" not in b.config.dra_driver.model_fields_set
    ):
        pins.append(f"draDriver.version: {after.dra_driver}")
    if after.kubernetes not in kubernetes.MINORS:
        return  # an announced minor is a blocker: nothing to pin yet
    if after.kubernetes != before.kubernetes:
        pins.insert(0, f"cluster.kubernetesVersion: {after.kubernetes!r}")
    if not pins:
        return
    b.step(
        "stack-file",
        "the stack file ends pinned to what the cluster runs: "
        + ", ".join(pins)
        + " (a version left out follows the package's default, which moves with new releases)",
        (),
        "none",
        len(b.stages) or None,
    )


def versions_json(plan: UpgradePlan) -> dict[str, Any]:
    return {"from": plan.before.as_json(), "to": plan.after.as_json()}
