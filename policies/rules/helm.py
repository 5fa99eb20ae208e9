"""helm-release-pinned: every Helm release installs an exact chart version from an allowed repository."""

from __future__ import annotations

import re

from pulumi_policy import PolicyConfigSchema, ResourceValidationArgs, Severity

from dra_gpu_platform.facts import autoscaler, driver_charts, efa, versions
from dra_gpu_platform.policies import stack_resources as recorded
from dra_gpu_platform.policies.rules import common as c

# Repositories of the charts this platform installs (docs/references.md#helm-chart-repositories; the EKS
# cluster-autoscaler and EFA device plugin too), plus the NVIDIA device plugin and kube-prometheus-stack repositories.
DEFAULT_REPOSITORIES = sorted(
    {
        versions.GPU_OPERATOR_REPO,
        driver_charts.NGC_REPO,
        driver_charts.DRA_DRIVER_OCI_REPO,
        driver_charts.EXAMPLE_DRIVER_OCI_REPO,
        autoscaler.REPOSITORY,
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
    release = recorded.helm_release(args.resource_type, args.urn, args.name, args.props)
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
