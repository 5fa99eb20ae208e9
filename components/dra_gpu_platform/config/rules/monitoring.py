"""Rules of `monitoring`: what the stack's Prometheus can really read (dra_gpu_platform/plans/monitoring/sources.py)."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext

_CONTROL_PLANE = ("kube-scheduler", "kube-controller-manager")
_CHART_OWN = ("kube-state-metrics", "kubelet")


def check(r: RuleContext) -> None:
    c = r.c
    m = c.monitoring
    if not m.enabled:
        return
    for index, exporter in enumerate(m.external_sources):
        path = f"monitoring.externalSources[{index}]"
        if exporter in _CONTROL_PLANE and c.profile.kubernetes.metrics == "azure-monitor":
            r.add(
                path,
                exporter,
                "AKS sends control-plane metrics only to Azure Monitor's managed Prometheus; no in-cluster "
                "Prometheus can scrape them",
                "remove it; the DRA alerts that need it are left out on AKS",
            )
        elif exporter in _CONTROL_PLANE and c.profile.kubernetes.metrics == "stack":
            r.add(
                path,
                exporter,
                "on EKS this stack scrapes the control plane itself through metrics.eks.amazonaws.com (with install: true)",
                "remove it, and set monitoring.install: true to get those series",
            )
        elif exporter in _CHART_OWN and m.install:
            r.add(
                path,
                exporter,
                "with install: true the pinned kube-prometheus-stack scrapes it",
                "remove it, or set install: false if your own Prometheus does the scraping",
            )
    if m.external_sources and len(set(m.external_sources)) != len(m.external_sources):
        r.add("monitoring.externalSources", m.external_sources, "each exporter once", "remove the repeated names")
    if c.uses_gpu_cluster and m.dcgm_dra_pod_mapping is not None:
        r.add(
            "monitoring.dcgmDraPodMapping",
            m.dcgm_dra_pod_mapping,
            "under a GPUCluster the GPU Operator runs dcgm-exporter with its DRA pod mapping on by itself",
            "remove it",
        )
    elif m.dcgm_dra_pod_mapping:
        if c.profile.kubernetes.managed:
            r.add(
                "monitoring.dcgmDraPodMapping",
                True,
                "dcgm-exporter's DRA mapping lists resource.k8s.io/v1beta1 ResourceSlices and serves nothing until "
                "that list succeeds; v1beta1 is off by default from Kubernetes 1.34 and managed control planes "
                "take no --runtime-config",
                "remove it (default off); DRA GPUs then carry no pod labels in DCGM metrics",
            )
        if not (c.gpu_operator_enabled and c.dra_pools):
            r.add(
                "monitoring.dcgmDraPodMapping",
                True,
                "the mapping labels GPUs of DRA pools in the GPU Operator's dcgm-exporter",
                "remove it, or enable the GPU Operator and add a gpuStack: dra pool",
            )
