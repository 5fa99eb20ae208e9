"""kube-prometheus-stack values: rule selection, the ResourceClaim config, node labels, managed control planes."""

from __future__ import annotations

import pytest

from components import ksm_resourceclaims, monitoring_values
from components.node_labels import DRA_KUBELET_PLUGIN_LABEL, POOL_LABEL


def test_chart_is_pinned():
    assert monitoring_values.CHART == "kube-prometheus-stack"
    assert monitoring_values.VERSION == "81.4.5"
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
