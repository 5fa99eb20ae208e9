"""The text view of a `gpuplan preflight` report: one table of checks per pool, the live prices with their sources
(--prices), and the verdict (the JSON, preflight.json, is the contract)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table
from rich.text import Text

from gpuplan.preflight import live_prices

if TYPE_CHECKING:
    from gpuplan.preflight.aks import AksPreflightReport
    from gpuplan.preflight.checks import PreflightReport


def render_text(
    report: PreflightReport | AksPreflightReport, costs: live_prices.PriceReport | None, console: Console
) -> None:
    console.print(f"Preflight of stack [bold]{report.stack}[/] in {report.region}")
    for pool in report.pools:
        verdict = "[green]pass[/]" if pool.ok else "[bold red]FAIL[/]"
        table = Table(
            title=f"{pool.name}: up to {pool.max_nodes} × {pool.instance_type} ({pool.capacity}) {verdict}",
            title_justify="left",
            show_lines=False,
        )
        table.add_column("check")
        table.add_column("result")
        table.add_column("detail", overflow="fold")
        for check in pool.checks:
            table.add_row(check.name, "[green]pass[/]" if check.ok else "[bold red]FAIL[/]", Text(check.message))
        console.print(table)
    if costs is not None:
        _render_costs(costs, console)
    failed = [p.name for p in report.pools if not p.ok]
    if failed:
        console.print(
            f"[bold red]preflight failed[/] for {len(failed)} of {len(report.pools)} pool(s): {', '.join(failed)}"
        )
    else:
        console.print(f"[green]✓[/] all {len(report.pools)} pool(s) pass")


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _render_costs(costs: live_prices.PriceReport, console: Console) -> None:
    """The live figures at four decimals, each beside its source or why it is unknown (preview's capacity table
    shows GPUs and recorded prices to the cent instead); the figures are the report's Capacity rows."""
    table = Table(
        title=f"On-demand prices in {costs.region} (USD, read {costs.read_at})",
        title_justify="left",
    )
    for column in ("pool", "instance type", "nodes", "per node-hour", "always-on /h", "max /h"):
        table.add_column(column, justify="right" if "/h" in column or column == "per node-hour" else "left")
    table.add_column("source / why unknown", overflow="fold")
    for pool in costs.pools:
        price = pool.price
        where = f"{price.source}, as of {price.as_of}" if price is not None else costs.unknown_reasons[pool.pool]
        table.add_row(
            pool.pool,
            pool.instance_type or "",
            f"{pool.min_nodes}–{pool.max_nodes}",
            _money(pool.per_node_hour),
            _money(pool.always_on_per_hour),
            _money(pool.max_per_hour),
            Text(where),
        )
    console.print(table)
    totals = costs.capacity.totals
    unpriced = f"; unpriced: {', '.join(totals.unpriced)}" if totals.unpriced else ""
    console.print(
        f"Priced pools cost {_money(totals.always_on_per_hour)} per hour always-on and "
        f"{_money(totals.max_per_hour)} at their maximum{unpriced}"
    )
