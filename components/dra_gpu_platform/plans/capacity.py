"""Capacity and cost of a stack's GPU node pools before `pulumi up`: GPUs and nodes from minNodes to maxNodes, the
hourly price of a node, what the pools cost while they sit at minNodes (always on) and at maxNodes. Pure arithmetic
on PoolPlans and price facts: no Pulumi imports, no I/O.

What `gpuplan preview` prints as its capacity table and writes under `"capacity"` in its JSON and in plan.json
(docs/gpuplan/preview.md#capacity-and-cost). A price is a fact with a source and a date or it
is unknown (`null`), never an estimate: on-demand prices come from dra_gpu_platform/facts/prices.py (or the live figures a
caller hands in), a Capacity Block's or a reservation's from what the stack declares (`nodePools[].price`); spot
prices change by the hour and an owned machine (kind, existing) has none, so those are unknown. Totals add up the
priced pools only and list the others in `unpriced`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from dra_gpu_platform.facts import prices as price_facts
from dra_gpu_platform.facts.prices import CURRENCY, PriceFact
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.stack import StackPlan

Purchase = Literal["on-demand", "spot", "capacity-block", "reserved", "owned"]
CLOUD_PLATFORMS = ("eks", "aks")
# Money figures are kept to this many decimals: prices are quoted to at most four, products of them stay exact.
_DECIMALS = 6


@dataclass(frozen=True)
class Price:
    """The hourly price of one node of a pool, with where the figure comes from (the contract's `price`)."""

    per_node_hour: float
    currency: str
    region: str | None
    kind: Literal["on-demand", "capacity-block", "reserved"]
    source: str
    as_of: str  # YYYY-MM-DD

    def as_json(self) -> dict[str, Any]:
        return {
            "perNodeHour": self.per_node_hour,
            "currency": self.currency,
            "region": self.region,
            "kind": self.kind,
            "source": self.source,
            "asOf": self.as_of,
        }

    @classmethod
    def on_demand(cls, fact: PriceFact) -> Price:
        """A recorded or live on-demand price fact as a node's price."""
        return cls(fact.usd_per_hour, CURRENCY, fact.region, fact.kind, fact.source, fact.as_of)


def _money(value: float) -> float:
    return round(value, _DECIMALS)


@dataclass(frozen=True)
class PoolCapacity:
    """One pool's row: its GPUs and nodes from min to max, its price and what it costs at both ends."""

    pool: str
    gpu: str | None  # catalog key, or a described GPU's product
    instance_type: str | None
    gpus_per_node: int | None  # None: unknown (existing pool without gpusPerNode or a known instanceType)
    min_nodes: int
    max_nodes: int
    purchase: Purchase
    price: Price | None
    unlisted: bool = False  # instance type declared with allowUnlisted

    @property
    def min_gpus(self) -> int | None:
        return None if self.gpus_per_node is None else self.gpus_per_node * self.min_nodes

    @property
    def max_gpus(self) -> int | None:
        return None if self.gpus_per_node is None else self.gpus_per_node * self.max_nodes

    @property
    def per_node_hour(self) -> float | None:
        return None if self.price is None else self.price.per_node_hour

    @property
    def always_on_per_hour(self) -> float | None:
        """What the pool costs every hour at minNodes: perNodeHour × minNodes."""
        return None if self.price is None else _money(self.price.per_node_hour * self.min_nodes)

    @property
    def max_per_hour(self) -> float | None:
        """What the pool costs every hour at maxNodes: perNodeHour × maxNodes."""
        return None if self.price is None else _money(self.price.per_node_hour * self.max_nodes)

    def as_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "gpu": self.gpu,
            "instanceType": self.instance_type,
            "gpusPerNode": self.gpus_per_node,
            "minNodes": self.min_nodes,
            "maxNodes": self.max_nodes,
            "minGpus": self.min_gpus,
            "maxGpus": self.max_gpus,
            "price": None if self.price is None else self.price.as_json(),
            "alwaysOnPerHour": self.always_on_per_hour,
            "maxPerHour": self.max_per_hour,
            # additions to the contract's row: how the nodes are bought, and whether the type is unlisted
            "purchase": self.purchase,
            "unlisted": self.unlisted,
        }


@dataclass(frozen=True)
class CapacityTotals:
    min_gpus: int
    max_gpus: int
    always_on_per_hour: float
    max_per_hour: float
    unpriced: tuple[str, ...]  # pools without a price: not in the cost sums
    uncounted: tuple[str, ...]  # pools whose GPUs per node are unknown: not in the GPU sums

    def as_json(self) -> dict[str, Any]:
        return {
            "minGpus": self.min_gpus,
            "maxGpus": self.max_gpus,
            "alwaysOnPerHour": self.always_on_per_hour,
            "maxPerHour": self.max_per_hour,
            "unpriced": list(self.unpriced),
            "uncounted": list(self.uncounted),
        }


@dataclass(frozen=True)
class Capacity:
    pools: tuple[PoolCapacity, ...]  # in the plan's pool order (by name)

    @property
    def totals(self) -> CapacityTotals:
        counted = [p for p in self.pools if p.gpus_per_node is not None]
        priced = [p for p in self.pools if p.price is not None]
        return CapacityTotals(
            min_gpus=sum(p.min_gpus or 0 for p in counted),
            max_gpus=sum(p.max_gpus or 0 for p in counted),
            always_on_per_hour=_money(sum(p.always_on_per_hour or 0.0 for p in priced)),
            max_per_hour=_money(sum(p.max_per_hour or 0.0 for p in priced)),
            unpriced=tuple(p.pool for p in self.pools if p.price is None),
            uncounted=tuple(p.pool for p in self.pools if p.gpus_per_node is None),
        )

    def as_json(self) -> dict[str, Any]:
        return {"pools": [p.as_json() for p in self.pools], "totals": self.totals.as_json()}


def purchase_of(pool: PoolPlan) -> Purchase:
    """How a pool's nodes are paid for: a cloud's purchase option, an on-demand pool in a capacity reservation
    ("reserved"), or hardware the cluster already owns (kind, existing)."""
    if pool.platform not in CLOUD_PLATFORMS:
        return "owned"
    if pool.capacity == "capacity-block":
        return "capacity-block"
    if pool.capacity == "spot":
        return "spot"
    return "reserved" if pool.capacity_reservation_id else "on-demand"


def pool_price(pool: PoolPlan, region: str | None, prices: Iterable[PriceFact] | None = None) -> Price | None:
    """A node's hourly price, or None where the project does not know it: a Capacity Block or reservation at the
    price the stack declares; an on-demand node at the recorded price of its type in the stack's region."""
    purchase = purchase_of(pool)
    if purchase in ("capacity-block", "reserved"):
        declared = pool.declared_price
        if declared is None:
            return None
        return Price(declared.per_node_hour, CURRENCY, region, purchase, declared.source, declared.as_of)
    if purchase != "on-demand" or region is None or pool.instance_type is None:
        return None
    known = tuple(price_facts.PRICES if prices is None else prices)
    found = [
        next(
            (
                p
                for p in known
                if (p.platform, p.instance_type, p.region, p.kind) == (pool.platform, name, region, "on-demand")
            ),
            None,
        )
        for name in pool.types
    ]
    if not found or any(fact is None for fact in found):
        return None  # a NodePool of several types launches the cheapest that fits: known only if every price is
    cheapest = min((f for f in found if f is not None), key=lambda f: f.usd_per_hour)
    price = Price.on_demand(cheapest)
    if len(found) > 1:
        return dataclasses.replace(
            price, source=f"{cheapest.instance_type}, the cheapest of {', '.join(pool.types)}: {price.source}"
        )
    return price


def pools_capacity(
    pools: Sequence[PoolPlan], region: str | None, prices: Iterable[PriceFact] | None = None
) -> Capacity:
    """The capacity table of GPU pools in `region` (the stack's AWS region or Azure location). `prices`: the
    on-demand price facts to use (the recorded ones by default; `gpuplan preflight --prices` hands in live ones)."""
    known = tuple(price_facts.PRICES if prices is None else prices)
    return Capacity(
        tuple(
            PoolCapacity(
                pool=pool.name,
                gpu=pool.gpu_name,
                instance_type=pool.instance_type,
                gpus_per_node=pool.gpus_per_node,
                min_nodes=pool.min_nodes,
                max_nodes=pool.max_nodes,
                purchase=purchase_of(pool),
                price=pool_price(pool, region, known),
                unlisted=pool.unlisted,
            )
            for pool in pools
        )
    )


def stack_capacity(plan: StackPlan, prices: Iterable[PriceFact] | None = None) -> Capacity:
    """The stack's capacity table: every GPU pool of its plan, priced in its region."""
    return pools_capacity(plan.pools, plan.region, prices)
