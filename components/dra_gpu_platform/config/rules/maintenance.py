"""Rules of `maintenance`: a DeviceTaintRule needs a cluster that serves its API version with DRADeviceTaintRules on.

Kubernetes serves DeviceTaintRule as resource.k8s.io/v1alpha3 in 1.34/1.35 (alpha), also v1beta2 in 1.36 (beta,
off by default) and v1 in 1.37 (GA, on) (dra_gpu_platform/facts/kubernetes.py; docs/references.md#kubernetes-resource-api-versions).
kind sets the control plane's gates and runtime-config itself (dra_gpu_platform/plans/kind.py); EKS and AKS cannot, and an
existing cluster's flags are not known here, so below 1.37 they are refused."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import kubernetes


def check(r: RuleContext) -> None:
    c = r.c
    taints = c.maintenance.device_taints
    r.unique("maintenance.deviceTaints", (t.name for t in taints))
    minor = c.cluster.minor
    if (
        taints
        and not kubernetes.MINORS[c.cluster.kubernetes_version].device_taint_rule_default
        and not c.profile.kubernetes.sets_feature_gates
    ):
        served = kubernetes.MINORS[c.cluster.kubernetes_version].device_taint_rule_apis
        stage = kubernetes.gate_stage(kubernetes.DRA_DEVICE_TAINT_RULES, minor) or kubernetes.gate_stage(
            kubernetes.DRA_DEVICE_TAINTS, minor
        )
        where = c.profile.kubernetes.gates_note
        r.add(
            "maintenance.deviceTaints",
            [t.name for t in taints],
            f"Kubernetes {c.cluster.kubernetes_version} serves DeviceTaintRule only as {' or '.join(served)} with "
            f"DRADeviceTaintRules on ({stage.prerelease.lower() if stage else 'alpha'}, off by default) and the "
            f"API version enabled by --runtime-config; {where}",
            'use kubernetesVersion "1.37" (DeviceTaintRule in resource.k8s.io/v1, on by default) where the platform '
            "offers it, or a kind stack; until then drain the node, or let the driver taint unhealthy devices "
            "(draDriver.featureGates.NVMLDeviceHealthCheck)",
        )
    for i, taint in enumerate(taints):
        at = f"maintenance.deviceTaints[{i}]"
        if taint.effect == "None" and minor < 35:
            r.add(
                f"{at}.effect", "None", "taint effect None exists from Kubernetes 1.35", "use NoSchedule or NoExecute"
            )
        if taint.device is not None and taint.pool is None:
            r.add(
                f"{at}.device",
                taint.device,
                "a device name without its pool selects that name in every pool of the driver (the NVIDIA driver "
                "names GPUs gpu-<minor> on every node), i.e. on every node",
                "add pool (the node name for node-local drivers), or remove device to taint a whole pool",
            )
