"""Hourly on-demand prices of the catalog's instance types, and where each figure comes from. Pure data, no I/O.

A price is a fact like any other: it carries its source and the date it was published or read, or it is not
here. The preview shows a price this module lacks as unknown, never an estimate (docs/references.md#gpu-prices).
Live figures come from the two public price APIs, queried as `price_list_filters` / `retail_prices_filter` say
(docs/references.md#aws-price-list-api, docs/references.md#azure-retail-prices-api).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Literal

from dra_gpu_platform.facts import platforms
from dra_gpu_platform.facts.instance_types import instance_type

CURRENCY = "USD"


@dataclass(frozen=True)
class PriceFact:
    """One instance type's hourly on-demand (Linux, shared tenancy / pay-as-you-go) price in one region."""

    platform: Literal["eks", "aks"]
    instance_type: str  # EC2 instance type or Azure VM size, as the catalog names it
    region: str  # AWS region or Azure location
    usd_per_hour: float  # per node
    source: str  # the offer file / API query or pricing page the figure was taken from
    as_of: str  # YYYY-MM-DD: the offer's publication / effective date, or the day the page was read
    kind: Literal["on-demand"] = "on-demand"


# Figures taken from the AWS Price List API offer files or the Azure Retail Prices API, each with its source and
# date. None is recorded yet: the sources were out of reach when the catalog was built (no network), and a figure
# read second-hand is not one of them (docs/references.md#gpu-prices). `gpuplan preflight --prices` reads them live.
PRICES: tuple[PriceFact, ...] = ()


def on_demand_price(platform: str, name: str, region: str) -> PriceFact | None:
    """The recorded price of `name` in `region`, or None when the project does not know it."""
    return next(
        (p for p in PRICES if (p.platform, p.instance_type, p.region) == (platform, name, region)),
        None,
    )


_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def price_problems(fact: PriceFact) -> list[str]:
    """What makes a recorded price unusable (empty when it is sound): every price names a catalog type, a
    region of its cloud, a positive figure, its source and a real date."""
    problems = []
    if instance_type(fact.platform, fact.instance_type) is None:
        problems.append(f"{fact.instance_type} is not a {fact.platform} instance type of the catalog")
    region = platforms.profile(fact.platform).region
    if region is None or fact.region not in region.names:
        problems.append(f"{fact.region} is not a region of {fact.platform}")
    if not fact.usd_per_hour > 0:
        problems.append(f"price {fact.usd_per_hour} is not a positive hourly figure")
    if not fact.source.strip():
        problems.append("no source")
    if not _ISO_DATE.match(fact.as_of):
        problems.append(f"asOf {fact.as_of!r} is not a YYYY-MM-DD date")
    else:
        try:
            date.fromisoformat(fact.as_of)
        except ValueError:
            problems.append(f"asOf {fact.as_of!r} is not a real date")
    return problems


# ---------------------------------------------------------------------------------------------- live price queries

AWS_PRICE_LIST_SERVICE = "AmazonEC2"
AWS_PRICE_LIST_REGION = "us-east-1"  # the Price List Query API's endpoint region (it also serves ap-south-1)


def price_list_filters(name: str, region: str) -> list[dict[str, str]]:
    """`pricing.get_products(ServiceCode="AmazonEC2", Filters=...)` filters that leave the one on-demand Linux,
    shared-tenancy, no-pre-installed-software offer of an instance type in a region
    (docs/references.md#aws-price-list-api)."""
    terms = {
        "instanceType": name,
        "regionCode": region,
        "operatingSystem": "Linux",
        "tenancy": "Shared",
        "preInstalledSw": "NA",
        "capacitystatus": "Used",
        "licenseModel": "No License required",
    }
    return [{"Type": "TERM_MATCH", "Field": field, "Value": value} for field, value in terms.items()]


AZURE_RETAIL_PRICES_URL = "https://prices.azure.com/api/retail/prices"


def retail_prices_filter(vm_size: str, location: str) -> str:
    """The Azure Retail Prices API `$filter` for a VM size's pay-as-you-go price in a location; the Linux price
    is the item whose productName does not end in " Windows" and whose meterName has no " Spot" / " Low Priority"
    (docs/references.md#azure-retail-prices-api)."""
    return (
        f"serviceName eq 'Virtual Machines' and armSkuName eq '{vm_size}' and armRegionName eq '{location}' "
        "and priceType eq 'Consumption'"
    )
