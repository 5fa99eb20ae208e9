"""gpu-always-on-cost: the GPU pools' cost per hour at minNodes against maxAlwaysOnPerHour, priced as preview's
capacity table prices them in the region of the pools' provider; unknown prices named, never guessed. The offline
runner hands the pack the default provider (with the stack's region) as the engine does."""

from __future__ import annotations

import copy

import pytest
from pulumi_policy import EnforcementLevel, PolicyProviderResource, PolicyResource
from pulumi_policy.proxy import unknown_checking_proxy

from dra_gpu_platform.facts import prices
from dra_gpu_platform.facts.prices import PriceFact
from dra_gpu_platform.policies.rules import cost
from gpuplan.policy.runner import PolicySettings, evaluate
from tests.conftest import run_config
from tests.policies import builders as b

# Fixed figures for the test (dra_gpu_platform/facts/prices.py records its own, with their sources).
TEST_PRICES = (
    PriceFact("eks", "p5.48xlarge", "us-east-1", 55.04, "test offer", "2026-11-02"),
    PriceFact("eks", "g6.xlarge", "us-east-1", 0.8048, "test offer", "2026-11-02"),
)


@pytest.fixture
def priced(monkeypatch):
    monkeypatch.setattr(prices, "PRICES", TEST_PRICES)


def with_provider(resource: PolicyResource, region: str | None) -> PolicyResource:
    provider = None
    if region is not None:
        provider = PolicyProviderResource(
            "pulumi:providers:aws", unknown_checking_proxy({"region": region}), "urn:provider", "default"
        )
    return PolicyResource(
        resource.resource_type,
        resource.props,
        resource.urn,
        resource.name,
        resource.opts,
        provider,
        None,
        [],
        {},
    )


def group(instance: str, min_size: int, max_size: int, name: str, region: str | None = "us-east-1") -> PolicyResource:
    props = copy.deepcopy(b.node_group(instance, max_size=max_size, name=name))
    props["scalingConfig"]["minSize"] = float(min_size)
    return with_provider(b.resource(b.EKS_NODE_GROUP, props, name), region)


def test_the_rule_is_advisory_with_a_schema_default():
    assert cost.GPU_ALWAYS_ON_COST.enforcement_level == EnforcementLevel.ADVISORY
    assert cost.ALWAYS_ON_SCHEMA.properties["maxAlwaysOnPerHour"]["default"] == 100


def test_an_always_on_cost_over_the_threshold_names_each_priced_pool(priced):
    pools = [group("p5.48xlarge", 2, 4, "h100"), group("g6.xlarge", 1, 3, "l4"), group("g5.xlarge", 1, 2, "a10g")]
    [(message, urn)] = b.check_stack(cost.GPU_ALWAYS_ON_COST, pools, {"maxAlwaysOnPerHour": 100})
    # 2 × 55.04 + 1 × 0.8048 = 110.8848, over 100; g5.xlarge has no recorded price
    assert message.startswith(
        "the GPU pools cost $110.88 per hour at minNodes, around the clock, over maxAlwaysOnPerHour $100.00: "
    )
    assert "h100: 2 × p5.48xlarge at $55.04/h (test offer, 2026-11-02) = $110.08/h; l4: 1 × g6.xlarge" in message
    assert message.endswith("Not counted (price unknown): a10g.") and urn is None


def test_within_the_threshold_or_unpriced_is_no_violation(priced):
    pools = [group("p5.48xlarge", 1, 4, "h100")]
    assert b.check_stack(cost.GPU_ALWAYS_ON_COST, pools, {"maxAlwaysOnPerHour": 60}) == []
    # without a region no price applies: nothing is guessed
    assert (
        b.check_stack(cost.GPU_ALWAYS_ON_COST, [group("p5.48xlarge", 4, 4, "h100", None)], {"maxAlwaysOnPerHour": 1})
        == []
    )
    # another region's price is not this one's
    assert (
        b.check_stack(
            cost.GPU_ALWAYS_ON_COST, [group("p5.48xlarge", 4, 4, "h100", "eu-west-1")], {"maxAlwaysOnPerHour": 1}
        )
        == []
    )


def test_an_aks_cluster_location_prices_its_pools(priced, monkeypatch):
    monkeypatch.setattr(
        prices, "PRICES", (PriceFact("aks", "Standard_NC24ads_A100_v4", "eastus", 3.673, "test offer", "2026-11-02"),)
    )
    cluster = b.resource(b.AKS_CLUSTER, {**b.managed_cluster(), "location": "eastus"}, "aks")
    pool = b.resource(b.AKS_AGENT_POOL, b.agent_pool(max_count=3), "a100")  # count 1, minCount 0: autoscaled from 0
    fixed = b.resource(b.AKS_AGENT_POOL, b.agent_pool(max_count=3, autoscale=False), "fixed")  # 1 node always
    [message] = b.check_stack(cost.GPU_ALWAYS_ON_COST, [cluster, pool, fixed], {"maxAlwaysOnPerHour": 3}).messages
    assert "$3.67 per hour" in message and "= $3.67/h" in message


def test_the_offline_runner_hands_the_pack_the_default_providers_region(tmp_path, priced):
    config = {
        "aws:region": "us-east-1",
        "cluster": {
            "platform": "eks",
            "name": "c",
            "kubernetesVersion": "1.35",
            "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
        },
        "nodePools": [{"name": "l4", "gpu": "L4", "minNodes": 2, "maxNodes": 4}],
    }
    run = run_config(tmp_path, config)
    report = evaluate(run, None, policies=[cost.GPU_ALWAYS_ON_COST])
    assert report.violations == []  # 2 × 0.8048 is within the default 100
    strict = {"gpu-always-on-cost": PolicySettings(EnforcementLevel.ADVISORY, {"maxAlwaysOnPerHour": 1})}
    [violation] = evaluate(run, strict, policies=[cost.GPU_ALWAYS_ON_COST]).violations
    assert violation.level == "advisory" and "l4: 2 × g6.xlarge at $0.80/h" in violation.message
