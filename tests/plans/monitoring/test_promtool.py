"""promtool on the rendered rules and dashboard queries: syntax (`check rules`) and behaviour (`test rules`
with the input series in tests/promtool/). Fails under CI when promtool is missing; skips only locally."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.plans.monitoring.alerts import alerts, rule_groups
from tests.monitoring_support import (
    PROMTOOL_TESTS,
    dashboard_recording_rules,
    everything,
    promtool,
    run_promtool_test,
    summaries_only,
    write_rules,
)

DEFAULTS = everything()
CUSTOM = everything(
    MonitoringConfig(
        enabled=True,
        claimPendingMinutes=30,
        gpuTemperatureCelsius=95,
        idleGpuUtilizationPercent=20,
        idleGpuMinutes=15,
    )
)


@pytest.mark.parametrize("config", [DEFAULTS, CUSTOM], ids=["defaults", "custom-thresholds"])
def test_promtool_check_rules_accepts_the_rendered_rules(tmp_path, config):
    path = write_rules(tmp_path, rule_groups(config))
    result = promtool("check", "rules", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(alerts(config))} rules found" in result.stdout


def test_promtool_check_rules_accepts_every_dashboard_query(tmp_path):
    groups = dashboard_recording_rules(DEFAULTS)
    path = write_rules(tmp_path, groups, "dashboard_rules.yaml")
    result = promtool("check", "rules", path.name, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(groups[0]['rules'])} rules found" in result.stdout


def test_promtool_check_rules_rejects_a_broken_expression(tmp_path):
    # the check is real: a syntax error in one rule fails the file
    groups = rule_groups(DEFAULTS)
    groups[0]["rules"][0] = {**groups[0]["rules"][0], "expr": "sum by (namespace (DCGM_FI_DEV_GPU_UTIL)"}
    result = promtool("check", "rules", write_rules(tmp_path, groups).name, cwd=tmp_path)
    assert result.returncode != 0


def test_every_alert_fires_and_stays_quiet_where_it_should(tmp_path):
    result = run_promtool_test(tmp_path, "alerts_test.yaml", summaries_only(rule_groups(DEFAULTS)))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alert_unit_tests_cover_every_alert():
    text = (PROMTOOL_TESTS / "alerts_test.yaml").read_text()
    for alert in alerts(DEFAULTS):
        assert f"alertname: {alert.name}" in text, alert.name
        # each alert is also evaluated where it must not fire
        assert text.count(f"alertname: {alert.name}") >= 2, alert.name


def test_thresholds_from_the_stack_change_what_fires(tmp_path):
    result = run_promtool_test(tmp_path, "thresholds_test.yaml", summaries_only(rule_groups(CUSTOM)))
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_alert_unit_tests_fail_against_other_thresholds(tmp_path):
    # the same input series and expectations do not pass with the custom thresholds: the tests pin them
    result = run_promtool_test(tmp_path, "alerts_test.yaml", summaries_only(rule_groups(CUSTOM)))
    assert result.returncode != 0
    assert "DraPodUnschedulable" in result.stdout + result.stderr


def test_dashboard_queries_compute_what_the_panels_show(tmp_path):
    result = run_promtool_test(
        tmp_path, "dashboard_test.yaml", dashboard_recording_rules(DEFAULTS), "dashboard_rules.yaml"
    )
    assert result.returncode == 0, result.stdout + result.stderr
