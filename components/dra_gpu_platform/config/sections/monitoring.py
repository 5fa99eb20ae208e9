"""The `monitoring` section: ServiceMonitor, alert rules and dashboard, and what the stack's Prometheus reads.
Pure: no Pulumi imports.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from dra_gpu_platform.config.fields import ConfigModel, DnsLabel, StackBool, StackInt, rule_error
from dra_gpu_platform.facts import platform_namespaces, project


def _absolute_url(value: str) -> str:
    if not re.match(r"^https?://[^/\s]+(/\S*)?$", value):
        raise rule_error(
            "must be an absolute http(s) URL: Alertmanager and on-call tools open runbook links as they are",
            f"write the full address, e.g. {project.RUNBOOKS_URL!r}",
        )
    return value


MonitoringExporter = Literal["kube-state-metrics", "kubelet", "kube-scheduler", "kube-controller-manager"]


class MonitoringConfig(ConfigModel):
    enabled: StackBool = Field(False, description="ServiceMonitor, alert rules and dashboard.")
    install: StackBool = Field(False, description="Also install a pinned kube-prometheus-stack.")
    namespace: DnsLabel = Field(
        platform_namespaces.MONITORING_DEFAULT,
        description="Namespace of the alert rules, the dashboard and (with install) the chart.",
    )
    create_namespace: StackBool | None = Field(
        None,
        description="true: this stack creates the namespace; false: it must exist (the stack reads it and fails "
        "if it is missing). Default: true with install, false without.",
    )
    runbook_base_url: Annotated[str, AfterValidator(_absolute_url)] = Field(
        project.RUNBOOKS_URL,
        description="Absolute URL under which <Alert>.md runbook pages live; each alert's runbook_url is "
        "<runbookBaseUrl>/<Alert>.md. Default: docs/monitoring/runbooks of this repository as GitHub renders it.",
    )
    external_sources: list[MonitoringExporter] = Field(
        default_factory=list,
        description="Exporters your own Prometheus already scrapes, for alerts that need them: with install: false "
        "kube-state-metrics and kubelet; on kind/existing clusters also kube-scheduler and kube-controller-manager.",
    )
    dcgm_dra_pod_mapping: StackBool | None = Field(
        None,
        description="dcgm-exporter's KUBERNETES_ENABLE_DRA (pod and claim labels on DRA GPUs). It needs "
        "resource.k8s.io/v1beta1 served: default on for kind (the stack enables it there), off elsewhere; under a "
        "GPUCluster the operator's own (always on, not set here).",
    )
    claim_pending_minutes: StackInt = Field(
        5,
        ge=1,
        le=1440,
        description="Alert when a pod of a DRA namespace (or the scheduler's DRA plugin) stays unschedulable longer.",
    )
    dashboard: StackBool = Field(True, description="Ship the Grafana dashboard ConfigMap.")
    gpu_temperature_celsius: StackInt = Field(85, ge=40, le=120, description="GPU temperature alert threshold.")
    idle_gpu_utilization_percent: StackInt = Field(5, ge=0, le=100, description="Below this an allocated GPU is idle.")
    idle_gpu_minutes: StackInt = Field(60, ge=5, le=10080, description="How long an allocated GPU may idle.")

    @property
    def creates_namespace(self) -> bool:
        return self.install if self.create_namespace is None else self.create_namespace
