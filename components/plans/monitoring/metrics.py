"""THE allow-list: every metric name the alert rules and the dashboard may read, with where it comes from.
Pure: no Pulumi imports.

Articles about DRA monitoring invent metrics (dra_constraint_violations_total, dra_allocation_duration_seconds,
kube_resourceclaim_status_allocation_state, a `resourceclaim` label on DCGM metrics). Nothing here is taken
from an article: each entry names the upstream file that defines or documents it, and the tests parse every
query of the rules and the dashboard and fail on any name missing from this list.
"""

from __future__ import annotations

from dataclasses import dataclass

from components.plans.monitoring import ksm as ksm_resourceclaims


@dataclass(frozen=True)
class MetricSource:
    exporter: str  # who exposes it
    reference: str  # repository and file (or doc) that defines it
    note: str = ""


# GPU Operator's dcgm-exporter DaemonSet sets DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv
# (NVIDIA/gpu-operator assets/state-dcgm-exporter/0800_daemonset.yaml), so that file, not default-counters.csv,
# decides which DCGM fields are exported on GPU Operator clusters.
_DCGM_OPERATOR = "NVIDIA/dcgm-exporter etc/dcp-metrics-included.csv"
_DCGM_BOTH = "NVIDIA/dcgm-exporter etc/dcp-metrics-included.csv and etc/default-counters.csv"
_SCHEDULER = "kubernetes/kubernetes pkg/scheduler/metrics/metrics.go"
_KSM_POD = "kubernetes/kube-state-metrics docs/metrics/workload/pod-metrics.md"
_KSM_NODE = "kubernetes/kube-state-metrics docs/metrics/cluster/node-metrics.md"
_OURS = (
    "this package's kube-state-metrics custom-resource-state config (components/plans/monitoring/ksm.py); "
    "name = metricNamePrefix + '_' + metric name, kubernetes/kube-state-metrics "
    "docs/metrics/extend/customresourcestate-metrics.md#naming"
)

ALLOWED: dict[str, MetricSource] = {
    # --- dcgm-exporter (labels: gpu, UUID, device, modelName, Hostname/hostname; pod, namespace, container from
    # its Kubernetes mapping, internal/pkg/transformation/const.go; dra_claim_name, dra_claim_namespace,
    # dra_pool_name, dra_device_name, dra_driver_name with KUBERNETES_ENABLE_DRA, same file)
    "DCGM_FI_DEV_GPU_UTIL": MetricSource("dcgm-exporter", _DCGM_BOTH, "gauge, GPU utilization (in %)"),
    "DCGM_FI_DEV_FB_USED": MetricSource("dcgm-exporter", _DCGM_BOTH, "gauge, framebuffer memory used (in MiB)"),
    "DCGM_FI_DEV_GPU_TEMP": MetricSource("dcgm-exporter", _DCGM_BOTH, "gauge, GPU temperature (in C)"),
    "DCGM_FI_DEV_XID_ERRORS": MetricSource("dcgm-exporter", _DCGM_BOTH, "gauge, value of the last XID error"),
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": MetricSource(
        "dcgm-exporter", _DCGM_BOTH, "counter, remapped rows for uncorrectable errors (Ampere and newer)"
    ),
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": MetricSource("dcgm-exporter", _DCGM_BOTH, "gauge, whether row remapping failed"),
    "DCGM_FI_DEV_RETIRED_DBE": MetricSource(
        "dcgm-exporter", _DCGM_OPERATOR,
        "counter, pages retired after double-bit ECC errors (Volta/Turing, e.g. T4); commented out in default-counters.csv",
    ),
    # --- kube-scheduler
    "scheduler_unschedulable_pods": MetricSource(
        "kube-scheduler", _SCHEDULER, "gauge by plugin and profile; the DRA plugin is named DynamicResources"
    ),
    "scheduler_pending_pods": MetricSource("kube-scheduler", _SCHEDULER, "gauge by queue (active, backoff, unschedulable, gated)"),
    # --- kube-state-metrics built-in resources
    "kube_pod_info": MetricSource("kube-state-metrics", _KSM_POD, "labels include node, created_by_kind, created_by_name"),
    "kube_pod_status_ready": MetricSource("kube-state-metrics", _KSM_POD, "label condition=true|false|unknown"),
    "kube_node_labels": MetricSource(
        "kube-state-metrics", _KSM_NODE, "node labels appear only when allow-listed with --metric-labels-allowlist"
    ),
    "kube_node_status_condition": MetricSource("kube-state-metrics", _KSM_NODE, "labels condition, status"),
    # --- kube-state-metrics custom-resource-state metrics this package defines for resource.k8s.io/v1 ResourceClaims
    **{name: MetricSource("kube-state-metrics", _OURS) for name in ksm_resourceclaims.METRIC_NAMES},
}

# Names articles use that exist nowhere upstream; tests assert none of them is allowed.
INVENTED = (
    "dra_constraint_violations_total",
    "dra_allocation_duration_seconds",
    "kube_resourceclaim_status_allocation_state",
)


def unknown(names: frozenset[str] | set[str]) -> list[str]:
    return sorted(n for n in names if n not in ALLOWED)
