"""Alert rules: the set of alerts, thresholds from the stack, annotations, sources and runbook links, and the
PrometheusRule check `gpuplan preview` runs."""

from __future__ import annotations

import copy
import re

import pytest

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.plans.monitoring import metrics
from dra_gpu_platform.plans.monitoring.alerts import (
    DRA_NODE_LABEL,
    PROMETHEUS_RULE_API,
    RuleInputs,
    alerts,
    candidates,
    left_out,
    prometheus_label,
    prometheus_rule_errors,
    rule_groups,
)
from tests.conftest import ROOT
from tests.monitoring_support import every_source, everything

RUNBOOKS = ROOT / "docs" / "monitoring" / "runbooks"
DEFAULTS = everything()


def _rule(groups, name):
    return next(r for g in groups for r in g["rules"] if r.get("alert") == name)


def _manifest(groups):
    return {
        "apiVersion": PROMETHEUS_RULE_API,
        "kind": "PrometheusRule",
        "metadata": {"name": "x"},
        "spec": {"groups": groups},
    }


ALL = [
    "DraPodUnschedulable",
    "DraPodsUnschedulable",
    "DraClaimPrepareFailing",
    "DraKubeletPluginCallsFailing",
    "DraClaimControllerBacklog",
    "DraKubeletPluginNotRunning",
    "DraPodClaimNotCreated",
    "GpuXidError",
    "GpuTemperatureHigh",
    "GpuRowRemapFailure",
    "GpuUncorrectableMemoryErrors",
    "GpuAllocatedButIdle",
]


def test_with_every_source_every_alert_is_rendered():
    assert [a.name for a in alerts(DEFAULTS)] == ALL
    assert left_out(DEFAULTS) == {}


def test_an_alert_whose_series_no_source_produces_is_left_out_with_the_missing_series():
    control_plane = (metrics.SCHEDULER, metrics.CONTROLLER_MANAGER)
    sources = tuple(s for s in every_source() if s.exporter not in control_plane)
    no_control_plane = RuleInputs(DEFAULTS.settings, sources, DEFAULTS.dra_namespaces)
    assert left_out(no_control_plane) == {
        "DraPodsUnschedulable": ["scheduler_unschedulable_pods"],
        "DraClaimControllerBacklog": ["workqueue_depth"],
    }
    assert [a.name for a in alerts(no_control_plane)] == [n for n in ALL if n not in left_out(no_control_plane)]
    nothing = RuleInputs(DEFAULTS.settings, (), DEFAULTS.dra_namespaces)
    assert alerts(nothing) == [] and rule_groups(nothing) == [] and set(left_out(nothing)) == set(ALL)


def test_without_dra_namespaces_there_is_no_namespace_alert():
    inputs = RuleInputs(DEFAULTS.settings, every_source(), ())
    assert "DraPodUnschedulable" not in [a.name for a in candidates(inputs)]


def test_thresholds_come_from_the_stack():
    custom = MonitoringConfig(
        enabled=True,
        claimPendingMinutes=30,
        gpuTemperatureCelsius=92,
        idleGpuUtilizationPercent=15,
        idleGpuMinutes=120,
    )
    groups = rule_groups(everything(custom))
    assert _rule(groups, "DraPodUnschedulable")["for"] == "30m"
    assert _rule(groups, "DraPodsUnschedulable")["for"] == "30m"
    assert _rule(groups, "GpuTemperatureHigh")["expr"] == "DCGM_FI_DEV_GPU_TEMP > 92"
    idle = _rule(groups, "GpuAllocatedButIdle")
    assert idle["expr"].endswith("< 15") and idle["for"] == "120m"
    assert _rule(rule_groups(DEFAULTS), "DraPodUnschedulable")["for"] == "5m"


def test_the_namespace_alert_watches_exactly_the_dra_namespaces():
    expr = _rule(rule_groups(DEFAULTS), "DraPodUnschedulable")["expr"]
    assert 'namespace=~"team-a|team-b"' in expr
    pattern = re.search(r'namespace=~"([^"]+)"', expr).group(1)
    assert re.fullmatch(pattern, "team-a") and not re.fullmatch(pattern, "team-ab")


def test_idle_alert_says_whether_dra_gpus_are_covered():
    with_mapping = _rule(rule_groups(DEFAULTS), "GpuAllocatedButIdle")["annotations"]["description"]
    without = _rule(rule_groups(everything(dra_labels=False)), "GpuAllocatedButIdle")["annotations"]["description"]
    assert "DRA pod mapping is on" in with_mapping
    assert "not covered" in without and "dcgmDraPodMapping" in without


def test_dra_rules_use_the_scheduler_plugin_and_node_label_that_exist():
    groups = rule_groups(DEFAULTS)
    assert 'plugin="DynamicResources"' in _rule(groups, "DraPodsUnschedulable")["expr"]
    # dra_gpu_platform/facts/node_labels.py puts nvidia.com/dra-kubelet-plugin=true on every DRA pool's nodes
    assert DRA_NODE_LABEL == "label_nvidia_com_dra_kubelet_plugin"
    assert f'{DRA_NODE_LABEL}="true"' in _rule(groups, "DraKubeletPluginNotRunning")["expr"]
    assert prometheus_label("dra-gpu-platform.io/pool") == "label_dra_gpu_platform_io_pool"


def test_plugin_daemonset_pattern_matches_both_drivers():
    expr = _rule(rule_groups(DEFAULTS), "DraKubeletPluginNotRunning")["expr"]
    pattern = re.search(r'created_by_name=~"([^"]+)"', expr).group(1)
    for name in (
        "dra-driver-nvidia-gpu-kubelet-plugin",
        "nvidia-dra-driver-gpu-kubelet-plugin",
        "dra-example-driver-kubeletplugin",
    ):
        assert re.fullmatch(pattern, name), name
    assert not re.fullmatch(pattern, "nvidia-device-plugin-daemonset")


def test_idle_alert_reads_dcgm_exporter_pod_labels():
    # dcgm-exporter's Kubernetes mapping labels are pod/namespace/container (internal/pkg/transformation/const.go)
    expr = _rule(rule_groups(DEFAULTS), "GpuAllocatedButIdle")["expr"]
    assert "by (namespace, pod)" in expr and 'pod!=""' in expr


@pytest.mark.parametrize("alert", alerts(DEFAULTS), ids=lambda a: a.name)
def test_every_alert_has_summary_description_severity_sources_and_an_absolute_runbook(alert):
    rule = alert.rule(DEFAULTS)
    assert rule["labels"]["severity"] in ("critical", "warning", "info")
    assert rule["annotations"]["summary"] and len(rule["annotations"]["description"]) > 80
    # the description says what to check
    assert re.search(r"\bCheck\b|\bcheck\b|Look|Ask|Cordon|drain|Read", rule["annotations"]["description"])
    assert rule["annotations"]["runbook_url"] == f"{DEFAULTS.runbook_base_url}/{alert.name}.md"
    assert rule["annotations"]["runbook_url"].startswith("https://")
    for name in alert.series:
        assert f"{name} from " in rule["annotations"]["sources"]
    assert "no source" not in rule["annotations"]["sources"]


def test_runbook_links_follow_the_configured_base():
    base = "https://runbooks.example.org/gpu/"
    inputs = everything(MonitoringConfig(enabled=True, runbookBaseUrl=base))
    urls = [r["annotations"]["runbook_url"] for g in rule_groups(inputs) for r in g["rules"]]
    assert urls and all(re.fullmatch(r"https://runbooks\.example\.org/gpu/[A-Z][A-Za-z]+\.md", u) for u in urls)


@pytest.mark.parametrize("name", ALL)
def test_every_alert_has_a_runbook_page_with_its_parts_and_sources(name):
    page = RUNBOOKS / f"{name}.md"
    assert page.is_file(), f"{page} is missing"
    text = page.read_text(encoding="utf-8")
    assert text.startswith(f"# {name}\n")
    for part in ("## What it means", "## Source series", "## What to check", "## How to fix"):
        assert part in text, (name, part)
    alert = next(a for a in candidates(DEFAULTS) if a.name == name)
    for series in alert.series:
        assert f"`{series}`" in text, (name, series)


def test_no_runbook_page_without_an_alert():
    pages = {p.stem for p in RUNBOOKS.glob("*.md")}
    assert pages == set(ALL)


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
