"""Decisions behind an AKS cluster and its GPU agent pools, as plain data. Pure: no Pulumi imports.

Facts: docs/references.md#aks-agentpool-arguments, docs/references.md#aks-gpu-driver-none,
docs/references.md#aks-gpu-operator-modes, docs/references.md#aks-mig-gpu-instance-profile (AgentPool fields,
GPUDriver, GPUInstanceProfile, ScaleSetPriority enums, the driver-None route for the GPU Operator),
docs/references.md#aks-api-server-access, docs/references.md#aks-autoscaler-profile,
docs/references.md#kubelogin-login-modes, docs/references.md#aks-rbac-cluster-admin-role.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import yaml

from dra_gpu_platform.config.models import AksCluster, StackConfig, platform_cluster
from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import autoscaler as ca
from dra_gpu_platform.facts import cluster_access, network
from dra_gpu_platform.facts.aks import GPU_DRIVER_INSTALL, GPU_DRIVER_NONE, KUBELOGIN_ARM_ENV_FLAG
from dra_gpu_platform.facts.autoscaler import DRA_PRODUCTION_READY_FROM
from dra_gpu_platform.plans.driver_ownership import driver_owner
from dra_gpu_platform.plans.node_pools import PoolPlan, unlisted_note
from dra_gpu_platform.plans.provisioning.node_auto_provisioning import NapPlan, nap_plan


@dataclass(frozen=True)
class KubeloginPlan:
    """How the kubeconfig's `kubelogin get-token` signs in (dra_gpu_platform/facts/aks.py KUBELOGIN_*)."""

    mode: str  # azurecli | spn | workloadidentity | msi
    arm_env: bool  # read ARM_* instead of AZURE_* (`--use-azurerm-env-vars`)
    client_id: str | None  # a user-assigned managed identity's client id (msi)
    source: str  # why this mode: "cluster.aks.kubeloginMode" or the environment variable that chose it


# Autoscaler profile of the AKS managed cluster-autoscaler (ManagedClusterPropertiesAutoScalerProfileArgs; AKS
# takes these as strings).
AUTOSCALER_PROFILE = {
    "expander": ca.EXPANDER,  # of the pools that fit a pending pod, grow the one that wastes the least
    # GPU VMs boot and install their driver slower than the 15-minute default allows (docs/references.md#duration-aks-pool).
    "max_node_provision_time": "20m",
}


@dataclass(frozen=True)
class AksAgentPoolPlan:
    """Everything AksGpuNodePool needs for one stack pool: the pool, and what only an AKS agent pool has."""

    pool: PoolPlan
    agent_pool_name: str  # AKS's name of the pool (letters and digits, at most 12)
    node_taints: tuple[str, ...]  # the pool's taints as AKS writes them ("key=value:Effect")
    gpu_driver: str  # GPUProfile.driver: Install, or None for the GPU Operator's driver
    gpu_instance_profile: str | None  # MIG1g … MIG7g for a MIG pool
    spot: bool


@dataclass(frozen=True)
class RoleAssignmentPlan:
    """An Azure role assignment of an Entra ID group on the cluster, or on one of its namespaces."""

    name: str  # logical-name part: stable, from the group and the namespace
    group_object_id: str
    role: str  # built-in role definition id (dra_gpu_platform/facts/cluster_access.py)
    namespace: str | None = None  # None: the whole cluster


@dataclass(frozen=True)
class AuditLogPlan:
    """The control plane's audit logs into Log Analytics (a DiagnosticSetting on the cluster)."""

    workspace_id: str | None  # an existing workspace; None: the stack creates `workspace_name`
    workspace_name: str
    categories: tuple[str, ...]
    retention_days: int
    destination_type: str


@dataclass(frozen=True)
class AksClusterPlan:
    """What AksCluster needs from the stack: its settings, location, resource group, system pool, one agent pool per
    stack pool (sorted by name), API server access, the autoscaler and how Pulumi's kubeconfig signs in."""

    name: str
    kubernetes_version: str
    location: str
    protect: bool
    resource_group: str
    create_resource_group: bool  # false: cluster.aks.existingResourceGroup
    system_vm_size: str
    system_count: int
    admin_group_object_ids: tuple[str, ...]
    authorized_ip_ranges: tuple[str, ...]
    private_cluster: bool
    agent_pools: tuple[AksAgentPoolPlan, ...]
    gpu_driver: str
    autoscaled: bool = True
    kubelogin: KubeloginPlan = KubeloginPlan("azurecli", False, None, "default")
    deployer_principal_type: str = "User"  # RoleAssignment.principalType of the identity, without a deployers' group
    notes: tuple[str, ...] = ()
    # Who administers the cluster: the deployers' Entra ID group (cluster admin, the only group that may change
    # tenant namespace labels) and the narrower tiers, sorted by name.
    deployer_group: str = ""
    role_assignments: tuple[RoleAssignmentPlan, ...] = ()
    network_dataplane: str = network.AKS_NETWORK_DATAPLANE
    network_policy: str = network.AKS_NETWORK_POLICY
    audit_logs: AuditLogPlan | None = None
    nap: NapPlan | None = None  # node auto-provisioning: the GPU pools are NodePools, not agent pools


def agent_pool_plan(pool: PoolPlan, gpu_driver: str) -> AksAgentPoolPlan:
    profile = None
    if pool.mig_profile is not None and pool.gpu is not None:
        profile = aks_facts.gpu_instance_profile(pool.gpu, pool.mig_profile)
    return AksAgentPoolPlan(
        pool=pool,
        agent_pool_name=aks_facts.agent_pool_name(pool.name),
        node_taints=tuple(t.text for t in pool.taints),
        gpu_driver=gpu_driver,
        gpu_instance_profile=profile,
        spot=pool.capacity == "spot",
    )


def cluster_plan(
    config: StackConfig, pools: tuple[PoolPlan, ...], environ: Mapping[str, str] | None = None
) -> AksClusterPlan:
    settings = platform_cluster(config.cluster, AksCluster).settings()
    kubelogin = kubelogin_plan(settings.kubelogin_mode, environ or {})
    notes = []
    nap = config.node_pool_provisioner
    if nap:
        notes.append(
            "node auto-provisioning: AKS runs Karpenter and launches the GPU pools' nodes for pending pods; the "
            "system pool keeps its fixed size (an autoscaled agent pool is refused under NAP)"
        )
    if (
        config.autoscaler_enabled
        and not nap
        and (1, config.cluster.minor) < DRA_PRODUCTION_READY_FROM
        and config.dra_pools
    ):
        notes.append(
            f"AKS {config.cluster.kubernetes_version} runs its own cluster autoscaler; DRA handling in the autoscaler "
            "is production-ready from 1.35 (cluster-autoscaler docs/dra_support.md), so DRA claims may not grow pools here"
        )
    if kubelogin.source == "ARM_USE_OIDC":
        notes.append(
            "ARM_USE_OIDC is set but kubelogin reads a federated token only from a file: export "
            "AZURE_FEDERATED_TOKEN_FILE (and AZURE_CLIENT_ID, AZURE_TENANT_ID) for workloadidentity, or set "
            "cluster.aks.kubeloginMode; using azurecli"
        )
    notes += [note for pool in pools if (note := unlisted_note(pool)) is not None]
    driver = gpu_driver(config)
    return AksClusterPlan(
        name=config.cluster.name,
        kubernetes_version=config.cluster.kubernetes_version,
        location=config.region or "",
        protect=config.cluster.protect,
        resource_group=resource_group_name(config),
        create_resource_group=not settings.existing_resource_group,
        system_vm_size=settings.system_nodes.vm_size,
        system_count=settings.system_nodes.count,
        admin_group_object_ids=tuple(settings.admin_group_object_ids),
        authorized_ip_ranges=tuple(settings.authorized_ip_ranges),
        private_cluster=settings.private_cluster,
        agent_pools=tuple(agent_pool_plan(pool, driver) for pool in pools if not pool.node_pool),
        gpu_driver=driver,
        autoscaled=config.autoscaler_enabled and not nap,
        kubelogin=kubelogin,
        deployer_principal_type=settings.deployer_principal_type
        or ("User" if kubelogin.mode == "azurecli" else "ServicePrincipal"),
        notes=tuple(notes),
        deployer_group=deployer_group(config),
        role_assignments=role_assignments(
            settings.viewer_group_object_ids, [(e.group_object_id, e.namespaces) for e in settings.namespace_editors]
        ),
        audit_logs=AuditLogPlan(
            workspace_id=settings.log_analytics_workspace_id,
            workspace_name=f"law-{config.cluster.name}",
            categories=cluster_access.AKS_AUDIT_CATEGORIES,
            retention_days=cluster_access.AUDIT_RETENTION_DAYS,
            destination_type=cluster_access.LOG_ANALYTICS_DESTINATION,
        ),
        nap=nap_plan([p for p in pools if p.node_pool], driver) if nap else None,
    )


def deployer_group(config: StackConfig) -> str:
    """The Entra ID group whose members run `pulumi up`: deployerGroupObjectId, else the first admin group."""
    if not isinstance(config.cluster, AksCluster):
        return ""
    settings = config.cluster.settings()
    if settings.deployer_group_object_id:
        return str(settings.deployer_group_object_id)
    return str(settings.admin_group_object_ids[0]) if settings.admin_group_object_ids else ""


def role_assignments(
    viewers: Iterable[str], editors: Iterable[tuple[str, Iterable[str]]]
) -> tuple[RoleAssignmentPlan, ...]:
    """Viewers read the whole cluster (AKS RBAC Reader: no Secrets); editors edit workloads in their namespaces
    (AKS RBAC Writer at namespace scope)."""
    plans = [RoleAssignmentPlan(f"viewer-{g.lower()}", g, cluster_access.AKS_RBAC_READER) for g in viewers]
    plans += [
        RoleAssignmentPlan(f"editor-{g.lower()}-{ns}", g, cluster_access.AKS_RBAC_WRITER, ns)
        for g, namespaces in editors
        for ns in sorted(set(namespaces))
    ]
    return tuple(sorted(plans, key=lambda p: p.name))


def _set(environ: Mapping[str, str], name: str) -> bool:
    return bool(environ.get(name, "").strip())


def _true(environ: Mapping[str, str], name: str) -> bool:
    return environ.get(name, "").strip().lower() in ("1", "true", "yes")


def kubelogin_plan(mode: str | None, environ: Mapping[str, str]) -> KubeloginPlan:
    """The login mode: the stack's `kubeloginMode`, else the credentials `pulumi up` itself runs with (the Azure
    provider's ARM_* variables, or the Azure SDK's AZURE_*), else the Azure CLI's login."""
    arm = (_set(environ, "ARM_CLIENT_ID") or _set(environ, "ARM_CLIENT_SECRET")) and not _set(
        environ, "AZURE_CLIENT_ID"
    )
    msi_client = environ.get("ARM_CLIENT_ID") or environ.get("AZURE_CLIENT_ID") or None
    if mode is not None:
        return KubeloginPlan(
            mode, arm and mode == "spn", msi_client if mode == "msi" else None, "cluster.aks.kubeloginMode"
        )
    if _set(environ, "AZURE_FEDERATED_TOKEN_FILE"):
        return KubeloginPlan("workloadidentity", False, None, "AZURE_FEDERATED_TOKEN_FILE")
    if _true(environ, "ARM_USE_MSI"):
        return KubeloginPlan("msi", False, msi_client, "ARM_USE_MSI")
    for name in ("ARM_CLIENT_SECRET", "ARM_CLIENT_CERTIFICATE_PATH"):
        if _set(environ, name):
            return KubeloginPlan("spn", True, None, name)
    for name in ("AZURE_CLIENT_SECRET", "AZURE_CLIENT_CERTIFICATE_PATH", "AAD_SERVICE_PRINCIPAL_CLIENT_SECRET"):
        if _set(environ, name):
            return KubeloginPlan("spn", False, None, name)
    if _true(environ, "ARM_USE_OIDC"):
        return KubeloginPlan("azurecli", False, None, "ARM_USE_OIDC")
    return KubeloginPlan("azurecli", False, None, "default")


def gpu_driver(config: StackConfig) -> str:
    """`None` leaves the node without a driver, for the GPU Operator to install; otherwise AKS installs it."""
    return GPU_DRIVER_NONE if driver_owner(config) == "operator" else GPU_DRIVER_INSTALL


def resource_group_name(config: StackConfig) -> str:
    settings = platform_cluster(config.cluster, AksCluster).settings()
    return settings.resource_group or f"rg-{config.cluster.name}"


def non_interactive_kubeconfig(text: str, kubelogin: KubeloginPlan | None = None) -> str:
    """AKS returns an exec kubeconfig whose kubelogin logs in with a device code, which would hang
    `pulumi up`; switch it to a login that needs no person (what `kubelogin convert-kubeconfig -l <mode>`
    writes, Azure/kubelogin v0.2.19 pkg/internal/converter/convert.go:283-490), default azurecli."""
    plan = kubelogin or KubeloginPlan("azurecli", False, None, "default")
    document = yaml.safe_load(text)
    for user in document.get("users") or []:
        exec_config = (user.get("user") or {}).get("exec")
        if not exec_config or "kubelogin" not in str(exec_config.get("command", "")):
            continue
        exec_config["args"] = kubelogin_args(list(exec_config.get("args") or []), plan)
    return yaml.safe_dump(document, sort_keys=False)


# Flags AKS writes that a mode must not keep: the public client app (`--client-id`) serves only interactive
# logins; a managed identity signs in without a tenant.
_DROPPED = {
    "azurecli": ("--client-id",),
    "spn": ("--client-id",),  # the service principal's id comes from the environment at token time
    "workloadidentity": ("--client-id",),
    "msi": ("--client-id", "--tenant-id"),
}


def kubelogin_args(args: list[str], plan: KubeloginPlan) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        flag, eq, _ = arg.partition("=")
        if flag in ("--login", "-l") or flag in _DROPPED[plan.mode]:
            skip = not eq
        elif flag != KUBELOGIN_ARM_ENV_FLAG:
            out.append(arg)
    out += ["--login", plan.mode]
    if plan.mode == "msi" and plan.client_id:
        out += ["--client-id", plan.client_id]  # a user-assigned identity (not a secret)
    if plan.arm_env:
        out.append(KUBELOGIN_ARM_ENV_FLAG)
    return out
