"""`gpuplan preflight --prices`: the on-demand price of each GPU pool's instance type, read live, and what the
stack costs per hour always-on (minNodes) and at its maximum (maxNodes).

EKS prices come from the AWS Price List Query API (`pricing:GetProducts`, docs/references.md#aws-price-list-api),
AKS prices from the public Azure Retail Prices API (docs/references.md#azure-retail-prices-api), each queried the
way components/facts/prices.py records. A figure is kept only with its source and date, as a
`dra_gpu_platform.facts.prices.PriceFact`, plus the moment it was read; a price that cannot be read (no offer, an
ambiguous answer, a refused or failed call, a Spot or Capacity Block pool) is unknown with the reason, never guessed
(docs/references.md#gpu-prices). Reading prices never fails the preflight.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Any, Literal

from dra_gpu_platform.facts import prices as price_facts
from dra_gpu_platform.facts.prices import CURRENCY, PriceFact
from dra_gpu_platform.plans.node_pools import PoolPlan

# Azure Retail Prices pages through NextPageLink; one VM size in one location is a handful of items, so a longer
# chain means the filter matched far more than it should.
MAX_RETAIL_PAGES = 10
# A price read waits this long for the Retail Prices API (azure-core's defaults are 300 s each).
CONNECT_SECONDS, READ_SECONDS = 10, 60
AWS_HOURLY_UNIT = "Hrs"
AZURE_HOURLY_UNIT = "1 Hour"

# Why a pool's price is not an on-demand figure at all.
NOT_ON_DEMAND = {
    "spot": "spot pool: preflight reads on-demand prices, and the Spot price changes by the hour and zone",
    "capacity-block": "capacity-block pool: the block is paid up front at the price quoted when it is bought",
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
        if self.fact is None:
            return None
        return {
            "perNodeHour": self.fact.usd_per_hour,
            "currency": CURRENCY,
            "region": self.fact.region,
            "kind": self.fact.kind,
            "source": self.fact.source,
            "asOf": self.fact.as_of,
            "readAt": self.read_at,
        }


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
    """The item components/facts/prices.py describes: this size and location, Consumption, not Windows, not Spot or
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
# per pool and totals


def _rounded(value: float) -> float:
    return round(value, 6)  # millionths of a dollar: exact enough, without binary-fraction noise


@dataclass(frozen=True)
class PoolCost:
    pool: str
    instance_type: str
    capacity: str
    min_nodes: int  # always on (the cluster autoscaler never goes below it)
    max_nodes: int
    price: LivePrice

    @property
    def per_node_hour(self) -> float | None:
        return self.price.fact.usd_per_hour if self.price.fact is not None else None

    @property
    def always_on_per_hour(self) -> float | None:
        return None if self.per_node_hour is None else _rounded(self.per_node_hour * self.min_nodes)

    @property
    def max_per_hour(self) -> float | None:
        return None if self.per_node_hour is None else _rounded(self.per_node_hour * self.max_nodes)

    def as_json(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "instanceType": self.instance_type,
            "capacity": self.capacity,
            "minNodes": self.min_nodes,
            "maxNodes": self.max_nodes,
            "price": self.price.as_json(),
            "unknownReason": self.price.reason or None,
            "alwaysOnPerHour": self.always_on_per_hour,
            "maxPerHour": self.max_per_hour,
        }


@dataclass(frozen=True)
class PriceReport:
    region: str
    read_at: str
    pools: tuple[PoolCost, ...]

    @property
    def priced(self) -> list[PoolCost]:
        return [p for p in self.pools if p.per_node_hour is not None]

    @property
    def unpriced(self) -> list[str]:
        return [p.pool for p in self.pools if p.per_node_hour is None]

    @property
    def always_on_per_hour(self) -> float:
        return _rounded(sum(p.always_on_per_hour or 0.0 for p in self.priced))

    @property
    def max_per_hour(self) -> float:
        return _rounded(sum(p.max_per_hour or 0.0 for p in self.priced))

    def pool(self, name: str) -> PoolCost:
        return next(p for p in self.pools if p.pool == name)

    def as_json(self) -> dict[str, Any]:
        return {
            "region": self.region,
            "currency": CURRENCY,
            "readAt": self.read_at,
            "pools": [p.as_json() for p in self.pools],
            "totals": {
                "alwaysOnPerHour": self.always_on_per_hour,
                "maxPerHour": self.max_per_hour,
                "unpriced": self.unpriced,
            },
        }


def price_report(pools: Iterable[PoolPlan], region: str, read: PriceReader, read_at: str | None = None) -> PriceReport:
    """Each pool's price (one read per instance type) and its always-on and maximum cost per hour."""
    when = read_at or now_utc()
    cache: dict[str, LivePrice] = {}
    costs = []
    for pool in pools:
        name = pool.instance_type or ""
        if pool.capacity in NOT_ON_DEMAND:
            price = LivePrice(name, region, None, when, NOT_ON_DEMAND[pool.capacity])
        else:
            if name not in cache:
                cache[name] = read(name, region, when)
            price = cache[name]
        costs.append(PoolCost(pool.name, name, pool.capacity, pool.min_nodes, pool.max_nodes, price))
    return PriceReport(region, when, tuple(costs))
