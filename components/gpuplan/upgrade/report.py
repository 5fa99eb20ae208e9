"""`gpuplan upgrade`'s report: the library's plan (dra_gpu_platform/plans/upgrade.py), each stage's stack file
checked by the config layer and run under the mock runtime, `gpuplan diff`'s engine between consecutive stages for
the resources and disruption of each step, and fit at both ends for the claims whose verdict changes."""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from dra_gpu_platform.facts import kubernetes
from dra_gpu_platform.inputs.problems import InputError, Problem
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.plans.upgrade import UpgradeInputError, UpgradePlan, plan_upgrade
from dra_gpu_platform.plans.upgrade_steps import DISRUPTIONS, SYSTEM_POOL, Blocker, Step
from gpuplan.diff.engine import CLUSTER_TYPES, COMMAND, KIND_CLUSTER_COMPONENT, NODE_POOL_TYPES, Change
from gpuplan.diff.report import diff_runs
from gpuplan.diff.revisions import run_labelled
from gpuplan.engine.sources import StackFileSource
from gpuplan.output import signals
from gpuplan.upgrade.stages import StageFile, write_stages

# Which step of a stage a changed resource belongs to, by the component it sits in (its URN's parent chain).
_ADD_ON_COMPONENTS = (":cluster:EksAddons", ":cluster:ClusterAutoscaler", ":cluster:EfaDevicePlugin")
_GPU_SOFTWARE_COMPONENTS = (":software:GpuOperator", ":software:DraDriver", ":software:ExampleDraDriver")
_NODE_COMPONENTS = (":cluster:EksGpuNodePool", ":cluster:AksGpuPool")
_API_COMPONENTS = (":dra:Maintenance",)


@dataclass
class PlannedStep:
    step: Step
    resources: list[str] = field(default_factory=list)
    disruption: str = "none"

    def as_json(self, number: int) -> dict[str, Any]:
        return {
            "step": number,
            "kind": self.step.kind,
            "what": self.step.what,
            "pools": list(self.step.pools),
            "resources": self.resources,
            "disruption": self.disruption,
            "stage": self.step.stage,
            "how": list(self.step.how),
        }


@dataclass
class UpgradeReport:
    stack: str
    plan: UpgradePlan
    steps: list[PlannedStep]
    blockers: list[Blocker]
    fit_changes: list[dict[str, Any]]
    stages: list[dict[str, Any]]
    notes: list[str]

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "from": self.plan.before.as_json(),
            "to": self.plan.after.as_json(),
            "steps": [s.as_json(i) for i, s in enumerate(self.steps, 1)],
            "fitChanges": self.fit_changes,
            "blockers": [b.as_json() for b in self.blockers],
            "stages": self.stages,
            "notes": self.notes,
        }


def _input_error(error: UpgradeInputError) -> InputError:
    return InputError([Problem("(command line)", error.flag, error.value, error.rule, error.fix)], error.flag)


def upgrade_report(
    source: StackFileSource,
    to: str,
    *,
    gpu_operator: str | None = None,
    dra_driver: str | None = None,
    claims: list[Path] | None = None,
    today: date | None = None,
    run_program: bool = True,
    step: Callable[[str], None] = lambda text: None,
) -> UpgradeReport:
    """The whole report. Raises InputError for a stack file, target or claim file it cannot use. `run_program`
    False skips the program runs (no resources; the disruption is the plan's). `step` shows what is being done."""
    name, stack_file = source.stack, source.path
    config = source.config()
    try:
        plan = plan_upgrade(
            config,
            to,
            gpu_operator_target=gpu_operator,
            dra_driver_target=dra_driver,
            today=today or kubernetes.today(),
        )
    except UpgradeInputError as error:
        raise _input_error(error) from None
    blockers = list(plan.blockers)
    service = config.profile.kubernetes.service  # the managed service's version steps; None: kind, existing
    skipped = kubernetes.version_step(service, config.cluster.minor, kubernetes.minor_number(to)) if service else None
    if skipped is not None:
        why, how, _ = skipped
        blockers.insert(
            0, Blocker(f"Kubernetes {config.cluster.kubernetes_version} → {to}", why, f"{how} (the steps below)")
        )
    steps = [PlannedStep(s, disruption=s.disruption) for s in plan.steps]
    notes = list(plan.notes)
    with tempfile.TemporaryDirectory(prefix="gpuplan-upgrade-") as tmp:
        signals.remove_on_exit(Path(tmp))  # a signal during the runs exits at once (gpuplan/output/signals.py)
        files = write_stages(stack_file, config, plan, Path(tmp))
        for file in files:
            for problem in file.problems:
                blockers.append(
                    Blocker(
                        f"the stack file at stage {file.number} ({file.title})",
                        f"{problem.path} = {problem.value!r}: {problem.rule}",
                        problem.fix,
                    )
                )
        if run_program:
            _attribute(name, files, steps, step)
        else:
            notes.append("resources not listed: the program was not run (--no-run)")
        valid = [f for f in files if f.config is not None]
        fit_changes = _fit_changes(files[0], valid[-1], name, claims or []) if len(valid) > 1 else []
        if valid[-1].number != len(files) - 1:
            notes.append(
                f"fit compares the stack as it is with stage {valid[-1].number} ({valid[-1].title}), the last stage "
                "whose stack file the config layer accepts"
            )
        signals.forget(Path(tmp))
    stages = [{"stage": s.number, "title": s.title, "edits": {e.text: e.value for e in s.edits}} for s in plan.stages]
    return UpgradeReport(name, plan, steps, blockers, fit_changes, stages, notes)


# ---------------------------------------------------------------------------------------------------
# resources per step, from the diff of consecutive stages


def _attribute(name: str, files: list[StageFile], steps: list[PlannedStep], step: Callable[[str], None]) -> None:
    runs: dict[int, Any] = {}
    for file in files:
        if file.config is None:
            continue
        step(f"gpuplan upgrade: running stage {file.number} ({file.title})")
        runs[file.number] = run_labelled(StackFileSource(name, file.path), f"stage {file.number}")
    for number in range(1, len(files)):
        if number not in runs or number - 1 not in runs:
            continue
        report = diff_runs(runs[number - 1], runs[number], against=f"stage {number - 1}")
        in_stage = [s for s in steps if s.step.stage == number]
        leftovers: list[Change] = []
        for change in report.changes:
            if change.op == "same" or not change.custom:
                continue
            target = _step_for(change, in_stage)
            if target is None:
                leftovers.append(change)
                continue
            target.resources.append(change.urn)
            target.disruption = _worse(target.disruption, _disruption(change))
        if leftovers:
            steps.insert(
                max((steps.index(s) for s in in_stage), default=len(steps) - 1) + 1,
                PlannedStep(
                    Step(
                        "stack-file",
                        "changes the new versions bring to this stack by themselves (defaults that follow the "
                        f"Kubernetes minor or the release): {_summary(leftovers)}",
                        (),
                        "none",
                        number,
                    ),
                    [c.urn for c in leftovers],
                    _worst(_disruption(c) for c in leftovers),
                ),
            )


def _step_for(change: Change, steps: list[PlannedStep]) -> PlannedStep | None:
    urn = change.urn

    def first(kind: str, pool: str | None = None) -> PlannedStep | None:
        return next(
            (s for s in steps if s.step.kind == kind and (pool is None or pool in s.step.pools)),
            next((s for s in steps if s.step.kind == kind), None),
        )

    if change.type in CLUSTER_TYPES or (change.type == COMMAND and KIND_CLUSTER_COMPONENT in urn):
        return first("control-plane")
    if any(c in urn for c in _NODE_COMPONENTS) or change.type in NODE_POOL_TYPES:
        pool = next((s for s in steps for p in s.step.pools if p != SYSTEM_POOL and f"-pool-{p}" in urn), None)
        return pool if pool is not None and pool.step.kind == "nodes" else first("nodes", SYSTEM_POOL)
    if "launchTemplate" in change.type:
        return first("nodes", SYSTEM_POOL)
    if any(c in urn for c in _ADD_ON_COMPONENTS):
        return first("add-ons")
    if any(c in urn for c in _GPU_SOFTWARE_COMPONENTS):
        return first("gpu-software")
    if any(c in urn for c in _API_COMPONENTS):
        return first("api-migration")
    return None


def _disruption(change: Change) -> str:
    if change.type == COMMAND and KIND_CLUSTER_COMPONENT in change.urn:
        return "replace"  # kind recreates the cluster for any change of it
    if change.type in NODE_POOL_TYPES and change.op in ("replace", "delete"):
        return "replace"
    if change.rolling:
        return "rolling"
    return "none"


def _worse(a: str, b: str) -> str:
    return max(a, b, key=DISRUPTIONS.index)


def _worst(items: Any) -> str:
    found = "none"
    for item in items:
        found = _worse(found, item)
    return found


def _summary(changes: list[Change]) -> str:
    counts: dict[str, list[str]] = {}
    for change in changes:
        counts.setdefault(change.op, []).append(change.name)
    return "; ".join(f"{op} {', '.join(sorted(names))}" for op, names in sorted(counts.items()))


# ---------------------------------------------------------------------------------------------------
# fit at both ends


def _fit_changes(first: StageFile, last: StageFile, name: str, claims: list[Path]) -> list[dict[str, Any]]:
    from gpuplan.fit.report import fit_report

    assert first.config is not None and last.config is not None
    before = fit_report(plan_stack(first.config), name, claims)
    after = fit_report(plan_stack(last.config), name, claims)
    changes = []
    old_rows = _verdicts(before)
    for key, (outcome, why) in _verdicts(after).items():
        old = old_rows.get(key)
        if old is None or old[0] == outcome:
            continue
        reason = why if outcome != "allocated" else old[1]
        changes.append(
            {
                "name": key,
                "before": old[0],
                "after": outcome,
                "why": _why(reason, before, after, outcome),
            }
        )
    return changes


def _verdicts(report: dict[str, Any]) -> dict[str, tuple[str, str]]:
    rows: dict[str, tuple[str, str]] = {}
    for claim in report["claims"]:
        reasons = "; ".join([*claim["errors"], *claim["reasons"]])
        rows[f"{claim['namespace']}/{claim['name']}"] = (claim["outcome"], reasons)
    for pod in report["pods"]:
        key = f"{pod['namespace']}/{pod['name']}"
        if key not in rows:
            rows[key] = (pod["outcome"], "; ".join([*pod.get("errors", []), *pod.get("reasons", [])]))
    return rows


def _why(reason: str, before: dict[str, Any], after: dict[str, Any], outcome: str) -> str:
    a, b = before["featureGates"], after["featureGates"]
    parts = []
    minors = f"Kubernetes {a['kubernetes']} → {b['kubernetes']}"
    allocator_a = kubernetes.MINORS[a["kubernetes"]].allocator_module if a["kubernetes"] in kubernetes.MINORS else "?"
    allocator_b = kubernetes.MINORS[b["kubernetes"]].allocator_module if b["kubernetes"] in kubernetes.MINORS else "?"
    if allocator_a != allocator_b or a["allocator"] != b["allocator"]:
        parts.append(
            f"{minors}: the allocator changes (kubernetes/dynamic-resource-allocation {allocator_a} {a['allocator']} "
            f"→ {allocator_b} {b['allocator']})"
        )
    gates = {k: v for k, v in b["gates"].items() if a["gates"].get(k) != v}
    if gates:
        parts.append("gates that change: " + ", ".join(f"{k}={str(v).lower()}" for k, v in sorted(gates.items())))
    side = "before" if outcome == "allocated" else "after"
    if reason:
        parts.append(f"{side}: {reason}")
    return "; ".join(parts) or f"{minors}"
