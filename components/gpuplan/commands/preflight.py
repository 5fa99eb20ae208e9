"""`gpuplan preflight`: ask the cloud account, read-only, whether an EKS or AKS stack's GPU pools can launch, and
with --prices what they cost per hour."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.table import Table
from rich.text import Text

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.cli import options, output
from gpuplan.cli.exit_codes import ExitCode
from gpuplan.cli.runner import run_command
from gpuplan.preflight import aks, checks, live_prices

COVERED = ("eks", "aks")

Prices = Annotated[
    bool,
    typer.Option(
        "--prices",
        help="Also read each GPU pool's live on-demand price (EKS: AWS Price List API; AKS: Azure Retail Prices "
        "API) and show the always-on and maximum cost per hour.",
    ),
]


def preflight(
    stack: options.StackName = None,
    config: options.StackFile = None,
    out: options.OutDir = None,
    format: options.Format = options.OutputFormat.text,
    prices: Prices = False,
) -> None:
    """EKS and AKS stacks: GPU instance types / VM sizes offered where the pools launch, vCPU quotas against the
    pools' maxima, capacity reservations (EKS); calls the cloud read-only with its standard credentials."""

    def body() -> int:
        name, stack_file = options.resolve_stack(stack, config)
        stack_config = load_stack_file(stack_file)
        if stack_config.platform not in COVERED:
            return _not_covered(name, stack_config.platform, format)
        report, reader = _eks(stack_config) if stack_config.platform == "eks" else _aks(stack_config)
        document = report.as_json()
        costs = None
        if prices:
            plan = plan_stack(stack_config)
            costs = live_prices.price_report(plan.pools, stack_config.region or "", reader())
            document["prices"] = costs.as_json()
        target = options.out_dir(out, name)
        failed = output.publish(
            target,
            {"preflight.json": output.dumps(document)},
            document,
            format,
            lambda: _render(report, costs),
            after_write=lambda: output.console().print(
                f"Wrote {target / 'preflight.json'}", markup=False, soft_wrap=True
            ),
        )
        return failed or (ExitCode.OK if report.ok else ExitCode.FINDINGS)

    raise typer.Exit(run_command(format, body))


def _eks(stack_config: StackConfig) -> tuple[Any, Any]:
    try:
        ec2, quotas = checks.aws_clients(stack_config.region)
        report = checks.run_preflight(stack_config, ec2, quotas)
    except checks.AwsAccessError as error:
        where = f"AWS account access (region {stack_config.region})"
        raise InputError(
            [Problem(where, error.action or "credentials", error.code or MISSING, error.reason, error.fix)],
            "the AWS access preflight needs",
        ) from None
    return report, lambda: live_prices.aws_reader(live_prices.aws_pricing_client())


def _aks(stack_config: StackConfig) -> tuple[Any, Any]:
    try:
        compute, subscription = aks.azure_compute_client()
        report = aks.run_aks_preflight(plan_stack(stack_config), compute, subscription)
    except aks.AzureAccessError as error:
        where = f"Azure subscription access (location {stack_config.region})"
        raise InputError(
            [Problem(where, error.action or "credentials", error.code or MISSING, error.reason, error.fix)],
            "the Azure access preflight needs",
        ) from None
    return report, lambda: live_prices.azure_reader(live_prices.azure_retail_client())


def _not_covered(stack: str, platform: str, format: options.OutputFormat) -> int:
    message = (
        f"preflight covers EKS and AKS stacks; stack {stack} runs on {platform}, where no cloud account is asked, "
        "so there is nothing to check"
    )
    if format == options.OutputFormat.json:
        output.emit_json({"stack": stack, "platform": platform, "covered": False, "ok": True, "message": message})
    else:
        output.console().print(message)
    return ExitCode.OK


def _render(report: checks.PreflightReport | aks.AksPreflightReport, costs: live_prices.PriceReport | None) -> None:
    console = output.console()
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
        _render_costs(costs)
    failed = [p.name for p in report.pools if not p.ok]
    if failed:
        console.print(
            f"[bold red]preflight failed[/] for {len(failed)} of {len(report.pools)} pool(s): {', '.join(failed)}"
        )
    else:
        console.print(f"[green]✓[/] all {len(report.pools)} pool(s) pass")


def _money(value: float | None) -> str:
    return "unknown" if value is None else f"${value:,.4f}"


def _render_costs(costs: live_prices.PriceReport) -> None:
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
    console = output.console()
    console.print(table)
    totals = costs.capacity.totals
    unpriced = f"; unpriced: {', '.join(totals.unpriced)}" if totals.unpriced else ""
    console.print(
        f"Priced pools cost {_money(totals.always_on_per_hour)} per hour always-on and "
        f"{_money(totals.max_per_hour)} at their maximum{unpriced}"
    )
