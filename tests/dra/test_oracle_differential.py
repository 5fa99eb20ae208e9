"""dra_gpu_platform/dra against the real allocator (../shared/tools/dra-oracle at v0.35.6, v0.36.2, v0.37.0-alpha.2),
each minor with its default gates: on random inventories and claims (tests/dra/oracle.py), the verdict of every
node (allocated, unschedulable, error), the devices and subrequests chosen and the allocation's node selector
must be the oracle's, and so must the number of copies of a claim that fit at once (Scheduler.fill).

Deterministic: a fixed hypothesis seed per minor, no example database. `make test` runs ORACLE_EXAMPLES (default 40) cases
per minor; `make oracle` runs 2000 per minor and prints the counts."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, seed, settings

from tests.dra import oracle


def _explain(case: oracle.Case, comparison: oracle.Comparison) -> str:
    lines = [f"case: {case.as_json()}"]
    for node in sorted(set(comparison.ours) | set(comparison.oracle)):
        if comparison.ours.get(node) != comparison.oracle.get(node):
            lines.append(
                f"node {node}:\n  ours:   {comparison.ours.get(node)}\n  oracle: {comparison.oracle.get(node)}"
            )
    if comparison.fill_ours != comparison.fill_oracle:
        lines.append(f"at once: ours {comparison.fill_ours}, oracle {comparison.fill_oracle}")
    return "\n".join(lines)


def _differential(minor: int):
    reason = oracle.skip_reason(minor)

    @pytest.mark.skipif(reason is not None, reason=reason or "")
    @seed(1000 + minor)  # a fixed seed per minor: the same cases on every run, different ones per minor
    @settings(max_examples=oracle.EXAMPLES, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(oracle.cases(minor))
    def test(case):
        comparison = oracle.compare(case)
        assert comparison.same, _explain(case, comparison)

    test.__name__ = f"test_fit_allocates_as_the_kubernetes_1_{minor}_allocator"
    test.__doc__ = (
        f"dynamic-resource-allocation {oracle.BINARIES[minor].removeprefix('dra-oracle-')}, 1.{minor} defaults"
    )
    return test


test_fit_allocates_as_the_kubernetes_1_35_allocator = _differential(35)
test_fit_allocates_as_the_kubernetes_1_36_allocator = _differential(36)
test_fit_allocates_as_the_kubernetes_1_37_allocator = _differential(37)


def test_the_oracle_features_are_the_minors_default_gates():
    """The README of the oracle lists them for 1.35 and 1.36; 1.37 has the same allocator features as 1.36."""
    assert oracle.oracle_features(35) == {"AdminAccess": True, "PrioritizedList": True}
    assert set(oracle.oracle_features(36)) == {
        "AdminAccess",
        "PrioritizedList",
        "PartitionableDevices",
        "DeviceTaints",
        "DeviceBindingAndStatus",
        "ConsumableCapacity",
    }
    assert oracle.oracle_features(37) == oracle.oracle_features(36)
