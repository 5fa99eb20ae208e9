"""CEL of the ValidatingAdmissionPolicy that keeps `nvidia.com/gpu` out of dra-only namespaces. Pure.

Kept apart from the resource code so tests evaluate the very same expressions against pod fixtures with a
real CEL engine (components/dra/cel.py). Scope is set by the binding's namespaceSelector (gpu-mode=dra-only).
"""

from __future__ import annotations

from dataclasses import dataclass

from dra_gpu_platform.plans.migration import GPU_MODE_LABEL

POLICY_NAME = "gpu-dra-only"
LEGACY_RESOURCE = "nvidia.com/gpu"

# Request-level exclusion: node-critical system pods are never blocked by this guard.
MATCH_CONDITIONS = {
    "not-system-node-critical": "!has(object.spec.priorityClassName) || object.spec.priorityClassName != 'system-node-critical'",
}

VARIABLES = {
    "allContainers": "object.spec.containers + (has(object.spec.initContainers) ? object.spec.initContainers : [])",
    "legacyGpuContainers": (
        "variables.allContainers.filter(c, has(c.resources) && ("
        f"(has(c.resources.limits) && '{LEGACY_RESOURCE}' in c.resources.limits) || "
        f"(has(c.resources.requests) && '{LEGACY_RESOURCE}' in c.resources.requests)"
        ")).map(c, c.name)"
    ),
}

VALIDATION = "size(variables.legacyGpuContainers) == 0"
MESSAGE_EXPRESSION = (
    "'namespace ' + namespaceObject.metadata.name + ' is gpu-mode=dra-only: container(s) ' + "
    f"variables.legacyGpuContainers.join(', ') + ' request {LEGACY_RESOURCE}; request GPUs through "
    "spec.resourceClaims (a ResourceClaimTemplate) instead'"
)


@dataclass(frozen=True)
class AdmissionPolicyPlan:
    """A ValidatingAdmissionPolicy and its binding, as DraOnlyGuard creates them."""

    name: str
    match_conditions: tuple[tuple[str, str], ...]  # (name, CEL)
    variables: tuple[tuple[str, str], ...]  # (name, CEL)
    validation: str
    message_expression: str
    namespace_labels: dict[str, str]  # the binding's namespaceSelector.matchLabels


DRA_ONLY_POLICY = AdmissionPolicyPlan(
    name=POLICY_NAME,
    match_conditions=tuple(MATCH_CONDITIONS.items()),
    variables=tuple(VARIABLES.items()),
    validation=VALIDATION,
    message_expression=MESSAGE_EXPRESSION,
    namespace_labels={GPU_MODE_LABEL: "dra-only"},
)
