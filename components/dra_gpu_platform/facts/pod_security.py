"""Pod Security Admission: the namespace labels and levels the API server reads, and the levels this platform
uses. Pure data.

Source: kubernetes/pod-security-admission v0.36.0 `api/constants.go:22-45` (levels, label keys, "latest") and
`api/helpers.go:118-137` (a version is "latest" or "v1.<minor>"); docs/references.md#psa-labels and
docs/references.md#psa-checks-per-minor.
"""

from __future__ import annotations

from typing import Literal

LABEL_PREFIX = "pod-security.kubernetes.io/"
ENFORCE = f"{LABEL_PREFIX}enforce"
ENFORCE_VERSION = f"{LABEL_PREFIX}enforce-version"
AUDIT = f"{LABEL_PREFIX}audit"
AUDIT_VERSION = f"{LABEL_PREFIX}audit-version"
WARN = f"{LABEL_PREFIX}warn"
WARN_VERSION = f"{LABEL_PREFIX}warn-version"
LABELS = (ENFORCE, ENFORCE_VERSION, AUDIT, AUDIT_VERSION, WARN, WARN_VERSION)

PRIVILEGED = "privileged"
BASELINE = "baseline"
RESTRICTED = "restricted"
TenantLevel = Literal["restricted", "baseline"]
TENANT_LEVELS: tuple[str, ...] = (RESTRICTED, BASELINE)
LATEST = "latest"

# The baseline check hostProbesAndHostLifecycle (no `host` in probes or lifecycle hooks, so a tenant cannot make
# the kubelet fetch the instance metadata address for it) exists from 1.34 on: an older enforce-version drops it
# (check_hostProbesAndhostLifecycle.go:65-72).
MIN_ENFORCE_MINOR = 34

# The GPU software (the GPU Operator's driver, toolkit, device plugin and validator DaemonSets, the DRA kubelet
# plugin) and kube-prometheus-stack's node-exporter run privileged, on the host network or with host paths: their
# namespaces are the only privileged ones. Audit and warn say the same, so the API server does not warn about
# every pod the charts create (docs/references.md#psa-platform-namespaces).
PRIVILEGED_NAMESPACE_LABELS: dict[str, str] = {ENFORCE: PRIVILEGED, AUDIT: PRIVILEGED, WARN: PRIVILEGED}


def version_label(minor: int) -> str:
    """The enforce-version of a cluster at Kubernetes 1.<minor> (never older than MIN_ENFORCE_MINOR)."""
    return f"v1.{max(minor, MIN_ENFORCE_MINOR)}"


def enforce_minor(value: str) -> int | None:
    """1.<minor> of an enforce-version label ("latest": None, an unreadable value: -1, as the API server then
    falls back to latest with an error)."""
    if value == LATEST:
        return None
    prefix, _, minor = value.partition("v1.")
    if prefix or not minor.isdigit() or (len(minor) > 1 and minor.startswith("0")):
        return -1
    return int(minor)
