"""The monitoring plan: everything dra_gpu_platform/resources/monitoring.py creates, as plain data. Pure: no Pulumi.

Built from the stack once; the resource never sees the StackConfig.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts.pod_security import PRIVILEGED_NAMESPACE_LABELS
from dra_gpu_platform.plans.gpu_software import GPU_OPERATOR_NAMESPACE, ReleasePlan
from dra_gpu_platform.plans.monitoring import alerts as alert_rules
from dra_gpu_platform.plans.monitoring import sources, values
from dra_gpu_platform.plans.network_policy import NetworkPolicyPlan, monitoring_policies

# kube-prometheus-stack's node-exporter uses the host network, PID namespace and host paths.
POD_SECURITY = PRIVILEGED_NAMESPACE_LABELS
# The GPU Operator runs dcgm-exporter as this service account in its own namespace
# (NVIDIA/gpu-operator@v25.10.1 assets/state-dcgm-exporter/0100_service_account.yaml, 0800_daemonset.yaml:26).
DCGM_SERVICE_ACCOUNT = "nvidia-dcgm-exporter"
# What dcgm-exporter's DRA mapping lists and watches (NVIDIA/dcgm-exporter@4.4.2-4.7.0
# internal/pkg/transformation/dra.go:43; its own chart grants the same, deployment/templates/clusterrole.yaml:9-10).
# The operator's Role for it covers only configmaps and pods (assets/state-dcgm-exporter/0200_role.yaml).
DCGM_RESOURCESLICE_RULE = {
    "apiGroups": ["resource.k8s.io"],
    "resources": ["resourceslices"],
    "verbs": ["get", "list", "watch"],
}


@dataclass(frozen=True)
class DcgmRbacPlan:
    """Lets the GPU Operator's dcgm-exporter list ResourceSlices, which its DRA mapping needs."""

    service_account: str
    namespace: str
    rules: tuple[dict[str, Any], ...]


@dataclass(frozen=True)
class MonitoringPlan:
    namespace: str
    create_namespace: bool
    namespace_labels: dict[str, str]
    chart: ReleasePlan | None  # kube-prometheus-stack, with monitoring.install
    rule_groups: list[dict[str, Any]]
    alerts: tuple[str, ...]
    left_out: dict[str, list[str]]  # alert -> series no source of the stack produces
    dashboard: bool
    inputs: alert_rules.RuleInputs
    dcgm_rbac: DcgmRbacPlan | None = None
    sources: tuple[sources.Source, ...] = field(default_factory=tuple)
    # With install: only the namespace itself and the API server (the operator's webhook) reach its pods.
    network_policies: tuple[NetworkPolicyPlan, ...] = ()


def dra_namespaces(config: StackConfig) -> tuple[str, ...]:
    return tuple(sorted(ns.name for ns in config.namespaces if ns.migration in ("dual", "dra-only")))


def rule_inputs(config: StackConfig) -> alert_rules.RuleInputs:
    return alert_rules.RuleInputs(
        alert_rules.AlertSettings.of(config.monitoring), sources.sources(config), dra_namespaces(config)
    )


def monitoring_plan(config: StackConfig) -> MonitoringPlan | None:
    m = config.monitoring
    if not m.enabled:
        return None
    inputs = rule_inputs(config)
    chart = (
        ReleasePlan(
            release=values.RELEASE_NAME,
            chart=values.CHART,
            version=values.VERSION,
            repository=values.REPOSITORY,
            namespace=m.namespace,
            values=values.values(config),
            timeout_s=values.TIMEOUT_S,
        )
        if m.install
        else None
    )
    rbac = (
        DcgmRbacPlan(DCGM_SERVICE_ACCOUNT, GPU_OPERATOR_NAMESPACE, (dict(DCGM_RESOURCESLICE_RULE),))
        # under a GPUCluster the operator's own dcgm-exporter-dra has these rights (docs/references.md#dcgm-exporter-dra-api)
        if sources.dcgm_dra_pod_mapping(config) and not config.uses_gpu_cluster
        else None
    )
    return MonitoringPlan(
        namespace=m.namespace,
        create_namespace=m.creates_namespace,
        namespace_labels=dict(POD_SECURITY) if m.install else {},
        chart=chart,
        rule_groups=alert_rules.rule_groups(inputs),
        alerts=tuple(a.name for a in alert_rules.alerts(inputs)),
        left_out=alert_rules.left_out(inputs),
        dashboard=m.dashboard,
        inputs=inputs,
        dcgm_rbac=rbac,
        sources=inputs.sources,
        network_policies=monitoring_policies(values.RELEASE_NAME) if m.install else (),
    )
