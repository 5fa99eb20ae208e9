"""Prometheus alert rules for DRA and the GPUs, thresholds from `monitoring` in the stack. Pure: no Pulumi.

The groups are plain Prometheus rule groups: the PrometheusRule's `spec.groups` and, unchanged, the file that
`promtool check rules` / `promtool test rules` read (tests/promtool/). Each alert reads only series of
dra_gpu_platform/plans/monitoring/metrics.py, and a stack gets an alert only when every series it reads comes from a
source its Prometheus scrapes (dra_gpu_platform/plans/monitoring/sources.py); the others are listed with the series
they lack. Each alert names its sources in the `sources` annotation and links its runbook page
(docs/monitoring/runbooks/<Alert>.md) under `monitoring.runbookBaseUrl`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.models import MonitoringConfig
from dra_gpu_platform.facts.node_labels import DRA_KUBELET_PLUGIN_LABEL
from dra_gpu_platform.plans.monitoring.metrics import SERIES, unknown
from dra_gpu_platform.plans.monitoring.promql import PromQLNameError, metric_names
from dra_gpu_platform.plans.monitoring.sources import Source, produced

GROUP_DRA = "dra-gpu-platform.dra"
GROUP_GPU = "dra-gpu-platform.gpu"

# Both DRA kubelet plugin DaemonSets end like this: `<name>-kubelet-plugin` (kubernetes-sigs/dra-driver-nvidia-gpu
# templates/kubeletplugin.yaml) and `<fullname>-kubeletplugin` (kubernetes-sigs/dra-example-driver, same file).
KUBELET_PLUGIN_DAEMONSET = ".+-kubelet-?plugin"
# kube-scheduler's DRA plugin name (kubernetes/kubernetes pkg/scheduler/framework/plugins/names/names.go).
DRA_SCHEDULER_PLUGIN = "DynamicResources"
# The resourceclaim controller's workqueue in kube-controller-manager (Kubernetes docs, "Good practices for DRA").
CLAIM_CONTROLLER_QUEUE = "resource_claim"
# Window over which an allocated GPU must stay below the idle threshold, evaluated continuously for idleGpuMinutes.
IDLE_SAMPLE_WINDOW = "10m"
# Window in which kubelet DRA failures are counted.
KUBELET_FAILURE_WINDOW = "10m"


def prometheus_label(kubernetes_label: str) -> str:
    """kube_node_labels turns a node label into `label_<name>` with every character outside [a-zA-Z0-9_]
    replaced by `_` (kube-state-metrics docs: node-metrics.md, `label_NODE_LABEL`)."""
    return "label_" + "".join(c if c.isalnum() or c == "_" else "_" for c in kubernetes_label)


DRA_NODE_LABEL = prometheus_label(DRA_KUBELET_PLUGIN_LABEL)


@dataclass(frozen=True)
class AlertSettings:
    """The stack's `monitoring` thresholds and runbook location, as plain data."""

    runbook_base_url: str
    claim_pending_minutes: int
    gpu_temperature_celsius: int
    idle_gpu_utilization_percent: int
    idle_gpu_minutes: int

    @classmethod
    def of(cls, monitoring: MonitoringConfig) -> AlertSettings:
        return cls(
            monitoring.runbook_base_url,
            monitoring.claim_pending_minutes,
            monitoring.gpu_temperature_celsius,
            monitoring.idle_gpu_utilization_percent,
            monitoring.idle_gpu_minutes,
        )


@dataclass(frozen=True)
class RuleInputs:
    """What the rules depend on, as plain data (dra_gpu_platform/plans/monitoring/plan.py builds it from the stack)."""

    settings: AlertSettings
    sources: tuple[Source, ...]
    dra_namespaces: tuple[str, ...] = ()  # namespaces with migration dual or dra-only

    @property
    def runbook_base_url(self) -> str:
        return self.settings.runbook_base_url

    @property
    def dcgm_dra_labels(self) -> bool:
        return any("dra_claim_name" in s.extra_labels for s in self.sources)


@dataclass(frozen=True)
class Alert:
    name: str
    group: str
    severity: str
    expr: str
    for_: str
    summary: str
    description: str

    @property
    def series(self) -> frozenset[str]:
        return metric_names(self.expr)

    def runbook_url(self, base: str) -> str:
        return f"{base.rstrip('/')}/{self.name}.md"

    def rule(self, inputs: RuleInputs) -> dict[str, Any]:
        return {
            "alert": self.name,
            "expr": self.expr,
            "for": self.for_,
            "labels": {"severity": self.severity},
            "annotations": {
                "summary": self.summary,
                "description": self.description,
                "sources": source_text(self, inputs.sources),
                "runbook_url": self.runbook_url(inputs.runbook_base_url),
            },
        }


def source_text(alert: Alert, found: tuple[Source, ...]) -> str:
    """`series from exporter (how it is scraped)`, one per series the alert reads."""
    by_series = produced(found)
    parts = []
    for name in sorted(alert.series):
        source = by_series.get(name)
        how = source.scrape if source else "no source in this stack"
        parts.append(f"{name} from {SERIES[name].exporter} ({how})")
    return "; ".join(parts)


_GPU = "GPU {{ $labels.gpu }} ({{ $labels.UUID }}, {{ $labels.modelName }}) on {{ $labels.Hostname }}"


def _regex_alternatives(names: tuple[str, ...]) -> str:
    return "|".join(sorted(names))


def claim_not_created() -> str:
    """One series per pod claim whose ResourceClaim the controller has not created yet: kube-state-metrics
    v2.20.0's kube_pod_resourceclaim_info leaves resourceclaim_name empty until pod.status.resourceClaimStatuses
    names the generated claim (internal/store/pod.go:673-727)."""
    return (
        "max by (namespace, pod, claim_name, resourceclaim_template_name) (\n"
        '  kube_pod_resourceclaim_info{resourceclaim_template_name!="", resourceclaim_name=""}\n'
        ")"
    )


def dra_alerts(inputs: RuleInputs) -> list[Alert]:
    m = inputs.settings
    found = [
        Alert(
            "DraPodsUnschedulable",
            GROUP_DRA,
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
            "DraClaimPrepareFailing",
            GROUP_DRA,
            "warning",
            "sum by (node) (increase(dra_operations_duration_seconds_count"
            f'{{operation_name="PrepareResources", is_error="true"}}[{KUBELET_FAILURE_WINDOW}])) > 0',
            "5m",
            "The kubelet on {{ $labels.node }} keeps failing to prepare ResourceClaims for starting pods",
            "Pods with allocated claims stay in ContainerCreating: the kubelet's NodePrepareResources for their claims "
            "failed in the last 10 minutes, for 5 minutes in a row. Check `kubectl get events -A --field-selector "
            "reason=FailedPrepareDynamicResources`, the DRA kubelet plugin pod on the node and its logs, and the "
            "node's NVIDIA driver and CDI setup.",
        ),
        Alert(
            "DraKubeletPluginCallsFailing",
            GROUP_DRA,
            "warning",
            "sum by (node, driver_name, method_name) (increase(dra_grpc_operations_duration_seconds_count"
            f'{{grpc_status_code!="OK"}}[{KUBELET_FAILURE_WINDOW}])) > 0',
            "5m",
            "Calls from the kubelet on {{ $labels.node }} to DRA driver {{ $labels.driver_name }} fail "
            "({{ $labels.method_name }})",
            "The DRA kubelet plugin answers the kubelet's gRPC calls with errors. The grpc_status_code label of "
            "dra_grpc_operations_duration_seconds_count says which (Unavailable: the plugin is not listening). Read "
            "the plugin pod's logs on the node and restart it if its socket is gone.",
        ),
        Alert(
            "DraClaimControllerBacklog",
            GROUP_DRA,
            "warning",
            f'max(workqueue_depth{{name="{CLAIM_CONTROLLER_QUEUE}"}}) > 0',
            "15m",
            "kube-controller-manager's ResourceClaim controller has had a backlog for 15 minutes",
            "The resource_claim work queue has not drained for 15 minutes, so ResourceClaims from templates are created "
            "late and pods wait. Check kube-controller-manager's health and API throttling (workqueue_adds_total, "
            "rest_client_requests_total), and how fast pods with claim templates are being created.",
        ),
        Alert(
            "DraKubeletPluginNotRunning",
            GROUP_DRA,
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
        Alert(
            "DraPodClaimNotCreated",
            GROUP_DRA,
            "warning",
            f'{claim_not_created()}\nand on (namespace, pod) (kube_pod_status_phase{{phase="Pending"}} == 1)',
            f"{m.claim_pending_minutes}m",
            "Pod {{ $labels.namespace }}/{{ $labels.pod }} has waited more than "
            f"{m.claim_pending_minutes} minutes for the ResourceClaim of "
            "{{ $labels.claim_name }} (template {{ $labels.resourceclaim_template_name }})",
            "kube-controller-manager's ResourceClaim controller has not created the claim this pod's template asks "
            "for, so the scheduler cannot even try to allocate it. Its FailedResourceClaimCreation event on the pod "
            "says why: usually the namespace's ResourceQuota (count/resourceclaims.resource.k8s.io, or "
            "<class>.deviceclass.resource.k8s.io/devices) is used up, or the ResourceClaimTemplate does not exist. "
            "Check `kubectl get events -n {{ $labels.namespace }} --field-selector "
            "involvedObject.name={{ $labels.pod }},reason=FailedResourceClaimCreation`, `kubectl describe "
            "resourcequota -n {{ $labels.namespace }}` and `kubectl get resourceclaimtemplate -n "
            "{{ $labels.namespace }} {{ $labels.resourceclaim_template_name }}`.",
        ),
    ]
    if inputs.dra_namespaces:
        found.insert(
            0,
            Alert(
                "DraPodUnschedulable",
                GROUP_DRA,
                "warning",
                "max by (namespace, pod) (kube_pod_status_unschedulable"
                f'{{namespace=~"{_regex_alternatives(inputs.dra_namespaces)}"}}) > 0',
                f"{m.claim_pending_minutes}m",
                "Pod {{ $labels.namespace }}/{{ $labels.pod }} has not been scheduled for more than "
                f"{m.claim_pending_minutes} minutes",
                "The pod's PodScheduled condition is False in a namespace that uses DRA; usually no node has free "
                "devices for its ResourceClaims. Check the FailedScheduling event of `kubectl describe pod -n "
                "{{ $labels.namespace }} {{ $labels.pod }}` for the reason, `gpuplan fit` for its claim template, "
                "the namespace's ResourceQuota and `kubectl get resourceslices`.",
            ),
        )
    return found


def gpu_alerts(inputs: RuleInputs) -> list[Alert]:
    m = inputs.settings
    coverage = (
        "dcgm-exporter labels GPUs with the pod that uses them, through a DRA claim (its DRA pod mapping is on) "
        "or the device plugin."
        if inputs.dcgm_dra_labels
        else "dcgm-exporter labels only device-plugin GPUs with their pod here: its DRA pod mapping is off "
        "(monitoring.dcgmDraPodMapping), so GPUs allocated through DRA claims are not covered."
    )
    return [
        Alert(
            "GpuXidError",
            GROUP_GPU,
            "warning",
            "DCGM_FI_DEV_XID_ERRORS > 0",
            "0m",
            f"{_GPU} reported XID {{{{ $value }}}}",
            "The driver reported an XID error; DCGM keeps the last code. Look the code up in NVIDIA's XID catalog, "
            "read `dmesg | grep -i xid` on the node and the logs of the pod using the GPU (labels pod/namespace).",
        ),
        Alert(
            "GpuTemperatureHigh",
            GROUP_GPU,
            "warning",
            f"DCGM_FI_DEV_GPU_TEMP > {m.gpu_temperature_celsius}",
            "5m",
            f"{_GPU} is at {{{{ $value }}}} C (threshold {m.gpu_temperature_celsius} C)",
            "Sustained high temperature throttles the GPU. Check fans/airflow or the cloud instance health, "
            "`nvidia-smi -q -d TEMPERATURE,PERFORMANCE` on the node, and whether the workload is unusually heavy.",
        ),
        Alert(
            "GpuRowRemapFailure",
            GROUP_GPU,
            "critical",
            "DCGM_FI_DEV_ROW_REMAP_FAILURE > 0",
            "0m",
            f"{_GPU} failed to remap a memory row",
            "The GPU could not remap a row with an uncorrectable ECC error; its memory can no longer be trusted. "
            "Cordon and drain the node so no new claim lands on it and have the GPU replaced.",
        ),
        Alert(
            "GpuUncorrectableMemoryErrors",
            GROUP_GPU,
            "warning",
            "increase(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS[1h]) > 0\nor\nincrease(DCGM_FI_DEV_RETIRED_DBE[1h]) > 0",
            "0m",
            f"{_GPU} had uncorrectable (double-bit) ECC memory errors in the last hour",
            "New rows were remapped (Ampere and newer) or pages retired (Volta/Turing) after uncorrectable ECC errors. "
            "A GPU reset activates remapped rows; drain the node, reset the GPU and watch for repeats.",
        ),
        Alert(
            "GpuAllocatedButIdle",
            GROUP_GPU,
            "info",
            f'max by (namespace, pod) (max_over_time(DCGM_FI_DEV_GPU_UTIL{{pod!=""}}[{IDLE_SAMPLE_WINDOW}]))'
            f" < {m.idle_gpu_utilization_percent}",
            f"{m.idle_gpu_minutes}m",
            "Pod {{ $labels.namespace }}/{{ $labels.pod }} holds GPUs below "
            f"{m.idle_gpu_utilization_percent}% utilisation for {m.idle_gpu_minutes} minutes",
            "The GPUs are allocated but do no work. Ask the owner of the pod whether it is stuck or waiting; release "
            f"the claim (delete the pod) if it is not needed. {coverage}",
        ),
    ]


def candidates(inputs: RuleInputs) -> list[Alert]:
    """Every alert this package can render for these inputs, whether or not the stack can feed it."""
    return [*dra_alerts(inputs), *gpu_alerts(inputs)]


def missing_series(alert: Alert, found: tuple[Source, ...]) -> list[str]:
    available = produced(found)
    return sorted(name for name in alert.series if name not in available)


def alerts(inputs: RuleInputs) -> list[Alert]:
    """The alerts the stack's sources can feed."""
    return [a for a in candidates(inputs) if not missing_series(a, inputs.sources)]


def left_out(inputs: RuleInputs) -> dict[str, list[str]]:
    """Alert name -> the series no source of this stack produces (why it is not rendered)."""
    return {a.name: missing for a in candidates(inputs) if (missing := missing_series(a, inputs.sources))}


def rule_groups(inputs: RuleInputs) -> list[dict[str, Any]]:
    chosen = alerts(inputs)
    groups = []
    for name in (GROUP_DRA, GROUP_GPU):
        rules = [a.rule(inputs) for a in chosen if a.group == name]
        if rules:
            groups.append({"name": name, "rules": rules})
    return groups


def expressions(groups: list[dict[str, Any]]) -> list[str]:
    return [rule["expr"] for group in groups for rule in group["rules"]]


# ---------------------------------------------------------------------------------------------------
# PrometheusRule manifests: a Prometheus Operator CRD, so kubernetes-validate has no schema for it. `gpuplan
# preview` checks it here against the rule-file format (Prometheus docs, configuration/recording_rules and
# alerting_rules; the PrometheusRule CRD's spec.groups has the same shape) and the series catalog.

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
        return [*errors, (f"{where}/expr", "required")]
    try:
        missing = unknown(metric_names(expr))
    except PromQLNameError as exc:
        return [*errors, (f"{where}/expr", str(exc))]
    if missing:
        errors.append(
            (f"{where}/expr", f"series not in the catalog (dra_gpu_platform/plans/monitoring/metrics.py): {missing}")
        )
    return errors
