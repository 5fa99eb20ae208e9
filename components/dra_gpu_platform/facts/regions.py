"""The regions a stack may name: `aws:region` (EKS) and `azure-native:location` (AKS). Pure data.

An unknown name is a config error with the closest real names as the fix, because offline nothing else would
notice: the mock runtime invents zones for any string, and `pulumi up` only fails once it calls the cloud.
Sources (docs/references.md#aws-regions, docs/references.md#aws-zones, docs/references.md#azure-locations):
- AWS: botocore 1.44.8 (boto3 1.44.5's dependency, in uv.lock) `botocore/data/endpoints.json`, `partitions[].regions`;
  every region listed there has an `eks` endpoint too (`partitions[].services.eks.endpoints`).
  tests/facts/test_regions.py compares this table with the installed botocore, so a boto3 bump shows new regions.
- AWS zones: moto 5.2.5 (in uv.lock) `moto/ec2/models/availability_zones_and_regions.py`, `RegionsAndZonesBackend.zones`
  (:83-187): the zone names of the 12 regions moto lists one by one (the letters an account sees; which physical zone
  a letter is differs per account). moto gives every other region a, b and c (:188-203), a guess, not data: those
  regions are not in this table. tests/facts/test_regions.py compares this table with the installed moto.
- Azure: the programmatic names of the "All" table of MicrosoftDocs/reliability-docs
  `articles/reliability/regions-list.md` (ms.date 09/23/2025, commit 01021ab80d1aebd1d8b5de481d80a9855b487954),
  public cloud only: sovereign clouds (Azure Government, Azure operated by 21Vianet) are not in that list and not
  in this table.
"""

from __future__ import annotations

import difflib

# partition -> region names
AWS_REGIONS_BY_PARTITION: dict[str, tuple[str, ...]] = {
    "aws": (
        "af-south-1",
        "ap-east-1",
        "ap-east-2",
        "ap-northeast-1",
        "ap-northeast-2",
        "ap-northeast-3",
        "ap-south-1",
        "ap-south-2",
        "ap-southeast-1",
        "ap-southeast-2",
        "ap-southeast-3",
        "ap-southeast-4",
        "ap-southeast-5",
        "ap-southeast-6",
        "ap-southeast-7",
        "ca-central-1",
        "ca-west-1",
        "eu-central-1",
        "eu-central-2",
        "eu-north-1",
        "eu-south-1",
        "eu-south-2",
        "eu-west-1",
        "eu-west-2",
        "eu-west-3",
        "il-central-1",
        "me-central-1",
        "me-south-1",
        "mx-central-1",
        "sa-east-1",
        "us-east-1",
        "us-east-2",
        "us-west-1",
        "us-west-2",
    ),
    "aws-cn": ("cn-north-1", "cn-northwest-1"),
    "aws-us-gov": ("us-gov-east-1", "us-gov-west-1"),
    "aws-iso": ("us-iso-east-1", "us-iso-west-1"),
    "aws-iso-b": ("us-isob-east-1", "us-isob-west-1"),
    "aws-iso-e": ("eu-isoe-west-1",),
    "aws-iso-f": ("us-isof-east-1", "us-isof-south-1"),
    "aws-eusc": ("eusc-de-east-1",),
}
AWS_REGIONS: frozenset[str] = frozenset(r for regions in AWS_REGIONS_BY_PARTITION.values() for r in regions)

# region -> the letters of its zones (us-west-2 -> us-west-2a ... us-west-2d), where moto lists them
AWS_ZONE_LETTERS: dict[str, str] = {
    "ap-northeast-1": "acd",
    "ap-northeast-2": "abcd",
    "ap-south-1": "abc",
    "ap-southeast-2": "abc",
    "ca-central-1": "abd",
    "cn-north-1": "ab",
    "eu-west-1": "abc",
    "eu-west-2": "abc",
    "eu-west-3": "abc",
    "us-east-1": "abcdef",
    "us-west-1": "ab",
    "us-west-2": "abcd",
}


def aws_zones(region: str) -> tuple[str, ...]:
    """The zone names of an AWS region (empty for a region this table does not list)."""
    return tuple(f"{region}{letter}" for letter in AWS_ZONE_LETTERS.get(region, ""))


AZURE_LOCATIONS: frozenset[str] = frozenset(
    {
        "australiacentral",
        "australiacentral2",
        "australiaeast",
        "australiasoutheast",
        "austriaeast",
        "belgiumcentral",
        "brazilsouth",
        "brazilsoutheast",
        "canadacentral",
        "canadaeast",
        "centralindia",
        "centralus",
        "chilecentral",
        "denmarkeast",
        "eastasia",
        "eastus",
        "eastus2",
        "francecentral",
        "francesouth",
        "germanynorth",
        "germanywestcentral",
        "indonesiacentral",
        "israelcentral",
        "italynorth",
        "japaneast",
        "japanwest",
        "koreacentral",
        "koreasouth",
        "malaysiawest",
        "mexicocentral",
        "newzealandnorth",
        "northcentralus",
        "northeurope",
        "norwayeast",
        "norwaywest",
        "polandcentral",
        "qatarcentral",
        "southafricanorth",
        "southafricawest",
        "southcentralus",
        "southindia",
        "southeastasia",
        "spaincentral",
        "swedencentral",
        "switzerlandnorth",
        "switzerlandwest",
        "uaecentral",
        "uaenorth",
        "uksouth",
        "ukwest",
        "westcentralus",
        "westeurope",
        "westindia",
        "westus",
        "westus2",
        "westus3",
    }
)


def closest(name: str, known: frozenset[str], count: int = 3) -> list[str]:
    """The known names most like `name` (a typo's likely meaning), best first; never empty."""
    text = str(name).lower()
    matches = difflib.get_close_matches(text, sorted(known), n=count, cutoff=0.6)
    if not matches:
        matches = difflib.get_close_matches(text, sorted(known), n=count, cutoff=0.0)
    return matches
