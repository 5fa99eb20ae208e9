"""Rules of what a tenant namespace may be: never a system or platform namespace, admin access only where no tenant
workload runs, and deployer and admin groups that do not name every tenant."""

from __future__ import annotations

from dra_gpu_platform.config.cluster import AksCluster, EksCluster, ExistingCluster
from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.namespaces import NamespaceConfig
from dra_gpu_platform.facts import cluster_access, platform_namespaces


def check(r: RuleContext) -> None:
    c = r.c
    monitoring = monitoring_namespace(c)
    for i, ns in enumerate(c.namespaces):
        why = platform_namespaces.reserved_reason(ns.name, monitoring)
        if why:
            r.add(
                f"namespaces[{i}].name",
                ns.name,
                f"a tenant namespace can never be {ns.name}: {why}, and edit there runs pods as service accounts "
                "that reach the whole cluster or its cloud roles (the platform would also label it a second time)",
                f"give the team a namespace of its own, e.g. team-{ns.name.removeprefix('kube-')}; the platform's "
                "namespaces are exempt from the GPU guard by not being tenants",
            )
    editors = edited_namespaces(c)
    for i, ns in enumerate(c.namespaces):
        if ns.admin_access:
            _admin_access(r, f"namespaces[{i}]", ns, editors.get(ns.name, []))
    _groups(r)


def monitoring_namespace(c: StackSections) -> str | None:
    """The namespace monitoring installs into, where it is on."""
    return c.monitoring.namespace if c.monitoring.enabled else None


def edited_namespaces(c: StackSections) -> dict[str, list[str]]:
    """namespace -> the namespaceEditors entries (paths) that edit it."""
    cluster = c.cluster
    entries: list[tuple[str, list[str]]] = []
    if isinstance(cluster, EksCluster):
        entries = [
            (f"cluster.eks.namespaceEditors[{i}]", e.namespaces)
            for i, e in enumerate(cluster.settings().namespace_editors)
        ]
    elif isinstance(cluster, AksCluster):
        entries = [
            (f"cluster.aks.namespaceEditors[{i}]", e.namespaces)
            for i, e in enumerate(cluster.settings().namespace_editors)
        ]
    found: dict[str, list[str]] = {}
    for at, names in entries:
        for name in names:
            found.setdefault(name, []).append(at)
    return found


def tenant_workloads(ns: NamespaceConfig, editors: list[str]) -> list[str]:
    """What makes a namespace run tenant workloads (docs/security.md, "Admin access"): editors (tenants edit there),
    claim templates or shared claims that are not admin claims, device-plugin GPUs, or a device grant no admin claim
    of the namespace uses (quota for tenants). Empty: only the platform's admins use it."""
    found = [f"edited by {at}" for at in editors]
    admin_classes: set[str] = set()
    for key, claims in (("claimTemplates", ns.claim_templates), ("sharedClaims", ns.shared_claims)):
        ordinary = [t.name for t in claims if not t.admin_access]
        if ordinary:
            found.append(f"{key} {', '.join(ordinary)} (not adminAccess)")
        admin_classes |= {t.device_class for t in claims if t.admin_access and t.device_class}
    quota = ns.quota
    if quota is not None:
        if quota.legacy_gpus:
            found.append(f"quota.legacyGpus {quota.legacy_gpus} (nvidia.com/gpu for ordinary pods)")
        tenants = sorted(name for name, amount in quota.devices.items() if amount and name not in admin_classes)
        if tenants:
            found.append(f"quota.devices {', '.join(tenants)} (no adminAccess claim of the namespace uses it)")
    return found


def _admin_access(r: RuleContext, at: str, ns: NamespaceConfig, editors: list[str]) -> None:
    found = tenant_workloads(ns, editors)
    if found:
        r.add(
            f"{at}.adminAccess",
            True,
            f"admin access lets claims in {ns.name} take devices other tenants are using (KEP-5018), so it is only "
            f"for namespaces without tenant workloads, and {ns.name} has {'; '.join(found)}",
            f"remove adminAccess from {ns.name} and give the platform's admins a namespace of their own (adminAccess: "
            "true, adminAccess claim templates and their quota, no namespaceEditors)",
        )


def _groups(r: RuleContext) -> None:
    """Deployer and admin groups that hold every tenant open the label and NetworkPolicy guards to every tenant."""
    cluster = r.c.cluster
    lists: list[tuple[str, list[str], str]] = []
    if isinstance(cluster, ExistingCluster):
        fix = (
            "list the groups only your deployer authenticates into: `kubectl auth whoami` with the stack's kubeconfig "
            "shows them (kubeadm's admin.conf: kubeadm:cluster-admins)"
        )
        lists.append(("cluster.existing.deployerGroups", cluster.settings().deployer_groups, fix))
    elif isinstance(cluster, AksCluster):
        fix = "use the object id of the Entra ID group of your deployers and admins (az ad group show --query id)"
        lists.append(("cluster.aks.adminGroupObjectIds", cluster.settings().admin_group_object_ids, fix))
    for at, groups, fix in lists:
        for i, group in enumerate(groups):
            why = cluster_access.names_every_tenant(group)
            if why:
                r.add(
                    f"{at}[{i}]",
                    group,
                    f"{why}: only the platform's deployer and admins may be in these groups, or every tenant passes "
                    "the guards of tenant namespace labels and NetworkPolicies",
                    fix,
                )
