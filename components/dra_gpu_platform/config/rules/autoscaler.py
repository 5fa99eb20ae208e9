"""Rules of the `autoscaler` section and the node pool sizes it implies.

Sources: docs/references.md#cluster-autoscaler-dra (a DRA node group needs one node unless the cloud provider predicts its
ResourceSlices; the AWS and Azure providers do not) and docs/references.md#cluster-autoscaler-chart (the released
cluster-autoscaler images per minor).
"""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.autoscaler import AUTOSCALED_PLATFORMS
from dra_gpu_platform.config.sections.node_pools import AUTOSCALED_DRA_MIN_NODES, NodePool
from dra_gpu_platform.facts import autoscaler as ca
from dra_gpu_platform.facts import kubernetes, provisioners


def check(r: RuleContext) -> None:
    c = r.c
    settings = c.autoscaler
    autoscaling = c.profile.autoscaling
    if settings.enabled and not autoscaling.supported:
        r.add(
            "autoscaler.enabled",
            True,
            f"the autoscaler runs on {' and '.join(AUTOSCALED_PLATFORMS)} only; on {c.platform} the node pools are the "
            "nodes that exist",
            "remove autoscaler.enabled (or set it to false)",
        )
    if c.provisioner != provisioners.CLUSTER_AUTOSCALER:
        return  # Karpenter, EKS Auto Mode and AKS NAP have their own rules (rules/provisioners.py)
    if settings.version is not None:
        _version(r, settings.version)
    if not c.autoscaler_enabled:
        return
    minor = c.cluster.kubernetes_version
    offer = c.profile.kubernetes.offer(minor)
    # a minor the service has never offered is cluster.kubernetesVersion's problem already (rules/kubernetes_version.py)
    offered = offer is not None and offer.available_from is not None and kubernetes.today() >= offer.available_from
    pinned = autoscaling.default is not None and autoscaling.default.installed_by_stack
    if pinned and minor in ca.NO_IMAGE_YET and offered:
        r.add(
            "autoscaler.enabled" if settings.enabled else "cluster.kubernetesVersion",
            True if settings.enabled else minor,
            f"no cluster-autoscaler image exists for Kubernetes {minor} yet: {ca.NO_IMAGE_YET[minor]}",
            f"set autoscaler.enabled: false (and size the pools yourself), or use Kubernetes {max(ca.RELEASES)}",
        )
    for i, pool in enumerate(c.node_pools):
        if pool.autoscaled_from_one_node and pool.min_nodes == 0:
            r.add(
                f"nodePools[{i}].minNodes",
                0,
                "the autoscaler cannot see DRA devices on a node group with no nodes (its AWS and Azure providers "
                "build empty nodes without ResourceSlices), so a dra pool at 0 nodes never scales up for a claim",
                f"set minNodes: {AUTOSCALED_DRA_MIN_NODES} (or leave it out: minNodes defaults to "
                f"{NodePool.model_fields['min_nodes'].default}, and to {AUTOSCALED_DRA_MIN_NODES} for an on-demand or "
                f"spot dra pool like this one where the autoscaler runs), or make {pool.name} a gpuStack: "
                "device-plugin pool, which scales from zero, or set autoscaler.enabled: false and size the pool yourself",
            )


def _version(r: RuleContext, version: str) -> None:
    c = r.c
    provisioner = c.profile.autoscaling.default
    if provisioner is None:
        return  # autoscaler.enabled is the problem to fix there
    if not provisioner.installed_by_stack:
        r.add(
            "autoscaler.version",
            version,
            f"{c.profile.title} runs its own cluster autoscaler, matching the cluster's Kubernetes version",
            "remove autoscaler.version",
        )
        return
    minor = c.cluster.kubernetes_version
    released = ca.RELEASES.get(minor, ())
    plain = version.lstrip("v")
    if not released:
        return  # no image for the minor at all: check() says so
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
