"""Helm release rules: an exact chart version from an allowed repository (helm-release-pinned), Grafana confined to
its namespace (monitoring-secrets-namespaced), images by digest where the digest is known (helm-images-by-digest)."""

from __future__ import annotations

import re

from pulumi_policy import PolicyConfigSchema, ResourceValidationArgs, Severity

from dra_gpu_platform.facts import autoscaler, driver_charts, efa, image_digests, karpenter, versions
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import objects

# Repositories of the charts this platform installs (docs/references.md#helm-chart-repositories; the EKS
# cluster-autoscaler, Karpenter and EFA device plugin too), plus the NVIDIA device plugin and kube-prometheus-stack repositories.
DEFAULT_REPOSITORIES = sorted(
    {
        versions.GPU_OPERATOR_REPO,
        driver_charts.NGC_REPO,
        driver_charts.DRA_DRIVER_OCI_REPO,
        driver_charts.EXAMPLE_DRIVER_OCI_REPO,
        autoscaler.REPOSITORY,
        karpenter.CHART_REPOSITORY,
        efa.REPOSITORY,
        "https://nvidia.github.io/k8s-device-plugin",
        "https://prometheus-community.github.io/helm-charts",
    }
)
# An exact SemVer/CalVer release, optionally v-prefixed: no ranges (^ ~ * x > <), no "latest".
_EXACT_VERSION = re.compile(r"^v?\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$")

HELM_SCHEMA = PolicyConfigSchema(
    properties={
        "allowedRepositories": {
            "type": "array",
            "items": {"type": "string", "pattern": "^(https://|oci://)"},
            "default": DEFAULT_REPOSITORIES,
            "description": "Chart repositories (https:// or oci://) releases may install from.",
        },
        "allowLocalCharts": {
            "type": "boolean",
            "default": False,
            "description": "Accept charts from a local path (versioned with the repository itself).",
        },
    }
)


def _normalize(repository: str) -> str:
    return repository.rstrip("/")


def _validate_pinned(args: ResourceValidationArgs, report_violation) -> None:
    release = objects.helm_release(args.resource_type, args.urn, args.name, args.props)
    if release is None:
        return
    label = f"Helm release {release.name} (chart {release.chart_ref or '?'})"
    local = release.chart_ref.startswith((".", "/")) and release.repository is None
    if local:
        if not c.setting(args, HELM_SCHEMA, "allowLocalCharts"):
            report_violation(f"{label} installs a chart from a local path; nothing pins what gets deployed.")
        return
    if release.version is None:
        report_violation(f"{label} sets no chart version, so every deploy may install a newer chart.")
    elif not _EXACT_VERSION.match(release.version):
        report_violation(f"{label} version {release.version!r} is not an exact release (a range or tag floats).")
    allowed = [_normalize(str(r)) for r in c.setting(args, HELM_SCHEMA, "allowedRepositories")]
    if release.repository is None:
        report_violation(
            f"{label} names no repository (a local `helm repo add` alias resolves differently on every machine); "
            f"set repositoryOpts.repo to one of {', '.join(allowed)}."
        )
    elif _normalize(release.repository) not in allowed:
        report_violation(
            f"{label} comes from {release.repository}, which is not an allowed repository ({', '.join(allowed)})."
        )


HELM_RELEASE_PINNED = c.resource_policy(
    "helm-release-pinned",
    description="Every Helm release pins an exact chart version from an allowed repository.",
    validate=_validate_pinned,
    config_schema=HELM_SCHEMA,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Set `version` to an exact chart release and `repository_opts=RepositoryOptsArgs(repo=...)` to an allowed "
        "repository (or an oci:// chart URL). In dra-gpu-platform versions come from `gpuOperator.version` and "
        "`draDriver.version`. To allow another repository, add it to `allowedRepositories` in the policy config."
    ),
    tags=["supply-chain"],
)

# ---------------------------------------------------------------------------------------------------
# monitoring-secrets-namespaced

# kube-prometheus-stack sets grafana.sidecar.dashboards.searchNamespace: ALL (docs/references.md#grafana-namespaced);
# the grafana chart's own default is its namespace.
_KPS = "kube-prometheus-stack"
_GRAFANA_CHARTS = {_KPS: ("grafana",), "grafana": ()}


def _validate_monitoring_secrets(args: ResourceValidationArgs, report_violation) -> None:
    release = objects.helm_release(args.resource_type, args.urn, args.name, args.props)
    if release is None or release.chart not in _GRAFANA_CHARTS:
        return
    prefix = _GRAFANA_CHARTS[release.chart]
    if release.chart == _KPS and release.value("grafana", "enabled", default=True) is False:
        return
    problems = []
    if release.value(*prefix, "rbac", "namespaced", default=False) is not True:
        problems.append("rbac.namespaced is not true (a ClusterRole reads every Secret and ConfigMap)")
    for sidecar in ("dashboards", "datasources"):
        default = "ALL" if release.chart == _KPS and sidecar == "dashboards" else None
        search = release.value(*prefix, "sidecar", sidecar, "searchNamespace", default=default)
        names = c.as_list(search) if c.is_list(search) else [search] if search else []
        if any(str(n).upper() == "ALL" for n in names):
            problems.append(f"sidecar.{sidecar}.searchNamespace is ALL")
    if problems:
        report_violation(
            f"Helm release {release.name} ({release.chart}): Grafana's {'; '.join(problems)}: Grafana can read the "
            "Secrets of every tenant namespace."
        )


MONITORING_SECRETS_NAMESPACED = c.resource_policy(
    "monitoring-secrets-namespaced",
    description="Grafana (kube-prometheus-stack or its own chart) reads ConfigMaps of its own namespace only: "
    "rbac.namespaced true and no sidecar searching ALL namespaces.",
    validate=_validate_monitoring_secrets,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Set grafana.rbac.namespaced: true and grafana.sidecar.{dashboards,datasources}.searchNamespace to the "
        "monitoring namespace (resource: configmap); dra-gpu-platform does with monitoring.install."
    ),
    tags=["security", "monitoring"],
)

# ---------------------------------------------------------------------------------------------------
# helm-images-by-digest


def _pinned(value: object) -> bool:
    text = str(value or "")
    return text.startswith("sha256:") or "@sha256:" in text


def _validate_digests(args: ResourceValidationArgs, report_violation) -> None:
    release = objects.helm_release(args.resource_type, args.urn, args.name, args.props)
    if release is None:
        return
    unpinned = [
        f"{'.'.join(image.value_path)} ({image.image}:{image.tag})"
        for image in image_digests.pinned_images(release.chart, release.version)
        if not _pinned(release.value(*image.value_path))
    ]
    if unpinned:
        report_violation(
            f"Helm release {release.name} ({release.chart} {release.version}) runs {c.short(unpinned)} by tag: a tag "
            "can be moved to other content; the digest of each is known (dra_gpu_platform/facts/image_digests.py)."
        )


HELM_IMAGES_BY_DIGEST = c.resource_policy(
    "helm-images-by-digest",
    description="Images whose digest at the pinned chart version is published (GPU Operator operands) are pinned by "
    "digest in the release's values.",
    validate=_validate_digests,
    severity=Severity.MEDIUM,
    remediation_steps=(
        "Set the chart value to the digest (GPU Operator ClusterPolicy `version: sha256:<hex>`); dra-gpu-platform "
        "does for every image dra_gpu_platform/facts/image_digests.py lists."
    ),
    tags=["security", "supply-chain"],
)
