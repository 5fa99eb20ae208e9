"""Custom resources checked against the openAPIV3Schema of their CustomResourceDefinition, when the same render
carries that CRD (charts install their CRDs with --include-crds): types and enums with jsonschema, and unknown
fields as errors, as `kubectl apply --validate=strict` (server-side field validation Strict) reports them."""

from __future__ import annotations

from typing import Any

import jsonschema

from gpuplan.checks.kube_validate import ManifestError


def crd_schemas(documents: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """(apiVersion, kind) → the served version's schema, for every CRD among the documents."""
    schemas: dict[tuple[str, str], dict[str, Any]] = {}
    for doc in documents:
        if doc.get("kind") != "CustomResourceDefinition":
            continue
        spec = doc.get("spec") or {}
        group, kind = spec.get("group", ""), (spec.get("names") or {}).get("kind", "")
        for version in spec.get("versions") or []:
            schema = (version.get("schema") or {}).get("openAPIV3Schema")
            if version.get("served", True) and schema:
                schemas[(f"{group}/{version['name']}", kind)] = schema
    return schemas


def cluster_scoped_kinds(documents: list[dict[str, Any]]) -> set[tuple[str, str]]:
    """(group, kind) of the CRDs among the documents whose scope is Cluster."""
    return {
        ((doc.get("spec") or {}).get("group", ""), ((doc.get("spec") or {}).get("names") or {}).get("kind", ""))
        for doc in documents
        if doc.get("kind") == "CustomResourceDefinition" and (doc.get("spec") or {}).get("scope") == "Cluster"
    }


def _json_schema(node: Any) -> Any:
    """OpenAPI v3 (Kubernetes' structural subset) → JSON Schema: int-or-string, nullable, x-kubernetes-* hints."""
    if isinstance(node, list):
        return [_json_schema(n) for n in node]
    if not isinstance(node, dict):
        return node
    out = {k: _json_schema(v) for k, v in node.items() if not k.startswith("x-kubernetes-") and k != "nullable"}
    if node.get("x-kubernetes-int-or-string"):
        out.pop("type", None)
        out["anyOf"] = [{"type": "integer"}, {"type": "string"}]
    if node.get("nullable") and "type" in out:
        out["type"] = [out["type"], "null"]
    return out


def _as_stored(value: Any, schema: dict[str, Any]) -> Any:
    """What the API server validates: nulls of non-nullable fields pruned and schema defaults filled in, for
    objects that are present (Kubernetes docs, "Defaulting and Nullable" of CustomResourceDefinitions)."""
    if isinstance(value, dict):
        properties = schema.get("properties") or {}
        additional = schema.get("additionalProperties")
        out = {}
        for key, child in value.items():
            child_schema = properties.get(key) or (additional if isinstance(additional, dict) else {})
            if child is None and not child_schema.get("nullable"):
                continue
            out[key] = _as_stored(child, child_schema)
        for key, child_schema in properties.items():
            if key not in out and "default" in child_schema:
                out[key] = _as_stored(child_schema["default"], child_schema)
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [_as_stored(item, schema["items"]) for item in value]
    return value


def _unknown_fields(value: Any, schema: dict[str, Any], path: list[str]) -> list[tuple[str, str]]:
    if schema.get("x-kubernetes-preserve-unknown-fields") or schema.get("x-kubernetes-embedded-resource"):
        return []
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        properties = schema.get("properties")
        additional = schema.get("additionalProperties")
        for key, child in value.items():
            if properties is not None and key in properties:
                found += _unknown_fields(child, properties[key], [*path, key])
            elif isinstance(additional, dict):
                found += _unknown_fields(child, additional, [*path, key])
            elif properties is not None and path[:1] != ["metadata"]:
                found.append(("/".join([*path, key]), f"unknown field {key!r}"))
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        for index, item in enumerate(value):
            found += _unknown_fields(item, schema["items"], [*path, str(index)])
    return found


def validate_custom_resource(doc: dict[str, Any], schema: dict[str, Any], file: str) -> list[ManifestError]:
    body = {k: v for k, v in doc.items() if k not in ("apiVersion", "kind", "metadata")}
    top = {k: v for k, v in (schema.get("properties") or {}).items() if k not in ("apiVersion", "kind", "metadata")}
    body_schema = {**schema, "properties": top}
    body = _as_stored(body, body_schema)
    errors = [
        ManifestError(file, "CRD", "/".join(map(str, e.absolute_path)), e.message)
        for e in jsonschema.Draft7Validator(_json_schema(body_schema)).iter_errors(body)
    ]
    errors += [ManifestError(file, "CRD", where, message) for where, message in _unknown_fields(body, body_schema, [])]
    return errors
