"""The capacity and cost arithmetic (dra_gpu_platform/plans/capacity.py), hand-computed: GPUs and nodes from min to max,
perNodeHour × minNodes and × maxNodes, unknown prices as null all the way, totals over the priced pools only; and
the text table preview prints (at most 100 columns)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from dra_gpu_platform.facts.catalog import instance_type
from dra_gpu_platform.facts.prices import PriceFact
from dra_gpu_platform.plans.capacity import pool_price, pools_capacity, purchase_of
from dra_gpu_platform.plans.node_pools import GPU_TAINT, DeclaredPrice, PoolPlan
from gpuplan.preview.capacity_table import WIDTH, text_lines

# Made-up figures for the arithmetic only: dra_gpu_platform/facts/prices.py records none.
P5 = PriceFact("eks", "p5.4xlarge", "us-east-1", 6.88, "test figure", "2026-11-02")
G4 = PriceFact("eks", "g4dn.xlarge", "us-east-1", 0.526, "test figure", "2026-11-02")
P5_WEST = PriceFact("eks", "p5.4xlarge", "us-west-2", 7.5, "test figure", "2026-11-02")


def pool(name: str, itype: str, min_nodes: int, max_nodes: int, **known) -> PoolPlan:
    shape = instance_type(known.get("platform", "eks"), itype)
    return PoolPlan(
        name=name,
        platform=known.pop("platform", "eks"),
        gpu=shape.gpu if shape else None,
        gpu_stack="dra",
        instance_type=itype,
        shape=shape,
        gpus_per_node=known.pop("gpus", shape.gpus if shape else None),
        gpus_per_pcie_root=1,
        labels={},
        taints=(GPU_TAINT,),
        min_nodes=min_nodes,
        max_nodes=max_nodes,
        desired_nodes=min_nodes,
        autoscaled=True,
        **known,
    )


INFER = pool("infer", "p5.4xlarge", 1, 4)
LEGACY = pool("legacy", "g4dn.xlarge", 0, 6)
TRAIN = pool(
    "train",
    "p5.48xlarge",
    0,
    4,
    capacity="capacity-block",
    capacity_reservation_id="cr-0123456789abcdef0",
    declared_price=DeclaredPrice(
        31.464, "2026-10-01", "block purchase; declared in the stack file (nodePools[].price)"
    ),
)


def test_hand_computed_rows_and_totals():
    capacity = pools_capacity((INFER, LEGACY, TRAIN), "us-east-1", (P5, G4))
    infer, legacy, train = capacity.pools
    assert (infer.min_gpus, infer.max_gpus, infer.always_on_per_hour, infer.max_per_hour) == (1, 4, 6.88, 27.52)
    assert (legacy.min_gpus, legacy.max_gpus, legacy.always_on_per_hour, legacy.max_per_hour) == (0, 6, 0.0, 3.156)
    # a Capacity Block is sized by its block: 0 always on, 4 × 31.464 at max
    assert (train.min_gpus, train.max_gpus, train.always_on_per_hour, train.max_per_hour) == (0, 32, 0.0, 125.856)
    totals = capacity.totals
    assert (totals.min_gpus, totals.max_gpus) == (1, 42)
    assert totals.always_on_per_hour == 6.88
    assert totals.max_per_hour == 156.532  # 27.52 + 3.156 + 125.856, kept to 6 decimals
    assert totals.unpriced == () and totals.uncounted == ()


def test_an_unknown_price_is_null_all_the_way_and_left_out_of_the_totals():
    capacity = pools_capacity((INFER, LEGACY), "us-east-1", (P5,))
    legacy = capacity.as_json()["pools"][1]
    assert (legacy["price"], legacy["alwaysOnPerHour"], legacy["maxPerHour"]) == (None, None, None)
    assert legacy["minGpus"] == 0 and legacy["maxGpus"] == 6  # GPUs are still counted
    totals = capacity.as_json()["totals"]
    assert totals == {
        "minGpus": 1,
        "maxGpus": 10,
        "alwaysOnPerHour": 6.88,
        "maxPerHour": 27.52,
        "unpriced": ["legacy"],
        "uncounted": [],
    }


def test_nothing_priced_sums_to_zero_and_lists_every_pool():
    totals = pools_capacity((INFER, LEGACY), "us-east-1", ()).totals
    assert (totals.always_on_per_hour, totals.max_per_hour, totals.unpriced) == (0.0, 0.0, ("infer", "legacy"))


def test_a_price_of_another_region_is_not_this_regions():
    assert pool_price(INFER, "us-west-2", (P5,)) is None
    price = pool_price(INFER, "us-west-2", (P5, P5_WEST))
    assert price is not None and (price.per_node_hour, price.region) == (7.5, "us-west-2")
    assert pool_price(INFER, None, (P5,)) is None  # no region, no price


@pytest.mark.parametrize(
    ("changes", "purchase"),
    [
        ({"capacity": "spot"}, "spot"),
        ({"capacity_reservation_id": "cr-0123456789abcdef0"}, "reserved"),
        ({"platform": "existing"}, "owned"),
        ({"platform": "kind"}, "owned"),
    ],
)
def test_spot_owned_and_undeclared_reservations_have_no_price(changes, purchase):
    subject = replace(INFER, **changes)
    assert purchase_of(subject) == purchase
    assert pool_price(subject, "us-east-1", (P5,)) is None


def test_a_reservation_takes_its_declared_price_not_the_on_demand_one():
    reserved = replace(
        INFER, capacity_reservation_id="cr-0123456789abcdef0", declared_price=DeclaredPrice(5.0, "2026-09-01", "odcr")
    )
    price = pool_price(reserved, "us-east-1", (P5,))
    assert price is not None and price.as_json() == {
        "perNodeHour": 5.0,
        "currency": "USD",
        "region": "us-east-1",
        "kind": "reserved",
        "source": "odcr",
        "asOf": "2026-09-01",
    }
    assert pools_capacity((reserved,), "us-east-1", (P5,)).pools[0].always_on_per_hour == 5.0


def test_unknown_gpus_per_node_are_uncounted():
    unknown = replace(pool("onprem", "p5.4xlarge", 2, 2, platform="existing"), gpus_per_node=None, instance_type=None)
    row = pools_capacity((unknown,), None).as_json()["pools"][0]
    assert (row["gpusPerNode"], row["minGpus"], row["maxGpus"], row["price"]) == (None, None, None, None)
    assert pools_capacity((unknown,), None).totals.uncounted == ("onprem",)
    total = next(line for line in text_lines(pools_capacity((unknown,), None)) if line.lstrip().startswith("total"))
    assert total.split() == ["total", "?", "–", "–"]


def test_the_row_has_the_contracts_fields():
    row = pools_capacity((INFER,), "us-east-1", (P5,)).as_json()["pools"][0]
    assert set(row) >= {
        "pool",
        "gpu",
        "instanceType",
        "gpusPerNode",
        "minNodes",
        "maxNodes",
        "minGpus",
        "maxGpus",
        "price",
        "alwaysOnPerHour",
        "maxPerHour",
    }
    assert set(row["price"]) == {"perNodeHour", "currency", "region", "kind", "source", "asOf"}


def test_the_text_table_fits_100_columns_and_says_why_a_price_is_missing():
    long = replace(INFER, name="a-pool-with-a-very-long-name-indeed-for-the-table", gpu="NVIDIA RTX PRO 6000 Blackwell")
    lines = text_lines(
        pools_capacity((long, LEGACY, TRAIN, replace(INFER, name="spot", capacity="spot")), "us-east-1", (P5,))
    )
    assert max(len(line) for line in lines) <= WIDTH
    table = "\n".join(lines)
    assert "prepaid" not in table  # the block's price is declared
    assert " spot " in table and "unknown" in table and "…" in table
    assert "not in the cost totals (no price known): legacy, spot" in table
    assert "train: capacity-block in us-east-1, block purchase" in table


def test_the_text_totals_say_nothing_when_nothing_is_priced():
    total = next(
        line for line in text_lines(pools_capacity((INFER,), "us-east-1", ())) if line.lstrip().startswith("total")
    )
    assert total.split()[-2:] == ["–", "–"]
