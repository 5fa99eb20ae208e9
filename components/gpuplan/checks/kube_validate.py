"""Manifest validation with kubernetes-validate's schemas (`--strict`: unknown fields are errors).

kubernetes_validate.validate() reloads the 10 MB definitions file for every document; this keeps one
compiled validator per (Kubernetes version, kind, apiVersion) and otherwise follows the library's own
schema lookup, so results equal `kubernetes-validate --strict -k <version>`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from functools import lru_cache
from typing import Any

import jsonschema
from kubernetes_validate import utils as kv
from referencing import Registry, Resource

from dra_gpu_platform.facts import kubernetes, versions


@dataclass(frozen=True)
class ManifestError:
    file: str
    version: str
    path: str
    message: str

    def render(self) -> str:
        return f"{self.file}: Kubernetes {self.version}: {self.path or '(root)'}: {self.message}"


def _schema_version(desired: str) -> str:
    minor = kv.major_minor(desired)
    return [v for v in kv.all_versions() if kv.major_minor(v) <= minor][-1]


@lru_cache(maxsize=8)
def _definitions(schema_dir: str) -> dict[str, Any]:
    definitions: dict[str, Any] = kv.schema_contents(
        f"kubernetes-json-schema/{schema_dir}/_definitions.json", schema_dir
    )
    return definitions


@lru_cache(maxsize=8)
def _registry(schema_dir: str) -> Registry:
    return Resource.from_contents(_definitions(schema_dir)) @ Registry()


def _schema_dir(version: str) -> str:
    return f"v{_schema_version(version)}-local-strict"


@lru_cache(maxsize=256)
def _schema(version: str, kind: str, api_version: str) -> dict[str, Any] | None:
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    try:
        schema: dict[str, Any] = kv.schema_contents(
            f"kubernetes-json-schema/{_schema_dir(version)}/{kind.lower()}-{group}.json", version
        )
    except FileNotFoundError:
        return None
    return schema


@lru_cache(maxsize=256)
def _validator(version: str, kind: str, api_version: str) -> jsonschema.Validator | None:
    schema = _schema(version, kind, api_version)
    if schema is None:
        return None
    registry = Resource.from_contents(schema) @ _registry(_schema_dir(version))
    return jsonschema.validators.Draft202012Validator(schema, registry=registry)


_REF = re.compile(r"#/\$defs/(.+)$")


@lru_cache(maxsize=256)
def _fingerprint(version: str, kind: str, api_version: str) -> str | None:
    """The kind's schema with every definition it reaches, as text: two versions with the same text give every
    document the same errors, so preview validates it once for both (a 2,000-object preview checks two minors)."""
    schema = _schema(version, kind, api_version)
    if schema is None:
        return None
    definitions = _definitions(_schema_dir(version))["$defs"]
    reached: dict[str, Any] = {}
    pending: list[Any] = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            found = _REF.search(node.get("$ref", "")) if isinstance(node.get("$ref"), str) else None
            if found and found[1] not in reached:
                reached[found[1]] = definitions[found[1]]
                pending.append(reached[found[1]])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    return json.dumps([schema, reached], sort_keys=True)


def validate_document(doc: dict[str, Any], version: str, file: str = "") -> list[ManifestError]:
    return validate_for_versions(doc, (version,), file)


def validate_for_versions(doc: dict[str, Any], checked: tuple[str, ...], file: str = "") -> list[ManifestError]:
    """`validate_document` for each version in turn, validating once per distinct schema."""
    kind, api_version = doc.get("kind", ""), doc.get("apiVersion", "")
    found: dict[str | None, list[tuple[str, str]]] = {}  # fingerprint -> the (path, message) of each error
    errors: list[ManifestError] = []
    for version in checked:
        validator = _validator(version, kind, api_version)
        if validator is None:
            message = f"no schema for {doc.get('apiVersion')} {doc.get('kind')} in Kubernetes {version}"
            errors.append(ManifestError(file, version, "", message))
            continue
        fingerprint = _fingerprint(version, kind, api_version) if len(checked) > 1 else None
        if fingerprint is None or fingerprint not in found:
            found[fingerprint] = _errors(validator, doc, version, kind, api_version)
        errors.extend(ManifestError(file, version, path, message) for path, message in found[fingerprint])
    return errors


# Documents already found valid, by schema and text with their name and namespace blanked (see _errors).
_VALID: set[tuple[str, str, str, str]] = set()
_VALID_MAX = 100_000
_META = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"


def _errors(
    validator: jsonschema.Validator, doc: dict[str, Any], version: str, kind: str, api_version: str
) -> list[tuple[str, str]]:
    """(path, message) of each error, by path. Objects that differ only in their name and namespace (a tenant's
    claim templates, each namespace's quota) have the same errors where the schema asks nothing of those two but
    a string: one that was valid answers for the others."""
    key = None
    metadata = doc.get("metadata")
    if _names_free(version, kind, api_version) and isinstance(metadata, dict):
        blank = {k: "" for k in ("name", "namespace") if isinstance(metadata.get(k), str)}
        key = (version, kind, api_version, json.dumps({**doc, "metadata": {**metadata, **blank}}, sort_keys=True))
        if key in _VALID:
            return []
    ordered = sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    if not ordered and key is not None:
        if len(_VALID) >= _VALID_MAX:
            _VALID.clear()
        _VALID.add(key)
    return [("/".join(str(p) for p in e.absolute_path), e.message) for e in ordered]


@lru_cache(maxsize=256)
def _names_free(version: str, kind: str, api_version: str) -> bool:
    """The kind's metadata is ObjectMeta, whose name and namespace the schema only types (no pattern, length or
    format that a name could break)."""
    schema = _schema(version, kind, api_version) or {}
    metadata = (schema.get("properties") or {}).get("metadata") or {}
    if not str(metadata.get("$ref", "")).endswith(f"/$defs/{_META}"):
        return False
    properties = _definitions(_schema_dir(version))["$defs"][_META].get("properties") or {}
    return all(set(properties.get(name) or {"missing"}) <= {"description", "type"} for name in ("name", "namespace"))


def supported_versions() -> tuple[str, ...]:
    """Every minor this package supports, as x.y.0, where kubernetes-validate ships schemas (for manifests whose
    stack minor is unknown: a user's program that builds no GpuPlatform)."""
    newest = kv.major_minor(kv.latest_version())
    return tuple(f"{m}.0" for m in versions.SUPPORTED_KUBERNETES if kv.major_minor(f"{m}.0") <= newest)


def versions_for(kubernetes_version: str, platform: str, on: date | None = None) -> tuple[str, ...]:
    """The Kubernetes versions a stack's manifests are checked against: its own minor and the minor it can move
    to next (EKS and AKS upgrade one minor at a time, to a minor the service offers that day; kind and existing
    clusters to the next minor this package knows: dra_gpu_platform/facts/kubernetes.py next_minor), as x.y.0 and
    only where kubernetes-validate ships schemas (its newest minor at most). The platform has no default: the next
    minor depends on it (an EKS or AKS stack on the newest minor its service offers has none), so whoever asks
    (preview, the tests of every stack) names the stack's own."""
    day = on or kubernetes.today()
    minors = [kubernetes_version]
    following = kubernetes.next_minor(platform, kubernetes_version, day)
    if following is not None:
        minors.append(following)
    newest = kv.major_minor(kv.latest_version())
    return tuple(f"{m}.0" for m in minors if kv.major_minor(f"{m}.0") <= newest)
