"""Rules of the `autoscaler` section and the node pool sizes it implies.

Sources: docs/references.md#cluster-autoscaler-dra (a DRA node group needs one node unless the cloud provider predicts its
ResourceSlices; the AWS and Azure providers do not) and docs/references.md#cluster-autoscaler-chart (the released
cluster-autoscaler images per minor).
"""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections import AUTOSCALED_PLATFORMS
from dra_gpu_platform.facts import autoscaler as ca


def check(r: RuleContext) -> None:
    c = r.c
    settings = c.autoscaler
    if settings.enabled and c.platform not in AUTOSCALED_PLATFORMS:
        r.add(
            "autoscaler.enabled",
            True,
            f"the autoscaler runs on eks and aks only; on {c.platform} the node pools are the nodes that exist",
            "remove autoscaler.enabled (or set it to false)",
        )
    if settings.version is not None:
        _version(r, settings.version)
    if not c.autoscaler_enabled:
        return
    for i, pool in enumerate(c.node_pools):
        if pool.autoscaled_from_one_node and pool.min_nodes == 0:
            r.add(
                f"nodePools[{i}].minNodes",
                0,
                "the autoscaler cannot see DRA devices on a node group with no nodes (its AWS and Azure providers "
                "build empty nodes without ResourceSlices), so a dra pool at 0 nodes never scales up for a claim",
                f"set minNodes: 1 (the default), or make {pool.name} a gpuStack: device-plugin pool, which scales "
                "from zero, or set autoscaler.enabled: false and size the pool yourself",
            )


def _version(r: RuleContext, version: str) -> None:
    c = r.c
    if c.platform == "aks":
        r.add(
            "autoscaler.version",
            version,
            "AKS runs its own cluster autoscaler, matching the cluster's Kubernetes version",
            "remove autoscaler.version",
        )
        return
    if c.platform not in AUTOSCALED_PLATFORMS:
        return  # autoscaler.enabled is the problem to fix there
    minor = c.cluster.kubernetes_version
    released = ca.RELEASES.get(minor, ())
    plain = version.lstrip("v")
    if not plain.startswith(f"{minor}."):
        r.add(
            "autoscaler.version",
            version,
            f"the cluster autoscaler must match the cluster's Kubernetes minor ({minor})",
            f"use {ca.default_version(minor)} or remove autoscaler.version",
        )
    elif plain not in released:
        r.add(
            "autoscaler.version",
            version,
            f"no cluster-autoscaler {plain} image was released",
            f"use one of {', '.join(released)}",
        )
