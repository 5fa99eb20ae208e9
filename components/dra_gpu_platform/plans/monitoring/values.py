"""Helm values for the optional kube-prometheus-stack (`monitoring.install: true`). Pure: no Pulumi imports.

Every key set here exists in the chart's values.yaml (prometheus-community/helm-charts
charts/kube-prometheus-stack/values.yaml; the kube-state-metrics subchart's charts/kube-state-metrics/values.yaml):
`prometheus.prometheusSpec.{rule,serviceMonitor,podMonitor}SelectorNilUsesHelmValues`,
`prometheus.prometheusSpec.additionalScrapeConfigs`, `prometheus.additionalRulesForClusterRole`,
`kubeControllerManager`, `kubeScheduler`, `kubeEtcd` `.enabled`, and `kube-state-metrics.metricLabelsAllowlist`.
Grafana's dashboard sidecar is on by default in the chart and watches ConfigMaps labelled `grafana_dashboard: "1"`
in all namespaces (`grafana.sidecar.dashboards.{label,labelValue,searchNamespace}`).
"""

from __future__ import annotations

from typing import Any

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import chart_releases
from dra_gpu_platform.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL, GPU_LABEL, GPU_STACK_LABEL, POOL_LABEL
from dra_gpu_platform.plans.monitoring import sources

CHART = chart_releases.KUBE_PROMETHEUS_STACK_CHART
# A released version from the facts table (81.4.5 was never released); 88.5.3's Chart.yaml: appVersion v0.93.1,
# kube-state-metrics 8.4.0 (v2.20.0) and grafana 12.11.1 subcharts (docs/references.md#kube-prometheus-stack-releases).
# Helm --timeout: the operator, its CRDs, Prometheus and Grafana become ready within minutes.
TIMEOUT_S = 900
VERSION = chart_releases.KUBE_PROMETHEUS_STACK_DEFAULT
REPOSITORY = chart_releases.KUBE_PROMETHEUS_STACK_REPO
RELEASE_NAME = "kube-prometheus-stack"

# The Grafana sidecar's default label (chart values `grafana.sidecar.dashboards.label/labelValue`).
DASHBOARD_LABEL = ("grafana_dashboard", "1")

# Node labels kube_node_labels may carry (kube-state-metrics drops all labels not allow-listed).
NODE_LABELS = (POOL_LABEL, GPU_LABEL, GPU_STACK_LABEL, DRA_KUBELET_PLUGIN_LABEL)

_SERVICE_ACCOUNT = "/var/run/secrets/kubernetes.io/serviceaccount"
# Prometheus needs `get` on these to read the EKS control-plane endpoints (awsdocs/amazon-eks-user-guide
# latest/ug/observability/view-raw-metrics.adoc:314-328).
EKS_METRICS_RULE = {
    "apiGroups": ["metrics.eks.amazonaws.com"],
    "resources": ["kcm/metrics", "ksh/metrics"],
    "verbs": ["get"],
}


def metric_labels_allowlist() -> list[str]:
    return [f"nodes=[{','.join(NODE_LABELS)}]"]


def eks_scrape_config(job: str, path: str) -> dict[str, Any]:
    """One scrape job for an EKS control-plane endpoint, as AWS documents it (view-raw-metrics.adoc:256-293):
    the API server's endpoints (default/kubernetes:https), the EKS metrics path, the pod's service account."""
    return {
        "job_name": job,
        "kubernetes_sd_configs": [{"role": "endpoints"}],
        "metrics_path": path,
        "scheme": "https",
        "tls_config": {"ca_file": f"{_SERVICE_ACCOUNT}/ca.crt", "insecure_skip_verify": True},
        "bearer_token_file": f"{_SERVICE_ACCOUNT}/token",
        "relabel_configs": [
            {
                "source_labels": [
                    "__meta_kubernetes_namespace",
                    "__meta_kubernetes_service_name",
                    "__meta_kubernetes_endpoint_port_name",
                ],
                "action": "keep",
                "regex": "default;kubernetes;https",
            }
        ],
    }


def values(config: StackConfig) -> dict[str, Any]:
    managed_control_plane = config.profile.kubernetes.managed
    prometheus: dict[str, Any] = {
        # Select every PrometheusRule/ServiceMonitor/PodMonitor, not only the chart's own: ours and the GPU
        # Operator's dcgm-exporter ServiceMonitor do not carry the release label.
        "prometheusSpec": {
            "ruleSelectorNilUsesHelmValues": False,
            "serviceMonitorSelectorNilUsesHelmValues": False,
            "podMonitorSelectorNilUsesHelmValues": False,
        }
    }
    if sources.eks_control_plane_scraped(config):
        prometheus["prometheusSpec"]["additionalScrapeConfigs"] = [
            eks_scrape_config(sources.EKS_SCHEDULER_JOB, sources.EKS_SCHEDULER_PATH),
            eks_scrape_config(sources.EKS_CONTROLLER_MANAGER_JOB, sources.EKS_CONTROLLER_MANAGER_PATH),
        ]
        prometheus["additionalRulesForClusterRole"] = [dict(EKS_METRICS_RULE)]
    return {
        "prometheus": prometheus,
        # EKS and AKS run the control plane out of reach of in-cluster scrapes; the chart's ServiceMonitors would
        # only yield "target down" alerts (EKS is read through the scrape jobs above instead).
        "kubeControllerManager": {"enabled": not managed_control_plane},
        "kubeScheduler": {"enabled": not managed_control_plane},
        "kubeEtcd": {"enabled": not managed_control_plane},
        "kube-state-metrics": {"metricLabelsAllowlist": metric_labels_allowlist()},
        "grafana": grafana_values(config.monitoring.namespace),
    }


def grafana_values(namespace: str) -> dict[str, Any]:
    """Grafana reads ConfigMaps of its own namespace only: with `rbac.namespaced` its rights are a Role there
    instead of a ClusterRole on every Secret and ConfigMap of the cluster, and its sidecars look for dashboards and
    datasources in that namespace only, in ConfigMaps (grafana chart 10.5.15 templates/clusterrole.yaml:1,13-17,
    templates/role.yaml:13,20-24, values.yaml:19-26,1122,1234; kube-prometheus-stack 81.4.3 values.yaml:1384-1390
    sets searchNamespace ALL; docs/references.md#grafana-namespaced)."""
    sidecar = {"searchNamespace": [namespace], "resource": "configmap"}
    return {"rbac": {"namespaced": True}, "sidecar": {"dashboards": dict(sidecar), "datasources": dict(sidecar)}}
