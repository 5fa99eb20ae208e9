"""kube-prometheus-stack values: rule selection, node labels, managed control planes, EKS control-plane scrapes."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL, POOL_LABEL
from dra_gpu_platform.plans.monitoring import values as monitoring_values
from tests.config.test_loading import EKS_BASE
from tests.conftest import KIND_BASE, load_committed, qualify


def _config(platform: str, install: bool = True):
    base = {"kind": KIND_BASE, "eks": EKS_BASE, "aks": load_committed("staging")}.get(platform)
    if base is None:  # existing
        base = {
            "cluster": {"platform": "existing", "name": "c", "kubernetesVersion": "1.35"},
            "kubeconfig": "apiVersion: v1",
            "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 2}],
        }
    config = {**base, "monitoring": {"enabled": True, "install": install}}
    return parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml")


def test_chart_is_pinned():
    assert monitoring_values.CHART == "kube-prometheus-stack"
    # a release tag (81.4.5 never was one); 88.5.x bundles kube-state-metrics v2.20.0, whose
    # kube_pod_resourceclaim_info DraPodClaimNotCreated reads
    assert monitoring_values.VERSION == "88.5.3"
    assert monitoring_values.REPOSITORY == "https://prometheus-community.github.io/helm-charts"


def test_prometheus_selects_rules_and_monitors_it_did_not_create():
    spec = monitoring_values.values(_config("kind"))["prometheus"]["prometheusSpec"]
    assert spec == {
        "ruleSelectorNilUsesHelmValues": False,
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "podMonitorSelectorNilUsesHelmValues": False,
    }


def test_kube_state_metrics_allow_lists_the_node_labels_and_gets_no_resourceclaim_config():
    # custom-resource-state resolves only CRDs (kube-state-metrics v2.18.0 internal/discovery/discovery.go:42-48):
    # a ResourceClaim config would produce nothing, so there is none (v2.20.0's built-in pod series
    # kube_pod_resourceclaim_info needs no config either)
    ksm = monitoring_values.values(_config("kind"))["kube-state-metrics"]
    assert set(ksm) == {"metricLabelsAllowlist"}
    (allowlist,) = ksm["metricLabelsAllowlist"]
    assert allowlist.startswith("nodes=[") and POOL_LABEL in allowlist and DRA_KUBELET_PLUGIN_LABEL in allowlist


@pytest.mark.parametrize("platform, scraped", [("kind", True), ("existing", True), ("eks", False), ("aks", False)])
def test_control_plane_scrapes_only_where_reachable(platform, scraped):
    values = monitoring_values.values(_config(platform))
    for component in ("kubeControllerManager", "kubeScheduler", "kubeEtcd"):
        assert values[component] == {"enabled": scraped}
    # EKS's control plane is read through metrics.eks.amazonaws.com instead, nowhere else
    jobs = values["prometheus"]["prometheusSpec"].get("additionalScrapeConfigs", [])
    assert [j["job_name"] for j in jobs] == (
        ["eks-kube-scheduler", "eks-kube-controller-manager"] if platform == "eks" else []
    )


def test_eks_scrape_jobs_keep_only_the_api_server_endpoint():
    (job, _) = monitoring_values.values(_config("eks"))["prometheus"]["prometheusSpec"]["additionalScrapeConfigs"]
    assert job["relabel_configs"] == [
        {
            "source_labels": [
                "__meta_kubernetes_namespace",
                "__meta_kubernetes_service_name",
                "__meta_kubernetes_endpoint_port_name",
            ],
            "action": "keep",
            "regex": "default;kubernetes;https",
        }
    ]
    assert job["scheme"] == "https" and job["bearer_token_file"].endswith("/serviceaccount/token")


def _gpu_operator_values(monitoring: dict):
    from dra_gpu_platform.config.loading import parse_config_map
    from dra_gpu_platform.plans.stack import plan_stack
    from tests.conftest import qualify

    config = {
        "cluster": {"platform": "existing", "name": "c", "kubernetesVersion": "1.35"},
        "kubeconfig": "apiVersion: v1",
        "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 2}],
        "monitoring": monitoring,
    }
    return plan_stack(parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml")).software.gpu_operator.values


def test_gpu_operator_ships_the_dcgm_exporter_service_monitor_when_monitoring_is_on():
    assert _gpu_operator_values({"enabled": True})["dcgmExporter"]["serviceMonitor"]["enabled"] is True
    assert _gpu_operator_values({"enabled": False})["dcgmExporter"]["serviceMonitor"]["enabled"] is False


def test_dcgm_exporter_service_monitor_keeps_the_pod_labels():
    # With honorLabels false (the chart default) Prometheus renames dcgm-exporter's pod/namespace labels to
    # exported_pod/exported_namespace, and every per-pod query here finds nothing.
    assert _gpu_operator_values({"enabled": True})["dcgmExporter"]["serviceMonitor"].get("honorLabels") is True
