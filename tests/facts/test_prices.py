"""Recorded prices are sound facts (a catalog type, a region of its cloud, a figure, a source, a date), and the
live-price queries ask the APIs for exactly one offer of a catalog type."""

from __future__ import annotations

import pytest

from dra_gpu_platform.facts import catalog, prices

SOUND = prices.PriceFact(
    "eks", "g5.xlarge", "us-east-1", 1.006, "AWS Price List API, AmazonEC2 offer file, us-east-1", "2026-06-01"
)


def test_every_recorded_price_is_sound():
    # one test over the table (possibly empty: a price without a first-hand source and date is not recorded)
    assert {f"{f.platform}/{f.instance_type}/{f.region}": prices.price_problems(f) for f in prices.PRICES} == {
        f"{f.platform}/{f.instance_type}/{f.region}": [] for f in prices.PRICES
    }


def test_recorded_prices_are_one_per_type_and_region():
    keys = [(p.platform, p.instance_type, p.region) for p in prices.PRICES]
    assert len(keys) == len(set(keys))


def test_a_sound_price_has_no_problems():
    assert prices.price_problems(SOUND) == []


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        ({"source": "  "}, "no source"),
        ({"as_of": ""}, "asOf '' is not a YYYY-MM-DD date"),
        ({"as_of": "June 2026"}, "asOf 'June 2026' is not a YYYY-MM-DD date"),
        ({"as_of": "2026-02-30"}, "asOf '2026-02-30' is not a real date"),
        ({"usd_per_hour": 0.0}, "price 0.0 is not a positive hourly figure"),
        ({"region": "eastus"}, "eastus is not a region of eks"),
        ({"instance_type": "Standard_NC4as_T4_v3"}, "Standard_NC4as_T4_v3 is not a eks instance type of the catalog"),
    ],
)
def test_a_price_without_its_source_date_or_catalog_type_is_refused(change, problem):
    import dataclasses

    assert prices.price_problems(dataclasses.replace(SOUND, **change)) == [problem]


def test_an_unrecorded_price_is_unknown_not_estimated():
    recorded = {(p.platform, p.instance_type, p.region) for p in prices.PRICES}
    for shape in catalog.INSTANCE_TYPES.values():
        region = "us-east-1" if shape.platform == "eks" else "eastus"
        found = prices.on_demand_price(shape.platform, shape.name, region)
        assert (found is not None) == ((shape.platform, shape.name, region) in recorded)


def test_price_list_filters_pin_one_linux_on_demand_offer():
    filters = {f["Field"]: f["Value"] for f in prices.price_list_filters("p5.48xlarge", "us-west-2")}
    assert filters["instanceType"] == "p5.48xlarge" and filters["regionCode"] == "us-west-2"
    assert (filters["operatingSystem"], filters["tenancy"], filters["preInstalledSw"]) == ("Linux", "Shared", "NA")
    assert filters["capacitystatus"] == "Used"  # not the unused-reservation or allocated-reservation rows
    assert all(f["Type"] == "TERM_MATCH" for f in prices.price_list_filters("g5.xlarge", "us-east-1"))


def test_retail_prices_filter_names_the_vm_size_location_and_pay_as_you_go():
    text = prices.retail_prices_filter("Standard_ND96isr_H100_v5", "westus3")
    assert "armSkuName eq 'Standard_ND96isr_H100_v5'" in text
    assert "armRegionName eq 'westus3'" in text
    assert "priceType eq 'Consumption'" in text
