"""Preview validates each manifest for two minors at scale (gpuplan/checks/kube_validate.py): once per distinct
schema, and once per object text apart from its name and namespace. Both give exactly what validating every
object for every minor on its own gives."""

from __future__ import annotations

import copy

from gpuplan.checks import kube_validate
from gpuplan.checks.kube_validate import validate_document, validate_for_versions

MINORS = ("1.35.0", "1.36.0")
TEMPLATE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceClaimTemplate",
    "metadata": {"name": "one", "namespace": "team-a"},
    "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "big"}}]}}},
}


def _one_by_one(doc: dict, file: str = "f.yaml") -> list:
    return [error for minor in MINORS for error in validate_document(doc, minor, file)]


def test_the_minors_share_a_validation_only_where_the_schemas_are_equal():
    # ResourceQuota's schema (with every definition it reaches) is the same in both minors, ResourceClaimTemplate's
    # is not (DRA gained fields in 1.36)
    assert kube_validate._fingerprint("1.35.0", "ResourceQuota", "v1") == kube_validate._fingerprint(
        "1.36.0", "ResourceQuota", "v1"
    )
    assert kube_validate._fingerprint(
        "1.35.0", "ResourceClaimTemplate", "resource.k8s.io/v1"
    ) != kube_validate._fingerprint("1.36.0", "ResourceClaimTemplate", "resource.k8s.io/v1")
    quota = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"}, "spec": {"hard": {"x": [1]}}}
    errors = validate_for_versions(quota, MINORS, "q.yaml")
    assert errors == _one_by_one(quota, "q.yaml") and [e.version for e in errors] == list(MINORS)


def test_a_valid_objects_answer_serves_its_renamed_twins_and_an_invalid_one_is_checked_each_time():
    assert kube_validate._names_free("1.35.0", "ResourceClaimTemplate", "resource.k8s.io/v1")
    assert validate_for_versions(TEMPLATE, MINORS) == []
    twin = copy.deepcopy(TEMPLATE)
    twin["metadata"].update(name="two", namespace="team-b")
    assert validate_for_versions(twin, MINORS) == [] == _one_by_one(twin)
    # the same text with a bad field: not served from the valid answer, and its errors are the one-by-one errors
    broken = copy.deepcopy(twin)
    broken["spec"]["spec"]["devices"]["requests"][0]["exactly"]["bogus"] = 1
    errors = validate_for_versions(broken, MINORS, "t.yaml")
    assert errors and errors == _one_by_one(broken, "t.yaml")
    # a name that is not a string is never blanked: the schema's type check still sees it
    numbered = copy.deepcopy(TEMPLATE)
    numbered["metadata"]["name"] = 7
    assert [e.path for e in validate_for_versions(numbered, MINORS)] == ["metadata/name", "metadata/name"]
