"""Prometheus alert rules for DRA and the GPUs, thresholds from `monitoring` in the stack. Pure: no Pulumi.

The groups are plain Prometheus rule groups: the PrometheusRule's `spec.groups` and, unchanged, the file that
`promtool check rules` / `promtool test rules` read (tests/promtool/). Every metric name comes from
components/plans/monitoring/metrics.py. Each alert links its runbook page, docs/monitoring/runbooks/<AlertName>.md
(what it means, what to check, how to fix); a docs test checks that every alert has one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from components.plans.monitoring import ksm
from components.config.models import MonitoringConfig
from components.plans.monitoring.metrics import unknown
from components.plans.monitoring.promql import PromQLNameError, metric_names
from components.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL

# Folder of the runbook pages, relative to the repository root (a clone has it).
RUNBOOK_DIR = "docs/monitoring/runbooks"
GROUP_DRA = "dra-gpu-platform.dra"
GROUP_GPU = "dra-gpu-platform.gpu"

# Both DRA kubelet plugin DaemonSets end like this: `<name>-kubelet-plugin` (kubernetes-sigs/dra-driver-nvidia-gpu
# templates/kubeletplugin.yaml) and `<fullname>-kubeletplugin` (kubernetes-sigs/dra-example-driver, same file).
KUBELET_PLUGIN_DAEMONSET = ".+-kubelet-?plugin"
# kube-scheduler's DRA plugin name (kubernetes/kubernetes pkg/scheduler/framework/plugins/names/names.go).
DRA_SCHEDULER_PLUGIN = "DynamicResources"
# Window over which an allocated GPU must stay below the idle threshold, evaluated continuously for idleGpuMinutes.
IDLE_SAMPLE_WINDOW = "10m"


def prometheus_label(kubernetes_label: str) -> str:
    """kube_node_labels turns a node label into `label_<name>` with every character outside [a-zA-Z0-9_]
    replaced by `_` (kube-state-metrics docs: node-metrics.md, `label_NODE_LABEL`)."""
    return "label_" + "".join(c if c.isalnum() or c == "_" else "_" for c in kubernetes_label)


DRA_NODE_LABEL = prometheus_label(DRA_KUBELET_PLUGIN_LABEL)


@dataclass(frozen=True)
class Alert:
    name: str
    severity: str
    expr: str
    for_: str
    summary: str
    description: str

    def rule(self, runbooks: str) -> dict[str, Any]:
        return {
            "alert": self.name,
            "expr": self.expr,
            "for": self.for_,
            "labels": {"severity": self.severity},
            "annotations": {
                "summary": self.summary,
                "description": self.description,
                "runbook_url": f"{runbooks}/{self.name}.md",
            },
        }


_GPU = "GPU {{ $labels.gpu }} ({{ $labels.UUID }}, {{ $labels.modelName }}) on {{ $labels.Hostname }}{{ $labels.hostname }}"


def dra_alerts(m: MonitoringConfig) -> list[Alert]:
    pending_seconds = m.claim_pending_minutes * 60
    return [
        Alert(
            "DraResourceClaimPending",
            "warning",
            f"((time() - {ksm.CREATED}) > {pending_seconds})\n"
            f"unless on (namespace, resourceclaim) {ksm.ALLOCATED_DEVICE_INFO}",
            "1m",
            "ResourceClaim {{ $labels.namespace }}/{{ $labels.resourceclaim }} is unallocated for more than "
            f"{m.claim_pending_minutes} minutes",
            "No device has been allocated to the claim. Check `kubectl describe resourceclaim -n {{ $labels.namespace }} "
            "{{ $labels.resourceclaim }}` and the events of the pod that uses it, `gpuplan fit` for the claim's "
            "template, the namespace's ResourceQuota and the ResourceSlices of the driver (`kubectl get resourceslices`).",
        ),
        Alert(
            "DraPodsUnschedulable",
            "warning",
            f'max by (profile) (scheduler_unschedulable_pods{{plugin="{DRA_SCHEDULER_PLUGIN}"}}) > 0',
            f"{m.claim_pending_minutes}m",
            "{{ $value }} pods cannot be scheduled because of their resource claims (scheduler profile {{ $labels.profile }})",
            f"kube-scheduler's {DRA_SCHEDULER_PLUGIN} plugin rejected every node for these pods for more than "
            f"{m.claim_pending_minutes} minutes. Check `kubectl get pods -A --field-selector=status.phase=Pending`, "
            "the FailedScheduling events (they name the claim and the reason), free devices in the ResourceSlices and "
            "the device class selectors.",
        ),
        Alert(
            "DraKubeletPluginNotRunning",
            "critical",
            f'(max by (node) (kube_node_labels{{{DRA_NODE_LABEL}="true"}})\n'
            ' and on (node) (kube_node_status_condition{condition="Ready", status="true"} == 1))\n'
            "unless on (node) max by (node) (\n"
            f'  kube_pod_info{{created_by_kind="DaemonSet", created_by_name=~"{KUBELET_PLUGIN_DAEMONSET}"}}\n'
            '  * on (namespace, pod) group_left () (kube_pod_status_ready{condition="true"} == 1)\n'
            ")",
            "10m",
            "No ready DRA kubelet plugin on DRA node {{ $labels.node }}",
            f"The node carries {DRA_KUBELET_PLUGIN_LABEL}=true but no ready kubelet-plugin pod, so the driver publishes "
            "no ResourceSlice for it and its GPUs cannot be allocated. Check the kubelet plugin DaemonSet of the DRA "
            "driver (`kubectl get pods -A -o wide --field-selector spec.nodeName={{ $labels.node }}`), its logs, the "
            "node's NVIDIA driver and the DaemonSet's node selector and tolerations.",
        ),
    ]


def gpu_alerts(m: MonitoringConfig) -> list[Alert]:
    return [
        Alert(
            "GpuXidError",
            "warning",
            "DCGM_FI_DEV_XID_ERRORS > 0",
            "0m",
            f"{_GPU} reported XID {{{{ $value }}}}",
            "The driver reported an XID error; DCGM keeps the last code. Look the code up in NVIDIA's XID catalog, "
            "read `dmesg | grep -i xid` on the node and the logs of the pod using the GPU (labels pod/namespace).",
        ),
        Alert(
            "GpuTemperatureHigh",
            "warning",
            f"DCGM_FI_DEV_GPU_TEMP > {m.gpu_temperature_celsius}",
            "5m",
            f"{_GPU} is at {{{{ $value }}}} C (threshold {m.gpu_temperature_celsius} C)",
            "Sustained high temperature throttles the GPU. Check fans/airflow or the cloud instance health, "
            "`nvidia-smi -q -d TEMPERATURE,PERFORMANCE` on the node, and whether the workload is unusually heavy.",
        ),
        Alert(
            "GpuRowRemapFailure",
            "critical",
            "DCGM_FI_DEV_ROW_REMAP_FAILURE > 0",
            "0m",
            f"{_GPU} failed to remap a memory row",
            "The GPU could not remap a row with an uncorrectable ECC error; its memory can no longer be trusted. "
            "Cordon and drain the node so no new claim lands on it and have the GPU replaced.",
        ),
        Alert(
            "GpuUncorrectableMemoryErrors",
            "warning",
            "increase(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS[1h]) > 0\nor\nincrease(DCGM_FI_DEV_RETIRED_DBE[1h]) > 0",
            "0m",
            f"{_GPU} had uncorrectable (double-bit) ECC memory errors in the last hour",
            "New rows were remapped (Ampere and newer) or pages retired (Volta/Turing) after uncorrectable ECC errors. "
            "A GPU reset activates remapped rows; drain the node, reset the GPU and watch for repeats.",
        ),
        Alert(
            "GpuAllocatedButIdle",
            "info",
            f"max by (namespace, pod) (max_over_time(DCGM_FI_DEV_GPU_UTIL{{pod!=\"\"}}[{IDLE_SAMPLE_WINDOW}]))"
            f" < {m.idle_gpu_utilization_percent}",
            f"{m.idle_gpu_minutes}m",
            "Pod {{ $labels.namespace }}/{{ $labels.pod }} holds GPUs below "
            f"{m.idle_gpu_utilization_percent}% utilisation for {m.idle_gpu_minutes} minutes",
            "The GPUs are allocated but do no work. Ask the owner of the pod whether it is stuck or waiting; release "
            "the claim (delete the pod) if it is not needed. For DRA GPUs the pod label needs dcgm-exporter's "
            "KUBERNETES_ENABLE_DRA.",
        ),
    ]


def alerts(m: MonitoringConfig) -> list[Alert]:
    return [*dra_alerts(m), *gpu_alerts(m)]


def rule_groups(m: MonitoringConfig, runbooks: str = RUNBOOK_DIR) -> list[dict[str, Any]]:
    return [
        {"name": GROUP_DRA, "rules": [a.rule(runbooks) for a in dra_alerts(m)]},
        {"name": GROUP_GPU, "rules": [a.rule(runbooks) for a in gpu_alerts(m)]},
    ]


def expressions(groups: list[dict[str, Any]]) -> list[str]:
    return [rule["expr"] for group in groups for rule in group["rules"]]


# ---------------------------------------------------------------------------------------------------
# PrometheusRule manifests: a Prometheus Operator CRD, so kubernetes-validate has no schema for it. `gpuplan
# preview` checks it here against the rule-file format (Prometheus docs, configuration/recording_rules and
# alerting_rules; the PrometheusRule CRD's spec.groups has the same shape) and the metric allow-list.

PROMETHEUS_RULE_API = "monitoring.coreos.com/v1"
_RULE_KEYS = {"alert", "record", "expr", "for", "keep_firing_for", "labels", "annotations"}
_GROUP_KEYS = {"name", "interval", "rules", "limit", "partial_response_strategy", "query_offset", "labels"}
_DURATION = re.compile(r"^((\d+)(ms|[smhdwy]))+$")


def prometheus_rule_errors(doc: dict[str, Any]) -> list[tuple[str, str]]:
    """(field path, message) for every problem of a PrometheusRule manifest."""
    errors: list[tuple[str, str]] = []
    if doc.get("kind") != "PrometheusRule":
        return [("kind", f"expected PrometheusRule, got {doc.get('kind')!r}")]
    if not (doc.get("metadata") or {}).get("name"):
        errors.append(("metadata/name", "required"))
    spec = doc.get("spec") or {}
    errors += [(f"spec/{key}", "unknown field") for key in sorted(set(spec) - {"groups"})]
    seen: set[str] = set()
    for g, group in enumerate(spec.get("groups") or []):
        where = f"spec/groups/{g}"
        errors += [(f"{where}/{key}", "unknown field") for key in sorted(set(group) - _GROUP_KEYS)]
        if group.get("name") in seen or not group.get("name"):
            errors.append((f"{where}/name", "group names must be present and unique"))
        seen.add(group.get("name"))
        for r, rule in enumerate(group.get("rules") or []):
            errors += _rule_errors(f"{where}/rules/{r}", rule)
    return errors


def _rule_errors(where: str, rule: dict[str, Any]) -> list[tuple[str, str]]:
    errors = [(f"{where}/{key}", "unknown field") for key in sorted(set(rule) - _RULE_KEYS)]
    if ("alert" in rule) == ("record" in rule):
        errors.append((where, "a rule has exactly one of alert or record"))
    for key in ("for", "keep_firing_for"):
        if key in rule and not _DURATION.match(str(rule[key])):
            errors.append((f"{where}/{key}", f"{rule[key]!r} is not a Prometheus duration"))
    for key in ("labels", "annotations"):
        if not all(isinstance(k, str) and isinstance(v, str) for k, v in (rule.get(key) or {}).items()):
            errors.append((f"{where}/{key}", "must map strings to strings"))
    expr = rule.get("expr")
    if not isinstance(expr, str) or not expr.strip():
        return errors + [(f"{where}/expr", "required")]
    try:
        missing = unknown(metric_names(expr))
    except PromQLNameError as exc:
        return errors + [(f"{where}/expr", str(exc))]
    if missing:
        errors.append((f"{where}/expr", f"metrics not in the allow-list (components/plans/monitoring/metrics.py): {missing}"))
    return errors
