"""The sections of a finer component (EksGpuNodePool, AksGpuNodePool, DeviceClasses, TenantNamespace, GpuOperator,
DraDriver), validated as the stack they are part of. Pure: no Pulumi imports.

A finer component is composed on a cluster that exists, so it takes a stack file's sections without `cluster`: what
that section would say of the cluster (its platform, its name for a node pool, its Kubernetes version) and the
stack's region are arguments. StackConfig itself validates them, the one path (same keys, defaults, rules and
messages as a stack file), with a `cluster` block built from those arguments. Every problem comes at once, a
section's at its path (`nodePools[0].maxNodes`), an argument's at the argument's name (`kubernetes_version`).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.config.validation import METADATA, SECRET_KEYS, SECTIONS
from dra_gpu_platform.inputs.problems import ConfigError, Problem

ComponentPlatform = Literal["eks", "aks", "existing"]
COMPONENT_PLATFORMS: tuple[str, ...] = typing.get_args(ComponentPlatform)

# The stack-file sections a finer component takes: every section but `cluster`, whose content are arguments here.
PART_SECTIONS: tuple[str, ...] = tuple(key for key in SECTIONS if key != "cluster")

# What the cluster rules read of an EKS cluster beyond its name and version (dra_gpu_platform/config/rules/cluster.py): a
# cluster the stack creates in a VPC it also creates needs a public endpoint to be reached. The cluster a finer
# component lands on exists, in subnets that exist; this block says so and no more. No plan a finer component takes
# reads them (a pool's subnets are its own wiring: EksGpuNodePoolArgs.subnet_ids).
EXISTING_EKS_CLUSTER: dict[str, Any] = {"subnetIds": ["subnet-0"]}
# Likewise an AKS API server must be private or limited by authorized ranges (rules/cluster.py): how the existing
# cluster's API server is reached is its own business, and no plan a finer component takes reads it.
EXISTING_AKS_CLUSTER: dict[str, Any] = {"privateCluster": True}

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
    if platform == "eks":
        cluster["eks"] = EXISTING_EKS_CLUSTER
    if platform == "aks":
        cluster["aks"] = EXISTING_AKS_CLUSTER
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
