"""Provisioner facts: each recorded on-demand price is the figure on the line its source names (where the Karpenter
providers' generated price tables lie in ../shared, never committed), the Karpenter releases and their DRA support,
the NodePool durations, and what each provisioner does for claim and nvidia.com/gpu pods."""

from __future__ import annotations

import re

import pytest

from dra_gpu_platform.facts import catalog, karpenter, prices
from dra_gpu_platform.facts import provisioners as p
from tests.conftest import SHARED, shared_path

PRICE_FILES = {
    "eks": SHARED / "prices" / "zz_generated.pricing_aws.go",
    "aks": SHARED / "prices" / "zz_generated.pricing.go",
}
WHAT = (
    "the Karpenter providers' generated price tables (aws/karpenter-provider-aws@release-v1.14.1 and "
    "Azure/karpenter-provider-azure@v1.14.2 pkg/providers/pricing/zz_generated.pricing*.go, in ../shared/prices/)"
)


@pytest.mark.parametrize("platform", ["eks", "aks"])
def test_every_recorded_price_is_the_figure_on_its_cited_line(platform):
    lines = shared_path(PRICE_FILES[platform], WHAT).read_text(encoding="utf-8").splitlines()
    checked = 0
    for fact in prices.PRICES:
        if fact.platform != platform:
            continue
        line = int(re.search(r"\.go:(\d+) ", fact.source).group(1))  # type: ignore[union-attr]
        figures = dict(re.findall(r'"([^"]+)":\s*([0-9.]+)', lines[line - 1]))
        assert float(figures[fact.instance_type]) == fact.usd_per_hour, fact
        checked += 1
    assert checked >= 30
    if platform == "aks":  # the line lies in the table of the fact's location
        starts = {
            m.group(1): i for i, text in enumerate(lines) if (m := re.search(r'initialOnDemandPrices\["(\w+)"\]', text))
        }
        for fact in (f for f in prices.PRICES if f.platform == "aks"):
            line = int(re.search(r"\.go:(\d+) ", fact.source).group(1))  # type: ignore[union-attr]
            owner = max((start, location) for location, start in starts.items() if start < line)[1]
            assert owner == fact.region, fact


def test_prices_cover_the_catalogs_ec2_types_in_us_east_1_but_metal_and_capacity_block_only_ones():
    unpriced = {t.name for t in catalog.INSTANCE_TYPES.values() if t.platform == "eks"} - {
        f.instance_type for f in prices.PRICES if f.platform == "eks"
    }
    # g4dn.metal: the table prices bare metal at dedicated tenancy; p5e and p6e-gb200: not in the table
    assert unpriced == {"g4dn.metal", "p5e.48xlarge", "p6e-gb200.36xlarge"}


def test_karpenter_releases_and_their_dra_support():
    assert karpenter.DEFAULT_VERSION == "1.14.1" and karpenter.release("v1.15.0") is karpenter.RELEASES["1.15.0"]
    assert [r.version for r in karpenter.RELEASES.values() if r.nvidia_dra] == [karpenter.DRA_VERSION]
    assert all("@sha256:" in r.image for r in karpenter.RELEASES.values())
    assert karpenter.supports_kubernetes("1.14.1", "1.36") and not karpenter.supports_kubernetes("1.14.1", "1.37")
    # every catalog type on EKS but the Capacity-Block-only GB200 and the families the stored 1.15 table lacks
    eks = {t.name for t in catalog.INSTANCE_TYPES.values() if t.platform == "eks"}
    without = {"p6e-gb200.36xlarge", "p6-b300.48xlarge", *(f"g7e.{s}" for s in ("2xlarge", "4xlarge", "8xlarge"))}
    without |= {f"g7e.{s}" for s in ("12xlarge", "24xlarge", "48xlarge")}
    assert eks - karpenter.NVIDIA_DRA_INSTANCE_TYPES == without


@pytest.mark.parametrize(
    ("text", "seconds"), [("0s", 0), ("15m", 900), ("1h30m", 5400), ("Never", None), ("10", None), ("", None)]
)
def test_nodepool_durations(text, seconds):
    assert karpenter.duration_seconds(text) == seconds


def test_what_each_provisioner_does_for_claims_per_minor_and_release():
    assert p.claims_growth(p.CLUSTER_AUTOSCALER, 36).verdict == "from-one-node"
    assert p.claims_growth(p.KARPENTER, 36, "1.14.1").verdict == "never"
    assert p.claims_growth(p.KARPENTER, 36, "1.15.0").verdict == "from-zero"
    assert p.claims_growth(p.AUTO_MODE, 35).verdict == "never"
    assert p.claims_growth(p.AUTO_MODE, 36).verdict == "unverified"
    assert p.claims_growth(p.NODE_AUTO_PROVISIONING, 36).verdict == "never"
    assert all(p.gpu_resource_growth(name).verdict == "from-zero" for name in p.PROVISIONERS)
    assert p.bridge_growth(p.KARPENTER).verdict == "never-initializes"
    assert not p.bridge_growth(p.KARPENTER).gets_a_node
