"""The sections of a finer component (dra_gpu_platform/config/descriptors.py), validated as the stack they are part
of, with the arguments of the call. Pure: no Pulumi imports.

A finer component is composed on a cluster that exists, so it takes a stack file's sections without `cluster`: what
that section would say of the cluster (its platform, its name for a node pool, its Kubernetes version) and the
stack's region are arguments. StackConfig itself validates them, the one path (same keys, defaults, rules and
messages as a stack file), with a `cluster` block built from those arguments. Every problem comes at once, a
section's at its path (`nodePools[0].maxNodes`), an argument's at the argument's name (`kubernetes_version`), an
argument the component does not take or a required one left out among them.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from dra_gpu_platform.config.descriptors import COMPONENT_PLATFORMS, PART_SECTIONS, FinerComponent
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.config.validation import METADATA, SECRET_KEYS
from dra_gpu_platform.facts import platforms
from dra_gpu_platform.inputs.problems import MISSING, ConfigError, Problem

__all__ = ["COMPONENT_PLATFORMS", "PART_SECTIONS", "Part", "bind", "part_stack"]

# The provider-config keys a stack file names the region under; a finer component's region argument fills them all.
_REGION_KEYS = tuple(p.region.key for p in platforms.PROFILES.values() if p.region is not None)


@dataclass(frozen=True)
class Part:
    """The one item of a list section a component builds: `pool="h100"` names nodePools' item h100."""

    section: str  # nodePools | namespaces
    argument: str  # the argument naming it: pool | namespace
    name: Any


def bind(component: FinerComponent, arguments: Mapping[str, Any]) -> tuple[dict[str, Any], list[Problem]]:
    """Every argument of `component` (the given value, or an optional one's default), and the problems of the call:
    an argument the component does not take, a required one left out."""
    problems = []
    names = [a.name for a in component.arguments]
    for key, value in arguments.items():
        if key not in names:
            close = difflib.get_close_matches(str(key), names, n=1)
            problems.append(
                Problem(
                    None,
                    str(key),
                    value,
                    f"not an argument of {component.name}",
                    (f"did you mean {close[0]}? " if close else "") + f"its arguments are {', '.join(names)}",
                )
            )
    bound = {}
    for argument in component.arguments:
        if argument.name in arguments:
            bound[argument.name] = arguments[argument.name]
        elif argument.required:
            bound[argument.name] = None
            doc = argument.doc[:1].lower() + argument.doc[1:]
            problems.append(
                Problem(None, argument.name, MISSING, "a required argument", f"pass {argument.name}=<value>: {doc}")
            )
        else:
            bound[argument.name] = argument.default
    return bound, problems


def part_stack(
    component: FinerComponent, sections: Mapping[str, Any], arguments: Mapping[str, Any], *, stack: str | None = None
) -> tuple[StackConfig, dict[str, Any]]:
    """The StackConfig of `component`'s `sections` on the cluster its `arguments` describe, and every argument
    (bind). A node pool's cluster name is the cluster block's; the Kubernetes-side components read nothing of it,
    and the block then takes the platform's name (a DNS label the model needs). The item the component builds must
    be there. Raises one ConfigError listing every problem."""
    what = f"the sections of {component.name}"
    if not isinstance(sections, Mapping):
        rule = "the sections are a mapping of stack-file keys (nodePools, deviceClasses, ...) to their values"
        raise ConfigError([Problem(None, "", sections, rule, "pass a dict such as {'nodePools': [...]}")], what)
    bound, problems = bind(component, arguments)
    problems += [p for key in sections if key not in PART_SECTIONS and (p := _not_a_section(key, sections[key]))]
    fills = {a.fills: bound[a.name] for a in component.arguments if a.fills}
    platform = component.platform or fills.get("cluster.platform")
    if platform not in COMPONENT_PLATFORMS:
        if not _reported("platform", problems):
            problems.append(
                Problem(
                    None,
                    "platform",
                    platform,
                    f"must be one of {', '.join(COMPONENT_PLATFORMS)}: the cluster exists (GpuPlatform creates kind "
                    "clusters; one you run yourself is platform existing here)",
                    f"use one of {', '.join(COMPONENT_PLATFORMS)}",
                )
            )
        raise ConfigError(problems, what)
    item = component.item
    if item is not None and component.item_section is not None and bound[item.name] is not None:
        problems.extend(_missing_part(sections, Part(component.item_section, item.name, bound[item.name])))
    cluster: dict[str, Any] = {
        key.removeprefix("cluster."): value for key, value in fills.items() if key.startswith("cluster.")
    }
    cluster["platform"] = platform
    if cluster.get("name") is None:
        cluster["name"] = platform
    # What the cluster rules read of its API access (dra_gpu_platform/config/rules/cluster.py) is settled: the cluster
    # exists and is reached by the caller's provider (an EKS pool's subnets are its own wiring, its subnet_ids).
    existing = platforms.profile(platform).api_access.existing_settings
    if existing:
        cluster[platform] = dict(existing)
    data = {key: value for key, value in sections.items() if key in PART_SECTIONS}
    # The Kubernetes provider a component takes reaches the cluster: what the kubeconfig secret says on `existing`.
    data.update({"cluster": cluster, "region": fills.get("region"), "hasKubeconfig": True, "stack": stack})
    try:
        config = StackConfig.model_validate(data)
    except ConfigError as error:
        paths = _argument_paths(component)
        for problem in error.problems:
            problem = replace(problem, path=paths.get(problem.path, problem.path))
            if not _reported(problem.path, problems):  # a required argument left out is its own problem already
                problems.append(problem)
        raise ConfigError(problems, what) from None
    if problems:
        raise ConfigError(problems, what)
    return config, bound


def _argument_paths(component: FinerComponent) -> dict[str, str]:
    """Where a problem with the cluster block or the region points: the argument that filled it."""
    paths = {a.fills: a.name for a in component.arguments if a.fills}
    if "region" in paths:
        paths.update(dict.fromkeys(_REGION_KEYS, paths["region"]))
    return paths


def _reported(path: str, problems: list[Problem]) -> bool:
    return any(p.path == path for p in problems)


def _not_a_section(key: Any, value: Any) -> Problem | None:
    if key == "cluster":
        return Problem(
            None,
            "cluster",
            value,
            "a finer component is composed on a cluster that exists: what `cluster` would say of it are arguments",
            "remove cluster; pass platform=, kubernetes_version= (and cluster_name= for a node pool) instead",
        )
    if key in SECRET_KEYS or key in METADATA:
        return Problem(
            None,
            str(key),
            value,
            "not a section a finer component takes",
            f"remove {key}; the sections are {', '.join(PART_SECTIONS)} (the region and the Kubernetes provider are "
            "arguments)",
        )
    return None  # an unknown key: StackConfig reports it as a stack file's


def _missing_part(sections: Mapping[str, Any], part: Part) -> list[Problem]:
    items = sections.get(part.section)
    names = [item.get("name") for item in items if isinstance(item, Mapping)] if isinstance(items, list) else []
    if part.name in names:
        return []
    known = ", ".join(str(name) for name in names if isinstance(name, str)) or "(none)"
    return [
        Problem(
            None,
            part.argument,
            part.name,
            f"names no item of the sections' {part.section}",
            f"use one of {known}, or add an item named {part.name!r} to {part.section}",
        )
    ]
