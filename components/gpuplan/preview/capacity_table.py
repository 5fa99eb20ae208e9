"""The capacity table `gpuplan preview` prints: one row per GPU pool (GPUs, nodes, price, cost at min and max), the
totals over the priced pools, and where each price comes from. Plain text lines of at most WIDTH columns, so a
CI log or an 100-column terminal shows it unwrapped."""

from __future__ import annotations

import textwrap

from dra_gpu_platform.plans.capacity import Capacity, PoolCapacity

WIDTH = 100
_HEADERS = ("pool", "GPU", "per node", "nodes", "GPUs", "$/node/h", "$/h at min", "$/h at max")
_INDENT = "  "
_GAP = "  "
_NAME_MIN = 8  # the pool and GPU columns give way (cut with …) when the row would pass WIDTH, down to this
# Why a pool has no price, shown in its price cell.
_NO_PRICE = {
    "spot": "spot",  # changes by the hour: never recorded
    "capacity-block": "prepaid",  # paid for with the block; declare nodePools[].price to count it
    "reserved": "reserved",  # declare nodePools[].price to count it
    "owned": "owned",  # kind and existing clusters: hardware you have
    "on-demand": "unknown",
}


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _range(low: int | None, high: int | None) -> str:
    if low is None or high is None:
        return "?"
    return str(low) if low == high else f"{low}–{high}"


def _dollars(value: float | None) -> str:
    return "–" if value is None else f"{value:,.2f}"


def _row(pool: PoolCapacity) -> tuple[str, ...]:
    per_node = _dollars(pool.price.per_node_hour) if pool.price else _NO_PRICE[pool.purchase]
    return (
        pool.pool,
        pool.gpu or "?",
        "?" if pool.gpus_per_node is None else str(pool.gpus_per_node),
        _range(pool.min_nodes, pool.max_nodes),
        _range(pool.min_gpus, pool.max_gpus),
        per_node,
        _dollars(pool.always_on_per_hour),
        _dollars(pool.max_per_hour),
    )


def text_lines(capacity: Capacity) -> list[str]:
    """The table, its totals and its price sources; nothing when the stack has no GPU pool."""
    if not capacity.pools:
        return []
    totals = capacity.totals
    priced = len(totals.unpriced) < len(capacity.pools)
    counted = len(totals.uncounted) < len(capacity.pools)
    rows = [_HEADERS, *(_row(p) for p in capacity.pools)]
    total = (
        "total",
        "",
        "",
        "",
        _range(totals.min_gpus, totals.max_gpus) if counted else "?",
        "",
        # a sum over no priced pool is no figure
        _dollars(totals.always_on_per_hour if priced else None),
        _dollars(totals.max_per_hour if priced else None),
    )
    rows.append(total)
    widths = [max(len(r[i]) for r in rows) for i in range(len(_HEADERS))]
    excess = len(_INDENT) + sum(widths) + len(_GAP) * (len(widths) - 1) - WIDTH
    for column in (0, 1):  # the names give way, the figures never
        give = min(max(0, excess), max(0, widths[column] - _NAME_MIN))
        widths[column] -= give
        excess -= give

    def line(cells: tuple[str, ...]) -> str:
        text = [
            _cut(c, w).ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        ]
        return (_INDENT + _GAP.join(text)).rstrip()

    lines = ["GPU capacity and cost (USD per hour; docs/clouds.md#capacity-and-cost)"]
    lines += [line(r) for r in rows[:-1]]
    lines.append(_INDENT + _GAP.join("-" * w for w in widths))
    lines.append(line(total))
    notes = []
    if totals.unpriced:
        notes.append(f"not in the cost totals (no price known): {', '.join(totals.unpriced)}")
    if totals.uncounted:
        notes.append(f"not in the GPU totals (GPUs per node unknown, set gpusPerNode): {', '.join(totals.uncounted)}")
    for pool in capacity.pools:
        if pool.price is not None:
            where = f" in {pool.price.region}" if pool.price.region else ""
            notes.append(f"{pool.pool}: {pool.price.kind}{where}, {pool.price.source}, as of {pool.price.as_of}")
    for note in notes:
        lines += textwrap.wrap(note, WIDTH, initial_indent=_INDENT, subsequent_indent=_INDENT * 2)
    return lines
