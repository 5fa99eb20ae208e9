"""The control-plane version steps one `pulumi up` cannot take (dra_gpu_platform/facts/kubernetes.py version_step):
EKS and AKS upgrade one minor at a time; AKS never downgrades; EKS rolls back exactly one minor, only within 7 days
of an in-place upgrade (which gpuplan cannot see, so --allow-replace may accept that one). The same step rule gives
the next minor (next_minor)."""

from __future__ import annotations

from datetime import date

import pytest

from dra_gpu_platform.facts import kubernetes as k8s
from dra_gpu_platform.facts.kubernetes import minor_after, version_step


@pytest.mark.parametrize(
    "platform, old, new, refused, allowable",
    [
        ("eks", 34, 35, False, None),
        ("aks", 34, 35, False, None),
        ("eks", 35, 35, False, None),
        ("eks", 33, 35, True, False),
        ("aks", 32, 35, True, False),  # skips
        ("eks", 35, 34, True, True),  # EKS version rollback, if within 7 days
        ("eks", 35, 33, True, False),
        ("aks", 35, 34, True, False),  # no such rollback / no AKS downgrade
        ("kind", 35, 34, False, None),
        ("existing", 33, 35, False, None),  # not a managed control plane
    ],
)
def test_version_steps(platform, old, new, refused, allowable):
    step = version_step(platform, old, new)
    assert (step is not None) == refused
    if step is not None:
        why, how, can_allow = step
        assert can_allow is allowable and f"1.{old} → 1.{new}" in why and "https://" in why and how
        if new > old:
            assert "one minor at a time" in why and " → ".join(f"1.{m}" for m in range(old, new + 1)) in how


def test_the_next_minor_is_the_one_step_a_control_plane_can_take():
    on = date(2026, 6, 1)
    for version in k8s.MINORS:
        following = k8s.next_minor("kind", version, on)  # kind: every minor the package knows
        if following is not None:
            assert k8s.minor_number(following) == minor_after(k8s.minor_number(version))
            assert version_step("eks", k8s.minor_number(version), k8s.minor_number(following)) is None
