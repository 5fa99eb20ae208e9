"""`gpuplan preview` validates manifests for the stack's minor and the minor it can move to next
(gpuplan/checks/kube_validate.py versions_for; the offers in dra_gpu_platform/facts/kubernetes.py)."""

from __future__ import annotations

from datetime import date

from gpuplan.checks.kube_validate import validate_document, versions_for

ON = date(2026, 12, 3)


def test_eks_and_aks_move_one_minor_up_to_what_the_service_offers():
    assert versions_for("1.35", "eks", ON) == ("1.35.0", "1.36.0")
    assert versions_for("1.35", "aks", ON) == ("1.35.0", "1.36.0")
    # neither service offers 1.37 on that day: a 1.36 cluster has nowhere to go yet
    assert versions_for("1.36", "eks", ON) == ("1.36.0",) and versions_for("1.36", "aks", ON) == ("1.36.0",)


def test_kind_and_existing_clusters_move_to_the_next_known_minor_within_the_schemas():
    assert versions_for("1.36", "kind", ON) == ("1.36.0", "1.37.0")
    assert versions_for("1.37", "existing", ON) == ("1.37.0",)  # kubernetes-validate 1.37.0 ends at v1.37.0


def test_device_taint_rule_v1_validates_at_1_37_only():
    """resource.k8s.io/v1 DeviceTaintRule is introduced in 1.37 (kubernetes/api v0.37.0-beta.0
    resource/v1/zz_generated.prerelease-lifecycle.go); 1.36 has no such schema."""
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "drain"},
        "spec": {"deviceSelector": {"driver": "gpu.nvidia.com"}, "taint": {"key": "k", "effect": "NoSchedule"}},
    }
    assert validate_document(rule, "1.37.0") == []
    assert "no schema" in validate_document(rule, "1.36.0")[0].message
