"""Monitoring: alert rules for DRA and the GPUs, a Grafana dashboard, ResourceClaim metrics through
kube-state-metrics, and (with `monitoring.install`) a pinned kube-prometheus-stack.

Without `install` the Prometheus Operator CRDs (PrometheusRule) and a kube-state-metrics are assumed to exist:
the custom-resource-state config for ResourceClaims is then shipped as a ConfigMap for that kube-state-metrics
to mount (README.md, "Monitoring", says how). The GPU Operator's dcgm-exporter ServiceMonitor comes from the
GPU Operator's own values, not from here.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s

from components.plans.monitoring import alerts as monitoring_rules, dashboard, ksm as ksm_resourceclaims, values as monitoring_values
from components.config.models import MonitoringConfig
from components.facts.naming import child, labels
from components.config.yamlio import dump_yaml
from components.facts.type_tokens import Component

PROMETHEUS_RULE_NAME = "dra-gpu-platform"
DASHBOARD_CONFIGMAP = "dra-gpu-platform-dashboard"
KSM_CONFIGMAP = "dra-gpu-platform-ksm-resourceclaims"
KSM_CONFIG_KEY = "config.yaml"
# node-exporter (part of kube-prometheus-stack) uses the host network, PID namespace and host paths.
POD_SECURITY = {"pod-security.kubernetes.io/enforce": "privileged"}


@dataclass(frozen=True)
class MonitoringArgs:
    monitoring: MonitoringConfig
    platform: str  # eks | aks | kind | existing: where kube-prometheus-stack finds the control plane
    provider: k8s.Provider
    runbooks: str = monitoring_rules.RUNBOOK_DIR  # folder of the runbook pages the alerts link


class Monitoring(pulumi.ComponentResource):
    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: MonitoringArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.MONITORING, name, None, opts)
        m = args.monitoring
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        release = None
        if m.install:
            ns = k8s.core.v1.Namespace(
                child(name, "namespace"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=monitoring_values.NAMESPACE, labels=labels(**POD_SECURITY)),
                opts=child_opts,
            )
            release = k8s.helm.v3.Release(
                child(name, "kube-prometheus-stack"),
                name=monitoring_values.RELEASE_NAME,
                chart=monitoring_values.CHART,
                version=monitoring_values.VERSION,
                repository_opts=k8s.helm.v3.RepositoryOptsArgs(repo=monitoring_values.REPOSITORY),
                namespace=ns.metadata.name,
                create_namespace=False,
                atomic=True,
                timeout=900,
                values=monitoring_values.values(args.platform),
                opts=child_opts,
            )
            namespace: pulumi.Input[str] = ns.metadata.name
        else:
            namespace = monitoring_values.NAMESPACE
        # The PrometheusRule CRD comes with the chart: wait for the release when this stack installs it.
        after_release = pulumi.ResourceOptions(
            parent=self, provider=args.provider, depends_on=[release] if release is not None else []
        )

        k8s.apiextensions.CustomResource(
            child(name, "rules"),
            api_version="monitoring.coreos.com/v1",
            kind="PrometheusRule",
            metadata=k8s.meta.v1.ObjectMetaArgs(name=PROMETHEUS_RULE_NAME, namespace=namespace, labels=labels()),
            spec={"groups": monitoring_rules.rule_groups(m, args.runbooks)},
            opts=after_release,
        )
        if m.dashboard:
            label, value = monitoring_values.DASHBOARD_LABEL
            k8s.core.v1.ConfigMap(
                child(name, "dashboard"),
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=DASHBOARD_CONFIGMAP, namespace=namespace, labels=labels(**{label: value})
                ),
                data={dashboard.FILE_NAME: dashboard.dashboard_json(m)},
                opts=after_release,
            )
        if not m.install:
            # With the chart installed, its values carry this config; otherwise the cluster's own
            # kube-state-metrics mounts it (--custom-resource-state-config-file).
            k8s.core.v1.ConfigMap(
                child(name, "ksm-resourceclaims"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=KSM_CONFIGMAP, namespace=namespace, labels=labels()),
                data={KSM_CONFIG_KEY: dump_yaml(ksm_resourceclaims.config())},
                opts=after_release,
            )
        self.namespace = pulumi.Output.from_input(namespace)
        self.register_outputs(
            {
                "namespace": self.namespace,
                "alerts": [a.name for a in monitoring_rules.alerts(m)],
                "kubePrometheusStack": monitoring_values.VERSION if m.install else None,
            }
        )
