"""build/<stack>/rendered/: each release's objects one file each (<release>/*.yaml, Helm hooks apart under
<release>/hooks/), the stack's own manifests (stack/*.yaml) and a kustomization.yaml listing everything the stack
deploys, for a GitOps tool to apply as it is (`kubectl apply -k`, Argo CD or Flux with kustomize)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from dra_gpu_platform.inputs.yamlio import dump_yaml
from gpuplan.engine.outputs import manifest_filename
from gpuplan.output.atomic_out import commit

HOOK_ANNOTATION = "helm.sh/hook"
# Built-in kinds without a namespace (kubectl api-resources --namespaced=false, Kubernetes 1.35); a namespaced
# object a chart leaves without metadata.namespace gets its release's, as `helm install --namespace` does.
CLUSTER_SCOPED_BUILTINS = frozenset(
    {
        "Namespace",
        "Node",
        "PersistentVolume",
        "CustomResourceDefinition",
        "APIService",
        "ClusterRole",
        "ClusterRoleBinding",
        "PriorityClass",
        "StorageClass",
        "CSIDriver",
        "CSINode",
        "VolumeAttachment",
        "RuntimeClass",
        "IngressClass",
        "MutatingWebhookConfiguration",
        "ValidatingWebhookConfiguration",
        "ValidatingAdmissionPolicy",
        "ValidatingAdmissionPolicyBinding",
        "MutatingAdmissionPolicy",
        "MutatingAdmissionPolicyBinding",
        "DeviceClass",
        "DeviceTaintRule",
        "ResourceSlice",
        "CertificateSigningRequest",
        "FlowSchema",
        "PriorityLevelConfiguration",
        "ComponentStatus",
        "SelfSubjectReview",
        "TokenReview",
        "SubjectAccessReview",
        "SelfSubjectAccessReview",
        "SelfSubjectRulesReview",
    }
)


def is_hook(doc: dict[str, Any]) -> bool:
    return HOOK_ANNOTATION in ((doc.get("metadata") or {}).get("annotations") or {})


def with_namespace(doc: dict[str, Any], namespace: str, cluster_scoped_crs: set[tuple[str, str]]) -> dict[str, Any]:
    kind = doc.get("kind", "")
    group = doc.get("apiVersion", "").rpartition("/")[0]
    metadata = doc.get("metadata") or {}
    if kind in CLUSTER_SCOPED_BUILTINS or (group, kind) in cluster_scoped_crs or metadata.get("namespace"):
        return doc
    return {**doc, "metadata": {**metadata, "namespace": namespace}}


def write_rendered(
    root: Path,
    releases: dict[str, list[dict[str, Any]]],
    stack_manifests: list[Path],
    cluster_scoped_crs: set[tuple[str, str]],
    namespaces: dict[str, str],
) -> tuple[list[Path], list[Path]]:
    """Write everything under root, swapped in whole (gpuplan/output/atomic_out.py: a GitOps tool never sees a
    folder of two renders); returns (files in the kustomization, hook files left out of it)."""
    files: dict[str, str] = {}
    listed: list[str] = []
    hooks: list[str] = []
    for manifest in stack_manifests:
        relative = f"stack/{manifest.name}"
        files[relative] = manifest.read_text(encoding="utf-8")
        listed.append(relative)
    for release, documents in sorted(releases.items()):
        for doc in documents:
            doc = with_namespace(doc, namespaces[release], cluster_scoped_crs)
            hook = is_hook(doc)
            folder = f"{release}/hooks" if hook else release
            relative = _unique(f"{folder}/{manifest_filename(doc)}", files)
            files[relative] = dump_yaml(doc)
            (hooks if hook else listed).append(relative)
    kustomization = {
        "apiVersion": "kustomize.config.k8s.io/v1beta1",
        "kind": "Kustomization",
        "resources": sorted(listed),
    }
    files["kustomization.yaml"] = (
        "# Everything this stack deploys, rendered by `gpuplan render` (Helm hooks are under <release>/hooks/, not listed:\n"
        "# a GitOps tool that runs Helm hooks should render the charts itself; see docs/gpuplan/render.md).\n"
        + dump_yaml(kustomization)
    )
    commit(root.parent, {f"{root.name}/{relative}": text for relative, text in files.items()}, owned=(root.name,))
    return [root / p for p in listed], [root / p for p in hooks]


def _unique(relative: str, taken: dict[str, str]) -> str:
    """Two objects of one kind and name (different API groups) must not overwrite each other."""
    path = Path(relative)
    candidate, index = relative, 2
    while candidate in taken:
        candidate = str(path.with_name(f"{path.stem}-{index}{path.suffix}"))
        index += 1
    return candidate
