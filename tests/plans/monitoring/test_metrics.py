"""The series catalog, the PromQL name and matcher extraction that enforces it, and the promtool inputs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring.alerts import candidates
from dra_gpu_platform.plans.monitoring.metrics import EXPORTERS, INVENTED, SERIES, unknown
from dra_gpu_platform.plans.monitoring.promql import PromQLNameError, metric_names, names, selectors
from tests.conftest import ROOT
from tests.monitoring_support import PROMTOOL_TESTS, every_source, everything

INPUTS = [
    everything(),
    everything(MonitoringConfig(enabled=True, claimPendingMinutes=90, idleGpuUtilizationPercent=0, idleGpuMinutes=5)),
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


@pytest.mark.parametrize(
    "expr, expected",
    [
        ('a{x="1", y!~"2"} + b', [("a", {"x", "y"})]),
        ('sum(rate(c{job="k", le=~"0.5|1"}[5m])) by (le)', [("c", {"job", "le"})]),
        ('d{v="{not=a,label}"}', [("d", {"v"})]),
        ('{__name__="hidden", z="1"}', [(None, {"z"})]),
        ("e", []),
    ],
)
def test_selectors_name_the_matched_labels(expr, expected):
    assert [(n, set(labels)) for n, labels in selectors(expr)] == expected


# --- the catalog ---------------------------------------------------------------------------------------


def test_every_series_names_its_exporter_labels_and_upstream_source():
    for name, series in SERIES.items():
        assert series.exporter in EXPORTERS, name
        assert series.labels and "@" in series.reference and "/" in series.reference, name
        if name.startswith("DCGM_FI_"):
            assert series.reference.startswith("NVIDIA/dcgm-exporter@4.4.2-4.7.0 ")
        elif name.startswith("kube_"):
            assert series.reference.startswith("kubernetes/kube-state-metrics@v2.20.0 docs/metrics/")
        else:
            assert series.reference.startswith("kubernetes/kubernetes@v1.34"), name


def test_no_kube_state_metrics_resourceclaim_series_and_no_invented_names():
    # kube-state-metrics' custom-resource-state resolves CRDs only (docs/references.md, Monitoring)
    assert not [n for n in SERIES if n.startswith("kube_customresource_")]
    assert not set(INVENTED) & set(SERIES)
    assert unknown(set(INVENTED)) == sorted(INVENTED)


# --- every query of every alert and panel --------------------------------------------------------------


def _labels_ok(expr: str) -> list[str]:
    by_exporter = {s.exporter: s for s in every_source()}
    problems = []
    for name, labels in selectors(expr):
        if name is None:
            problems.append(f"selector without a metric name in {expr!r}")
            continue
        series = SERIES[name]
        allowed = by_exporter[series.exporter].labels(name)
        extra = {
            label
            for label in labels
            if label not in allowed and not (series.label_prefix and label.startswith(series.label_prefix))
        }
        if extra:
            problems.append(f"{name} has no labels {sorted(extra)}")
    return problems


@pytest.mark.parametrize("inputs", INPUTS)
def test_rules_and_dashboard_read_only_catalog_series_and_their_labels(inputs):
    queries = [a.expr for a in candidates(inputs)]
    queries += dashboard.exprs(json.loads(dashboard.dashboard_json(inputs)))
    assert len(queries) > 25
    for query in queries:
        assert unknown(metric_names(query)) == [], query
        assert _labels_ok(query) == [], query


def test_a_label_the_exporter_does_not_set_is_caught():
    assert _labels_ok('kube_pod_status_unschedulable{resourceclaim="x"}') == [
        "kube_pod_status_unschedulable has no labels ['resourceclaim']"
    ]


def test_every_catalog_series_is_used():
    inputs = everything()
    queries = [a.expr for a in candidates(inputs)] + dashboard.exprs(json.loads(dashboard.dashboard_json(inputs)))
    used = set().union(*(metric_names(q) for q in queries))
    assert set(SERIES) - used == set()


# --- the promtool inputs are what the exporters produce ------------------------------------------------


def _input_series(path: Path) -> list[str]:
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [s["series"] for test in document["tests"] for s in test["input_series"]]


@pytest.mark.parametrize("path", sorted(PROMTOOL_TESTS.glob("*_test.yaml")), ids=lambda p: p.name)
def test_promtool_input_series_use_real_names_and_labels(path):
    series = _input_series(path)
    assert series
    for text in series:
        (name,) = metric_names(text)
        assert name in SERIES, text
        assert _labels_ok(text) == [], text


def test_every_catalog_source_is_in_the_references_monitoring_section():
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    section = text[text.index("## Monitoring") :]
    for name, series in SERIES.items():
        repository, _, rest = series.reference.partition("@")
        tag = rest.split(" ")[0]
        if repository == "kubernetes/kubernetes":
            assert "Metrics Reference generated for v1.34" in section, name
        else:
            assert f"{repository}@{tag}" in section, (name, repository, tag)
