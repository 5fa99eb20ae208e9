"""GPU software support facts: the defaults, the life cycle and the one-major-at-a-time path."""

from __future__ import annotations

import itertools

import pytest
from packaging.version import Version

from dra_gpu_platform.facts import chart_releases, kubernetes, versions
from dra_gpu_platform.facts import gpu_software_support as support

MODELLED = tuple(kubernetes.minor_number(m) for m in kubernetes.MINORS)


@pytest.mark.parametrize("minor", MODELLED)
def test_the_default_operator_is_supported_by_nvidia_on_every_modelled_minor(minor):
    default = support.default_gpu_operator(minor)
    assert default == versions.GPU_OPERATOR_DEFAULT
    assert support.operator_supports(default, minor)
    assert support.status(default) == support.SUPPORTED
    assert default in chart_releases.GPU_OPERATOR_RELEASES


def test_no_default_where_no_supported_release_covers_the_minor():
    assert support.default_gpu_operator(38) is None  # NVIDIA says nothing about 1.38
    assert support.default_gpu_operator(31) is None  # 26.7 starts at 1.33


def test_life_cycle_of_each_major():
    assert support.status("v25.10.1") == support.END_OF_SUPPORT
    assert support.status("v25.3.4") == support.END_OF_SUPPORT
    assert support.status("v26.3.3") == support.DEPRECATED
    assert support.status("v26.7.0") == support.SUPPORTED


def test_support_ranges_as_nvidia_lists_them():
    assert support.operator_supports("v25.10.1", 35) and not support.operator_supports("v25.10.1", 36)
    assert not support.operator_supports("v25.10.0", 35)
    assert support.operator_supports("v26.3.3", 36) and not support.operator_supports("v26.3.1", 36)
    assert support.operator_supports("v26.7.0", 37) and not support.operator_supports("v26.3.3", 37)
    assert support.support("v25.3.4") is None  # never read: treated as unsupported


@pytest.mark.parametrize(
    "old, new, hops",
    [
        ("v25.10.1", "v26.7.0", ["v26.3.3", "v26.7.0"]),
        ("v25.10.0", "v26.3.1", ["v26.3.1"]),
        ("v26.3.0", "v26.3.3", ["v26.3.3"]),
        ("v26.3.3", "v26.7.0", ["v26.7.0"]),
        ("v25.3.4", "v26.7.0", ["v25.10.1", "v26.3.3", "v26.7.0"]),
        ("v26.7.0", "v26.7.0", []),
    ],
)
def test_the_path_stops_at_every_major_between(old, new, hops):
    assert support.operator_hops(old, new) == hops
    path = [old, *hops]
    for a, b in itertools.pairwise(path):
        assert not support.skips_major(a, b), (a, b)
        assert Version(b) > Version(a)
    assert support.skips_major(old, new) == (len(hops) > 1)


def test_every_listed_release_with_a_support_range_has_its_operands():
    for tag in chart_releases.GPU_OPERATOR_RELEASES:
        if support.support(tag) is not None and tag != "v25.10.0":
            assert tag in support.OPERANDS, tag


def test_dra_driver_support_is_bounded_below_and_by_what_is_modelled():
    assert support.dra_driver_supports("0.4.1", 34, MODELLED)
    assert not support.dra_driver_supports("0.4.1", 38, MODELLED)  # unreleased: no statement
    assert support.dra_driver_supports("25.12.0", 35, MODELLED)
    assert not support.dra_driver_supports("not-a-version", 35, MODELLED)


def test_newest_patches_belong_to_their_minor_and_1_38_is_only_announced():
    for minor, patch in kubernetes.NEWEST_PATCH.items():
        assert patch.startswith(minor + ".") and minor in kubernetes.MINORS
    assert "1.38" not in kubernetes.MINORS
    announced = kubernetes.ANNOUNCED["1.38"]
    assert "resource.k8s.io/v1beta1" in announced.removes_apis
    assert kubernetes.DYNAMIC_RESOURCE_ALLOCATION in announced.removes_gates
    day = announced.due
    assert "not released yet" in announced.status(day.replace(day=day.day - 1))
    assert "has not read its facts" in announced.status(day)
