"""Helm values for the optional kube-prometheus-stack (`monitoring.install: true`). Pure: no Pulumi imports.

Every key set here exists in the chart's values.yaml (prometheus-community/helm-charts
charts/kube-prometheus-stack/values.yaml; the kube-state-metrics subchart's charts/kube-state-metrics/values.yaml):
`prometheus.prometheusSpec.{rule,serviceMonitor,podMonitor}SelectorNilUsesHelmValues`, `kubeControllerManager`,
`kubeScheduler`, `kubeEtcd` `.enabled`, and under `kube-state-metrics`: `metricLabelsAllowlist`,
`customResourceState.{enabled,config}` (rendered into the chart's own ConfigMap, templates/crs-configmap.yaml) and
`rbac.extraRules`. Grafana's dashboard sidecar is on by default in the chart and watches ConfigMaps labelled
`grafana_dashboard: "1"` in all namespaces (`grafana.sidecar.dashboards.{label,labelValue,searchNamespace}`).
"""

from __future__ import annotations

from typing import Any

from components.facts import chart_releases
from components.plans.monitoring import ksm as ksm_resourceclaims
from components.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL, GPU_LABEL, GPU_STACK_LABEL, POOL_LABEL

CHART = chart_releases.KUBE_PROMETHEUS_STACK_CHART
# A released version from the facts table (81.4.5 was never released); its Chart.yaml: appVersion v0.88.1,
# kube-state-metrics 7.1.0 and grafana 10.5.15 subcharts.
VERSION = chart_releases.KUBE_PROMETHEUS_STACK_DEFAULT
REPOSITORY = chart_releases.KUBE_PROMETHEUS_STACK_REPO
RELEASE_NAME = "kube-prometheus-stack"
NAMESPACE = "monitoring"

# The Grafana sidecar's default label (chart values `grafana.sidecar.dashboards.label/labelValue`).
DASHBOARD_LABEL = ("grafana_dashboard", "1")

# Node labels kube_node_labels may carry (kube-state-metrics drops all labels not allow-listed).
NODE_LABELS = (POOL_LABEL, GPU_LABEL, GPU_STACK_LABEL, DRA_KUBELET_PLUGIN_LABEL)


def metric_labels_allowlist() -> list[str]:
    return [f"nodes=[{','.join(NODE_LABELS)}]"]


def values(platform: str) -> dict[str, Any]:
    managed_control_plane = platform in ("eks", "aks")
    return {
        # Select every PrometheusRule/ServiceMonitor/PodMonitor, not only the chart's own: ours and the GPU
        # Operator's dcgm-exporter ServiceMonitor do not carry the release label.
        "prometheus": {
            "prometheusSpec": {
                "ruleSelectorNilUsesHelmValues": False,
                "serviceMonitorSelectorNilUsesHelmValues": False,
                "podMonitorSelectorNilUsesHelmValues": False,
            }
        },
        # EKS and AKS run the control plane out of reach of in-cluster scrapes; scraping it only yields
        # "target down" alerts. kube-scheduler metrics (DraPodsUnschedulable) then need the provider's endpoint.
        "kubeControllerManager": {"enabled": not managed_control_plane},
        "kubeScheduler": {"enabled": not managed_control_plane},
        "kubeEtcd": {"enabled": not managed_control_plane},
        "kube-state-metrics": {
            "metricLabelsAllowlist": metric_labels_allowlist(),
            "customResourceState": {"enabled": True, "config": ksm_resourceclaims.config()},
            "rbac": {"extraRules": [dict(rule) for rule in ksm_resourceclaims.RBAC_RULES]},
        },
    }
