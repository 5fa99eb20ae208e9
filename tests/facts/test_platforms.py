"""One PlatformProfile per platform (dra_gpu_platform/facts/platforms.py) holds what differs between eks, aks, kind
and existing, and code asks it instead of comparing the platform's name: an AST scan counts such comparisons."""

from __future__ import annotations

import ast
import typing
from dataclasses import replace
from datetime import date

import pytest

from dra_gpu_platform.config.cluster import ClusterBase
from dra_gpu_platform.config.models import AUTOSCALED_PLATFORMS
from dra_gpu_platform.config.parts import COMPONENT_PLATFORMS
from dra_gpu_platform.facts import kubernetes, platforms, provisioners
from dra_gpu_platform.facts.platforms import AKS, EKS, EXISTING, KIND, PROFILES
from tests.conftest import ROOT, SOURCE_ROOT

# Where the platform's name may still be compared: the profiles' own module. Everything else asks the profile.
PROFILE_MODULE = SOURCE_ROOT / "dra_gpu_platform" / "facts" / "platforms.py"
HANDFUL = 5
# The library, the provider and the pack's shell. gpuplan is restructured on issue 32's parallel gpuplan branch; its
# comparisons move to the profile after both land (the closing note lists them).
SCANNED = (SOURCE_ROOT / "dra_gpu_platform", SOURCE_ROOT / "gpuplan", ROOT / "provider", ROOT / "policies")


def _is_platform_name(node: ast.expr) -> bool:
    if isinstance(node, ast.Constant):
        return node.value in PROFILES
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return bool(node.elts) and all(_is_platform_name(e) for e in node.elts)
    return False


def _names_platform(node: ast.expr) -> bool:
    """`platform`, `config.platform`, `pool.platform`, `stack_config.platform`, ..."""
    name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
    return "platform" in name.lower()


def platform_comparisons(source: str) -> list[int]:
    """The lines that compare a platform's name: `x.platform == "eks"`, `platform in ("kind", "existing")`,
    `"aks" != platform`, and `match platform: case "eks"`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            if any(_is_platform_name(o) for o in operands) and any(_names_platform(o) for o in operands):
                found.append(node.lineno)
        elif isinstance(node, ast.Match) and _names_platform(node.subject):
            found += [c.pattern.lineno for c in node.cases if isinstance(c.pattern, ast.MatchValue)]
    return sorted(found)


def _scan() -> dict[str, list[int]]:
    found = {}
    for root in SCANNED:
        for path in sorted(root.rglob("*.py")):
            lines = platform_comparisons(path.read_text(encoding="utf-8"))
            if lines:
                found[str(path.relative_to(ROOT))] = lines
    return found


def test_only_the_profiles_compare_a_platforms_name():
    found = _scan()
    outside = {path: lines for path, lines in found.items() if ROOT / path != PROFILE_MODULE}
    assert outside == {}, "ask dra_gpu_platform.facts.platforms.profile(...) instead of comparing the name"
    assert sum(len(lines) for lines in found.values()) <= HANDFUL


def test_the_scan_sees_every_spelling_of_a_comparison():
    source = """
if config.platform == "eks": pass
if platform in ("kind", "existing"): pass
if "aks" != pool.platform: pass
match stack_config.platform:
    case "kind": pass
    case _: pass
if document["kind"] == "List" or "kind" not in document: pass
if platform == other_platform: pass
"""
    assert platform_comparisons(source) == [2, 3, 4, 6]


def test_every_platform_of_the_stack_file_has_a_profile():
    literal = typing.get_args(ClusterBase.model_fields["platform"].annotation)
    assert literal == platforms.PLATFORMS == ("eks", "aks", "kind", "existing")
    assert [platforms.profile(name).name for name in platforms.PLATFORMS] == list(PROFILES)
    with pytest.raises(KeyError):
        platforms.profile("gke")


def test_autoscaling_offers_a_provisioner_list_per_platform():
    # the default first; Karpenter's chart is the stack's to install and pin, Auto Mode and NAP are the cloud's
    assert EKS.autoscaling.names == (platforms.CLUSTER_AUTOSCALER, provisioners.KARPENTER, provisioners.AUTO_MODE)
    assert AKS.autoscaling.names == (platforms.CLUSTER_AUTOSCALER, provisioners.NODE_AUTO_PROVISIONING)
    assert EKS.autoscaling.default is not None and EKS.autoscaling.default.installed_by_stack
    assert AKS.autoscaling.default is not None and not AKS.autoscaling.default.installed_by_stack
    assert [p.installed_by_stack for p in EKS.autoscaling.provisioners[1:]] == [True, False]
    assert KIND.autoscaling.default is None and not EXISTING.autoscaling.supported
    assert AUTOSCALED_PLATFORMS == ("eks", "aks")
    # every provisioner the stack file names is offered somewhere, and the offers are read from the profiles
    assert {name: platforms.offering(name) for name in provisioners.PROVISIONERS} == {
        platforms.CLUSTER_AUTOSCALER: ("eks", "aks"),
        provisioners.KARPENTER: ("eks",),
        provisioners.AUTO_MODE: ("eks",),
        provisioners.NODE_AUTO_PROVISIONING: ("aks",),
    }
    assert EKS.autoscaling.offer(provisioners.NODE_AUTO_PROVISIONING) is None


def test_taint_effects_in_the_eks_node_group_spelling_and_back():
    assert EKS.taint_effect("NoSchedule") == "NO_SCHEDULE" and EKS.kubernetes_effect("NO_EXECUTE") == "NoExecute"
    assert AKS.taint_effect("NoSchedule") == "NoSchedule" and EKS.kubernetes_effect("NoSchedule") == "NoSchedule"


def test_offers_are_read_from_the_kubernetes_facts_when_asked(monkeypatch):
    assert EKS.kubernetes.offer("1.35") is kubernetes.OFFERS[("eks", "1.35")]
    assert KIND.kubernetes.offer("1.35") is None and EXISTING.kubernetes.service is None
    later = replace(kubernetes.OFFERS[("aks", "1.37")], available_from=date(2026, 10, 1))
    monkeypatch.setitem(kubernetes.OFFERS, ("aks", "1.37"), later)
    assert AKS.kubernetes.offer("1.37") is later


def test_finer_components_compose_on_clusters_that_exist_apart_from_gpu_platform():
    assert COMPONENT_PLATFORMS == ("eks", "aks", "existing")
    assert all(PROFILES[name].api_access.existing_settings for name in ("eks", "aks"))


def test_gpuplan_preflight_covers_the_platforms_whose_profile_lists_checks():
    from gpuplan.preflight.stack import CLOUD_CHECKS, COVERED

    assert tuple(name for name, p in PROFILES.items() if p.preflight) == COVERED == ("eks", "aks")
    assert sorted(CLOUD_CHECKS) == sorted(COVERED)  # each covered platform has its checks, and only those


def test_the_region_keys_are_the_profiles():
    from dra_gpu_platform.config.loading import _REGION_TABLES

    assert sorted(_REGION_TABLES) == sorted(p.region.key for p in PROFILES.values() if p.region is not None)


def test_fractional_gpu_types_are_a_node_pool_fact_of_the_platform_that_sells_them():
    fractional = EKS.node_pools.is_fractional_gpu_type
    assert fractional is not None and fractional("g6f.xlarge") and fractional("gr6f.4xlarge")
    assert not fractional("g6.xlarge") and not fractional("p6-b300.48xlarge")
    assert all(PROFILES[name].node_pools.is_fractional_gpu_type is None for name in ("aks", "kind", "existing"))
