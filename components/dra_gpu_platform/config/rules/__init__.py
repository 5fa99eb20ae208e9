"""Cross-field rules of the stack contract ("Meaning that code must enforce"), one module per section.

Each rule adds Problems with the field path, the value, the rule and a fix; every rule runs, so one
`gpuplan preview` shows every mistake in a stack file. Imports only sections, problems and facts.

Who may import: dra_gpu_platform.config.validation (StackConfig's validator runs them) and tests.
"""

from __future__ import annotations

from collections.abc import Iterable

from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.config.rules import (
    access,
    autoscaler,
    cluster,
    compute_domains,
    device_classes,
    kubernetes_version,
    maintenance,
    monitoring,
    namespaces,
    node_pools,
    provisioners,
    software,
    tenancy,
)
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.inputs.problems import Problem

__all__ = ["consistency_problems"]


def consistency_problems(
    config: StackSections, declared: dict[str, set[str]] | None = None, unknown: Iterable[str] = ()
) -> list[Problem]:
    """Every cross-field problem of `config`. `declared`: the names written in each list section, valid or not;
    `unknown`: sections where a name could not be read (a reference there may mean that item)."""
    context = RuleContext(config, declared or {}, set(unknown))
    for check in (
        cluster.check,
        kubernetes_version.check,
        node_pools.check,
        node_pools.check_cloud,
        software.check,
        software.check_placement,
        compute_domains.check,
        device_classes.check,
        namespaces.check,
        maintenance.check,
        monitoring.check,
        autoscaler.check,
        provisioners.check,
        access.check,
        tenancy.check,
    ):
        check(context)
    return context.problems
