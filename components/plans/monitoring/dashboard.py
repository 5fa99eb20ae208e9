"""The Grafana dashboard, built with the typed grafana-foundation-sdk builders and exported to JSON.
Pure: no Pulumi imports.

Panels: GPU utilisation and memory per namespace and pod (dcgm-exporter's pod mapping), allocated and idle
GPUs per device class (ResourceClaim allocations from our kube-state-metrics config joined with the dra_*
labels dcgm-exporter adds with KUBERNETES_ENABLE_DRA), pending claims, XID errors and GPU health, and node
counts per pool (kube_node_labels: the pool labels must be allow-listed in kube-state-metrics, see
components/plans/monitoring/values.py). Every query uses only names from components/plans/monitoring/metrics.py.
"""

from __future__ import annotations

import json
from typing import Any

from grafana_foundation_sdk.builders import common as common_builders
from grafana_foundation_sdk.builders import dashboard as builders
from grafana_foundation_sdk.builders import prometheus, stat, timeseries
from grafana_foundation_sdk.cog import plugins
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import common
from grafana_foundation_sdk.models import dashboard as model

from components.plans.monitoring import ksm
from components.config.models import MonitoringConfig
from components.plans.monitoring.alerts import DRA_SCHEDULER_PLUGIN, IDLE_SAMPLE_WINDOW, dra_alerts, prometheus_label
from components.facts.node_labels import GPU_STACK_LABEL, POOL_LABEL

UID = "dra-gpu-platform"
TITLE = "DRA GPU platform"
FILE_NAME = "dra-gpu-platform.json"
_DATASOURCE = model.DataSourceRef(type_val="prometheus", uid="${datasource}")
POOL = prometheus_label(POOL_LABEL)
STACK = prometheus_label(GPU_STACK_LABEL)

# ---------------------------------------------------------------------------------------------------
# queries (module level so tests and the runbook can quote them)

PENDING_CLAIMS = f"{ksm.CREATED} unless on (namespace, resourceclaim) {ksm.ALLOCATED_DEVICE_INFO}"

# One series per allocated device with the device class of its request: exact requests join on the request
# name; firstAvailable results are named "<request>/<subrequest>" and join on the subrequest.
ALLOCATED_WITH_CLASS = (
    f"({ksm.ALLOCATED_DEVICE_INFO} * on (namespace, resourceclaim, request) group_left (device_class) "
    f"{ksm.REQUEST_INFO})\n"
    f'or\n(label_replace({ksm.ALLOCATED_DEVICE_INFO}, "subrequest", "$1", "request", "[^/]+/(.+)") '
    f"* on (namespace, resourceclaim, subrequest) group_left (device_class) {ksm.SUBREQUEST_INFO})"
)


def idle_dra_gpus(m: MonitoringConfig) -> str:
    """DRA-allocated GPUs whose utilisation stayed below the idle threshold, with their device class."""
    idle = (
        f'max_over_time(DCGM_FI_DEV_GPU_UTIL{{dra_device_name!=""}}[{IDLE_SAMPLE_WINDOW}]) '
        f"< {m.idle_gpu_utilization_percent}"
    )
    by_device = f'label_replace(label_replace({idle}, "pool", "$1", "dra_pool_name", "(.+)"), "device", "$1", "dra_device_name", "(.+)")'
    classes = f"max by (pool, device, device_class) ({ALLOCATED_WITH_CLASS})"
    return f"count by (device_class) (\n{by_device}\n* on (pool, device) group_left (device_class) {classes}\n)"


def panel_queries(m: MonitoringConfig) -> dict[str, tuple[str, list[tuple[str, str]]]]:
    """key -> (panel title, [(PromQL, legend)]): the single source of the dashboard's queries. Keys are stable
    ids (tests record each query under `dashboard:<key>` and evaluate it with promtool)."""
    plugin_missing = next(a.expr for a in dra_alerts(m) if a.name == "DraKubeletPluginNotRunning")
    pending_too_long = (
        f"((time() - {ksm.CREATED}) > {m.claim_pending_minutes * 60}) "
        f"unless on (namespace, resourceclaim) {ksm.ALLOCATED_DEVICE_INFO}"
    )
    return {
        "pending_claims": ("Pending claims", [(f"count({PENDING_CLAIMS}) or vector(0)", "pending")]),
        "claims_pending_too_long": (
            f"Claims pending > {m.claim_pending_minutes} min",
            [(f"count({pending_too_long}) or vector(0)", "too long")],
        ),
        "dra_nodes_without_plugin": (
            "DRA nodes without a ready kubelet plugin",
            [(f"count({plugin_missing}) or vector(0)", "nodes")],
        ),
        "uncorrectable_memory_errors": (
            "Uncorrectable memory errors (24h)",
            [
                (
                    "sum(increase(DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS[24h]) or vector(0)) "
                    "+ sum(increase(DCGM_FI_DEV_RETIRED_DBE[24h]) or vector(0))",
                    "errors",
                ),
                ("sum(DCGM_FI_DEV_ROW_REMAP_FAILURE) or vector(0)", "remap failures"),
            ],
        ),
        "allocated_by_class": (
            "Allocated devices by device class",
            [(f"count by (device_class) (\n{ALLOCATED_WITH_CLASS}\n)", "{{device_class}}")],
        ),
        "idle_by_class": (
            f"Idle allocated GPUs by device class (< {m.idle_gpu_utilization_percent}% for {IDLE_SAMPLE_WINDOW})",
            [(idle_dra_gpus(m), "{{device_class}}")],
        ),
        "claims_in_use_by_namespace": (
            "Claims reserved by pods, by namespace",
            [(f'count by (namespace) ({ksm.RESERVED_FOR_INFO}{{consumer_resource="pods"}})', "{{namespace}}")],
        ),
        "pending_by_namespace": (
            "Pending claims by namespace",
            [(f"count by (namespace) ({PENDING_CLAIMS})", "{{namespace}}")],
        ),
        "unschedulable": (
            "Pods the scheduler cannot place",
            [
                (
                    f'max by (plugin) (scheduler_unschedulable_pods{{plugin="{DRA_SCHEDULER_PLUGIN}"}})',
                    "{{plugin}}",
                ),
                ('max by (queue) (scheduler_pending_pods{queue="unschedulable"})', "queue {{queue}}"),
            ],
        ),
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


# ---------------------------------------------------------------------------------------------------
# panels


def _targets(panel, entries: list[tuple[str, str]], instant: bool = False):
    for index, (expr, legend) in enumerate(entries):
        query = prometheus.Dataquery().expr(expr).legend_format(legend).ref_id(chr(ord("A") + index))
        panel = panel.with_target(query.instant() if instant else query)
    return panel


def _timeseries(title: str, entries, unit: str, width: int = 12, description: str = ""):
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
        .tooltip(common_builders.VizTooltipOptions().mode(common.TooltipDisplayMode.MULTI).sort(common.SortOrder.DESCENDING))
        .height(8)
        .span(width)
    )
    return _targets(panel, entries)


def _stat(title: str, entries, unit: str = "short", red_from: float = 1, description: str = ""):
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


def build(m: MonitoringConfig) -> model.Dashboard:
    q = panel_queries(m)

    def ts(key: str, unit: str, width: int = 12, description: str = ""):
        title, entries = q[key]
        return _timeseries(title, entries, unit, width, description)

    def st(key: str, description: str = ""):
        title, entries = q[key]
        return _stat(title, entries, description=description)

    return (
        builders.Dashboard(TITLE)
        .uid(UID)
        .tags(["gpu", "dra", "dra-gpu-platform"])
        .refresh("1m")
        .time("now-6h", "now")
        .timezone("browser")
        .with_variable(builders.DatasourceVariable("datasource").label("Data source").type("prometheus"))
        .with_row(builders.Row("DRA allocation"))
        .with_panel(st("pending_claims", "Claims with no allocated device."))
        .with_panel(st("claims_pending_too_long", "The DraResourceClaimPending alert fires for these."))
        .with_panel(st("dra_nodes_without_plugin", "The DraKubeletPluginNotRunning alert fires for these."))
        .with_panel(st("uncorrectable_memory_errors", "New uncorrectable remapped rows and DBE-retired pages."))
        .with_panel(ts("allocated_by_class", "short"))
        .with_panel(
            ts("idle_by_class", "short", description="Needs dcgm-exporter with KUBERNETES_ENABLE_DRA (dra_* labels).")
        )
        .with_panel(ts("pending_by_namespace", "short"))
        .with_panel(ts("claims_in_use_by_namespace", "short"))
        .with_panel(ts("unschedulable", "short"))
        .with_row(builders.Row("GPU utilisation and memory"))
        .with_panel(ts("util_by_namespace", "percent"))
        .with_panel(ts("util_by_pod", "percent"))
        # DCGM_FI_DEV_FB_USED is in MiB; Grafana's "mbytes" unit is MiB.
        .with_panel(ts("memory_by_namespace", "mbytes"))
        .with_panel(ts("memory_by_pod", "mbytes"))
        .with_row(builders.Row("GPU health"))
        .with_panel(ts("xid_errors", "none"))
        .with_panel(ts("temperature", "celsius", description=f"GpuTemperatureHigh fires above {m.gpu_temperature_celsius} C."))
        .with_row(builders.Row("Nodes"))
        .with_panel(
            ts("nodes_by_pool", "short", width=24,
               description=f"kube_node_labels carries {POOL_LABEL} only when kube-state-metrics allow-lists it.")
        )
        .build()
    )


def to_json(dashboard: model.Dashboard) -> str:
    return json.dumps(dashboard, cls=JSONEncoder, sort_keys=True, indent=2) + "\n"


def from_json(text: str) -> model.Dashboard:
    """Decode exported JSON into the SDK's dashboard model (panel options need the SDK's plugin registry)."""
    plugins.register_default_plugins()
    return model.Dashboard.from_json(json.loads(text))


def dashboard_json(m: MonitoringConfig) -> str:
    return to_json(build(m))


def exprs(document: dict[str, Any]) -> list[str]:
    """Every PromQL expression in an exported dashboard, rows included."""
    found = []
    for panel in document.get("panels", []):
        for nested in [panel, *panel.get("panels", [])]:
            found.extend(t["expr"] for t in nested.get("targets", []) if "expr" in t)
    return found
