"""The metric allow-list, the PromQL name extraction that enforces it, and the ResourceClaim KSM config."""

from __future__ import annotations

import json

import pytest

from components.plans.monitoring import dashboard, ksm as ksm_resourceclaims
from components.config.models import MonitoringConfig
from components.plans.monitoring.metrics import ALLOWED, INVENTED, unknown
from components.plans.monitoring.promql import PromQLNameError, metric_names, names
from components.plans.monitoring.alerts import expressions, rule_groups

CONFIGS = [
    MonitoringConfig(enabled=True),
    MonitoringConfig(enabled=True, claim_pending_minutes=90, idle_gpu_utilization_percent=0, idle_gpu_minutes=5),
]


# --- the extractor -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("up", {"up"}),
        ('sum by (namespace, pod) (rate(foo_total{job="a", pod!=""}[5m]))', {"foo_total"}),
        ("a / on (node) group_left (label_x) b", {"a", "b"}),
        ("max without (instance) (x) > bool 3", {"x"}),
        ("x offset 1h30m unless ignoring (le) y", {"x", "y"}),
        ('label_replace(m, "dst", "$1", "src_metric_like", "(.*)")', {"m"}),
        ("count(a) or vector(0)", {"a"}),
        ("1e3 * time() - c", {"c"}),
        ('avg_over_time(x{a="}{"}[$__rate_interval]) * ${scale}', {"x"}),
        ("sum(x) by (namespace)", {"x"}),
        ("ns:recorded:rate5m", {"ns:recorded:rate5m"}),
        ('{__name__="hidden"}', set()),
    ],
)
def test_metric_names_finds_only_metrics(expr, expected):
    assert metric_names(expr) == expected


def test_functions_are_told_apart_from_metrics():
    found = names("histogram_quantile(0.9, sum by (le) (rate(h_bucket[5m])))")
    assert found.metrics == {"h_bucket"} and found.functions == {"histogram_quantile", "sum", "rate"}


def test_an_unknown_function_is_an_error_not_a_metric():
    with pytest.raises(PromQLNameError, match="rat"):
        metric_names("rat(foo[5m])")


# --- the allow-list ------------------------------------------------------------------------------------


def test_every_entry_names_its_exporter_and_upstream_file():
    for name, source in ALLOWED.items():
        assert source.exporter and "/" in source.reference, name
        if name.startswith("DCGM_FI_"):
            assert source.exporter == "dcgm-exporter" and "NVIDIA/dcgm-exporter etc/" in source.reference
        elif name.startswith("scheduler_"):
            assert "pkg/scheduler/metrics/metrics.go" in source.reference
        elif name.startswith("kube_customresource_"):
            assert "monitoring/ksm.py" in source.reference
        else:
            assert name.startswith("kube_") and "kubernetes/kube-state-metrics docs/" in source.reference, name


def test_invented_article_metrics_are_not_allowed():
    assert not set(INVENTED) & set(ALLOWED)
    assert unknown(set(INVENTED)) == sorted(INVENTED)


def test_our_kube_state_metrics_names_are_what_its_config_generates():
    # kube-state-metrics names a custom-resource-state metric metricNamePrefix + "_" + name (docs: #naming)
    document = ksm_resourceclaims.config()
    (resource,) = document["spec"]["resources"]
    generated = {f"{resource['metricNamePrefix']}_{m['name']}" for m in resource["metrics"]}
    ours = {n for n, s in ALLOWED.items() if "monitoring/ksm.py" in s.reference}
    assert ours == generated == set(ksm_resourceclaims.METRIC_NAMES)
    for constant in (ksm_resourceclaims.CREATED, ksm_resourceclaims.ALLOCATED_DEVICE_INFO,
                     ksm_resourceclaims.REQUEST_INFO, ksm_resourceclaims.SUBREQUEST_INFO):
        assert constant in generated


def test_kube_state_metrics_config_targets_the_v1_resourceclaim_api():
    (resource,) = ksm_resourceclaims.config()["spec"]["resources"]
    assert resource["groupVersionKind"] == {"group": "resource.k8s.io", "version": "v1", "kind": "ResourceClaim"}
    assert resource["labelsFromPath"] == {"namespace": ["metadata", "namespace"], "resourceclaim": ["metadata", "name"]}
    by_name = {m["name"]: m for m in resource["metrics"]}
    assert by_name["resourceclaim_created"]["each"]["gauge"]["valueFrom"] == ["creationTimestamp"]
    # v1 field paths (docs/references.md#dra-api-request-shapes, docs/references.md#dra-api-allocation-status):
    # requests[].exactly.deviceClassName, results[] of status.allocation.devices
    assert by_name["resourceclaim_request_info"]["each"]["info"]["labelsFromPath"]["device_class"] == ["exactly", "deviceClassName"]
    assert by_name["resourceclaim_allocated_device_info"]["each"]["info"]["path"] == ["status", "allocation", "devices", "results"]
    assert {"apiGroups": ["resource.k8s.io"], "resources": ["resourceclaims"], "verbs": ["list", "watch"]} in ksm_resourceclaims.RBAC_RULES


# --- every query of the rules and the dashboard --------------------------------------------------------


@pytest.mark.parametrize("config", CONFIGS)
def test_rules_and_dashboard_use_only_allowed_metrics(config):
    queries = expressions(rule_groups(config)) + dashboard.exprs(json.loads(dashboard.dashboard_json(config)))
    assert len(queries) > 20
    for query in queries:
        assert unknown(metric_names(query)) == [], query


def test_every_allowed_metric_is_used():
    config = MonitoringConfig(enabled=True)
    queries = expressions(rule_groups(config)) + dashboard.exprs(json.loads(dashboard.dashboard_json(config)))
    used = set().union(*(metric_names(q) for q in queries))
    assert set(ALLOWED) - used == set()
