"""Rules of who may use the cluster: an IAM principal or Entra group sits in one access tier only (EKS allows one access entry per principal), and a namespace editor edits tenant namespaces of this
stack only (never the GPU software's, monitoring's or a Kubernetes system namespace)."""

from __future__ import annotations

from dra_gpu_platform.config.cluster import AksCluster, AksSettings, EksCluster, EksSettings
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.rules.tenancy import monitoring_namespace
from dra_gpu_platform.facts import platform_namespaces


def check(r: RuleContext) -> None:
    cluster = r.c.cluster
    monitoring = monitoring_namespace(r.c)
    tenants = {ns.name for ns in r.c.namespaces if not platform_namespaces.reserved_reason(ns.name, monitoring)}
    if isinstance(cluster, EksCluster):
        _eks(r, cluster.settings(), tenants)
    elif isinstance(cluster, AksCluster):
        _aks(r, cluster.settings(), tenants)


def _eks(r: RuleContext, settings: EksSettings, tenants: set[str]) -> None:
    tiers: dict[str, str] = {}
    entries = [(f"cluster.eks.adminRoleArns[{i}]", arn) for i, arn in enumerate(settings.admin_role_arns)]
    entries += [(f"cluster.eks.viewerRoleArns[{i}]", arn) for i, arn in enumerate(settings.viewer_role_arns)]
    entries += [
        (f"cluster.eks.namespaceEditors[{i}].roleArn", e.role_arn) for i, e in enumerate(settings.namespace_editors)
    ]
    if settings.deployer_role_arn is not None:
        entries.insert(0, ("cluster.eks.deployerRoleArn", settings.deployer_role_arn))
    for at, arn in entries:
        if arn in tiers:
            r.add(
                at,
                arn,
                f"an IAM principal can have one EKS access entry only, and this one is already in {tiers[arn]}",
                "list each role in one tier: deployer, admins, viewers or one namespaceEditors entry (give it "
                "all its namespaces there)",
            )
        else:
            tiers[arn] = at
    _editors(r, "cluster.eks.namespaceEditors", [e.namespaces for e in settings.namespace_editors], tenants)


def _aks(r: RuleContext, settings: AksSettings, tenants: set[str]) -> None:
    groups: dict[str, str] = {}
    entries = [(f"cluster.aks.viewerGroupObjectIds[{i}]", g) for i, g in enumerate(settings.viewer_group_object_ids)]
    entries += [
        (f"cluster.aks.namespaceEditors[{i}].groupObjectId", e.group_object_id)
        for i, e in enumerate(settings.namespace_editors)
    ]
    admins = {g.lower() for g in settings.admin_group_object_ids}
    if settings.deployer_group_object_id is not None:
        admins.add(settings.deployer_group_object_id.lower())
    for at, group in entries:
        key = group.lower()
        if key in admins:
            r.add(
                at,
                group,
                "this group is a cluster admin group already: a narrower role beside it grants nothing",
                "remove it here, or take it out of adminGroupObjectIds/deployerGroupObjectId",
            )
        elif key in groups:
            r.add(at, group, f"this group is already in {groups[key]}", "list each group in one tier")
        else:
            groups[key] = at
    _editors(r, "cluster.aks.namespaceEditors", [e.namespaces for e in settings.namespace_editors], tenants)


def _editors(r: RuleContext, at: str, namespaces: list[list[str]], tenants: set[str]) -> None:
    monitoring = monitoring_namespace(r.c)
    for i, names in enumerate(namespaces):
        for j, name in enumerate(names):
            if name in tenants:
                continue
            reserved = platform_namespaces.reserved_reason(name, monitoring)
            # Never a hint to make it a tenant: a namespace of other software (a platform's, cert-manager's) would
            # become one, and namespaces[] refuses the platform's anyway.
            r.add(
                f"{at}[{i}].namespaces[{j}]",
                name,
                "a namespace editor edits tenant namespaces of this stack only"
                + (f", and {name} can never be one: {reserved}" if reserved else f", and {name} is not one"),
                f"use one of {', '.join(sorted(tenants))}"
                if tenants
                else "remove the entry (this stack has no tenant namespaces)",
            )
