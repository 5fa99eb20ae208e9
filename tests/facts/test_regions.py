"""dra_gpu_platform/facts/regions.py against its sources: the AWS table is botocore's endpoints data as installed (a
boto3 bump that adds a region fails here until the table has it); every AWS region offers EKS; the Azure table
is the programmatic names of Microsoft's regions list (sorted, unique, lower-case words and digits)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import botocore
import pytest

from dra_gpu_platform.facts import regions


def _endpoints() -> dict:
    return json.loads((Path(botocore.__file__).parent / "data" / "endpoints.json").read_text(encoding="utf-8"))


def test_the_aws_table_is_botocores_regions_per_partition():
    installed = {p["partition"]: tuple(sorted(p["regions"])) for p in _endpoints()["partitions"]}
    assert {k: tuple(sorted(v)) for k, v in regions.AWS_REGIONS_BY_PARTITION.items()} == installed


def test_every_aws_region_has_an_eks_endpoint():
    for partition in _endpoints()["partitions"]:
        eks = partition["services"]["eks"]["endpoints"]
        assert set(partition["regions"]) <= set(eks), partition["partition"]


def test_the_zone_table_is_motos_zones_per_region():
    pytest.importorskip("moto", reason="moto (a dev dependency) holds the zone names this table is checked against")
    from moto.ec2.models.availability_zones_and_regions import RegionsAndZonesBackend

    installed = {region: tuple(z.name for z in zones) for region, zones in RegionsAndZonesBackend.zones.items()}
    assert len(regions.AWS_ZONE_LETTERS) == 12  # the regions moto lists one by one (it guesses a, b, c for the rest)
    assert {region: regions.aws_zones(region) for region in regions.AWS_ZONE_LETTERS} == {
        region: installed[region] for region in regions.AWS_ZONE_LETTERS
    }
    assert set(regions.AWS_ZONE_LETTERS) <= regions.AWS_REGIONS
    assert regions.aws_zones("ap-northeast-1") == ("ap-northeast-1a", "ap-northeast-1c", "ap-northeast-1d")
    assert regions.aws_zones("us-isob-east-1") == () and regions.aws_zones("eu-central-1") == ()


def test_azure_locations_are_programmatic_names():
    assert len(regions.AZURE_LOCATIONS) == 56
    assert all(re.fullmatch(r"[a-z]+[0-9]?", name) for name in regions.AZURE_LOCATIONS)
    assert {"eastus", "westeurope", "swedencentral", "australiacentral2"} <= regions.AZURE_LOCATIONS


def test_closest_names_put_the_likely_typo_first():
    assert regions.closest("us-east1", regions.AWS_REGIONS)[0] == "us-east-1"
    assert regions.closest("west-europe", regions.AZURE_LOCATIONS)[0] == "westeurope"
    assert regions.closest("zzz", regions.AZURE_LOCATIONS)  # never empty: a fix always names something
