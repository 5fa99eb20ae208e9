"""Pod Security admission of a pod at create, as the API server of a Kubernetes minor runs it: the namespace's labels
give the enforce, audit and warn level and version (`api.PolicyToEvaluate`); the checks of that level at that version
(`policy/registry.go`: baseline checks, or restricted checks with the baseline checks they do not override, in the
order of their IDs, baseline first) each allow the pod or say why not; a denial reads `violates PodSecurity
"<level>:<version>": <reason> (<detail>), ...` and a warn-mode failure is a warning `would violate PodSecurity ...`.
Pod controllers (Deployment, Job, ...) are only warned about: enforce applies to the pods they create.

Every check (dra_gpu_platform/dra/pod_security_checks.py) keeps its upstream ID, reason and detail, and says per field
what to change (`fixes`), with the path of the pod's spec in the object the user wrote (`spec` of a Pod,
`spec.template.spec` of a Deployment).

The API server of minor 1.<m> runs k8s.io/pod-security-admission v0.<m>: its checks, with versions above its own
evaluated as its own (`EvaluatePod` clamps to the newest check version it knows). Differences between the servers
modelled here: from 1.35 user-namespace pods (`hostUsers: false`) are exempt from runAsNonRoot, runAsUser and the
baseline procMount check at versions >= v1.35, and restricted keeps the unconditional procMount check
(procMount_restricted); 1.34 grants that exemption only with the alpha UserNamespacesPodSecurityStandards gate (off by
default, taken as off); 1.37 allows two more sysctls. Exemptions of the API server's AdmissionConfiguration
(usernames, runtime classes, namespaces) are not modelled: EKS and AKS set none. Pure: no Pulumi imports.

Sources (docs/references.md#psa-checks-per-minor, docs/references.md#psa-admission): kubernetes/pod-security-admission
v0.34.9, v0.35.6, v0.36.2, v0.37.0-alpha.2 `policy/check_*.go`, `policy/registry.go`, `policy/checks.go`
(`ForbiddenDetail`), `api/helpers.go` (`PolicyToEvaluate`, `ParseVersion`), `admission/admission.go` (`EvaluatePod`);
kubernetes `plugin/pkg/admission/security/podsecurity/admission.go` (`InspectFeatureGates`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra.pod_security_checks import Check, PodView, Versioned, Violation, registry
from dra_gpu_platform.facts import pod_security as labels

PRIVILEGED, BASELINE, RESTRICTED = labels.PRIVILEGED, labels.BASELINE, labels.RESTRICTED
_LEVELS = (PRIVILEGED, BASELINE, RESTRICTED)
_VERSION = re.compile(r"^v1\.([0-9]|[1-9][0-9]*)$")
Pod = Mapping[str, Any]


@dataclass(frozen=True)
class LevelVersion:
    level: str
    version: int | None = None  # the minor of v1.<minor>; None: latest

    def __str__(self) -> str:
        return f"{self.level}:{'latest' if self.version is None else f'v1.{self.version}'}"


@dataclass(frozen=True)
class NamespacePolicy:
    enforce: LevelVersion
    audit: LevelVersion
    warn: LevelVersion
    errors: tuple[str, ...] = ()  # labels the API server could not parse (it logs them and uses the fallback)


# The API server's own default (PodSecurityConfiguration defaults: privileged:latest for all modes); EKS and AKS
# keep it, kind's kubeadm too.
DEFAULT_POLICY = NamespacePolicy(LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED), LevelVersion(PRIVILEGED))


def _level(value: str) -> tuple[str, str | None]:
    if value in _LEVELS:
        return value, None
    return RESTRICTED, f"must be one of {', '.join(_LEVELS)}"


def _version(value: str) -> tuple[int | None, str | None]:
    if value == labels.LATEST:
        return None, None
    match = _VERSION.match(value)
    if match is None:
        return None, 'must be "latest" or "v1.x"'
    return int(match.group(1)), None


def namespace_policy(
    namespace_labels: Mapping[str, str] | None, default: NamespacePolicy = DEFAULT_POLICY
) -> NamespacePolicy:
    """api.PolicyToEvaluate: each label that is set replaces the default; a bad level is restricted for enforce and
    privileged for audit and warn; a bad version is latest; warn follows an explicit, stricter enforce level."""
    found = dict(namespace_labels or {})
    errors: list[str] = []

    def mode(level_key: str, version_key: str, current: LevelVersion, bad_level: str) -> LevelVersion:
        level, version = current.level, current.version
        for key, parse in ((level_key, _level), (version_key, _version)):
            if key not in found:
                continue
            value, error = parse(found[key])
            if error:
                errors.append(f"metadata.labels[{key}]: Invalid value: {json.dumps(found[key])}: {error}")
            if key == level_key:
                level = bad_level if error else str(value)
            else:
                version = value if isinstance(value, int) else None
        return LevelVersion(level, version)

    enforce = mode(labels.ENFORCE, labels.ENFORCE_VERSION, default.enforce, RESTRICTED)
    audit = mode(labels.AUDIT, labels.AUDIT_VERSION, default.audit, PRIVILEGED)  # audit and warn fail open
    warn = mode(labels.WARN, labels.WARN_VERSION, default.warn, PRIVILEGED)
    explicit_enforce = labels.ENFORCE in found and _level(found[labels.ENFORCE])[1] is None
    stricter = _LEVELS.index(enforce.level) > _LEVELS.index(warn.level)
    if labels.WARN not in found and explicit_enforce and stricter:
        warn = LevelVersion(enforce.level, warn.version if labels.WARN_VERSION in found else enforce.version)
    return NamespacePolicy(enforce, audit, warn, tuple(errors))


def check_ids(level: str, version: int, server: int) -> list[str]:
    """The checks a level runs at v1.<version> on the API server of 1.<server>, in the order they report."""
    return [check.id for check, _ in _selected(LevelVersion(level, version), server)]


def _selected(level_version: LevelVersion, server: int, gate: bool = False) -> list[tuple[Check, Versioned]]:
    if level_version.level == PRIVILEGED:
        return []
    version = server if level_version.version is None else min(level_version.version, server)
    checks = registry(server, gate)
    baseline = sorted((c for c in checks if c.level == BASELINE), key=lambda c: c.id)
    restricted = sorted((c for c in checks if c.level == RESTRICTED), key=lambda c: c.id)
    chosen = [
        (c, v) for c in (*baseline, *(restricted if level_version.level == RESTRICTED else ())) if (v := c.at(version))
    ]
    overridden = {o for c, v in chosen if c.level == RESTRICTED for o in v.overrides}
    return [(c, v) for c, v in chosen if c.id not in overridden]


def evaluate(
    level_version: LevelVersion,
    pod: Pod,
    server: int,
    *,
    spec_path: str = "spec",
    user_namespace_gate: bool = False,
) -> list[Violation]:
    """The failed checks of `pod` (metadata and spec) at a level and version, on the API server of 1.<server>.
    `spec_path`: where the pod spec sits in the object the user wrote (the fixes name it)."""
    metadata, spec = pod.get("metadata"), pod.get("spec")
    view = PodView(
        metadata if isinstance(metadata, Mapping) else {}, spec if isinstance(spec, Mapping) else {}, spec_path
    )
    return [
        violation
        for _, versioned in _selected(level_version, server, user_namespace_gate)
        if (violation := versioned.run(view)) is not None
    ]


def forbidden_detail(violations: Sequence[Violation]) -> str:
    """AggregateCheckResult.ForbiddenDetail: `reason (detail), reason (detail)`."""
    return ", ".join(f"{v.reason} ({v.detail})" if v.detail else v.reason for v in violations)


@dataclass(frozen=True)
class Decision:
    """Pod Security's answer for one object: the namespace's enforce level, what enforce refuses (for a pod), and the
    warnings of warn mode (none when the object is refused)."""

    enforce: LevelVersion
    violations: tuple[Violation, ...] = ()
    denied: str | None = None  # `violates PodSecurity "<level>:<version>": ...`
    warnings: tuple[str, ...] = ()
    evaluated: bool = False  # False: every mode is privileged, nothing was checked
    label_errors: tuple[str, ...] = ()  # namespace labels the API server could not parse
    meets_baseline: bool | None = None  # a pod restricted refuses: whether baseline at that version admits it

    def as_json(self) -> dict[str, Any]:
        return {
            "enforce": str(self.enforce),
            "allowed": self.denied is None,
            "violations": [v.as_json() for v in self.violations],
            "warnings": list(self.warnings),
            "meetsBaseline": self.meets_baseline,
        }


def admit(
    namespace_labels: Mapping[str, str] | None,
    pod: Pod,
    server: int,
    *,
    controller: bool = False,
    spec_path: str = "spec",
    user_namespace_gate: bool = False,
) -> Decision:
    """EvaluatePod: a pod (`controller` False) is refused when enforce finds violations; a pod controller's template
    (`controller` True) is never refused; warn mode's violations are warnings of an object that is not refused."""
    policy = namespace_policy(namespace_labels)
    if not policy.errors and all(lv.level == PRIVILEGED for lv in (policy.enforce, policy.audit, policy.warn)):
        return Decision(policy.enforce)
    if controller and not policy.errors and policy.warn.level == PRIVILEGED and policy.audit.level == PRIVILEGED:
        return Decision(policy.enforce)

    def run(level_version: LevelVersion) -> list[Violation]:
        return evaluate(level_version, pod, server, spec_path=spec_path, user_namespace_gate=user_namespace_gate)

    violations: list[Violation] = [] if controller else run(policy.enforce)
    denied = f'violates PodSecurity "{policy.enforce}": {forbidden_detail(violations)}' if violations else None
    baseline = None
    if violations and policy.enforce.level == RESTRICTED:
        baseline = not run(LevelVersion(BASELINE, policy.enforce.version))
    warnings: tuple[str, ...] = ()
    if denied is None:
        warned = violations if (not controller and policy.warn == policy.enforce) else run(policy.warn)
        if warned:
            warnings = (f'would violate PodSecurity "{policy.warn}": {forbidden_detail(warned)}',)
    return Decision(policy.enforce, tuple(violations), denied, warnings, True, policy.errors, baseline)
