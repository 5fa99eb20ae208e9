"""Which exporters a stack's Prometheus really reads, and how. Pure: no Pulumi imports.

dra_gpu_platform/plans/monitoring/metrics.py says which series exist; this module says which of them reach the
Prometheus that evaluates our rules, per stack:

- dcgm-exporter: the GPU Operator's DaemonSet and ServiceMonitor (`dcgmExporter.serviceMonitor.enabled`, set by
  dra_gpu_platform/plans/gpu_software.py whenever monitoring is on). The dra_* labels only with the DRA pod mapping.
- kube-state-metrics and the kubelet: the pinned kube-prometheus-stack's own ServiceMonitors (`install: true`),
  or the user's Prometheus when `monitoring.externalSources` names them.
- kube-scheduler and kube-controller-manager: never reachable in-cluster on AKS (control-plane metrics go only to
  Azure Monitor), only through `metrics.eks.amazonaws.com` on EKS (a scrape job this stack adds, and only the
  metrics EKS documents), and on kind/existing only when `externalSources` says the user's Prometheus scrapes them
  (kind's kubeadm binds both to 127.0.0.1).
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import chart_releases
from dra_gpu_platform.plans.monitoring import metrics as m

# Labels the Prometheus Operator puts on every ServiceMonitor target (prometheus-operator v0.88.1
# pkg/prometheus/promcfg.go: namespace/service/pod/container/endpoint, and `node` for endpoints of kind Node,
# :2005-2011), plus Prometheus' own job and instance.
SERVICE_MONITOR_LABELS = frozenset({"job", "instance", "namespace", "service", "pod", "container", "endpoint"})
SCRAPE_JOB_LABELS = frozenset({"job", "instance"})

# The metrics the EKS endpoints are documented to serve (awsdocs/amazon-eks-user-guide
# latest/ug/observability/view-raw-metrics.adoc:156-220); the rest may not be there.
EKS_SCHEDULER_SERIES = frozenset({"scheduler_pending_pods"})
EKS_CONTROLLER_MANAGER_SERIES = frozenset({"workqueue_depth"})
EKS_SCHEDULER_PATH = "/apis/metrics.eks.amazonaws.com/v1/ksh/container/metrics"
EKS_CONTROLLER_MANAGER_PATH = "/apis/metrics.eks.amazonaws.com/v1/kcm/container/metrics"
EKS_SCHEDULER_JOB = "eks-kube-scheduler"
EKS_CONTROLLER_MANAGER_JOB = "eks-kube-controller-manager"


@dataclass(frozen=True)
class Source:
    exporter: str
    scrape: str  # how the Prometheus reads it, in words (runbooks and the preview show it)
    series: frozenset[str]
    extra_labels: frozenset[str] = frozenset()  # added by the scrape or by an exporter option

    def labels(self, name: str) -> frozenset[str]:
        return m.labels_of(name, self.extra_labels)


def _of(exporter: str) -> frozenset[str]:
    return frozenset(name for name, series in m.SERIES.items() if series.exporter == exporter)


def dcgm_dra_pod_mapping(config: StackConfig) -> bool:
    """dcgm-exporter's KUBERNETES_ENABLE_DRA. It lists resource.k8s.io/v1beta1 ResourceSlices and waits for
    that list before serving anything (NVIDIA/dcgm-exporter@4.4.2-4.7.0 internal/pkg/transformation/dra.go:43,71;
    still v1beta1 at 4.5.3-4.8.2, the newest tag that could be read: docs/references.md#dcgm-exporter-dra-api),
    and v1beta1 is off by default from Kubernetes 1.34: on only where the cluster serves it. This stack makes
    kind serve it (dra_gpu_platform/plans/kind.py); an existing cluster's owner says so with dcgmDraPodMapping: true;
    EKS and AKS expose no --runtime-config (config rules reject true there). Under a GPUCluster the operator runs
    its own dcgm-exporter with the mapping always on (gpu-operator v26.7.0
    manifests/state-dcgm-exporter/0700_daemonset.yaml:102-106, with resourceslices read rights in 0210_clusterrole.yaml)."""
    monitoring = config.monitoring
    if not (monitoring.enabled and config.gpu_operator_enabled and config.dra_pools):
        return False
    if config.uses_gpu_cluster:
        return True
    if monitoring.dcgm_dra_pod_mapping is not None:
        return monitoring.dcgm_dra_pod_mapping
    return config.profile.kubernetes.sets_feature_gates  # kind: the stack turns resource.k8s.io/v1beta1 on


def eks_control_plane_scraped(config: StackConfig) -> bool:
    return config.profile.kubernetes.metrics == "stack" and config.monitoring.install


def sources(config: StackConfig) -> tuple[Source, ...]:
    monitoring = config.monitoring
    if not monitoring.enabled:
        return ()
    external = set(monitoring.external_sources)
    found: list[Source] = []
    if config.gpu_operator_enabled:
        dra = dcgm_dra_pod_mapping(config)
        found.append(
            Source(
                m.DCGM,
                (
                    "GPU Operator GPUCluster dcgm-exporter-dra"
                    if config.uses_gpu_cluster
                    else "GPU Operator dcgm-exporter"
                )
                + " ServiceMonitor (honorLabels)"
                + (", DRA pod mapping on (KUBERNETES_ENABLE_DRA)" if dra else ", DRA pod mapping off"),
                _of(m.DCGM),
                SERVICE_MONITOR_LABELS | (m.DCGM_DRA_LABELS if dra else frozenset()),
            )
        )
    for exporter, chart_scrape in (
        (m.KSM, f"kube-prometheus-stack kube-state-metrics {chart_releases.KUBE_STATE_METRICS_VERSION} ServiceMonitor"),
        (m.KUBELET, "kube-prometheus-stack kubelet ServiceMonitor (/metrics, label node)"),
    ):
        if monitoring.install:
            found.append(
                Source(exporter, chart_scrape, _of(exporter), SERVICE_MONITOR_LABELS | {"node", "metrics_path"})
            )
        elif exporter in external:
            found.append(
                Source(
                    exporter,
                    "your Prometheus (monitoring.externalSources)",
                    _of(exporter),
                    SCRAPE_JOB_LABELS | {"node"},
                )
            )
    for exporter, eks_series, job in (
        (m.SCHEDULER, EKS_SCHEDULER_SERIES, EKS_SCHEDULER_JOB),
        (m.CONTROLLER_MANAGER, EKS_CONTROLLER_MANAGER_SERIES, EKS_CONTROLLER_MANAGER_JOB),
    ):
        if exporter in external and config.profile.kubernetes.metrics == "external":
            found.append(
                Source(exporter, "your Prometheus (monitoring.externalSources)", _of(exporter), SCRAPE_JOB_LABELS)
            )
        elif eks_control_plane_scraped(config):
            found.append(
                Source(
                    exporter, f"EKS metrics.eks.amazonaws.com endpoint, scrape job {job}", eks_series, SCRAPE_JOB_LABELS
                )
            )
    return tuple(found)


def produced(found: tuple[Source, ...]) -> dict[str, Source]:
    """Series name -> the source that delivers it."""
    return {name: source for source in found for name in source.series}
