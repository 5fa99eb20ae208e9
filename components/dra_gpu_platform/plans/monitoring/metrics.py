"""THE catalog of series the alert rules and the dashboard may read: for each, the exporter that produces it,
the labels that exporter sets, and the upstream file (at the pinned tag) that defines it. Pure data.

Articles about DRA monitoring invent metrics (dra_constraint_violations_total, dra_allocation_duration_seconds,
kube_resourceclaim_status_allocation_state, a `resourceclaim` label on DCGM metrics). Nothing here is taken
from an article. Whether a stack can read a series is decided by dra_gpu_platform/plans/monitoring/sources.py: this
file says what exists, that one says what is scraped. docs/references.md ("Monitoring") holds the same facts
with their line numbers.
"""

from __future__ import annotations

from dataclasses import dataclass

DCGM = "dcgm-exporter"
KSM = "kube-state-metrics"
KUBELET = "kubelet"
SCHEDULER = "kube-scheduler"
CONTROLLER_MANAGER = "kube-controller-manager"
EXPORTERS = (DCGM, KSM, KUBELET, SCHEDULER, CONTROLLER_MANAGER)


@dataclass(frozen=True)
class Series:
    exporter: str
    labels: frozenset[str]  # set by the exporter itself (the scrape adds more, sources.py)
    reference: str  # repository@tag file:line
    note: str = ""
    label_prefix: str = ""  # labels generated per object label (kube_node_labels: label_<name>)


# dcgm-exporter 4.4.2-4.7.0 (GPU Operator v25.10.1 values.yaml:291). The GPU Operator sets
# DCGM_EXPORTER_COLLECTORS=/etc/dcgm-exporter/dcp-metrics-included.csv (assets/state-dcgm-exporter/0800_daemonset.yaml:46),
# so that file decides which fields exist. Labels: internal/pkg/rendermetrics/render_metrics.go:47 (gpu, UUID,
# pci_bus_id, device, modelName, GPU_I_PROFILE/GPU_I_ID for MIG, Hostname) and the pod mapping,
# internal/pkg/transformation/const.go:21-24 (pod, namespace, container, pod_uid; DCGM_EXPORTER_KUBERNETES=true
# in the operator's DaemonSet :44). The dra_* labels come only with KUBERNETES_ENABLE_DRA (const.go:32-39).
_DCGM_LABELS = frozenset(
    {
        "gpu",
        "UUID",
        "pci_bus_id",
        "device",
        "modelName",
        "GPU_I_PROFILE",
        "GPU_I_ID",
        "Hostname",
        "pod",
        "namespace",
        "container",
        "pod_uid",
    }
)
DCGM_DRA_LABELS = frozenset(
    {
        "dra_claim_name",
        "dra_claim_namespace",
        "dra_driver_name",
        "dra_pool_name",
        "dra_device_name",
        "dra_mig_profile",
        "dra_mig_device_uuid",
    }
)
_DCGM_REF = "NVIDIA/dcgm-exporter@4.4.2-4.7.0 etc/dcp-metrics-included.csv"


def _dcgm(note: str) -> Series:
    return Series(DCGM, _DCGM_LABELS, _DCGM_REF, note)


# kube-state-metrics v2.20.0 (ksm chart 8.4.0 of kube-prometheus-stack 88.5.x), built-in resources only:
# custom-resource-state resolves CRDs only (v2.18.0 internal/discovery/discovery.go:42-48, 122-193), so there is no
# ResourceClaim, ResourceSlice or DeviceClass series. v2.20.0 added one DRA series on the pod:
# kube_pod_resourceclaim_info, a pod's reference to each of its claims (docs/references.md, Monitoring).
_KSM_POD = "kubernetes/kube-state-metrics@v2.20.0 docs/metrics/workload/pod-metrics.md"
_KSM_NODE = "kubernetes/kube-state-metrics@v2.20.0 docs/metrics/cluster/node-metrics.md"
# Kubernetes Metrics Reference generated for v1.34 (kubernetes.io/docs/reference/instrumentation/metrics/);
# 1.35 changes from CHANGELOG-1.35.md (only a `source` label on resourceclaim_controller_resource_claims).
_K8S = "kubernetes/kubernetes@v1.34 Metrics Reference"
_DRA_OPS = frozenset({"is_error", "operation_name"})
_DRA_GRPC = frozenset({"driver_name", "grpc_status_code", "method_name"})

SERIES: dict[str, Series] = {
    "DCGM_FI_DEV_GPU_UTIL": _dcgm("gauge, GPU utilization (in %)"),
    "DCGM_FI_DEV_FB_USED": _dcgm("gauge, framebuffer memory used (in MiB)"),
    "DCGM_FI_DEV_GPU_TEMP": _dcgm("gauge, GPU temperature (in C)"),
    "DCGM_FI_DEV_XID_ERRORS": _dcgm("gauge, value of the last XID error"),
    "DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS": _dcgm("counter, rows remapped for uncorrectable errors (Ampere+)"),
    "DCGM_FI_DEV_ROW_REMAP_FAILURE": _dcgm("gauge, whether row remapping failed"),
    "DCGM_FI_DEV_RETIRED_DBE": _dcgm("counter, pages retired after double-bit ECC errors (Volta/Turing)"),
    "kube_pod_info": Series(
        KSM,
        frozenset(
            {
                "pod",
                "namespace",
                "uid",
                "host_ip",
                "pod_ip",
                "node",
                "created_by_kind",
                "created_by_name",
                "priority_class",
                "host_network",
            }
        ),
        f"{_KSM_POD}:8",
    ),
    "kube_pod_status_ready": Series(KSM, frozenset({"pod", "namespace", "uid", "condition"}), f"{_KSM_POD}:17"),
    "kube_pod_status_phase": Series(
        KSM,
        frozenset({"pod", "namespace", "uid", "phase"}),
        f"{_KSM_POD}:15",
        "1 for the pod's current phase (Pending|Running|Succeeded|Failed|Unknown), 0 for the others",
    ),
    "kube_pod_status_unschedulable": Series(
        KSM,
        frozenset({"pod", "namespace", "uid"}),
        f"{_KSM_POD}:61",
        "1 while the pod's PodScheduled condition is False (internal/store/pod.go:1840-1865)",
    ),
    "kube_pod_resourceclaim_info": Series(
        KSM,
        frozenset({"pod", "namespace", "uid", "claim_name", "resourceclaim_name", "resourceclaim_template_name"}),
        f"{_KSM_POD}:66",
        "EXPERIMENTAL, from v2.20.0: 1 per pod.spec.resourceClaims entry; resourceclaim_name is the claim's object "
        "name, empty while a template's claim is not created yet (internal/store/pod.go:673-727)",
    ),
    "kube_node_labels": Series(
        KSM,
        frozenset({"node"}),
        f"{_KSM_NODE}:7",
        "node labels only when allow-listed (--metric-labels-allowlist)",
        label_prefix="label_",
    ),
    "kube_node_status_condition": Series(KSM, frozenset({"node", "condition", "status"}), f"{_KSM_NODE}:15"),
    "dra_operations_duration_seconds_count": Series(
        KUBELET,
        _DRA_OPS,
        _K8S,
        "histogram count; operation_name PrepareResources|UnprepareResources, is_error true|false",
    ),
    "dra_grpc_operations_duration_seconds_count": Series(
        KUBELET, _DRA_GRPC, _K8S, "histogram count of the kubelet's gRPC calls to each DRA kubelet plugin"
    ),
    "dra_resource_claims_in_use": Series(
        KUBELET, frozenset({"driver_name"}), _K8S, 'claims in use on the node; driver_name="<any>" counts each once'
    ),
    "scheduler_unschedulable_pods": Series(
        SCHEDULER, frozenset({"plugin", "profile"}), _K8S, "ALPHA gauge; the DRA plugin is DynamicResources"
    ),
    "scheduler_pending_pods": Series(SCHEDULER, frozenset({"queue"}), _K8S, "STABLE gauge by queue"),
    "workqueue_depth": Series(
        CONTROLLER_MANAGER, frozenset({"name"}), _K8S, 'the resourceclaim controller\'s queue is name="resource_claim"'
    ),
}

# Names articles use that exist nowhere upstream, and the series a custom-resource-state config on ResourceClaim
# would have produced (kube-state-metrics never does); tests assert none of them is in the catalog.
INVENTED = (
    "dra_constraint_violations_total",
    "dra_allocation_duration_seconds",
    "kube_resourceclaim_status_allocation_state",
    "kube_customresource_resourceclaim_created",
    "kube_customresource_resourceclaim_allocated_device_info",
)


def unknown(names: frozenset[str] | set[str]) -> list[str]:
    return sorted(n for n in names if n not in SERIES)


def labels_of(name: str, extra: frozenset[str] = frozenset()) -> frozenset[str]:
    return SERIES[name].labels | extra
