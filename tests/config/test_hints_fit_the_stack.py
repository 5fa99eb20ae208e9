"""Fixes computed from the user's stack, never a fixed example: the Capacity Block pool's zone is offered from the
zones of the stack's own region (dra_gpu_platform/facts/regions.py), and the minNodes fix states the defaults the
models apply (the field's own, and the autoscaler rule's for on-demand or spot dra pools)."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.config.sections.node_pools import AUTOSCALED_DRA_MIN_NODES, NodePool
from dra_gpu_platform.facts import regions
from dra_gpu_platform.inputs.problems import InputError
from tests.config.test_cloud_rules import EKS, with_pool
from tests.conftest import qualify

BLOCK = {"capacity": "capacity-block", "capacityReservationId": "cr-0123456789abcdef0", "availabilityZone": None}


def problems(config: dict) -> dict[str, object]:
    with pytest.raises(InputError) as raised:
        parse_config_map(qualify(config), stack="t", source="t.yaml")
    return {p.path: p for p in raised.value.problems}


def block_pool_in(region: str) -> dict:
    config = with_pool({**copy.deepcopy(EKS), "aws:region": region}, 0, **BLOCK)
    del config["nodePools"][0]["availabilityZone"]
    return config


@pytest.mark.parametrize("region", ["us-west-2", "ap-northeast-1", "us-east-1"])
def test_the_capacity_block_zone_fix_offers_the_zones_of_the_stacks_region(region):
    fix = problems(block_pool_in(region))["nodePools[0].availabilityZone"].fix
    zones = regions.aws_zones(region)
    assert zones and f"one of {', '.join(zones)}" in fix
    assert all(zone.startswith(region) for zone in zones)
    assert all(other not in fix for other in ("us-east-1a", "us-west-2a") if not other.startswith(region))
    assert "cr-0123456789abcdef0" in fix  # the command that shows the reservation's zone names the reservation


def test_a_region_without_zone_facts_gets_a_zone_of_that_region_and_the_command_that_lists_them():
    fix = problems(block_pool_in("eu-central-1"))["nodePools[0].availabilityZone"].fix
    assert "eu-central-1a" in fix and "describe-availability-zones --region eu-central-1" in fix
    assert "us-east-1" not in fix


def test_a_zone_outside_the_region_is_told_the_regions_zones():
    config = with_pool({**copy.deepcopy(EKS), "aws:region": "us-west-2"}, 0, availabilityZone="us-east-1a")
    fix = problems(config)["nodePools[0].availabilityZone"].fix
    assert fix == f"use one of {', '.join(regions.aws_zones('us-west-2'))}"


def test_the_min_nodes_fix_states_the_defaults_of_the_models():
    fix = problems(with_pool(EKS, 0, minNodes=0))["nodePools[0].minNodes"].fix
    field_default = NodePool.model_fields["min_nodes"].default
    assert (field_default, AUTOSCALED_DRA_MIN_NODES) == (0, 1)
    assert fix.startswith(
        f"set minNodes: {AUTOSCALED_DRA_MIN_NODES} (or leave it out: minNodes defaults to {field_default}, and to "
        f"{AUTOSCALED_DRA_MIN_NODES} for an on-demand or spot dra pool like this one where the autoscaler runs)"
    )
    # and leaving it out gives what the fix says
    config = copy.deepcopy(EKS)
    pool = parse_config_map(qualify(config), stack="t", source="t.yaml").node_pools[0]
    assert pool.min_nodes == AUTOSCALED_DRA_MIN_NODES
