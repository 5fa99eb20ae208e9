"""A finer component's part of the StackPlan, from its sections and arguments (dra_gpu_platform/config/descriptors.py).
Pure: no Pulumi imports.

`plan_part` validates the sections as the stack they are part of (dra_gpu_platform/config/parts.py), plans that stack
with `plan_stack`, the one derivation, and hands back the part GpuPlatform would give the same component, where the
component's descriptor says it sits: a node pool, the DeviceClasses, a namespace, a GPU software release. The same
sections give the same part, whichever door they come through. The descriptors are served from here to the resources,
which read plans, never config.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.descriptors import (
    AKS_GPU_NODE_POOL,
    DEVICE_CLASSES,
    DRA_DRIVER,
    EKS_GPU_NODE_POOL,
    GPU_OPERATOR,
    TENANT_NAMESPACE,
    FinerComponent,
    Refusal,
)
from dra_gpu_platform.config.parts import part_stack
from dra_gpu_platform.inputs.problems import ConfigError, Problem
from dra_gpu_platform.plans.stack import plan_stack

__all__ = [
    "AKS_GPU_NODE_POOL",
    "DEVICE_CLASSES",
    "DRA_DRIVER",
    "EKS_GPU_NODE_POOL",
    "GPU_OPERATOR",
    "TENANT_NAMESPACE",
    "FinerComponent",
    "PlannedPart",
    "plan_part",
]


@dataclass(frozen=True)
class PlannedPart:
    plan: Any  # the part: an EksNodeGroupPlan, the DeviceClassPlans, a NamespacePlan, a ReleasePlan, ...
    arguments: dict[str, Any]  # every argument of the call, an optional one's default where left out
    waits: bool = False  # the part waits for the component the `waited_for` argument names

    def kept(self, component: FinerComponent) -> dict[str, Any]:
        """The arguments the component's Args keep as they are, by name."""
        return {a.name: self.arguments[a.name] for a in component.arguments if a.kept}


def plan_part(
    component: FinerComponent, sections: Mapping[str, Any], arguments: Mapping[str, Any], *, stack: str | None = None
) -> PlannedPart:
    """`component`'s part of the plan of `sections` on the cluster `arguments` describe. Raises one ConfigError
    listing every problem: the sections', the arguments', and a part the sections do not have or that must wait for
    a component the call does not pass."""
    config, bound = part_stack(component, sections, arguments, stack=stack)
    plan = plan_stack(config)
    where = component.plan_part
    found = _attribute(plan, where.path)
    item = component.item
    if item is not None:  # part_stack made sure the sections have it
        found = next(entry for entry in found if _attribute(entry, where.key) == bound[item.name])
    problems = []
    if found is None and where.absent is not None:
        problems.append(_problem(where.absent, False))
    waits = bool(where.waits_when) and bool(_attribute(plan, where.waits_when))
    waited_for = component.waited_for
    if waits and waited_for is not None and bound[waited_for.name] is None and where.waits_refusal is not None:
        problems.append(_problem(where.waits_refusal, None))
    if problems:
        raise ConfigError(problems, f"the sections of {component.name}")
    return PlannedPart(found, bound, waits)


def _attribute(value: Any, path: tuple[str, ...]) -> Any:
    for name in path:
        value = getattr(value, name)
    return value


def _problem(refusal: Refusal, value: Any) -> Problem:
    return Problem(None, refusal.path, value, refusal.rule, refusal.fix)
