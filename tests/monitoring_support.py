"""Helpers for the monitoring tests: find promtool, render the rule files promtool reads."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from components.plans.monitoring import dashboard
from components.config.models import MonitoringConfig
from components.plans.monitoring.alerts import rule_groups

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


def dashboard_recording_rules(m: MonitoringConfig) -> list[dict[str, Any]]:
    """Every dashboard query as a recording rule `dashboard:<key>[:<n>]`, so promtool can evaluate it."""
    rules = []
    for key, (_title, entries) in dashboard.panel_queries(m).items():
        for index, (expr, _legend) in enumerate(entries):
            rules.append({"record": f"dashboard:{key}" + (f":{index}" if index else ""), "expr": expr})
    return [{"name": "dashboard", "rules": rules}]


def run_promtool_test(tmp_path: Path, test_file: str, groups: list[dict[str, Any]], rules_name: str = "rules.yaml"):
    write_rules(tmp_path, groups, rules_name)
    shutil.copy(PROMTOOL_TESTS / test_file, tmp_path / test_file)
    return promtool("test", "rules", test_file, cwd=tmp_path)


def default_rules() -> list[dict[str, Any]]:
    return rule_groups(MonitoringConfig(enabled=True))
