"""The GPU toleration made easy: a MutatingAdmissionPolicy (admissionregistration.k8s.io/v1, served from Kubernetes
1.36) and its binding that add the GPU pools' taint toleration to pods that use `spec.resourceClaims`, as the
ExtendedResourceToleration admission plugin does for pods that request extended resources. Pure: no Pulumi imports.

One policy and one binding for the stack; the binding selects the namespaces whose `gpuToleration` is `auto` and that
run DRA claims (dual and dra-only) by their `kubernetes.io/metadata.name` label. `pod.spec.tolerations` is an atomic
list, so the mutation is a JSONPatch (an ApplyConfiguration may not modify atomic lists), appended when the list
exists and created otherwise; the match conditions leave pods alone that use no claims or already tolerate the
taint. failurePolicy Ignore: should the policy ever fail, a pod is created without the toleration (and waits for
one, as without the policy) instead of being refused. Sources: docs/references.md#mutating-admission-policy-v1.
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.dra.admission import IGNORE, MutatingPolicy, PolicyMatch
from dra_gpu_platform.facts.kubernetes import MUTATING_ADMISSION_POLICY_V1_SINCE
from dra_gpu_platform.plans.node_pools import GPU_TAINT

POLICY_NAME = "gpu-toleration"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace
DRA_MODES = ("dual", "dra-only")


def toleration() -> dict[str, str]:
    """The toleration the policy adds (and the one to write by hand below 1.36)."""
    return {"key": GPU_TAINT.key, "operator": "Exists", "effect": GPU_TAINT.effect}


def _literal(toleration_: dict[str, str]) -> str:
    return "{" + ", ".join(f"'{k}': '{v}'" for k, v in toleration_.items()) + "}"


def _tolerates(variable: str) -> str:
    """CEL: `variable` (a toleration) tolerates the GPU taint, as core/v1 ToleratesTaint decides."""
    key, value, effect = GPU_TAINT.key, GPU_TAINT.value, GPU_TAINT.effect
    return (
        f"(!has({variable}.effect) || {variable}.effect == '' || {variable}.effect == '{effect}') && "
        f"(!has({variable}.key) || {variable}.key == '' || {variable}.key == '{key}') && "
        f"((has({variable}.operator) && {variable}.operator == 'Exists') || "
        f"((!has({variable}.operator) || {variable}.operator == 'Equal') && has({variable}.value) && "
        f"{variable}.value == '{value}'))"
    )


MATCH_CONDITIONS = (
    ("uses-resource-claims", "has(object.spec.resourceClaims) && size(object.spec.resourceClaims) > 0"),
    (
        "lacks-gpu-toleration",
        f"!has(object.spec.tolerations) || !object.spec.tolerations.exists(t, {_tolerates('t')})",
    ),
)
PATCH = (
    "has(object.spec.tolerations) ? "
    f"[JSONPatch{{op: 'add', path: '/spec/tolerations/-', value: {_literal(toleration())}}}] : "
    f"[JSONPatch{{op: 'add', path: '/spec/tolerations', value: [{_literal(toleration())}]}}]"
)


@dataclass(frozen=True)
class GpuTolerationPlan:
    """The MutatingAdmissionPolicy and its binding (both named `name`), as GpuTolerationPolicy creates them."""

    name: str
    namespaces: tuple[str, ...]  # sorted; the binding's namespaceSelector
    match_conditions: tuple[tuple[str, str], ...]
    patch: str  # the JSONPatch expression
    failure_policy: str = IGNORE
    reinvocation_policy: str = "Never"

    @property
    def namespace_selector(self) -> dict[str, object]:
        return {"matchExpressions": [{"key": NAMESPACE_NAME_LABEL, "operator": "In", "values": list(self.namespaces)}]}

    def policy(self) -> MutatingPolicy:
        """As the API server runs it (dra_gpu_platform/dra/admission.py)."""
        return MutatingPolicy(
            name=self.name,
            binding=self.name,
            match=PolicyMatch(("pods",), ("CREATE",), self.namespace_selector),
            patches=(self.patch,),
            match_conditions=self.match_conditions,
            failure_policy=self.failure_policy,
        )


def served(minor: int) -> bool:
    return minor >= MUTATING_ADMISSION_POLICY_V1_SINCE


def plan_gpu_toleration(config: StackConfig) -> GpuTolerationPlan | None:
    """The policy the stack asks for (None when no namespace wants it). It is created only where the cluster serves
    it (`served(minor)`: GpuPlatform, and fit at `--kubernetes-version`)."""
    namespaces = tuple(
        sorted(ns.name for ns in config.namespaces if ns.gpu_toleration == "auto" and ns.migration in DRA_MODES)
    )
    if not namespaces:
        return None
    return GpuTolerationPlan(POLICY_NAME, namespaces, MATCH_CONDITIONS, PATCH)
