"""No coercion that changes meaning: booleans are not numbers, numbers and "yes"/"on"/"1" are not booleans. Only the
strings Pulumi's own config coercion produces ("true", "false", decimal digits: `pulumi config set --type string`
or a quoted value) are read as what they spell. Unknown regions and locations are errors with the closest names."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.inputs.problems import InputError
from tests.conftest import KIND_BASE, qualify


def load(config: dict):
    return parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml")


def problem_at(config: dict, path: str):
    with pytest.raises(InputError) as raised:
        load(config)
    found = [p for p in raised.value.problems if p.path == path]
    assert found, raised.value.render()
    return found[0]


def with_value(section: str, key: str, value, index: int | None = None) -> dict:
    config = copy.deepcopy(KIND_BASE)
    target = config.setdefault(section, {}) if index is None else config[section][index]
    target[key] = value
    return config


@pytest.mark.parametrize("value", [True, False, 2.0, "02", "two", "1e3"])
def test_max_nodes_takes_a_number_only(value):
    problem = problem_at(with_value("nodePools", "maxNodes", value, 0), "nodePools[0].maxNodes")
    assert problem.value == value and "whole number" in problem.rule
    if isinstance(value, bool):
        assert "not a boolean" in problem.rule and "true is not read as 1" in problem.fix


@pytest.mark.parametrize("value", [1, 0, "yes", "on", "1", "True", "y"])
def test_protect_takes_true_or_false_only(value):
    problem = problem_at(with_value("cluster", "protect", value), "cluster.protect")
    assert problem.rule == "must be true or false"
    if value in ("yes", "on"):
        assert "YAML 1.2" in problem.fix


@pytest.mark.parametrize("value, expected", [("true", True), ("false", False), (True, True)])
def test_the_strings_pulumi_writes_for_booleans_are_read(value, expected):
    assert load(with_value("cluster", "protect", value)).cluster.protect is expected


@pytest.mark.parametrize("value, expected", [("3", 3), ("+3", 3), (3, 3)])
def test_the_strings_pulumi_writes_for_integers_are_read(value, expected):
    assert load(with_value("nodePools", "maxNodes", value, 0)).node_pools[0].max_nodes == expected


def test_every_boolean_and_integer_field_is_strict():
    config = copy.deepcopy(KIND_BASE)
    config["monitoring"] = {"enabled": 1, "claimPendingMinutes": True}
    config["draDriver"] = {"featureGates": {"MPSSupport": "on"}}
    config["namespaces"][0]["quota"]["devices"]["big"] = False
    with pytest.raises(InputError) as raised:
        load(config)
    paths = {p.path for p in raised.value.problems}
    assert {
        "monitoring.enabled",
        "monitoring.claimPendingMinutes",
        "draDriver.featureGates.MPSSupport",
        "namespaces[0].quota.devices.big",
    } <= paths


@pytest.mark.parametrize(
    "key, value, closest",
    [
        ("aws:region", "mars-north-9", "eu-north-1"),
        ("aws:region", "us-est-1", "us-east-1"),
        ("azure-native:location", "eastus3", "eastus"),
        ("azure-native:location", "westeu", "westus"),
    ],
)
def test_an_unknown_region_or_location_is_an_error_with_the_closest_names(key, value, closest):
    config = {**copy.deepcopy(KIND_BASE), key: value}
    problem = problem_at(config, key)
    assert problem.value == value and "not an" in problem.rule and closest in problem.fix


def test_known_regions_and_locations_load():
    assert load({**copy.deepcopy(KIND_BASE), "aws:region": "ap-southeast-7"}).region == "ap-southeast-7"
    assert load({**copy.deepcopy(KIND_BASE), "azure-native:location": "swedencentral"}).region == "swedencentral"
