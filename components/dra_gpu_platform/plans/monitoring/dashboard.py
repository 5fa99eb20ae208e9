"""The Grafana dashboard, built with the typed grafana-foundation-sdk builders and exported to JSON.
Pure: no Pulumi imports.

Panels: pods of DRA namespaces the scheduler cannot place and the ResourceClaims of pods, with those whose
claim was never created (kube-state-metrics), the kubelet's DRA claim
preparation failures, claims in use and plugin call errors per node (kubelet), the scheduler's DynamicResources
rejections and the ResourceClaim controller's queue (where the control plane is scraped), GPU utilisation and
memory per namespace and pod, per DRA claim when dcgm-exporter's DRA pod mapping is on, XID errors and GPU
health, and node counts per pool. A panel is shown only when every series it reads comes from a source of the
stack (dra_gpu_platform/plans/monitoring/sources.py), exactly like the alerts.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

from grafana_foundation_sdk.builders import common as common_builders
from grafana_foundation_sdk.builders import dashboard as builders
from grafana_foundation_sdk.builders import prometheus, stat, timeseries
from grafana_foundation_sdk.cog import plugins
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model

from dra_gpu_platform.facts.node_labels import GPU_STACK_LABEL, POOL_LABEL
from dra_gpu_platform.plans.monitoring.alerts import (
    CLAIM_CONTROLLER_QUEUE,
    DRA_SCHEDULER_PLUGIN,
    IDLE_SAMPLE_WINDOW,
    KUBELET_FAILURE_WINDOW,
    RuleInputs,
    dra_alerts,
    prometheus_label,
)
from dra_gpu_platform.plans.monitoring.promql import metric_names
from dra_gpu_platform.plans.monitoring.sources import produced

UID = "dra-gpu-platform"
TITLE = "DRA GPU platform"
FILE_NAME = "dra-gpu-platform.json"
_DATASOURCE = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
POOL = prometheus_label(POOL_LABEL)
STACK = prometheus_label(GPU_STACK_LABEL)
# The kubelet's dra_resource_claims_in_use counts each claim once under this driver_name (Metrics Reference v1.34).
ANY_DRIVER = "<any>"

# ---------------------------------------------------------------------------------------------------
# queries (module level so tests and the runbook can quote them)


def idle_dra_gpus(inputs: RuleInputs) -> str:
    """GPUs held by a DRA claim (dcgm-exporter's dra_* labels) that stayed below the idle threshold."""
    return (
        "count by (dra_claim_namespace, dra_claim_name) (\n"
        f'max_over_time(DCGM_FI_DEV_GPU_UTIL{{dra_claim_name!=""}}[{IDLE_SAMPLE_WINDOW}]) '
        f"< {inputs.settings.idle_gpu_utilization_percent}\n)"
    )


def all_panel_queries(inputs: RuleInputs) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """key -> (panel title, [(PromQL, legend)]) for every panel this package can draw. Keys are stable ids
    (tests record each query under `dashboard:<key>` and evaluate it with promtool)."""
    m = inputs.settings
    alert_exprs = {a.name: a.expr for a in dra_alerts(inputs)}
    queries: dict[str, tuple[str, list[tuple[str, str]]]] = {}
    if "DraPodUnschedulable" in alert_exprs:
        unschedulable = alert_exprs["DraPodUnschedulable"].rsplit(" > 0", 1)[0]
        queries["dra_pods_unschedulable"] = (
            "Unschedulable pods in DRA namespaces",
            [(f"count({unschedulable}) or vector(0)", "pods")],
        )
        queries["unschedulable_by_namespace"] = (
            "Unschedulable pods by DRA namespace",
            [(f"count by (namespace) ({unschedulable})", "{{namespace}}")],
        )
    queries["claims_not_created"] = (
        "Pod claims not created yet",
        [(f"count({alert_exprs['DraPodClaimNotCreated']}) or vector(0)", "claims")],
    )
    queries["pod_claims_by_namespace"] = (
        "ResourceClaims of pending and running pods, by namespace",
        [
            (
                "count by (namespace) (kube_pod_resourceclaim_info\n"
                'and on (namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"} == 1))',
                "{{namespace}}",
            )
        ],
    )
    queries["dra_nodes_without_plugin"] = (
        "DRA nodes without a ready kubelet plugin",
        [(f"count({alert_exprs['DraKubeletPluginNotRunning']}) or vector(0)", "nodes")],
    )
    queries["uncorrectable_memory_errors"] = (
        "Uncorrectable memory errors (24h)",
        [
            (
                "sum(increase(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS[24h]) or vector(0)) "
                "+ sum(increase(DCGM_FI_DEV_RETIRED_DBE[24h]) or vector(0))",
                "errors",
            ),
            ("sum(DCGM_FI_DEV_ROW_REMAP_FAILURE) or vector(0)", "remap failures"),
        ],
    )
    queries["claims_in_use_by_node"] = (
        "ResourceClaims in use, by node",
        [(f'sum by (node) (dra_resource_claims_in_use{{driver_name="{ANY_DRIVER}"}})', "{{node}}")],
    )
    queries["prepare_failures_by_node"] = (
        f"Failed claim preparations by node ({KUBELET_FAILURE_WINDOW})",
        [
            (
                "sum by (node) (increase(dra_operations_duration_seconds_count"
                f'{{operation_name="PrepareResources", is_error="true"}}[{KUBELET_FAILURE_WINDOW}]))',
                "{{node}}",
            )
        ],
    )
    queries["plugin_call_errors"] = (
        f"Kubelet -> DRA plugin call errors ({KUBELET_FAILURE_WINDOW})",
        [
            (
                "sum by (driver_name, grpc_status_code) (increase(dra_grpc_operations_duration_seconds_count"
                f'{{grpc_status_code!="OK"}}[{KUBELET_FAILURE_WINDOW}]))',
                "{{driver_name}} {{grpc_status_code}}",
            )
        ],
    )
    queries["scheduler_unschedulable"] = (
        "Pods the scheduler's DRA plugin rejects",
        [(f'max by (profile) (scheduler_unschedulable_pods{{plugin="{DRA_SCHEDULER_PLUGIN}"}})', "{{profile}}")],
    )
    queries["scheduler_pending"] = (
        "Pending pods by scheduler queue",
        [("max by (queue) (scheduler_pending_pods)", "{{queue}}")],
    )
    queries["claim_controller_queue"] = (
        "ResourceClaim controller queue depth",
        [(f'max(workqueue_depth{{name="{CLAIM_CONTROLLER_QUEUE}"}})', "depth")],
    )
    if inputs.dcgm_dra_labels:
        queries["gpus_by_claim"] = (
            "GPUs in use by DRA claim",
            [
                (
                    'count by (dra_claim_namespace, dra_claim_name) (DCGM_FI_DEV_GPU_UTIL{dra_claim_name!=""})',
                    "{{dra_claim_namespace}}/{{dra_claim_name}}",
                )
            ],
        )
        queries["idle_gpus_by_claim"] = (
            f"Idle GPUs by DRA claim (< {m.idle_gpu_utilization_percent}% for {IDLE_SAMPLE_WINDOW})",
            [(idle_dra_gpus(inputs), "{{dra_claim_namespace}}/{{dra_claim_name}}")],
        )
    queries.update(
        {
            "util_by_namespace": (
                "GPU utilisation by namespace",
                [('avg by (namespace) (DCGM_FI_DEV_GPU_UTIL{pod!=""})', "{{namespace}}")],
            ),
            "util_by_pod": (
                "GPU utilisation by pod",
                [('avg by (namespace, pod) (DCGM_FI_DEV_GPU_UTIL{pod!=""})', "{{namespace}}/{{pod}}")],
            ),
            "memory_by_namespace": (
                "GPU memory used by namespace",
                [('sum by (namespace) (DCGM_FI_DEV_FB_USED{pod!=""})', "{{namespace}}")],
            ),
            "memory_by_pod": (
                "GPU memory used by pod",
                [('sum by (namespace, pod) (DCGM_FI_DEV_FB_USED{pod!=""})', "{{namespace}}/{{pod}}")],
            ),
            "xid_errors": (
                "XID errors (last code per GPU)",
                [("max by (UUID, gpu, modelName) (DCGM_FI_DEV_XID_ERRORS) > 0", "{{UUID}} GPU {{gpu}}")],
            ),
            "temperature": ("GPU temperature", [("max by (UUID, gpu) (DCGM_FI_DEV_GPU_TEMP)", "{{UUID}} GPU {{gpu}}")]),
            "nodes_by_pool": (
                "Nodes by pool",
                [(f'count by ({POOL}, {STACK}) (kube_node_labels{{{POOL}!=""}})', f"{{{{{POOL}}}}} ({{{{{STACK}}}}})")],
            ),
        }
    )
    return queries


def panel_queries(inputs: RuleInputs) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """The panels the stack's sources can feed (every query of the panel reads produced series only)."""
    available = produced(inputs.sources)
    return {
        key: (title, entries)
        for key, (title, entries) in all_panel_queries(inputs).items()
        if all(metric_names(expr) <= available.keys() for expr, _legend in entries)
    }


# ---------------------------------------------------------------------------------------------------
# panels


_Panel = TypeVar("_Panel", timeseries.Panel, stat.Panel)


def _targets(panel: _Panel, entries: list[tuple[str, str]], instant: bool = False) -> _Panel:
    for index, (expr, legend) in enumerate(entries):
        query = prometheus.Dataquery().expr(expr).legend_format(legend).ref_id(chr(ord("A") + index))
        panel = panel.with_target(query.instant() if instant else query)
    return panel


def _timeseries(
    title: str, entries: list[tuple[str, str]], unit: str, width: int = 12, description: str = ""
) -> timeseries.Panel:
    panel = (
        timeseries.Panel()
        .title(title)
        .description(description)
        .datasource(_DATASOURCE)
        .unit(unit)
        .min(0)
        .fill_opacity(10)
        .line_width(1)
        .legend(
            common_builders.VizLegendOptions()
            .display_mode(common.LegendDisplayMode.TABLE)
            .placement(common.LegendPlacement.BOTTOM)
            .show_legend(True)
        )
        .tooltip(
            common_builders.VizTooltipOptions().mode(common.TooltipDisplayMode.MULTI).sort(common.SortOrder.DESCENDING)
        )
        .height(8)
        .span(width)
    )
    return _targets(panel, entries)


def _stat(
    title: str, entries: list[tuple[str, str]], unit: str = "short", red_from: float = 1, description: str = ""
) -> stat.Panel:
    panel = (
        stat.Panel()
        .title(title)
        .description(description)
        .datasource(_DATASOURCE)
        .unit(unit)
        .reduce_options(common_builders.ReduceDataOptions().calcs(["lastNotNull"]).values(False))
        .graph_mode(common.BigValueGraphMode.AREA)
        .color_mode(common.BigValueColorMode.BACKGROUND)
        .thresholds(
            builders.ThresholdsConfig()
            .mode(model.ThresholdsMode.ABSOLUTE)
            .steps([model.Threshold(value=None, color="green"), model.Threshold(value=red_from, color="red")])
        )
        .height(5)
        .span(6)
    )
    return _targets(panel, entries, instant=True)


def _layout(inputs: RuleInputs) -> tuple[tuple[str, tuple[tuple[str, str, int, str], ...]], ...]:
    """(row title, [(panel key, "stat" | unit of a time series, width, description)]); a panel whose key the
    stack's sources cannot feed is left out, and so is a row left empty."""
    temperature = f"GpuTemperatureHigh fires above {inputs.settings.gpu_temperature_celsius} C."
    return (
        (
            "DRA allocation",
            (
                (
                    "dra_pods_unschedulable",
                    "stat",
                    6,
                    "The DraPodUnschedulable alert fires for these after claimPendingMinutes.",
                ),
                ("dra_nodes_without_plugin", "stat", 6, "The DraKubeletPluginNotRunning alert fires for these."),
                (
                    "claims_not_created",
                    "stat",
                    6,
                    "Pending pods whose template's ResourceClaim does not exist yet; DraPodClaimNotCreated fires "
                    "for these after claimPendingMinutes.",
                ),
                ("uncorrectable_memory_errors", "stat", 6, "New uncorrectable remapped rows and DBE-retired pages."),
                ("unschedulable_by_namespace", "short", 12, ""),
                (
                    "pod_claims_by_namespace",
                    "short",
                    12,
                    "kube-state-metrics kube_pod_resourceclaim_info (v2.20.0+): one per pod.spec.resourceClaims entry.",
                ),
                ("claims_in_use_by_node", "short", 12, "kubelet dra_resource_claims_in_use, every driver."),
                ("prepare_failures_by_node", "short", 12, "DraClaimPrepareFailing fires while these keep coming."),
                ("plugin_call_errors", "short", 12, "By gRPC status code; DraKubeletPluginCallsFailing fires on them."),
                ("scheduler_unschedulable", "short", 12, ""),
                ("scheduler_pending", "short", 12, ""),
                ("claim_controller_queue", "short", 12, "DraClaimControllerBacklog fires when it stays above 0."),
                ("gpus_by_claim", "short", 12, "dcgm-exporter's DRA pod mapping (dra_* labels)."),
                ("idle_gpus_by_claim", "short", 12, "dcgm-exporter's DRA pod mapping (dra_* labels)."),
            ),
        ),
        (
            "GPU utilisation and memory",
            (
                ("util_by_namespace", "percent", 12, ""),
                ("util_by_pod", "percent", 12, ""),
                # DCGM_FI_DEV_FB_USED is in MiB; Grafana's "mbytes" unit is MiB.
                ("memory_by_namespace", "mbytes", 12, ""),
                ("memory_by_pod", "mbytes", 12, ""),
            ),
        ),
        ("GPU health", (("xid_errors", "none", 12, ""), ("temperature", "celsius", 12, temperature))),
        (
            "Nodes",
            (
                (
                    "nodes_by_pool",
                    "short",
                    24,
                    f"kube_node_labels carries {POOL_LABEL} only when kube-state-metrics allow-lists it.",
                ),
            ),
        ),
    )


def build(inputs: RuleInputs) -> model.Dashboard:
    q = panel_queries(inputs)
    board = (
        builders.Dashboard(TITLE)
        .uid(UID)
        .tags(["gpu", "dra", "dra-gpu-platform"])
        .refresh("1m")
        .time("now-6h", "now")
        .timezone("browser")
        .with_variable(builders.DatasourceVariable("datasource").label("Data source").type("prometheus"))
    )
    for row, panels in _layout(inputs):
        present = [p for p in panels if p[0] in q]
        if not present:
            continue
        board = board.with_row(builders.Row(row))
        for key, kind, width, description in present:
            title, entries = q[key]
            if kind == "stat":
                board = board.with_panel(_stat(title, entries, description=description))
            else:
                board = board.with_panel(_timeseries(title, entries, kind, width, description))
    return board.build()


def to_json(dashboard: model.Dashboard) -> str:
    return json.dumps(dashboard, cls=JSONEncoder, sort_keys=True, indent=2) + "\n"


def from_json(text: str) -> model.Dashboard:
    """Decode exported JSON into the SDK's dashboard model (panel options need the SDK's plugin registry)."""
    plugins.register_default_plugins()
    return model.Dashboard.from_json(json.loads(text))


def dashboard_json(inputs: RuleInputs) -> str:
    return to_json(build(inputs))


def exprs(document: dict[str, Any]) -> list[str]:
    """Every PromQL expression in an exported dashboard, rows included."""
    found: list[str] = []
    for panel in document.get("panels", []):
        for nested in [panel, *panel.get("panels", [])]:
            found.extend(t["expr"] for t in nested.get("targets", []) if "expr" in t)
    return found
