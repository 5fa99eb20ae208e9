"""Rules on elastic GPU pools: karpenter.sh/v1 NodePools (Karpenter's, EKS Auto Mode's, AKS node auto-provisioning's,
whichever program declares them) of GPU instances. A NodePool without limits grows without bound for pending pods;
consolidation that removes a GPU node sooner than a job can start on it (or that moves running GPU pods to pack
nodes) turns every short gap between jobs into a new launch. The GPU taint is gpu-node-pool-tainted's
(dra_gpu_platform/policies/rules/cloud.py), which reads NodePools too.

Facts (docs/references.md#karpenter-nodepool-crd, docs/references.md#karpenter-disruption): `spec.limits` (a node
count binds on every node; an nvidia.com/gpu limit not on a DRA node, whose capacity lists no nvidia.com/gpu:
kubernetes-sigs/karpenter@v1.14.1 pkg/controllers/state/statenode.go:359-375), `spec.disruption.consolidateAfter`
(default 0s) and `consolidationPolicy` (default WhenEmptyOrUnderutilized)."""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, PolicyConfigSchema, ResourceValidationArgs, Severity

from dra_gpu_platform.facts import karpenter
from dra_gpu_platform.plans.eks import GPU_RESOURCE
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import pools as recorded


def _gpu_node_pool(args: ResourceValidationArgs) -> Any:
    if args.resource_type != c.KARPENTER_NODE_POOL:
        return None
    return recorded.karpenter_node_pool(args.name, args.props)


# ---------------------------------------------------------------------------------------------------
# gpu-nodepool-limits


def _validate_limits(args: ResourceValidationArgs, report_violation) -> None:
    pool = _gpu_node_pool(args)
    if pool is None:
        return
    limits = c.as_dict(c.dig(args.props, "spec", "limits"))
    if not limits:
        report_violation(
            f"GPU NodePool {pool.name} ({c.short(pool.types) or 'GPU instances'}) has no spec.limits: every pending "
            "pod it can hold launches another GPU node, without bound."
        )
    elif set(limits) == {GPU_RESOURCE} and pool.dra:
        report_violation(
            f"GPU NodePool {pool.name} limits only {GPU_RESOURCE}, which its DRA nodes never list in their capacity "
            "(their GPUs are DRA devices): the limit never binds once they have joined."
        )


GPU_NODEPOOL_LIMITS = c.resource_policy(
    "gpu-nodepool-limits",
    description="GPU NodePools (Karpenter, EKS Auto Mode, AKS node auto-provisioning) set spec.limits, with a limit "
    "that binds on their nodes.",
    validate=_validate_limits,
    severity=Severity.HIGH,
    remediation_steps=(
        "Set `spec.limits.nodes` to the most nodes the pool may run (dra-gpu-platform writes `nodePools[].maxNodes` "
        "there); on DRA pools limit nodes (or cpu, memory), not nvidia.com/gpu."
    ),
    tags=["gpu", "cost"],
)

# ---------------------------------------------------------------------------------------------------
# gpu-nodepool-consolidation

CONSOLIDATION_SCHEMA = PolicyConfigSchema(
    properties={
        "minConsolidateAfter": {
            "type": "string",
            "pattern": r"^([0-9]+[smh])+$",
            "default": "10m",
            "description": "Shortest spec.disruption.consolidateAfter a GPU NodePool may have: how long an empty GPU "
            "node waits for the next job (its image pull and start) before it is removed.",
        },
        "allowUnderutilizedConsolidation": {
            "type": "boolean",
            "default": False,
            "description": "Accept consolidationPolicy WhenEmptyOrUnderutilized or Balanced on GPU NodePools (they "
            "evict running GPU pods to pack them onto fewer nodes).",
        },
    }
)


def _validate_consolidation(args: ResourceValidationArgs, report_violation) -> None:
    pool = _gpu_node_pool(args)
    if pool is None:
        return
    disruption = c.as_dict(c.dig(args.props, "spec", "disruption"))
    after = str(disruption.get("consolidateAfter") or karpenter.DEFAULT_CONSOLIDATE_AFTER)
    policy = str(disruption.get("consolidationPolicy") or karpenter.DEFAULT_CONSOLIDATION_POLICY)
    minimum = str(c.setting(args, CONSOLIDATION_SCHEMA, "minConsolidateAfter"))
    seconds, floor = karpenter.duration_seconds(after), karpenter.duration_seconds(minimum) or 0
    if after != karpenter.NEVER and seconds is not None and seconds < floor:
        written = "" if "consolidateAfter" in disruption else " (the default, unset)"
        report_violation(
            f"GPU NodePool {pool.name} consolidates an empty GPU node after {after}{written}, under "
            f"minConsolidateAfter {minimum}: a node is removed before the next job can pull its image and start, "
            "and the next pod waits for a new launch."
        )
    if policy != karpenter.CONSOLIDATION_POLICY and not c.setting(
        args, CONSOLIDATION_SCHEMA, "allowUnderutilizedConsolidation"
    ):
        written = "" if "consolidationPolicy" in disruption else " (the default, unset)"
        report_violation(
            f"GPU NodePool {pool.name} has consolidationPolicy {policy}{written}: Karpenter evicts running GPU pods "
            "to pack them onto fewer nodes; GPU jobs restart."
        )


def _remediate_consolidation(args: ResourceValidationArgs) -> dict[str, Any] | None:
    if _gpu_node_pool(args) is None:
        return None
    props = c.plain(args.props)
    disruption = props.setdefault("spec", {}).setdefault("disruption", {})
    disruption["consolidateAfter"] = max(
        (
            str(disruption.get("consolidateAfter") or "0s"),
            str(c.setting(args, CONSOLIDATION_SCHEMA, "minConsolidateAfter")),
        ),
        key=lambda d: karpenter.duration_seconds(d) if karpenter.duration_seconds(d) is not None else 10**9,
    )
    if not c.setting(args, CONSOLIDATION_SCHEMA, "allowUnderutilizedConsolidation"):
        disruption["consolidationPolicy"] = karpenter.CONSOLIDATION_POLICY
    return props


GPU_NODEPOOL_CONSOLIDATION = c.resource_policy(
    "gpu-nodepool-consolidation",
    description="GPU NodePools remove empty GPU nodes only, and not sooner than minConsolidateAfter (default 10m).",
    validate=_validate_consolidation,
    remediate=_remediate_consolidation,
    config_schema=CONSOLIDATION_SCHEMA,
    level=EnforcementLevel.ADVISORY,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Set `spec.disruption.consolidationPolicy: WhenEmpty` and `consolidateAfter` to at least the time a GPU job "
        f"takes to land on a new node (dra-gpu-platform writes {karpenter.CONSOLIDATE_AFTER}), or lower "
        "minConsolidateAfter in the stack's policy config where jobs start faster."
    ),
    tags=["gpu", "cost"],
)
