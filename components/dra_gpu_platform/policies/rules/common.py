"""What every rule of the pack shares: the recorded stack's type tokens and safe property access (from
dra_gpu_platform/recorded/props.py), config with schema defaults, and policy construction. Label and node selectors
are matched by dra_gpu_platform/dra/node_selectors.py. No Pulumi resource modules and nothing from gpuplan: the pack
runs under the real Pulumi CLI."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from pulumi_policy import (
    EnforcementLevel,
    PolicyConfigSchema,
    ResourceValidationArgs,
    ResourceValidationPolicy,
    Severity,
    StackValidationArgs,
    StackValidationPolicy,
)

# The recorded stack's type tokens and prop access, under the names every rule reads them by (`c.dig`, `c.NAMESPACE`).
from dra_gpu_platform.recorded.props import (  # noqa: F401  (re-exported for the rules)
    AKS_AGENT_POOL_RE,
    AKS_CLUSTER_RE,
    AKS_NODE_CLASS,
    AZURE_DIAGNOSTIC_SETTING_RE,
    AZURE_ROLE_ASSIGNMENT_RE,
    CLAIM_RE,
    CLAIM_TEMPLATE_RE,
    COMMAND,
    DEVICE_CLASS_RE,
    EC2_NODE_CLASS,
    EKS_ADDON,
    EKS_CLUSTER,
    EKS_NODE_GROUP,
    HELM_CHART_V4,
    HELM_RELEASE,
    IAM_ROLE,
    IAM_ROLE_POLICY,
    KARPENTER_NODE_POOL,
    LAUNCH_TEMPLATE,
    NAMESPACE,
    NETWORK_POLICY,
    POD_SPEC_PATHS,
    RESOURCE_QUOTA,
    VAP_BINDING_RE,
    VAP_RE,
    as_dict,
    as_int,
    as_list,
    dig,
    is_list,
    is_mapping,
    known,
    metadata_name,
    metadata_namespace,
    plain,
    string_map,
)

# ---------------------------------------------------------------------------------------------------
# Config: the CLI fills schema defaults before configuring the analyzer; hand-built args in tests (and
# older CLIs) may pass none, so rules read through this helper and get the same defaults either way.


def setting(args: ResourceValidationArgs | StackValidationArgs, schema: PolicyConfigSchema, key: str) -> Any:
    config = args.get_config() or {}
    if key in config and config[key] is not None:
        return config[key]
    return schema.properties[key].get("default")


def short(items: Iterable[str], limit: int = 6) -> str:
    items = list(items)
    text = ", ".join(items[:limit])
    return text + (f" and {len(items) - limit} more" if len(items) > limit else "")


# ---------------------------------------------------------------------------------------------------
# Policy construction: every rule carries the same metadata fields


def resource_policy(
    name: str,
    *,
    description: str,
    validate: Callable[[ResourceValidationArgs, Callable], None],
    severity: Severity,
    remediation_steps: str,
    level: EnforcementLevel = EnforcementLevel.MANDATORY,
    config_schema: PolicyConfigSchema | None = None,
    remediate: Callable[[ResourceValidationArgs], Any] | None = None,
    tags: list[str] | None = None,
) -> ResourceValidationPolicy:
    return ResourceValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        remediate=remediate,
        enforcement_level=level,
        config_schema=config_schema,
        severity=severity,
        remediation_steps=remediation_steps,
        tags=tags or ["gpu", "dra"],
    )


def stack_policy(
    name: str,
    *,
    description: str,
    validate: Callable[[StackValidationArgs, Callable], None],
    severity: Severity,
    remediation_steps: str,
    level: EnforcementLevel = EnforcementLevel.MANDATORY,
    config_schema: PolicyConfigSchema | None = None,
    tags: list[str] | None = None,
) -> StackValidationPolicy:
    return StackValidationPolicy(
        name=name,
        description=description,
        validate=validate,
        enforcement_level=level,
        config_schema=config_schema,
        severity=severity,
        remediation_steps=remediation_steps,
        tags=tags or ["gpu", "dra"],
    )
