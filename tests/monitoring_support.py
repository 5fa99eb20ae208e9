"""Helpers for the monitoring tests: find promtool, render the rule files promtool reads."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring import metrics as m
from dra_gpu_platform.plans.monitoring.alerts import AlertSettings, RuleInputs, rule_groups
from dra_gpu_platform.plans.monitoring.sources import SERVICE_MONITOR_LABELS, Source

PROMTOOL_TESTS = Path(__file__).resolve().parent / "promtool"
# Debian package `prometheus` ships /usr/bin/promtool (apt-get install -y --no-install-recommends prometheus).
INSTALL_HINT = "apt-get install -y --no-install-recommends prometheus"


def _ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def require_promtool() -> str:
    """promtool's path. Missing promtool fails the test under CI and skips it only on a developer machine."""
    path = shutil.which("promtool")
    if path is None:
        message = f"promtool not found; install it with `{INSTALL_HINT}`"
        if _ci():
            pytest.fail(message)
        pytest.skip(message)
    return path


def promtool(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([require_promtool(), *args], cwd=cwd, capture_output=True, text=True, timeout=120)


def summaries_only(groups: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """promtool test rules compares every annotation; the unit tests pin the summaries (they carry the labels
    and thresholds) and leave the prose of descriptions to tests/plans/monitoring/test_alerts.py."""
    trimmed = []
    for group in groups:
        rules = []
        for rule in group["rules"]:
            rule = dict(rule)
            if "annotations" in rule:
                rule["annotations"] = {"summary": rule["annotations"]["summary"]}
            rules.append(rule)
        trimmed.append({**group, "rules": rules})
    return trimmed


def write_rules(directory: Path, groups: list[dict[str, Any]], name: str = "rules.yaml") -> Path:
    path = directory / name
    path.write_text(yaml.safe_dump({"groups": groups}, sort_keys=False), encoding="utf-8")
    return path


# The namespaces the promtool unit tests treat as DRA namespaces (migration dual / dra-only).
DRA_NAMESPACES = ("team-a", "team-b")


def every_source(dra_labels: bool = True) -> tuple[Source, ...]:
    """Every exporter scraped, dcgm-exporter with its DRA pod mapping: the inputs under which each alert and
    panel is rendered (the per-stack choice is tested in tests/plans/monitoring/test_sources.py)."""
    found = []
    for exporter in m.EXPORTERS:
        names = frozenset(n for n, s in m.SERIES.items() if s.exporter == exporter)
        extra = SERVICE_MONITOR_LABELS | {"node", "metrics_path"}
        if exporter == m.DCGM and dra_labels:
            extra |= m.DCGM_DRA_LABELS
        found.append(Source(exporter, f"test scrape of {exporter}", names, extra))
    return tuple(found)


def everything(config: MonitoringConfig | None = None, dra_labels: bool = True) -> RuleInputs:
    return RuleInputs(
        AlertSettings.of(config or MonitoringConfig(enabled=True)), every_source(dra_labels), DRA_NAMESPACES
    )


def dashboard_recording_rules(inputs: RuleInputs) -> list[dict[str, Any]]:
    """Every dashboard query as a recording rule `dashboard:<key>[:<n>]`, so promtool can evaluate it."""
    rules = []
    for key, (_title, entries) in dashboard.panel_queries(inputs).items():
        for index, (expr, _legend) in enumerate(entries):
            rules.append({"record": f"dashboard:{key}" + (f":{index}" if index else ""), "expr": expr})
    return [{"name": "dashboard", "rules": rules}]


def run_promtool_test(tmp_path: Path, test_file: str, groups: list[dict[str, Any]], rules_name: str = "rules.yaml"):
    write_rules(tmp_path, groups, rules_name)
    shutil.copy(PROMTOOL_TESTS / test_file, tmp_path / test_file)
    return promtool("test", "rules", test_file, cwd=tmp_path)


def default_rules() -> list[dict[str, Any]]:
    return rule_groups(everything())
