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


# Figures of the AWS Price List API and the Azure Retail Prices API as the Karpenter providers record them: each
# provider generates a table from the cloud's price API at a stated time and commits it (docs/references.md#gpu-prices):
# - AWS: aws/karpenter-provider-aws@release-v1.14.1 (c88abbbad) pkg/providers/pricing/zz_generated.pricing_aws.go,
#   "generated at 2026-07-06T14:20:29Z for us-east-1" (line 18), filters pkg/providers/pricing/pricing.go:210-290
#   (Linux, shared tenancy, no pre-installed software, capacitystatus Used, OnDemand). Bare-metal sizes are priced
#   there at dedicated tenancy (:224-236), so g4dn.metal is left out.
# - Azure: Azure/karpenter-provider-azure@v1.14.2 (d1552b7e) pkg/providers/pricing/zz_generated.pricing.go,
#   "generated at 2026-06-18T03:43:41Z" (lines 23-25), priceType Consumption, Linux, not Spot or Low Priority
#   (pkg/providers/pricing/pricing.go:225-285).
# A type or region missing from those tables has no price here (shown as unknown). `gpuplan preflight --prices`
# reads live figures.
_AWS_SOURCE = (
    "aws/karpenter-provider-aws@release-v1.14.1 pkg/providers/pricing/zz_generated.pricing_aws.go:{line} "
    "(AWS Price List API, generated 2026-07-06T14:20:29Z)"
)
_AWS_AS_OF = "2026-07-06"
_AZURE_SOURCE = (
    "Azure/karpenter-provider-azure@v1.14.2 pkg/providers/pricing/zz_generated.pricing.go:{line} "
    "(Azure Retail Prices API, generated 2026-06-18T03:43:41Z)"
)
_AZURE_AS_OF = "2026-06-18"

# us-east-1: (instance type, USD per hour, line)
_AWS_US_EAST_1 = (
    ("p6-b200.48xlarge", 113.9328, 424),
    ("p6-b300.48xlarge", 142.416, 426),
    ("p5.48xlarge", 55.04, 420),
    ("p5.4xlarge", 6.88, 420),
    ("p5en.48xlarge", 63.296, 422),
    ("p4d.24xlarge", 21.957642, 416),
    ("p4de.24xlarge", 27.44705, 418),
    ("g5.xlarge", 1.006, 191),
    ("g5.2xlarge", 1.212, 190),
    ("g5.4xlarge", 1.624, 191),
    ("g5.8xlarge", 2.448, 191),
    ("g5.12xlarge", 5.672, 190),
    ("g5.16xlarge", 4.096, 190),
    ("g5.24xlarge", 8.144, 190),
    ("g5.48xlarge", 16.288, 191),
    ("g4dn.xlarge", 0.526, 188),
    ("g4dn.2xlarge", 0.752, 187),
    ("g4dn.4xlarge", 1.204, 187),
    ("g4dn.8xlarge", 2.176, 188),
    ("g4dn.12xlarge", 3.912, 187),
    ("g4dn.16xlarge", 4.352, 187),
    ("g6.xlarge", 0.8048, 197),
    ("g6.2xlarge", 0.9776, 196),
    ("g6.4xlarge", 1.3232, 197),
    ("g6.8xlarge", 2.0144, 197),
    ("g6.12xlarge", 4.6016, 196),
    ("g6.16xlarge", 3.3968, 196),
    ("g6.24xlarge", 6.6752, 196),
    ("g6.48xlarge", 13.3504, 197),
    ("gr6.4xlarge", 1.5392, 207),
    ("gr6.8xlarge", 2.4464, 207),
    ("g6e.xlarge", 1.861, 200),
    ("g6e.2xlarge", 2.24208, 199),
    ("g6e.4xlarge", 3.00424, 200),
    ("g6e.8xlarge", 4.52856, 200),
    ("g6e.12xlarge", 10.49264, 199),
    ("g6e.16xlarge", 7.57719, 199),
    ("g6e.24xlarge", 15.06559, 199),
    ("g6e.48xlarge", 30.13118, 200),
    ("g7e.2xlarge", 3.36312, 204),
    ("g7e.4xlarge", 3.99816, 205),
    ("g7e.8xlarge", 5.26824, 205),
    ("g7e.12xlarge", 8.28608, 204),
    ("g7e.24xlarge", 16.57216, 204),
    ("g7e.48xlarge", 33.14432, 204),
)
# (VM size, {location: (USD per hour, line)})
_AZURE = (
    ("Standard_ND128isr_NDR_GB200_v6", {"eastus": (108.16, 16479), "westus2": (108.16, 66345)}),
    (
        "Standard_ND96isr_H100_v5",
        {"eastus": (98.32, 16489), "westus2": (98.32, 66353), "westeurope": (127.816, 62421)},
    ),
    ("Standard_NC40ads_H100_v5", {"eastus": (6.98, 16465), "westus2": (6.98, 66332), "westeurope": (9.08, 62399)}),
    ("Standard_NC80adis_H100_v5", {"eastus": (13.96, 16475), "westus2": (13.96, 66342), "westeurope": (18.16, 62407)}),
    ("Standard_ND96isr_H200_v5", {"westus2": (84.8, 66354)}),
    ("Standard_ND96asr_v4", {"eastus": (27.197, 16485), "westus2": (27.197, 66349), "westeurope": (35.357, 62417)}),
    (
        "Standard_ND96amsr_A100_v4",
        {"eastus": (32.77, 16483), "westus2": (32.77, 66347), "westeurope": (40.962, 62415)},
    ),
    ("Standard_NC24ads_A100_v4", {"eastus": (3.673, 16446), "westus2": (3.673, 66313), "westeurope": (4.775, 62385)}),
    ("Standard_NC48ads_A100_v4", {"eastus": (7.346, 16466), "westus2": (7.346, 66333), "westeurope": (9.55, 62400)}),
    ("Standard_NC96ads_A100_v4", {"eastus": (14.692, 16478), "westus2": (14.692, 66344), "westeurope": (19.1, 62410)}),
    ("Standard_NV36ads_A10_v5", {"eastus": (3.2, 16507), "westus2": (3.2, 66367), "westeurope": (4.16, 62442)}),
    ("Standard_NV36adms_A10_v5", {"eastus": (4.52, 16506), "westus2": (4.52, 66366), "westeurope": (5.876, 62441)}),
    ("Standard_NV72ads_A10_v5", {"eastus": (6.52, 16513), "westus2": (6.52, 66372), "westeurope": (8.476, 62448)}),
    ("Standard_NC4as_T4_v3", {"eastus": (0.526, 16467), "westus2": (0.526, 66334), "westeurope": (0.658, 62401)}),
    ("Standard_NC8as_T4_v3", {"eastus": (0.752, 16476), "westus2": (0.752, 66343), "westeurope": (0.94, 62409)}),
    ("Standard_NC16as_T4_v3", {"eastus": (1.204, 16443), "westus2": (1.204, 66310), "westeurope": (1.505, 62383)}),
    ("Standard_NC64as_T4_v3", {"eastus": (4.352, 16468), "westus2": (4.352, 66335), "westeurope": (5.44, 62402)}),
)

PRICES: tuple[PriceFact, ...] = (
    *(
        PriceFact("eks", name, "us-east-1", usd, _AWS_SOURCE.format(line=line), _AWS_AS_OF)
        for name, usd, line in _AWS_US_EAST_1
    ),
    *(
        PriceFact("aks", name, location, usd, _AZURE_SOURCE.format(line=line), _AZURE_AS_OF)
        for name, by_location in _AZURE
        for location, (usd, line) in by_location.items()
    ),
)


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
