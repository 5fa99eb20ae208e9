"""Recorded AWS Price List Query API answers (GetProducts, FormatVersion aws_v1) for botocore's Stubber: the
shape of docs/references.md#aws-price-list-api; the figures are test values, not prices."""

from __future__ import annotations

import json
from typing import Any

from botocore.stub import Stubber

from dra_gpu_platform.facts import prices as price_facts

REGION = "us-east-1"


def ec2_offer(itype: str, usd: float, *, region: str = REGION, sku: str = "8QCRN3V5X6MF1A2B", published: str = ""):
    """One PriceList item of GetProducts (FormatVersion aws_v1): product, On-Demand and Reserved terms, dates."""
    on_demand = f"{sku}.JRTCKXETXF"
    reserved = f"{sku}.4NA7Y494T4"
    return {
        "product": {
            "productFamily": "Compute Instance",
            "attributes": {
                "instanceType": itype,
                "regionCode": region,
                "location": "US East (N. Virginia)",
                "locationType": "AWS Region",
                "operatingSystem": "Linux",
                "tenancy": "Shared",
                "preInstalledSw": "NA",
                "capacitystatus": "Used",
                "licenseModel": "No License required",
                "operation": "RunInstances",
                "marketoption": "OnDemand",
                "usagetype": f"BoxUsage:{itype}",
                "servicecode": "AmazonEC2",
            },
            "sku": sku,
        },
        "serviceCode": "AmazonEC2",
        "terms": {
            "OnDemand": {
                on_demand: {
                    "priceDimensions": {
                        f"{on_demand}.6YS6EN2CT7": {
                            "unit": "Hrs",
                            "endRange": "Inf",
                            "description": f"${usd} per On Demand Linux {itype} Instance Hour",
                            "appliesTo": [],
                            "rateCode": f"{on_demand}.6YS6EN2CT7",
                            "beginRange": "0",
                            "pricePerUnit": {"USD": f"{usd:.10f}"},
                        }
                    },
                    "sku": sku,
                    "effectiveDate": "2026-08-01T00:00:00Z",
                    "offerTermCode": "JRTCKXETXF",
                    "termAttributes": {},
                }
            },
            "Reserved": {
                reserved: {
                    "priceDimensions": {
                        f"{reserved}.6YS6EN2CT7": {
                            "unit": "Hrs",
                            "endRange": "Inf",
                            "description": "Linux/UNIX (Amazon VPC), reserved, 1 year no upfront",
                            "appliesTo": [],
                            "rateCode": f"{reserved}.6YS6EN2CT7",
                            "beginRange": "0",
                            "pricePerUnit": {"USD": f"{usd / 2:.10f}"},
                        }
                    },
                    "sku": sku,
                    "effectiveDate": "2026-08-01T00:00:00Z",
                    "offerTermCode": "4NA7Y494T4",
                    "termAttributes": {"LeaseContractLength": "1yr", "PurchaseOption": "No Upfront"},
                }
            },
        },
        "version": "20260901120000",
        "publicationDate": published or "2026-09-01T12:00:00Z",
    }


def answer(stub: Stubber, itype: str, *pages: list[dict[str, Any]], region: str = REGION) -> None:
    """GetProducts pages for one instance type, in order (NextToken links them)."""
    params = {
        "ServiceCode": "AmazonEC2",
        "Filters": price_facts.price_list_filters(itype, region),
        "FormatVersion": "aws_v1",
    }
    for i, offers in enumerate(pages):
        body: dict[str, Any] = {"FormatVersion": "aws_v1", "PriceList": [json.dumps(o) for o in offers]}
        if i + 1 < len(pages):
            body["NextToken"] = f"page-{i + 1}"
        stub.add_response("get_products", body, {**params, **({"NextToken": f"page-{i}"} if i else {})})
