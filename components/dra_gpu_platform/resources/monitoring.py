"""Monitoring: alert rules for DRA and the GPUs, a Grafana dashboard, and (with `monitoring.install`) a pinned
kube-prometheus-stack. Takes a MonitoringPlan (dra_gpu_platform/plans/monitoring/plan.py), never the StackConfig.

The namespace is created (`monitoring.createNamespace`, default with `install`) or required to exist: then it is
read from the cluster, so a missing namespace fails the deployment with its name instead of the rules landing
nowhere. Without `install` the Prometheus Operator CRDs (PrometheusRule) must exist; which alerts a stack gets
depends on the exporters its Prometheus scrapes (dra_gpu_platform/plans/monitoring/sources.py). The GPU Operator's
dcgm-exporter ServiceMonitor comes from the GPU Operator's own values; with its DRA pod mapping on, this component
lets that exporter list ResourceSlices.
"""

from __future__ import annotations

from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_kubernetes.networking import v1 as networking_v1

from dra_gpu_platform.facts.naming import child, labels
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.monitoring import dashboard
from dra_gpu_platform.plans.monitoring import values as monitoring_values
from dra_gpu_platform.plans.monitoring.plan import MonitoringPlan
from dra_gpu_platform.resources.software.helm_release import pinned_release
from dra_gpu_platform.resources.tenancy.typed_args import network_policy_spec

PROMETHEUS_RULE_NAME = "dra-gpu-platform"
DASHBOARD_CONFIGMAP = "dra-gpu-platform-dashboard"
DCGM_RBAC_NAME = "dra-gpu-platform-dcgm-exporter-resourceslices"


@dataclass(frozen=True)
class MonitoringArgs:
    plan: MonitoringPlan
    provider: k8s.Provider


class Monitoring(pulumi.ComponentResource):
    namespace: pulumi.Output[str]

    def __init__(self, name: str, args: MonitoringArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.MONITORING, name, None, opts)
        plan = args.plan
        child_opts = pulumi.ResourceOptions(parent=self, provider=args.provider)
        if plan.create_namespace:
            ns = k8s.core.v1.Namespace(
                child(name, "namespace"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=plan.namespace, labels=labels(**plan.namespace_labels)),
                opts=child_opts,
            )
        else:
            # Required to exist: reading it fails `pulumi up` with the namespace's name when it is missing.
            ns = k8s.core.v1.Namespace.get(child(name, "namespace-existing"), plan.namespace, opts=child_opts)
        # Children name the namespace by its planned name and wait for it (created or read) explicitly.
        namespace = plan.namespace
        in_namespace = pulumi.ResourceOptions(parent=self, provider=args.provider, depends_on=[ns])
        release = None
        if plan.chart is not None:
            release = pinned_release(
                child(name, "kube-prometheus-stack"), plan.chart, namespace=namespace, opts=in_namespace
            )
        # The PrometheusRule CRD comes with the chart: wait for the release when this stack installs it.
        after_release = pulumi.ResourceOptions(
            parent=self, provider=args.provider, depends_on=[ns] + ([release] if release is not None else [])
        )
        if plan.rule_groups:
            k8s.apiextensions.CustomResource(
                child(name, "rules"),
                api_version="monitoring.coreos.com/v1",
                kind="PrometheusRule",
                metadata=k8s.meta.v1.ObjectMetaArgs(name=PROMETHEUS_RULE_NAME, namespace=namespace, labels=labels()),
                spec={"groups": plan.rule_groups},
                opts=after_release,
            )
        for policy in plan.network_policies:
            networking_v1.NetworkPolicy(
                child(name, "netpol", policy.name),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=policy.name, namespace=namespace, labels=labels()),
                spec=network_policy_spec(policy),
                opts=in_namespace,
            )
        if plan.dashboard:
            label, value = monitoring_values.DASHBOARD_LABEL
            k8s.core.v1.ConfigMap(
                child(name, "dashboard"),
                metadata=k8s.meta.v1.ObjectMetaArgs(
                    name=DASHBOARD_CONFIGMAP, namespace=namespace, labels=labels(**{label: value})
                ),
                data={dashboard.FILE_NAME: dashboard.dashboard_json(plan.inputs)},
                opts=after_release,
            )
        if plan.dcgm_rbac is not None:
            rbac = plan.dcgm_rbac
            role = k8s.rbac.v1.ClusterRole(
                child(name, "dcgm-resourceslices"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=DCGM_RBAC_NAME, labels=labels()),
                rules=[
                    k8s.rbac.v1.PolicyRuleArgs(api_groups=r["apiGroups"], resources=r["resources"], verbs=r["verbs"])
                    for r in rbac.rules
                ],
                opts=child_opts,
            )
            k8s.rbac.v1.ClusterRoleBinding(
                child(name, "dcgm-resourceslices"),
                metadata=k8s.meta.v1.ObjectMetaArgs(name=DCGM_RBAC_NAME, labels=labels()),
                role_ref=k8s.rbac.v1.RoleRefArgs(
                    api_group="rbac.authorization.k8s.io", kind="ClusterRole", name=role.metadata.name
                ),
                subjects=[
                    k8s.rbac.v1.SubjectArgs(kind="ServiceAccount", name=rbac.service_account, namespace=rbac.namespace)
                ],
                opts=child_opts,
            )
        self.namespace = pulumi.Output.from_input(namespace)
        self.register_outputs(
            {
                "namespace": self.namespace,
                "alerts": list(plan.alerts),
                "alertsLeftOut": {alert: list(series) for alert, series in plan.left_out.items()},
                "kubePrometheusStack": plan.chart.version if plan.chart is not None else None,
            }
        )
