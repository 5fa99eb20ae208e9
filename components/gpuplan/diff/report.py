"""The `gpuplan diff` report: every change between two runs of the stack (gpuplan/diff/engine.py) judged for what it
costs (gpuplan/diff/safety.py), as diff.json; refused changes accepted on purpose with --allow-replace."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from gpuplan.diff import names
from gpuplan.diff.engine import OPS, Change, classify_runs
from gpuplan.diff.safety import apply_verdicts, pair_renames, refuse_version_steps
from gpuplan.engine.runtime import ProgramRun


@dataclass
class DiffReport:
    stack: str
    against: str
    changes: list[Change]

    def summary(self) -> dict[str, int]:
        counts = dict.fromkeys(OPS, 0)
        for change in self.changes:
            counts[change.op] += 1
        counts["mayReplace"] = sum(1 for c in self.changes if c.op == "update" and c.may_replace)
        return counts

    @property
    def refused(self) -> list[Change]:
        return [c for c in self.changes if c.refused]

    def by_urn(self) -> dict[str, Change]:
        return {c.urn: c for c in self.changes}

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "against": self.against,
            "changes": [
                {**c.as_json(), "allowReplace": names.short_name(c, self.changes) if c.refused or c.allowed else None}
                for c in self.changes
            ],
            "summary": self.summary(),
            "refused": [c.urn for c in self.refused],
            "allowed": [c.urn for c in self.changes if c.allowed],
        }


def diff_runs(before: ProgramRun, after: ProgramRun, *, against: str = "") -> DiffReport:
    changes = classify_runs(before, after)
    pair_renames(changes)
    apply_verdicts(before, after, changes)
    refuse_version_steps(before, after, changes)
    return DiffReport(stack=after.stack, against=against, changes=changes)


def allow(report: DiffReport, requested: Iterable[str]) -> list[str]:
    """Accept refused changes on purpose (--allow-replace): each value is a URN, or a logical name or `type::name`
    that names exactly one change (gpuplan/diff/names.py). Returns the values that matched nothing."""
    unmatched: list[str] = []
    for value in requested:
        found = names.matching(value, report.changes)
        if len(found) != 1:
            unmatched.append(value)
            continue
        change = report.by_urn()[found[0].urn]
        if change.refused and change.allowable:
            change.refused, change.allowed = False, True
    return unmatched
