"""Rules of `maintenance`: DeviceTaintRules are alpha and need a control plane that can turn the gate on."""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext


def check(r: RuleContext) -> None:
    c = r.c
    taints = c.maintenance.device_taints
    r.unique("maintenance.deviceTaints", (t.name for t in taints))
    if taints and c.platform != "kind":
        r.add(
            "maintenance.deviceTaints",
            [t.name for t in taints],
            f"DeviceTaintRule is alpha (resource.k8s.io/v1alpha3, gate DRADeviceTaints) and {c.platform} control planes cannot turn alpha gates on",
            "remove maintenance.deviceTaints (drain the node instead), or use a kind stack",
        )
    elif taints and c.cluster.kubernetes_version not in ("1.34", "1.35"):
        r.add(
            "maintenance.deviceTaints",
            [t.name for t in taints],
            "DeviceTaintRule is rendered as v1alpha3 for Kubernetes 1.34 and 1.35 only",
            'use kubernetesVersion "1.34" or "1.35"',
        )
    for i, taint in enumerate(taints):
        if taint.effect == "None" and c.cluster.kubernetes_version == "1.34":
            r.add(
                f"maintenance.deviceTaints[{i}].effect",
                "None",
                "taint effect None exists from Kubernetes 1.35",
                "use NoSchedule or NoExecute",
            )
