"""The sections of a finer component (EksGpuNodePool, AksGpuNodePool, DeviceClasses, TenantNamespace, GpuOperator,
DraDriver), validated as the stack they are part of. Pure: no Pulumi imports.

A finer component is composed on a cluster that exists, so it takes a stack file's sections without `cluster`: what
that section would say of the cluster (its platform, its name for a node pool, its Kubernetes version) and the
stack's region are arguments. StackConfig itself validates them, the one path (same keys, defaults, rules and
messages as a stack file), with a `cluster` block built from those arguments. Every problem comes at once, a
section's at its path (`nodePools[0].maxNodes`), an argument's at the argument's name (`kubernetes_version`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.config.validation import METADATA, SECRET_KEYS, SECTIONS
from dra_gpu_platform.facts import platforms
from dra_gpu_platform.inputs.problems import ConfigError, Problem

# The platforms a finer component composes on: those whose clusters exist apart from this package's GpuPlatform
# (dra_gpu_platform/facts/platforms.py hosts_finer_components).
COMPONENT_PLATFORMS: tuple[str, ...] = tuple(
    name for name, profile in platforms.PROFILES.items() if profile.hosts_finer_components
)

# The stack-file sections a finer component takes: every section but `cluster`, whose content are arguments here.
PART_SECTIONS: tuple[str, ...] = tuple(key for key in SECTIONS if key != "cluster")

# Where a problem with the cluster block or the region points: the argument that filled it.
ARGUMENT_PATHS = {
    "cluster.name": "cluster_name",
    "cluster.kubernetesVersion": "kubernetes_version",
    "region": "region",
    "aws:region": "region",
    "azure-native:location": "region",
}


@dataclass(frozen=True)
class Part:
    """The one item of a list section a component builds: `pool="h100"` names nodePools' item h100."""

    section: str  # nodePools | namespaces
    argument: str  # the argument naming it: pool | namespace
    name: str


def part_stack(
    sections: Mapping[str, Any],
    *,
    platform: str,
    kubernetes_version: Any,
    region: str | None = None,
    cluster_name: str | None = None,
    stack: str | None = None,
    part: Part | None = None,
    what: str = "the sections",
) -> StackConfig:
    """The StackConfig of a finer component's `sections` on a `platform` cluster that exists. `cluster_name`: a node
    pool's cluster (Kubernetes-side components read nothing of it, and the block then takes the platform's name, a DNS
    label the model needs); `part`: the item the component builds, which must be there. Raises one ConfigError
    listing every problem."""
    if not isinstance(sections, Mapping):
        rule = "the sections are a mapping of stack-file keys (nodePools, deviceClasses, ...) to their values"
        raise ConfigError([Problem(None, "", sections, rule, "pass a dict such as {'nodePools': [...]}")], what)
    problems = [p for key in sections if key not in PART_SECTIONS and (p := _not_a_section(key, sections[key]))]
    if platform not in COMPONENT_PLATFORMS:
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
    if part is not None:
        problems.extend(_missing_part(sections, part))
    cluster: dict[str, Any] = {
        "platform": platform,
        "name": cluster_name if cluster_name is not None else platform,
        "kubernetesVersion": kubernetes_version,
    }
    # What the cluster rules read of its API access (dra_gpu_platform/config/rules/cluster.py) is settled: the cluster
    # exists and is reached by the caller's provider (an EKS pool's subnets are its own wiring, its subnet_ids).
    existing = platforms.profile(platform).api_access.existing_settings
    if existing:
        cluster[platform] = dict(existing)
    data = {key: value for key, value in sections.items() if key in PART_SECTIONS}
    # The Kubernetes provider a component takes reaches the cluster: what the kubeconfig secret says on `existing`.
    data.update({"cluster": cluster, "region": region, "hasKubeconfig": True, "stack": stack})
    try:
        config = StackConfig.model_validate(data)
    except ConfigError as error:
        problems.extend(
            replace(problem, path=ARGUMENT_PATHS.get(problem.path, problem.path)) for problem in error.problems
        )
        raise ConfigError(problems, what) from None
    if problems:
        raise ConfigError(problems, what)
    return config


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
