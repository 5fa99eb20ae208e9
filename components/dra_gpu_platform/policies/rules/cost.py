"""Rule on what the stack's GPU pools cost while they sit at minNodes: the always-on cost per hour, priced as
`gpuplan preview`'s capacity table prices it (dra_gpu_platform/plans/capacity.py: recorded on-demand prices of the
stack's region, docs/references.md#gpu-prices). A pool whose price the pack does not know is named, never guessed."""

from __future__ import annotations

from pulumi_policy import EnforcementLevel, PolicyConfigSchema, Severity, StackValidationArgs

from dra_gpu_platform.plans.capacity import pools_capacity
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import pools as recorded

ALWAYS_ON_SCHEMA = PolicyConfigSchema(
    properties={
        "maxAlwaysOnPerHour": {
            "type": "number",
            "minimum": 0,
            "default": 100,
            "description": "Most USD per hour the stack's GPU pools may cost at minNodes (nodes that run around the "
            "clock); pools without a known price are not counted.",
        }
    }
)


def _validate_always_on(args: StackValidationArgs, report_violation) -> None:
    limit = float(c.setting(args, ALWAYS_ON_SCHEMA, "maxAlwaysOnPerHour"))
    resources = list(args.resources)
    pools = [pool for _, pool in recorded.stack_pools(resources)]
    capacity = pools_capacity(pools, recorded.stack_region(resources))
    totals = capacity.totals
    if totals.always_on_per_hour <= limit:
        return
    priced = sorted(
        (p for p in capacity.pools if p.always_on_per_hour),
        key=lambda p: (-(p.always_on_per_hour or 0.0), p.pool),
    )
    breakdown = "; ".join(
        f"{p.pool}: {p.min_nodes} × {p.instance_type} at ${p.price.per_node_hour:,.2f}/h "
        f"({p.price.source}, {p.price.as_of}) = ${p.always_on_per_hour:,.2f}/h"
        for p in priced
        if p.price is not None and p.always_on_per_hour is not None
    )
    unpriced = f" Not counted (price unknown): {c.short(totals.unpriced)}." if totals.unpriced else ""
    report_violation(
        f"the GPU pools cost ${totals.always_on_per_hour:,.2f} per hour at minNodes, around the clock, over "
        f"maxAlwaysOnPerHour ${limit:,.2f}: {breakdown}.{unpriced}"
    )


GPU_ALWAYS_ON_COST = c.stack_policy(
    "gpu-always-on-cost",
    description="What the GPU node pools cost per hour at minNodes (nodes that never scale away) stays within "
    "maxAlwaysOnPerHour of the policy config.",
    validate=_validate_always_on,
    config_schema=ALWAYS_ON_SCHEMA,
    level=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation_steps=(
        "Lower `nodePools[].minNodes` (a DRA pool where the autoscaler runs keeps one node: the autoscaler cannot "
        "see DRA devices on an empty node group), use smaller instance types, or raise `maxAlwaysOnPerHour` for "
        "this stack in policies/config/<stack>.json once the spend is approved. `gpuplan preview` prints the "
        "capacity table with each pool's price, region, source and date."
    ),
    tags=["gpu", "cost"],
)
