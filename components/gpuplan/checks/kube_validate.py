"""Manifest validation with kubernetes-validate's schemas (`--strict`: unknown fields are errors).

kubernetes_validate.validate() reloads the 10 MB definitions file for every document; this keeps one
compiled validator per (Kubernetes version, kind, apiVersion) and otherwise follows the library's own
schema lookup, so results equal `kubernetes-validate --strict -k <version>`.
"""

from __future__ import annotations

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
def _registry(schema_dir: str) -> Registry:
    definitions = kv.schema_contents(f"kubernetes-json-schema/{schema_dir}/_definitions.json", schema_dir)
    return Resource.from_contents(definitions) @ Registry()


@lru_cache(maxsize=256)
def _validator(version: str, kind: str, api_version: str) -> jsonschema.Validator | None:
    schema_dir = f"v{_schema_version(version)}-local-strict"
    group = re.sub(r"^([^./]*)(?:\.[^/]*)?/", r"\1-", api_version)
    try:
        schema = kv.schema_contents(f"kubernetes-json-schema/{schema_dir}/{kind.lower()}-{group}.json", version)
    except FileNotFoundError:
        return None
    registry = Resource.from_contents(schema) @ _registry(schema_dir)
    return jsonschema.validators.Draft202012Validator(schema, registry=registry)


def validate_document(doc: dict[str, Any], version: str, file: str = "") -> list[ManifestError]:
    validator = _validator(version, doc.get("kind", ""), doc.get("apiVersion", ""))
    if validator is None:
        return [
            ManifestError(
                file, version, "", f"no schema for {doc.get('apiVersion')} {doc.get('kind')} in Kubernetes {version}"
            )
        ]
    return [
        ManifestError(file, version, "/".join(str(p) for p in error.absolute_path), error.message)
        for error in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path)))
    ]


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
