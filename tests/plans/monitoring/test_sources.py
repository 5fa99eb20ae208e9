"""Which exporters each stack's Prometheus reads, and the property the issue asks for: for staging and for stacks
generated here, no alert and no dashboard panel reads a series the stack's declared sources cannot produce, every
label matcher names a label the source sets, and every runbook link is absolute and has a page."""

from __future__ import annotations

import copy
import dataclasses
import json
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.plans import kind
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring import metrics as m
from dra_gpu_platform.plans.monitoring.alerts import alerts, candidates
from dra_gpu_platform.plans.monitoring.plan import monitoring_plan
from dra_gpu_platform.plans.monitoring.promql import metric_names, selectors
from dra_gpu_platform.plans.monitoring.sources import dcgm_dra_pod_mapping, produced, sources
from dra_gpu_platform.plans.stack import plan_stack
from tests.config.test_loading import EKS_BASE
from tests.conftest import KIND_BASE, ROOT, load_committed, qualify, with_gpu_operator_on_dra

RUNBOOKS = ROOT / "docs" / "monitoring" / "runbooks"


def _parse(config: dict):
    return parse_config_map(qualify(config), stack="gen", source="Pulumi.gen.yaml")


def _exporters(config) -> dict[str, str]:
    return {s.exporter: s.scrape for s in sources(config)}


def check_stack(config) -> list[str]:
    plan = monitoring_plan(config)
    return [] if plan is None else check_plan(plan)


def check_plan(plan) -> list[str]:
    """Every way the stack's rules or dashboard could read something its sources do not produce."""
    available = produced(plan.sources)
    queries = [r["expr"] for g in plan.rule_groups for r in g["rules"]]
    queries += dashboard.exprs(json.loads(dashboard.dashboard_json(plan.inputs)))
    problems = []
    for expr in queries:
        for name in metric_names(expr):
            if name not in available:
                problems.append(f"{name} has no source ({expr!r})")
        for name, labels in selectors(expr):
            if name in available:
                series = m.SERIES[name]
                extra = {
                    label
                    for label in labels
                    if label not in available[name].labels(name)
                    and not (series.label_prefix and label.startswith(series.label_prefix))
                }
                if extra:
                    problems.append(f"{name} carries no {sorted(extra)} here ({expr!r})")
    for group in plan.rule_groups:
        for rule in group["rules"]:
            url = rule["annotations"]["runbook_url"]
            if not re.match(r"^https?://[^/]+/", url) or not url.endswith(f"/{rule['alert']}.md"):
                problems.append(f"{rule['alert']}: runbook_url {url!r} is not absolute")
            if not (RUNBOOKS / f"{rule['alert']}.md").is_file():
                problems.append(f"{rule['alert']}: no docs/monitoring/runbooks/{rule['alert']}.md")
            if "no source in this stack" in rule["annotations"]["sources"]:
                problems.append(f"{rule['alert']}: a series without a source")
    rendered = {r["alert"] for g in plan.rule_groups for r in g["rules"]}
    if rendered | set(plan.left_out) != {a.name for a in candidates(plan.inputs)} or rendered & set(plan.left_out):
        problems.append("rendered and left-out alerts do not partition the candidates")
    return problems


# --- staging, the committed stacks ---------------------------------------------------------------------


def test_staging_on_aks_reads_dcgm_ksm_and_the_kubelet_never_the_control_plane():
    config = _parse(load_committed("staging"))
    assert config.platform == "aks" and config.monitoring.install
    assert set(_exporters(config)) == {m.DCGM, m.KSM, m.KUBELET}
    assert "DRA pod mapping off" in _exporters(config)[m.DCGM]
    plan = monitoring_plan(config)
    assert plan.left_out == {
        "DraPodsUnschedulable": ["scheduler_unschedulable_pods"],
        "DraClaimControllerBacklog": ["workqueue_depth"],
    }
    assert "DraPodUnschedulable" in plan.alerts and "DraClaimPrepareFailing" in plan.alerts
    assert check_stack(config) == []


@pytest.mark.parametrize("stack", ["staging", "prod", "dev"])
def test_committed_stacks_read_only_produced_series(stack):
    assert check_stack(_parse(load_committed(stack))) == []


def test_the_check_catches_a_series_without_a_source_a_foreign_label_and_a_relative_link():
    plan = monitoring_plan(_parse(load_committed("staging")))
    rules = copy.deepcopy(plan.rule_groups)
    rules[0]["rules"][0]["expr"] = 'max(scheduler_unschedulable_pods{plugin="DynamicResources"}) > 0'
    rules[0]["rules"][1]["expr"] = 'kube_pod_status_unschedulable{resourceclaim="x"} > 0'
    rules[0]["rules"][2]["annotations"]["runbook_url"] = "README.md#draclaimpreparefailing"
    found = check_plan(dataclasses.replace(plan, rule_groups=rules))
    assert any("scheduler_unschedulable_pods has no source" in p for p in found)
    assert any("kube_pod_status_unschedulable carries no ['resourceclaim']" in p for p in found)
    assert any("is not absolute" in p for p in found)


# --- per platform --------------------------------------------------------------------------------------


def _eks(monitoring: dict) -> dict:
    config = copy.deepcopy(EKS_BASE)
    config["monitoring"] = monitoring
    return config


def test_eks_with_the_chart_scrapes_the_documented_control_plane_endpoints():
    config = _parse(_eks({"enabled": True, "install": True}))
    found = {s.exporter: s for s in sources(config)}
    assert found[m.SCHEDULER].series == {"scheduler_pending_pods"}
    assert found[m.CONTROLLER_MANAGER].series == {"workqueue_depth"}
    assert "metrics.eks.amazonaws.com" in found[m.CONTROLLER_MANAGER].scrape
    plan = monitoring_plan(config)
    assert "DraClaimControllerBacklog" in plan.alerts
    assert plan.left_out == {"DraPodsUnschedulable": ["scheduler_unschedulable_pods"]}
    jobs = plan.chart.values["prometheus"]["prometheusSpec"]["additionalScrapeConfigs"]
    assert [j["metrics_path"] for j in jobs] == [
        "/apis/metrics.eks.amazonaws.com/v1/ksh/container/metrics",
        "/apis/metrics.eks.amazonaws.com/v1/kcm/container/metrics",
    ]
    assert plan.chart.values["prometheus"]["additionalRulesForClusterRole"] == [
        {"apiGroups": ["metrics.eks.amazonaws.com"], "resources": ["kcm/metrics", "ksh/metrics"], "verbs": ["get"]}
    ]
    assert check_stack(config) == []


def test_without_the_chart_only_declared_exporters_count():
    bare = _parse(_eks({"enabled": True}))
    assert set(_exporters(bare)) == {m.DCGM}
    assert set(monitoring_plan(bare).alerts) == {
        "GpuXidError",
        "GpuTemperatureHigh",
        "GpuRowRemapFailure",
        "GpuUncorrectableMemoryErrors",
        "GpuAllocatedButIdle",
    }
    declared = _parse(_eks({"enabled": True, "externalSources": ["kube-state-metrics", "kubelet"]}))
    assert set(_exporters(declared)) == {m.DCGM, m.KSM, m.KUBELET}
    assert "your Prometheus" in _exporters(declared)[m.KSM]


def test_kind_with_the_operator_turns_dcgm_dra_mapping_on_and_makes_v1beta1_served():
    config = with_gpu_operator_on_dra(KIND_BASE)
    config["cluster"]["kind"] = {"gpuDriver": "nvidia"}
    config["monitoring"] = {"enabled": True, "externalSources": ["kube-scheduler", "kube-controller-manager"]}
    parsed = _parse(config)
    assert dcgm_dra_pod_mapping(parsed)
    assert kind.runtime_config(parsed)["resource.k8s.io/v1beta1"] == "true"
    assert plan_stack(parsed).software.gpu_operator.values["dcgmExporter"]["env"] == [
        {"name": "KUBERNETES_ENABLE_DRA", "value": "true"}
    ]
    plan = monitoring_plan(parsed)
    assert plan.dcgm_rbac is not None and plan.dcgm_rbac.service_account == "nvidia-dcgm-exporter"
    assert plan.dcgm_rbac.rules == (
        {"apiGroups": ["resource.k8s.io"], "resources": ["resourceslices"], "verbs": ["get", "list", "watch"]},
    )
    assert "gpus_by_claim" in dashboard.panel_queries(plan.inputs)
    # kube-scheduler and the controller manager only because the stack says its Prometheus scrapes them
    assert {"DraPodsUnschedulable", "DraClaimControllerBacklog"} <= set(plan.alerts)
    assert check_stack(parsed) == []
    config["monitoring"]["dcgmDraPodMapping"] = False
    off = _parse(config)
    assert not dcgm_dra_pod_mapping(off) and "env" not in plan_stack(off).software.gpu_operator.values["dcgmExporter"]
    assert "resource.k8s.io/v1beta1" not in kind.runtime_config(off)
    assert monitoring_plan(off).dcgm_rbac is None


def test_no_dcgm_dra_mapping_on_managed_clusters():
    config = _parse(load_committed("staging"))
    assert not dcgm_dra_pod_mapping(config)
    assert "env" not in plan_stack(config).software.gpu_operator.values["dcgmExporter"]
    with pytest.raises(InputError) as caught:
        staging = load_committed("staging")
        staging["monitoring"] = {**staging["monitoring"], "dcgmDraPodMapping": True}
        _parse(staging)
    (problem,) = [p for p in caught.value.problems if p.path == "monitoring.dcgmDraPodMapping"]
    assert "v1beta1" in problem.rule


@pytest.mark.parametrize(
    "monitoring, path, words",
    [
        ({"enabled": True, "externalSources": ["kube-scheduler"]}, "monitoring.externalSources[0]", "Azure Monitor"),
        (
            {"enabled": True, "install": True, "externalSources": ["kubelet"]},
            "monitoring.externalSources[0]",
            "scrapes it",
        ),
        ({"enabled": True, "runbookBaseUrl": "docs/monitoring/runbooks"}, "monitoring.runbookBaseUrl", "absolute"),
        ({"enabled": True, "namespace": "Monitoring"}, "monitoring.namespace", "DNS label"),
    ],
)
def test_monitoring_config_mistakes_are_reported_with_their_path(monitoring, path, words):
    staging = load_committed("staging")
    staging["monitoring"] = monitoring
    with pytest.raises(InputError) as caught:
        _parse(staging)
    rules = {p.path: p.rule for p in caught.value.problems}
    assert words in rules[path], rules


# --- generated stacks ----------------------------------------------------------------------------------

BASES = {"kind": KIND_BASE, "eks": EKS_BASE, "aks": load_committed("staging")}


@st.composite
def stacks(draw) -> dict:
    platform = draw(st.sampled_from(sorted(BASES)))
    config = copy.deepcopy(BASES[platform])
    external = ["kube-state-metrics", "kubelet"]
    if platform == "kind":
        external += ["kube-scheduler", "kube-controller-manager"]
        if draw(st.booleans()):
            config = with_gpu_operator_on_dra(config)
            config["cluster"]["kind"] = {"gpuDriver": "nvidia"}
    install = draw(st.booleans())
    allowed = [e for e in external if not install or e not in ("kube-state-metrics", "kubelet")]
    declared = draw(st.lists(st.sampled_from(allowed), unique=True, max_size=4)) if allowed else []
    monitoring = {
        "enabled": True,
        "install": install,
        "dashboard": draw(st.booleans()),
        "claimPendingMinutes": draw(st.integers(1, 1440)),
        "gpuTemperatureCelsius": draw(st.integers(40, 120)),
        "idleGpuUtilizationPercent": draw(st.integers(0, 100)),
        "idleGpuMinutes": draw(st.integers(5, 10080)),
        "runbookBaseUrl": draw(st.sampled_from(["https://wiki.example.org/runbooks", "http://docs.internal/gpu/"])),
        "externalSources": declared,
    }
    if platform == "kind" and "gpuOperator" in config:
        monitoring["dcgmDraPodMapping"] = draw(st.sampled_from([None, True, False]))
    config["monitoring"] = {k: v for k, v in monitoring.items() if v is not None}
    if draw(st.booleans()):  # no DRA namespace at all
        config["namespaces"] = [ns for ns in config.get("namespaces", []) if ns.get("migration") == "legacy"]
    return config


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(stacks())
def test_generated_stacks_read_only_what_their_sources_produce(config):
    parsed = _parse(config)
    assert check_stack(parsed) == []
    plan = monitoring_plan(parsed)
    # the DRA GPU alerts never vanish silently: each missing one is listed with the series it lacks
    assert set(plan.alerts) | set(plan.left_out) == {a.name for a in candidates(plan.inputs)}
    assert plan.alerts == tuple(a.name for a in alerts(plan.inputs))


def test_under_a_gpucluster_the_operators_dcgm_exporter_maps_dra_pods_by_itself():
    # gpu-operator v26.7.0 manifests/state-dcgm-exporter/0700_daemonset.yaml:102-106 and 0210_clusterrole.yaml
    config = _eks({"enabled": True, "install": True})
    config["gpuOperator"] = {"version": "v26.7.0", "draManagement": "gpucluster"}
    config["nodePools"] = [p for p in config["nodePools"] if p.get("gpuStack", "dra") == "dra"]
    config["namespaces"] = [{**config["namespaces"][0], "migration": "dra-only"}]  # no device-plugin pool left
    parsed = _parse(config)
    assert dcgm_dra_pod_mapping(parsed)
    dcgm = next(s for s in sources(parsed) if s.exporter == m.DCGM)
    assert "dra_claim_name" in dcgm.extra_labels and "dcgm-exporter-dra" in dcgm.scrape
    plan = monitoring_plan(parsed)
    assert plan.dcgm_rbac is None  # the operator grants its own dcgm-exporter-dra ResourceSlice reads
    assert {"gpus_by_claim", "pod_claims_by_namespace"} <= set(dashboard.panel_queries(plan.inputs))
    assert check_stack(parsed) == []
    # the ClusterPolicy's dcgm-exporter on EKS: still off (v1beta1 only in the newest readable dcgm-exporter)
    assert not dcgm_dra_pod_mapping(_parse(_eks({"enabled": True, "install": True})))


def test_the_pinned_kube_state_metrics_feeds_the_claim_alert():
    plan = monitoring_plan(_parse(_eks({"enabled": True, "install": True})))
    ksm = next(s for s in plan.sources if s.exporter == m.KSM)
    assert "v2.20.0" in ksm.scrape and "kube_pod_resourceclaim_info" in ksm.series
    assert "DraPodClaimNotCreated" in plan.alerts
