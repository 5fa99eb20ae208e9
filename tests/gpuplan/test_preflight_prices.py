"""`gpuplan preflight --prices`: the AWS Price List API answered by botocore's Stubber, the Azure Retail Prices API by
recorded pages through azure-core's transport; the per-pool and total costs. No test reaches the network.

Recorded answers carry the shapes of the APIs (docs/references.md#aws-price-list-api,
docs/references.md#azure-retail-prices-api); their figures are test values, not prices."""

from __future__ import annotations

import boto3
import pytest
from botocore.stub import Stubber

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import prices as price_facts
from dra_gpu_platform.plans.capacity import stack_capacity
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.preflight import live_prices
from tests.conftest import write_stack
from tests.gpuplan import azure_recorded as recorded
from tests.gpuplan.aws_price_list import answer, ec2_offer

READ_AT = "2026-09-14T08:30:00Z"
REGION = "us-east-1"


# ---------------------------------------------------------------------------------------------------
# AWS Price List API


@pytest.fixture
def pricing(monkeypatch):
    for key, value in {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_EC2_METADATA_DISABLED": "true",
    }.items():
        monkeypatch.setenv(key, value)
    return boto3.client("pricing", region_name=price_facts.AWS_PRICE_LIST_REGION)


def test_aws_price_with_its_source_publication_date_and_read_time(pricing):
    stub = Stubber(pricing)
    answer(stub, "p5.48xlarge", [ec2_offer("p5.48xlarge", 55.04, published="2026-08-28T19:05:11Z")])
    with stub:
        price = live_prices.aws_price(pricing, "p5.48xlarge", REGION, READ_AT)
    stub.assert_no_pending_responses()

    assert price.reason == "" and price.fact is not None
    assert (price.fact.platform, price.fact.instance_type, price.fact.region) == ("eks", "p5.48xlarge", REGION)
    assert price.fact.usd_per_hour == 55.04 and price.fact.as_of == "2026-08-28"
    assert price.fact.source.startswith("AWS Price List API pricing:GetProducts AmazonEC2 (instanceType=p5.48xlarge")
    assert "regionCode=us-east-1" in price.fact.source and "capacitystatus=Used" in price.fact.source
    assert price.as_json() == {
        "perNodeHour": 55.04,
        "currency": "USD",
        "region": REGION,
        "kind": "on-demand",
        "source": price.fact.source,
        "asOf": "2026-08-28",
        "readAt": READ_AT,
    }


def test_aws_pages_are_all_read(pricing):
    stub = Stubber(pricing)
    answer(stub, "g5.xlarge", [], [ec2_offer("g5.xlarge", 1.006, sku="SECONDPAGE000000")])
    with stub:
        price = live_prices.aws_price(pricing, "g5.xlarge", REGION, READ_AT)
    stub.assert_no_pending_responses()
    assert price.fact is not None and price.fact.usd_per_hour == 1.006


@pytest.mark.parametrize(
    "offers, reason",
    [
        ([], "no on-demand hourly price in the answer (AWS Price List API"),
        (
            [ec2_offer("p5.48xlarge", 55.04), ec2_offer("p5.48xlarge", 60.0, sku="OTHERSKU00000000")],
            "2 different on-demand prices match (55.04, 60)",
        ),
        ([ec2_offer("p5.48xlarge", 0.0)], "the answer's price 0 is not a positive hourly figure"),
        ([{**ec2_offer("p5.48xlarge", 55.04), "publicationDate": ""}], "the answer carries no publication date"),
    ],
)
def test_aws_price_that_cannot_be_read_is_unknown(pricing, offers, reason):
    stub = Stubber(pricing)
    answer(stub, "p5.48xlarge", offers)
    with stub:
        price = live_prices.aws_price(pricing, "p5.48xlarge", REGION, READ_AT)
    assert price.fact is None and price.as_json() is None
    assert price.reason.startswith(reason)


def test_aws_denied_price_call_is_unknown_not_a_failure(pricing):
    stub = Stubber(pricing)
    stub.add_client_error(
        "get_products", "AccessDeniedException", "User is not authorized to perform pricing:GetProducts"
    )
    with stub:
        price = live_prices.aws_price(pricing, "g6.xlarge", REGION, READ_AT)
    assert price.fact is None
    assert price.reason == (
        "pricing:GetProducts failed (AccessDeniedException): User is not authorized to perform pricing:GetProducts"
    )


# ---------------------------------------------------------------------------------------------------
# Azure Retail Prices API

T4, LOCATION = "Standard_NC4as_T4_v3", "eastus"
RETAIL_PATH = "/api/retail/prices"


def retail_client(pages):  # an answer, or a function of the request
    transport, adapter = recorded.recorded_transport({RETAIL_PATH: pages})
    return live_prices.azure_retail_client(transport), adapter


def test_azure_price_is_the_linux_pay_as_you_go_item(tmp_path):
    items = [
        recorded.retail_item(T4, LOCATION, 0.9, productName="Virtual Machines NCasT4_v3 Series Windows"),
        recorded.retail_item(T4, LOCATION, 0.2, meterName="NC4as T4 v3 Spot", skuName="NC4as T4 v3 Spot"),
        recorded.retail_item(T4, LOCATION, 0.1, meterName="NC4as T4 v3 Low Priority"),
        recorded.retail_item(T4, LOCATION, 0.4, type="DevTestConsumption"),
        recorded.retail_item(T4, LOCATION, 0.526, effectiveStartDate="2026-07-01T00:00:00Z"),
    ]
    client, adapter = retail_client((200, recorded.retail_page(*items)))

    price = live_prices.azure_price(client, T4, LOCATION, READ_AT)

    assert price.fact is not None, price.reason
    assert (price.fact.platform, price.fact.usd_per_hour, price.fact.as_of) == ("aks", 0.526, "2026-07-01")
    assert adapter.query(0)["$filter"] == [price_facts.retail_prices_filter(T4, LOCATION)]
    assert price.fact.source == (
        "Azure Retail Prices API https://prices.azure.com/api/retail/prices "
        f"($filter={price_facts.retail_prices_filter(T4, LOCATION)})"
    )


def test_azure_pages_follow_next_page_link():
    first = recorded.retail_page(
        recorded.retail_item(T4, LOCATION, 0.9, productName="Virtual Machines NCasT4_v3 Series Windows"),
        next_link="https://prices.azure.com/api/retail/prices?$filter=x&$skip=100",
    )
    second = recorded.retail_page(recorded.retail_item(T4, LOCATION, 0.526))

    def pages(request):
        return (200, second) if "skip" in (request.url or "") else (200, first)

    client, adapter = retail_client(pages)
    price = live_prices.azure_price(client, T4, LOCATION, READ_AT)

    assert len(adapter.asked) == 2
    assert price.fact is not None and price.fact.usd_per_hour == 0.526


@pytest.mark.parametrize(
    "answer_, reason",
    [
        ((200, recorded.retail_page()), "no on-demand hourly price in the answer (Azure Retail Prices API"),
        (
            (400, {"Error": {"Code": "InvalidFilter", "Message": "Invalid OData filter"}}),
            "the Retail Prices API call failed: ",
        ),
    ],
)
def test_azure_price_that_cannot_be_read_is_unknown(answer_, reason):
    client, _ = retail_client(answer_)
    price = live_prices.azure_price(client, T4, LOCATION, READ_AT)
    assert price.fact is None and price.reason.startswith(reason)


# ---------------------------------------------------------------------------------------------------
# per pool and totals

EKS_POOLS = [
    {"name": "h100-a", "gpu": "H100", "minNodes": 1, "maxNodes": 2},
    {"name": "h100-b", "gpu": "H100", "minNodes": 1, "maxNodes": 4},
    {"name": "l4", "gpu": "L4", "minNodes": 2, "maxNodes": 3},
    {"name": "t4-spot", "gpu": "T4", "minNodes": 1, "maxNodes": 8, "capacity": "spot"},
    {
        "name": "h100-block",
        "gpu": "H100",
        "maxNodes": 2,
        "capacity": "capacity-block",
        "capacityReservationId": "cr-0123456789abcdef0",
        "availabilityZone": "us-east-1a",
    },
    {"name": "b200", "gpu": "B200", "minNodes": 1, "maxNodes": 1},
]


def eks_plan(tmp_path):
    config = {
        "aws:region": REGION,
        "cluster": {
            "platform": "eks",
            "name": "gpu-test",
            "kubernetesVersion": "1.35",
            "eks": {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"]},
        },
        "nodePools": EKS_POOLS,
    }
    return plan_stack(load_stack_file(write_stack(tmp_path, config)))


def test_costs_per_pool_and_totals_with_unknown_prices_left_out(tmp_path):
    figures = {"p5.48xlarge": 55.04, "g6.xlarge": 0.8048}  # test values
    asked: list[str] = []

    def read(name: str, region: str, read_at: str) -> live_prices.LivePrice:
        asked.append(name)
        if name not in figures:
            return live_prices.LivePrice(name, region, None, read_at, "no on-demand hourly price in the answer")
        fact = price_facts.PriceFact("eks", name, region, figures[name], "recorded", "2026-09-01")
        return live_prices.LivePrice(name, region, fact, read_at)

    report = live_prices.price_report(eks_plan(tmp_path).pools, REGION, read, READ_AT)

    assert asked == ["p6-b200.48xlarge", "p5.48xlarge", "g6.xlarge"]  # one read per instance type, none for spot/blocks
    costs = {p.pool: (p.per_node_hour, p.always_on_per_hour, p.max_per_hour) for p in report.pools}
    assert costs == {
        "b200": (None, None, None),
        "h100-a": (55.04, 55.04, 110.08),
        "h100-b": (55.04, 55.04, 220.16),
        "h100-block": (None, None, None),
        "l4": (0.8048, 1.6096, 2.4144),
        "t4-spot": (None, None, None),
    }
    document = report.as_json()
    assert document["totals"] == {
        "alwaysOnPerHour": 111.6896,
        "maxPerHour": 332.6544,
        "unpriced": ["b200", "h100-block", "t4-spot"],
    }
    assert (document["region"], document["currency"], document["readAt"]) == (REGION, "USD", READ_AT)
    pools = {p["pool"]: p for p in document["pools"]}
    assert pools["h100-block"]["unknownReason"].startswith("capacity-block pool: the block is paid up front")
    assert pools["h100-block"]["minNodes"] == 0  # a block's instances start with the block, never always on
    assert pools["t4-spot"]["unknownReason"].startswith("spot pool: preflight reads on-demand prices")
    assert pools["b200"] == {
        "pool": "b200",
        "instanceType": "p6-b200.48xlarge",
        "capacity": "on-demand",
        "minNodes": 1,
        "maxNodes": 1,
        "price": None,
        "unknownReason": "no on-demand hourly price in the answer",
        "alwaysOnPerHour": None,
        "maxPerHour": None,
    }


def test_blocks_and_reservations_cost_what_the_stack_declares_as_in_preview(tmp_path):
    declared = {"perNodeHour": 31.464, "asOf": "2026-10-01", "source": "block purchase cb-1"}  # test figure
    pools = [
        {**EKS_POOLS[4], "price": declared},  # h100-block
        {
            "name": "h100-odcr",
            "gpu": "H100",
            "minNodes": 1,
            "maxNodes": 2,
            "capacityReservationId": "cr-0aaaabbbbccccdddd",
        },
        EKS_POOLS[2],  # l4
    ]
    config = {
        "aws:region": REGION,
        "cluster": {
            "platform": "eks",
            "name": "gpu-test",
            "kubernetesVersion": "1.35",
            "eks": {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"]},
        },
        "nodePools": pools,
    }
    plan = plan_stack(load_stack_file(write_stack(tmp_path, config)))
    l4 = price_facts.PriceFact("eks", "g6.xlarge", REGION, 0.8048, "recorded", "2026-09-01")
    asked: list[str] = []

    def read(name: str, region: str, read_at: str) -> live_prices.LivePrice:
        asked.append(name)
        return live_prices.LivePrice(name, region, l4 if name == l4.instance_type else None, read_at, "")

    report = live_prices.price_report(plan.pools, REGION, read, READ_AT)

    assert asked == ["g6.xlarge"]  # the block and the reservation are priced from the stack, never read
    assert report.capacity == stack_capacity(plan, (l4,))  # the figures are preview's, with the live facts
    document = {p["pool"]: p for p in report.as_json()["pools"]}
    assert document["h100-block"]["price"] == {
        "perNodeHour": 31.464,
        "currency": "USD",
        "region": REGION,
        "kind": "capacity-block",
        "source": "block purchase cb-1; declared in the stack file (nodePools[].price)",
        "asOf": "2026-10-01",
        "readAt": None,
    }
    assert document["h100-block"]["maxPerHour"] == 62.928 and document["h100-block"]["unknownReason"] is None
    assert document["h100-odcr"]["price"] is None
    assert document["h100-odcr"]["unknownReason"].startswith("pool in a capacity reservation: declare")
    assert document["l4"]["price"]["readAt"] == READ_AT
    assert report.as_json()["totals"] == {"alwaysOnPerHour": 1.6096, "maxPerHour": 65.3424, "unpriced": ["h100-odcr"]}
