"""The run behind `gpuplan preview` (and every command that previews first): the program offline, plan.json and
manifests rendered, each manifest validated with kubernetes-validate --strict for the stack's Kubernetes versions.
Rendering and validation happen in memory; the command prints, then swaps the files into --out at once."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from dra_gpu_platform.facts import provisioners
from dra_gpu_platform.plans.kind import KindClusterPlan
from dra_gpu_platform.plans.monitoring.alerts import PROMETHEUS_RULE_API, prometheus_rule_errors
from gpuplan.checks.kube_validate import ManifestError, supported_versions, validate_for_versions, versions_for
from gpuplan.engine.outputs import PREVIEW_ENTRIES, manifest_paths, render_outputs
from gpuplan.engine.runtime import ProgramRun
from gpuplan.engine.sources import StackSource
from gpuplan.engine.user_program import KUBERNETES_UNKNOWN_NOTE
from gpuplan.output.atomic_out import commit

# libyaml's parser when present: the pure-Python one was the largest cost of a 2,000-object preview.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass
class Preview:
    run: ProgramRun
    files: dict[str, str]  # path relative to --out -> text
    manifests: list[Path]  # the manifest paths under --out
    checked: tuple[str, ...]  # Kubernetes versions validated against
    errors: list[ManifestError]


def render_preview(source: StackSource, out: Path) -> Preview:
    """Run the program, render every output and validate each manifest as it will be written."""
    run = source.run()
    extra = {}
    if run.plan is not None and isinstance(run.plan.cluster, KindClusterPlan):
        extra["kind-config.yaml"] = run.plan.cluster.config_yaml
    files = render_outputs(run, extra)
    manifests = manifest_paths(out, files)
    errors: list[ManifestError] = []
    if run.plan is not None:
        checked = versions_for(run.plan.kubernetes_version, run.plan.platform)
    else:  # a user's program without a GpuPlatform: the Kubernetes versions the package supports
        checked = supported_versions()
        run.logs.append(("info", KUBERNETES_UNKNOWN_NOTE.format(versions=", ".join(checked))))
    provisioned = 0
    for path in manifests:
        # The text as it will be written, read back: what `kubectl apply -f` will see.
        doc = yaml.load(files[path.relative_to(out).as_posix()], Loader=_LOADER)
        if doc.get("apiVersion") in provisioners.CUSTOM_RESOURCE_APIS:
            provisioned += 1  # a provisioner's custom resource: no Kubernetes schema holds it
            continue
        if doc.get("apiVersion") == PROMETHEUS_RULE_API:
            # A Prometheus Operator CRD: not in Kubernetes' schemas, checked against the rule format instead.
            errors.extend(
                ManifestError(str(path), "CRD", where, message) for where, message in prometheus_rule_errors(doc)
            )
            continue
        errors.extend(validate_for_versions(doc, checked, str(path)))
    if provisioned:
        run.logs.append(("info", PROVISIONER_CRS_NOTE.format(count=provisioned)))
    return Preview(run, files, manifests, checked, errors)


PROVISIONER_CRS_NOTE = (
    "{count} NodePool / node class manifest(s) are custom resources of the provisioner: `gpuplan render` validates "
    "them against the CRDs of the pinned Karpenter chart (docs/gpuplan/render.md), not this preview"
)


def write_preview(preview: Preview, out: Path) -> None:
    commit(out, preview.files, owned=PREVIEW_ENTRIES)


def preview_stack(source: StackSource, out: Path) -> Preview:
    """Render, validate and write (for callers that need the files on disk: gpuplan render)."""
    preview = render_preview(source, out)
    write_preview(preview, out)
    return preview
