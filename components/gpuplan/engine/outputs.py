"""plan.json and rendered manifests from a recorded program run (the gpuplan contract)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

# Private SDK constants (pulumi 3.272): the wire signature of a secret in recorded inputs. The SDK has no public
# name for the protocol's secret signature; tests/test_private_sdk_apis.py pins their values.
from pulumi.runtime.rpc import _special_secret_sig as SECRET_SIG
from pulumi.runtime.rpc import _special_sig_key as SIG_KEY

from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.inputs.yamlio import dump_yaml
from dra_gpu_platform.plans.capacity import stack_capacity
from gpuplan.engine.runtime import SECRET, ProgramRun, Registration
from gpuplan.output.atomic_out import commit

HELM_RELEASE = Upstream.HELM_RELEASE
# Apply order for `kubectl apply -f manifests/` (files are applied in lexical order).
KIND_ORDER = {
    "Namespace": 0,
    "CustomResourceDefinition": 1,
    "ServiceAccount": 2,
    "ClusterRole": 2,
    "ClusterRoleBinding": 3,
    "ValidatingAdmissionPolicy": 4,
    "ValidatingAdmissionPolicyBinding": 5,
    "DeviceClass": 6,
    "DeviceTaintRule": 7,
    "ResourceQuota": 8,
    "ConfigMap": 8,
    "ResourceClaimTemplate": 9,
}


def clean(value: Any) -> Any:
    """Protobuf turns every number into a float; Kubernetes int64 fields reject 2.0. Secrets are masked."""
    if isinstance(value, dict):
        if SIG_KEY in value:  # Pulumi wraps secrets (and assets) in a signed dict
            if value.get(SIG_KEY) == SECRET_SIG:
                return SECRET
            return {k: clean(v) for k, v in value.items() if k != SIG_KEY}
        return {k: clean(v) for k, v in sorted(value.items())}
    if isinstance(value, list):
        return [clean(v) for v in value]
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def is_kubernetes_object(resource: Registration) -> bool:
    return (
        resource.custom
        and resource.type.startswith("kubernetes:")
        and not resource.type.startswith("kubernetes:helm.sh/")
        and "apiVersion" in resource.inputs
        and "kind" in resource.inputs
    )


def manifest(resource: Registration) -> dict[str, Any]:
    body = clean(resource.inputs)
    ordered: dict[str, Any] = {"apiVersion": body.pop("apiVersion"), "kind": body.pop("kind")}
    if "metadata" in body:
        ordered["metadata"] = body.pop("metadata")
    ordered.update(body)
    return ordered


def plan_document(run: ProgramRun) -> dict[str, Any]:
    document = {
        "stack": run.stack,
        "project": run.project,
        "resources": [
            {
                "urn": r.urn,
                "type": r.type,
                "name": r.name,
                "custom": r.custom,
                "parent": r.parent,
                "provider": r.provider,
                "dependencies": r.dependencies,
                "protect": r.protect,
                "options": r.options,
                "inputs": clean(r.inputs),
            }
            for r in sorted(run.resources, key=lambda r: r.urn)
        ],
        "outputs": clean(run.outputs),
    }
    if run.plan is not None:
        # GPUs and cost per pool (docs/gpuplan/preview.md#capacity-and-cost)
        document["capacity"] = stack_capacity(run.plan).as_json()
    return document


def dumps_plan(run: ProgramRun) -> str:
    return json.dumps(plan_document(run), indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def manifest_filename(doc: dict[str, Any]) -> str:
    meta = doc.get("metadata", {})
    order = KIND_ORDER.get(doc["kind"], 10)
    scope = f"{meta['namespace']}." if meta.get("namespace") else ""
    return f"{order:02d}-{doc['kind'].lower()}-{scope}{meta.get('name', 'unnamed')}.yaml"


def helm_values(run: ProgramRun) -> dict[str, dict[str, Any]]:
    """Release name → the header (chart, version, repo, namespace) and final values of each Helm release."""
    releases = {}
    for r in run.of_type(HELM_RELEASE):
        inputs = clean(r.inputs)
        name = inputs.get("name") or r.name
        releases[name] = {
            "chart": inputs.get("chart"),
            "version": inputs.get("version"),
            "repository": (inputs.get("repositoryOpts") or {}).get("repo"),
            "namespace": inputs.get("namespace"),
            "values": inputs.get("values") or {},
        }
    return releases


# The top-level entries of --out that a preview owns: replaced together, removed when a run no longer makes them.
PREVIEW_ENTRIES = ("plan.json", "manifests", "kind-config.yaml")


def render_outputs(run: ProgramRun, extra_files: dict[str, str] | None = None) -> dict[str, str]:
    """plan.json, manifests/*.yaml, manifests/helm/*.values.yaml and `extra_files`, as path (relative to --out) ->
    text. Nothing is written: gpuplan/output/atomic_out.py swaps them in at once."""
    files = {"plan.json": dumps_plan(run)}
    for resource in run.resources:
        if not is_kubernetes_object(resource):
            continue
        doc = manifest(resource)
        files[f"manifests/{manifest_filename(doc)}"] = dump_yaml(doc)
    for name, release in sorted(helm_values(run).items()):
        header = "".join(
            f"# {key}: {release[key]}\n" for key in ("chart", "version", "repository", "namespace") if release[key]
        )
        files[f"manifests/helm/{name}.values.yaml"] = header + dump_yaml(release["values"], sort_keys=True)
    files.update(extra_files or {})
    return files


def manifest_paths(out: Path, files: dict[str, str]) -> list[Path]:
    """The Kubernetes manifests among rendered files (not the Helm values), as paths under `out`."""
    return sorted(
        out / name for name in files if name.startswith("manifests/") and not name.startswith("manifests/helm/")
    )


def write_outputs(run: ProgramRun, out: Path, extra_files: dict[str, str] | None = None) -> list[Path]:
    """Render and swap in plan.json, manifests/ and the extra files at once (a manifests/ folder holds exactly
    this run's objects: a removed object's file goes with the old folder); returns the manifest paths."""
    files = render_outputs(run, extra_files)
    commit(out, files, owned=PREVIEW_ENTRIES)
    return manifest_paths(out, files)
