"""Alert rules: the set of alerts, thresholds from the stack, annotations and runbook links, and the
PrometheusRule check `gpuplan preview` runs."""

from __future__ import annotations

import copy
import re

import pytest

from components.config.models import MonitoringConfig
from components.plans.monitoring.alerts import (
    DRA_NODE_LABEL,
    PROMETHEUS_RULE_API,
    alerts,
    prometheus_label,
    prometheus_rule_errors,
    rule_groups,
)
from tests.conftest import ROOT

RUNBOOKS = ROOT / "docs" / "monitoring" / "runbooks"
DEFAULTS = MonitoringConfig(enabled=True)


def _rule(groups, name):
    return next(r for g in groups for r in g["rules"] if r.get("alert") == name)


def _manifest(groups):
    return {"apiVersion": PROMETHEUS_RULE_API, "kind": "PrometheusRule", "metadata": {"name": "x"}, "spec": {"groups": groups}}


def test_the_alerts_the_issue_asks_for():
    assert [a.name for a in alerts(DEFAULTS)] == [
        "DraResourceClaimPending", "DraPodsUnschedulable", "DraKubeletPluginNotRunning",
        "GpuXidError", "GpuTemperatureHigh", "GpuRowRemapFailure", "GpuUncorrectableMemoryErrors", "GpuAllocatedButIdle",
    ]


def test_thresholds_come_from_the_stack():
    custom = MonitoringConfig(enabled=True, claim_pending_minutes=30, gpu_temperature_celsius=92,
                              idle_gpu_utilization_percent=15, idle_gpu_minutes=120)
    groups = rule_groups(custom)
    assert "> 1800" in _rule(groups, "DraResourceClaimPending")["expr"]
    assert _rule(groups, "DraPodsUnschedulable")["for"] == "30m"
    assert _rule(groups, "GpuTemperatureHigh")["expr"] == "DCGM_FI_DEV_GPU_TEMP > 92"
    idle = _rule(groups, "GpuAllocatedButIdle")
    assert idle["expr"].endswith("< 15") and idle["for"] == "120m"
    assert "> 300" in _rule(rule_groups(DEFAULTS), "DraResourceClaimPending")["expr"]


def test_dra_rules_use_the_scheduler_plugin_and_node_label_that_exist():
    groups = rule_groups(DEFAULTS)
    assert 'plugin="DynamicResources"' in _rule(groups, "DraPodsUnschedulable")["expr"]
    # components/facts/node_labels.py puts nvidia.com/dra-kubelet-plugin=true on every DRA pool's nodes
    assert DRA_NODE_LABEL == "label_nvidia_com_dra_kubelet_plugin"
    assert f'{DRA_NODE_LABEL}="true"' in _rule(groups, "DraKubeletPluginNotRunning")["expr"]
    assert prometheus_label("dra-gpu-platform.io/pool") == "label_dra_gpu_platform_io_pool"


def test_plugin_daemonset_pattern_matches_both_drivers():
    expr = _rule(rule_groups(DEFAULTS), "DraKubeletPluginNotRunning")["expr"]
    pattern = re.search(r'created_by_name=~"([^"]+)"', expr).group(1)
    for name in ("dra-driver-nvidia-gpu-kubelet-plugin", "nvidia-dra-driver-gpu-kubelet-plugin", "dra-example-driver-kubeletplugin"):
        assert re.fullmatch(pattern, name), name
    assert not re.fullmatch(pattern, "nvidia-device-plugin-daemonset")


def test_idle_alert_reads_dcgm_exporter_pod_labels():
    # dcgm-exporter's Kubernetes mapping labels are pod/namespace/container (internal/pkg/transformation/const.go)
    expr = _rule(rule_groups(DEFAULTS), "GpuAllocatedButIdle")["expr"]
    assert "by (namespace, pod)" in expr and 'pod!=""' in expr


@pytest.mark.parametrize("alert", alerts(DEFAULTS), ids=lambda a: a.name)
def test_every_alert_has_summary_description_severity_and_runbook(alert):
    rule = alert.rule("docs/monitoring/runbooks")
    assert rule["labels"]["severity"] in ("critical", "warning", "info")
    assert rule["annotations"]["summary"] and len(rule["annotations"]["description"]) > 80
    # the description says what to check
    assert re.search(r"\bCheck\b|\bcheck\b|Look|Ask|Cordon|drain", rule["annotations"]["description"])
    assert rule["annotations"]["runbook_url"] == f"docs/monitoring/runbooks/{alert.name}.md"


def test_every_alert_links_a_runbook_page_that_exists_with_the_three_parts():
    for rule in (r for g in rule_groups(DEFAULTS) for r in g["rules"]):
        assert (ROOT / rule["annotations"]["runbook_url"]).is_file(), rule["annotations"]["runbook_url"]
    for alert in alerts(DEFAULTS):
        page = RUNBOOKS / f"{alert.name}.md"
        assert page.exists(), f"no runbook page {page}"
        text = page.read_text(encoding="utf-8")
        for part in ("**What it means.**", "**What to check.**", "**How to fix.**"):
            assert part in text, (alert.name, part)


def test_rendered_rules_pass_the_preview_check():
    assert prometheus_rule_errors(_manifest(rule_groups(DEFAULTS))) == []


def test_preview_check_reports_each_problem():
    groups = copy.deepcopy(rule_groups(DEFAULTS))
    groups[0]["rules"][0]["expr"] = "dra_allocation_duration_seconds > 1"
    groups[0]["rules"][1]["for"] = "5 minutes"
    groups[0]["rules"][2]["record"] = "x"
    groups[1]["rules"][0]["severity"] = "page"
    groups[1]["rules"][1]["expr"] = "rat(DCGM_FI_DEV_GPU_TEMP[5m])"
    groups[1]["name"] = groups[0]["name"]
    problems = dict(prometheus_rule_errors(_manifest(groups)))
    assert "dra_allocation_duration_seconds" in problems["spec/groups/0/rules/0/expr"]
    assert "not a Prometheus duration" in problems["spec/groups/0/rules/1/for"]
    assert "exactly one of alert or record" in problems["spec/groups/0/rules/2"]
    assert problems["spec/groups/1/rules/0/severity"] == "unknown field"
    assert "not a PromQL function" in problems["spec/groups/1/rules/1/expr"]
    assert "unique" in problems["spec/groups/1/name"]
