"""The Grafana dashboard: built with grafana-foundation-sdk, JSON that round-trips through the SDK's
dashboard model, the panels the issue asks for, thresholds from the stack."""

from __future__ import annotations

import json

import pytest
from grafana_foundation_sdk.models import dashboard as model

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring.alerts import RuleInputs
from tests.monitoring_support import every_source, everything

DEFAULTS = everything()


@pytest.fixture(scope="module")
def exported():
    return dashboard.dashboard_json(DEFAULTS)


@pytest.fixture(scope="module")
def document(exported):
    return json.loads(exported)


def _panels(document):
    return [p for p in document["panels"] if p["type"] != "row"]


def test_json_round_trips_through_the_sdk_model(exported):
    decoded = dashboard.from_json(exported)
    assert isinstance(decoded, model.Dashboard)
    assert dashboard.to_json(decoded) == exported
    # decoding is typed, not a dict passthrough: panels and their queries come back as SDK models
    panel = next(p for p in decoded.panels if isinstance(p, model.Panel))
    assert type(panel.targets[0]).__module__.endswith("models.prometheus")


def test_round_trip_would_notice_a_changed_field(exported):
    tampered = json.loads(exported)
    tampered["panels"][1]["targets"][0]["expr"] = "up"
    assert dashboard.to_json(dashboard.from_json(json.dumps(tampered))) != exported


def test_identity_and_datasource_variable(document):
    assert document["uid"] == "dra-gpu-platform" and document["title"] == "DRA GPU platform"
    (variable,) = document["templating"]["list"]
    assert variable["type"] == "datasource" and variable["name"] == "datasource" and variable["query"] == "prometheus"
    for panel in _panels(document):
        assert panel["datasource"] == {"type": "prometheus", "uid": "${datasource}"}, panel["title"]


def test_panels_cover_what_the_issue_asks_for(document):
    titles = {p["title"] for p in _panels(document)}
    for wanted in (
        "GPU utilisation by namespace",
        "GPU utilisation by pod",
        "GPU memory used by namespace",
        "GPU memory used by pod",
        "Unschedulable pods in DRA namespaces",
        "ResourceClaims in use, by node",
        "GPUs in use by DRA claim",
        "XID errors (last code per GPU)",
        "Nodes by pool",
    ):
        assert wanted in titles
    assert any(t.startswith("Idle GPUs by DRA claim") for t in titles)
    rows = [p["title"] for p in document["panels"] if p["type"] == "row"]
    assert rows == ["DRA allocation", "GPU utilisation and memory", "GPU health", "Nodes"]


def test_panels_whose_series_no_source_produces_are_left_out():
    dcgm_only = RuleInputs(
        DEFAULTS.settings, tuple(s for s in every_source(dra_labels=False) if s.exporter == "dcgm-exporter")
    )
    keys = set(dashboard.panel_queries(dcgm_only))
    assert keys == {
        "uncorrectable_memory_errors",
        "util_by_namespace",
        "util_by_pod",
        "memory_by_namespace",
        "memory_by_pod",
        "xid_errors",
        "temperature",
    }
    rows = [p["title"] for p in json.loads(dashboard.dashboard_json(dcgm_only))["panels"] if p["type"] == "row"]
    assert rows == ["DRA allocation", "GPU utilisation and memory", "GPU health"]


def test_every_panel_queries_with_distinct_ref_ids(document):
    for panel in _panels(document):
        ref_ids = [t["refId"] for t in panel["targets"]]
        assert ref_ids and len(set(ref_ids)) == len(ref_ids) and all(ref_ids), panel["title"]
        assert all(t["expr"].strip() for t in panel["targets"])


def test_units_match_the_metrics(document):
    units = {p["title"]: p["fieldConfig"]["defaults"].get("unit") for p in _panels(document)}
    assert units["GPU utilisation by pod"] == "percent"
    assert units["GPU memory used by pod"] == "mbytes"  # DCGM_FI_DEV_FB_USED is MiB
    assert units["GPU temperature"] == "celsius"


def test_panels_do_not_overlap(document):
    cells = set()
    for panel in document["panels"]:
        grid = panel["gridPos"]
        for x in range(grid["x"], grid["x"] + grid["w"]):
            for y in range(grid["y"], grid["y"] + grid["h"]):
                assert (x, y) not in cells, panel["title"]
                cells.add((x, y))


def test_thresholds_from_the_stack_shape_the_queries():
    custom = everything(MonitoringConfig(enabled=True, gpuTemperatureCelsius=90, idleGpuUtilizationPercent=12))
    queries = dashboard.panel_queries(custom)
    assert queries["idle_gpus_by_claim"][0].startswith("Idle GPUs by DRA claim (< 12%")
    assert "< 12" in queries["idle_gpus_by_claim"][1][0][0]
    assert dashboard.dashboard_json(custom) != dashboard.dashboard_json(DEFAULTS)
    temperature = next(
        p for p in json.loads(dashboard.dashboard_json(custom))["panels"] if p["title"] == "GPU temperature"
    )
    assert "90 C" in temperature["description"]


def test_exprs_finds_every_query(document):
    expected = sum(len(entries) for _title, entries in dashboard.panel_queries(DEFAULTS).values())
    assert len(dashboard.exprs(document)) == expected
