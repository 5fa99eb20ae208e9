"""dra_gpu_platform/facts/regions.py against its sources: the AWS table is botocore's endpoints data as installed (a
boto3 bump that adds a region fails here until the table has it); every AWS region offers EKS; the Azure table
is the programmatic names of Microsoft's regions list (sorted, unique, lower-case words and digits)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import botocore

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


def test_azure_locations_are_programmatic_names():
    assert len(regions.AZURE_LOCATIONS) == 56
    assert all(re.fullmatch(r"[a-z]+[0-9]?", name) for name in regions.AZURE_LOCATIONS)
    assert {"eastus", "westeurope", "swedencentral", "australiacentral2"} <= regions.AZURE_LOCATIONS


def test_closest_names_put_the_likely_typo_first():
    assert regions.closest("us-east1", regions.AWS_REGIONS)[0] == "us-east-1"
    assert regions.closest("west-europe", regions.AZURE_LOCATIONS)[0] == "westeurope"
    assert regions.closest("zzz", regions.AZURE_LOCATIONS)  # never empty: a fix always names something
