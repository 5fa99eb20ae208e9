"""kube-prometheus-stack values: rule selection, the ResourceClaim config, node labels, managed control planes."""

from __future__ import annotations

import pytest

from components.plans.monitoring import ksm as ksm_resourceclaims, values as monitoring_values
from components.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL, POOL_LABEL


def test_chart_is_pinned():
    assert monitoring_values.CHART == "kube-prometheus-stack"
    assert monitoring_values.VERSION == "81.4.3"  # a release tag; 81.4.5 never was one
    assert monitoring_values.REPOSITORY == "https://prometheus-community.github.io/helm-charts"


def test_prometheus_selects_rules_and_monitors_it_did_not_create():
    spec = monitoring_values.values("kind")["prometheus"]["prometheusSpec"]
    assert spec == {
        "ruleSelectorNilUsesHelmValues": False,
        "serviceMonitorSelectorNilUsesHelmValues": False,
        "podMonitorSelectorNilUsesHelmValues": False,
    }


def test_kube_state_metrics_gets_the_resourceclaim_config_rbac_and_node_labels():
    ksm = monitoring_values.values("kind")["kube-state-metrics"]
    assert ksm["customResourceState"] == {"enabled": True, "config": ksm_resourceclaims.config()}
    assert ksm["rbac"]["extraRules"] == [dict(r) for r in ksm_resourceclaims.RBAC_RULES]
    (allowlist,) = ksm["metricLabelsAllowlist"]
    assert allowlist.startswith("nodes=[") and POOL_LABEL in allowlist and DRA_KUBELET_PLUGIN_LABEL in allowlist


@pytest.mark.parametrize("platform, scraped", [("kind", True), ("existing", True), ("eks", False), ("aks", False)])
def test_control_plane_scrapes_only_where_reachable(platform, scraped):
    values = monitoring_values.values(platform)
    for component in ("kubeControllerManager", "kubeScheduler", "kubeEtcd"):
        assert values[component] == {"enabled": scraped}


def _gpu_operator_values(monitoring: dict):
    from components.config.loading import parse_config_map
    from components.plans.gpu_software import gpu_operator_values
    from tests.conftest import qualify

    config = {
        "cluster": {"platform": "existing", "name": "c", "kubernetesVersion": "1.35"},
        "kubeconfig": "apiVersion: v1",
        "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 2}],
        "monitoring": monitoring,
    }
    return gpu_operator_values(parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml"))


def test_gpu_operator_ships_the_dcgm_exporter_service_monitor_when_monitoring_is_on():
    assert _gpu_operator_values({"enabled": True})["dcgmExporter"]["serviceMonitor"]["enabled"] is True
    assert _gpu_operator_values({"enabled": False})["dcgmExporter"]["serviceMonitor"]["enabled"] is False


def test_dcgm_exporter_service_monitor_keeps_the_pod_labels():
    # With honorLabels false (the chart default) Prometheus renames dcgm-exporter's pod/namespace labels to
    # exported_pod/exported_namespace, and every per-pod query here finds nothing.
    assert _gpu_operator_values({"enabled": True})["dcgmExporter"]["serviceMonitor"].get("honorLabels") is True
