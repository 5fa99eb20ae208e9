"""`gpuplan preflight --prices`: the on-demand price of each GPU pool's instance type, read live, and what the
stack costs per hour always-on (minNodes) and at its maximum (maxNodes).

EKS prices come from the AWS Price List Query API (`pricing:GetProducts`, docs/references.md#aws-price-list-api),
AKS prices from the public Azure Retail Prices API (docs/references.md#azure-retail-prices-api), each queried the
way dra_gpu_platform/facts/prices.py records. A figure is kept only with its source and date, as a
`dra_gpu_platform.facts.prices.PriceFact`, plus the moment it was read; a price that cannot be read (no offer, an
ambiguous answer, a refused or failed call) is unknown with the reason, never guessed (docs/references.md#gpu-prices).
The figures read go to dra_gpu_platform/plans/capacity.py as the facts `pools_capacity` prices pools with, so each pool is
priced and costed exactly as `gpuplan preview` does it (a Spot pool unknown, a Capacity Block or reservation at what
the stack declares). Reading prices never fails the preflight.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

from dra_gpu_platform.facts import prices as price_facts
from dra_gpu_platform.facts.prices import CURRENCY, PriceFact
from dra_gpu_platform.plans.capacity import Capacity, PoolCapacity, Price, Purchase, pools_capacity, purchase_of
from dra_gpu_platform.plans.node_pools import PoolPlan

# Azure Retail Prices pages through NextPageLink; one VM size in one location is a handful of items, so a longer
# chain means the filter matched far more than it should.
MAX_RETAIL_PAGES = 10
# A price read waits this long for the Retail Prices API (azure-core's defaults are 300 s each).
CONNECT_SECONDS, READ_SECONDS = 10, 60
AWS_HOURLY_UNIT = "Hrs"
AZURE_HOURLY_UNIT = "1 Hour"

# Why a pool that is not paid on demand has no price: preflight reads on-demand figures only, and a block or a
# reservation costs what the stack declares (nodePools[].price), as in preview.
NOT_READ: dict[Purchase, str] = {
    "spot": "spot pool: preflight reads on-demand prices, and the Spot price changes by the hour and zone",
    "capacity-block": "capacity-block pool: the block is paid up front at the price quoted when it is bought; "
    "declare it as nodePools[].price to count it",
    "reserved": "pool in a capacity reservation: declare what it costs as nodePools[].price to count it",
    "owned": "owned nodes have no hourly price",
    "on-demand": "the pool names no instance type to price",
}


@dataclass(frozen=True)
class LivePrice:
    """One instance type's on-demand price in one region as read now, or why it is unknown."""

    instance_type: str
    region: str
    fact: PriceFact | None
    read_at: str  # when preflight asked (UTC, ISO 8601)
    reason: str = ""  # why the price is unknown ("" when known)

    def as_json(self) -> dict[str, Any] | None:
        """The capacity contract's `price` plus `readAt`."""
        if self.fact is None:
            return None
        return {**Price.on_demand(self.fact).as_json(), "readAt": self.read_at}


# (instance type, region, time read) → its price
PriceReader = Callable[[str, str, str], LivePrice]


def now_utc() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat().replace("+00:00", "Z")


def _checked(price: LivePrice) -> LivePrice:
    """A figure without a positive amount or a real date is unknown instead (never a price without its date)."""
    if price.fact is None:
        return price
    problems = []
    if not price.fact.usd_per_hour > 0:
        problems.append(f"the answer's price {price.fact.usd_per_hour:g} is not a positive hourly figure")
    try:
        date.fromisoformat(price.fact.as_of)
    except ValueError:
        problems.append(f"the answer carries no publication date ({price.fact.as_of!r})")
    if problems:
        return LivePrice(price.instance_type, price.region, None, price.read_at, "; ".join(problems))
    return price


def _single(
    platform: Literal["eks", "aks"], name: str, region: str, read_at: str, source: str, found: set[tuple[float, str]]
) -> LivePrice:
    """The one (price, date) the answer holds, or unknown: none, or several that disagree."""
    if not found:
        return LivePrice(name, region, None, read_at, f"no on-demand hourly price in the answer ({source})")
    prices = {usd for usd, _ in found}
    if len(prices) > 1:
        listed = ", ".join(f"{usd:g}" for usd in sorted(prices))
        return LivePrice(name, region, None, read_at, f"{len(prices)} different on-demand prices match ({listed})")
    usd = prices.pop()
    as_of = max(day for _, day in found)
    fact = PriceFact(platform, name, region, usd, source, as_of)
    return _checked(LivePrice(name, region, fact, read_at))


# ---------------------------------------------------------------------------------------------------
# AWS Price List Query API


def aws_pricing_client() -> Any:
    """The Price List Query API client from the standard credential chain, at its endpoint region (its calls are
    signed: docs/references.md#aws-price-list-credentials)."""
    import boto3

    return boto3.Session().client("pricing", region_name=price_facts.AWS_PRICE_LIST_REGION)


def aws_reader(pricing: Any) -> PriceReader:
    def read(name: str, region: str, read_at: str) -> LivePrice:
        return aws_price(pricing, name, region, read_at)

    return read


def aws_price(pricing: Any, name: str, region: str, read_at: str) -> LivePrice:
    from botocore.exceptions import BotoCoreError, ClientError

    filters = price_facts.price_list_filters(name, region)
    terms = ", ".join(f"{f['Field']}={f['Value']}" for f in filters)
    source = f"AWS Price List API pricing:GetProducts {price_facts.AWS_PRICE_LIST_SERVICE} ({terms})"
    try:
        pages = pricing.get_paginator("get_products").paginate(
            ServiceCode=price_facts.AWS_PRICE_LIST_SERVICE, Filters=filters, FormatVersion="aws_v1"
        )
        offers = [json.loads(item) for page in pages for item in page.get("PriceList", [])]
    except ClientError as error:
        detail = error.response.get("Error", {})
        reason = f"pricing:GetProducts failed ({detail.get('Code', '')}): {detail.get('Message', '')}".rstrip(": ")
        return LivePrice(name, region, None, read_at, reason)
    except (BotoCoreError, ValueError) as error:  # no credentials, no network, a price list item that is not JSON
        return LivePrice(name, region, None, read_at, f"pricing:GetProducts failed: {error}")
    found: set[tuple[float, str]] = set()
    for offer in offers:
        day = str(offer.get("publicationDate", ""))[:10]
        for term in (offer.get("terms", {}).get("OnDemand") or {}).values():
            for dimension in (term.get("priceDimensions") or {}).values():
                usd = (dimension.get("pricePerUnit") or {}).get(CURRENCY)
                if dimension.get("unit") == AWS_HOURLY_UNIT and usd is not None:
                    found.add((float(usd), day))
    return _single("eks", name, region, read_at, source, found)


# ---------------------------------------------------------------------------------------------------
# Azure Retail Prices API


def azure_retail_client(transport: Any = None) -> Any:
    """An azure-core pipeline client for the public Retail Prices API (no credentials; azure-core's default policies
    retry throttled and failed calls)."""
    from azure.core import PipelineClient

    return PipelineClient(price_facts.AZURE_RETAIL_PRICES_URL, transport=transport)


def azure_reader(client: Any) -> PriceReader:
    def read(name: str, region: str, read_at: str) -> LivePrice:
        return azure_price(client, name, region, read_at)

    return read


def is_linux_pay_as_you_go(item: dict[str, Any], vm_size: str, location: str) -> bool:
    """The item dra_gpu_platform/facts/prices.py describes: this size and location, Consumption, not Windows, not Spot or
    Low Priority, priced per hour in USD (the item's fields: docs/references.md#azure-retail-prices-response)."""
    meter = str(item.get("meterName", ""))
    return (
        item.get("armSkuName") == vm_size
        and str(item.get("armRegionName", "")).lower() == location.lower()
        and item.get("type") == "Consumption"
        and not str(item.get("productName", "")).endswith(" Windows")
        and " Spot" not in meter
        and " Low Priority" not in meter
        and item.get("unitOfMeasure") == AZURE_HOURLY_UNIT
        and item.get("currencyCode") == CURRENCY
    )


def azure_price(client: Any, name: str, region: str, read_at: str) -> LivePrice:
    from azure.core.exceptions import AzureError
    from azure.core.rest import HttpRequest

    query = price_facts.retail_prices_filter(name, region)
    source = f"Azure Retail Prices API {price_facts.AZURE_RETAIL_PRICES_URL} ($filter={query})"
    request = HttpRequest("GET", price_facts.AZURE_RETAIL_PRICES_URL, params={"$filter": query})
    items: list[dict[str, Any]] = []
    try:
        for _ in range(MAX_RETAIL_PAGES):
            response = client.send_request(request, connection_timeout=CONNECT_SECONDS, read_timeout=READ_SECONDS)
            response.raise_for_status()
            page = response.json()
            items += page.get("Items") or []
            link = page.get("NextPageLink")
            if not link:
                break
            request = HttpRequest("GET", link)
        else:
            return LivePrice(name, region, None, read_at, f"more than {MAX_RETAIL_PAGES} pages of prices answered")
    except (AzureError, ValueError) as error:  # a refused or failed call, an answer that is not JSON
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        return LivePrice(name, region, None, read_at, f"the Retail Prices API call failed: {first}")
    found = {
        (float(item["retailPrice"]), str(item.get("effectiveStartDate", ""))[:10])
        for item in items
        if is_linux_pay_as_you_go(item, name, region) and item.get("retailPrice") is not None
    }
    return _single("aks", name, region, read_at, source, found)


# ---------------------------------------------------------------------------------------------------
# per pool and totals: plans/capacity.py's arithmetic on the live figures


@dataclass(frozen=True)
class PriceReport:
    """The stack's capacity table priced with the figures read now (dra_gpu_platform/plans/capacity.py computes every
    cost and total), and what only a live read knows beside it: when it was read, each pool's capacity option as the
    stack names it, and why a pool's price is unknown."""

    region: str
    read_at: str
    capacity: Capacity
    options: Mapping[str, str]  # pool → nodePools[].capacity (on-demand, spot, capacity-block)
    unknown_reasons: Mapping[str, str]  # pool → why its price is unknown (only pools without a price)

    @property
    def pools(self) -> tuple[PoolCapacity, ...]:
        return self.capacity.pools

    def pool(self, name: str) -> PoolCapacity:
        return next(p for p in self.pools if p.pool == name)

    def price_json(self, pool: PoolCapacity) -> dict[str, Any] | None:
        """The capacity contract's `price` plus `readAt` (null for a price the stack declares: nothing was read)."""
        if pool.price is None:
            return None
        return {**pool.price.as_json(), "readAt": self.read_at if pool.price.kind == "on-demand" else None}

    def as_json(self) -> dict[str, Any]:
        totals = self.capacity.totals
        return {
            "region": self.region,
            "currency": CURRENCY,
            "readAt": self.read_at,
            "pools": [
                {
                    "pool": p.pool,
                    "instanceType": p.instance_type,
                    "capacity": self.options[p.pool],
                    "minNodes": p.min_nodes,
                    "maxNodes": p.max_nodes,
                    "price": self.price_json(p),
                    "unknownReason": self.unknown_reasons.get(p.pool),
                    "alwaysOnPerHour": p.always_on_per_hour,
                    "maxPerHour": p.max_per_hour,
                }
                for p in self.pools
            ],
            "totals": {
                "alwaysOnPerHour": totals.always_on_per_hour,
                "maxPerHour": totals.max_per_hour,
                "unpriced": list(totals.unpriced),
            },
        }


def price_report(pools: Iterable[PoolPlan], region: str, read: PriceReader, read_at: str | None = None) -> PriceReport:
    """Each pool priced as preview prices it, with the on-demand figures read now (one read per instance type, only
    for pools paid on demand); a pool left without a price keeps the reason."""
    when = read_at or now_utc()
    pools = tuple(pools)
    reads: dict[str, LivePrice] = {}
    for pool in pools:
        if purchase_of(pool) == "on-demand" and pool.instance_type and pool.instance_type not in reads:
            reads[pool.instance_type] = read(pool.instance_type, region, when)
    capacity = pools_capacity(pools, region, [r.fact for r in reads.values() if r.fact is not None])
    reasons = {}
    for pool, row in zip(pools, capacity.pools, strict=True):
        if row.price is None:
            live = reads.get(pool.instance_type or "") if row.purchase == "on-demand" else None
            reasons[pool.name] = live.reason if live is not None and live.reason else NOT_READ[row.purchase]
    return PriceReport(region, when, capacity, {p.name: p.capacity for p in pools}, reasons)
