"""AKS agent pool facts: the names AKS accepts and the MIG partitions it can express. Pure data and functions.

Sources: the AgentPool API (pool names: 1-12 lower-case letters and digits, starting with a letter, for Linux
pools), the GPUInstanceProfile enum MIG1g … MIG7g, ScaleSetPriority, the Spot taint AKS applies
(docs/references.md#aks-agentpool-arguments, docs/references.md#aks-mig-gpu-instance-profile,
docs/references.md#aks-spot-taint).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from dra_gpu_platform.facts import catalog

SYSTEM_POOL_NAME = "system"
MAX_POOL_NAME = 12  # Linux agent pools: 1-12 lower-case letters and digits, starting with a letter
_POOL_NAME = re.compile(r"^[a-z][a-z0-9]{0,11}$")

OS_SKU = "Ubuntu"  # the GPU Operator supports Ubuntu; one OS for every pool (AKS forbids mixing versions)
GPU_DRIVER_INSTALL = "Install"
GPU_DRIVER_NONE = "None"
SPOT_PRIORITY = "Spot"
SPOT_EVICTION = "Delete"
# AKS puts this taint on every Spot node itself; declaring it keeps the pool's desired state honest.
SPOT_TAINT = "kubernetes.azure.com/scalesetpriority=spot:NoSchedule"
SPOT_LABEL = ("kubernetes.azure.com/scalesetpriority", "spot")  # and this label
# AKS GPU images ship driver and toolkit with this runtime class (docs/references.md#aks-gpu-operator-modes).
GPU_RUNTIME_CLASS = "nvidia-container-runtime"
AKS_MIG_SLICES = (1, 2, 3, 4, 7)  # GPUInstanceProfile MIG1g … MIG7g

# Built-in role "Azure Kubernetes Service RBAC Cluster Admin" (docs/references.md#aks-rbac-cluster-admin-role): full access to
# every Kubernetes object of the cluster it is assigned on, through Entra ID RBAC.
RBAC_CLUSTER_ADMIN_ROLE = "b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"


def role_definition_id(subscription_id: str, role: str = RBAC_CLUSTER_ADMIN_ROLE) -> str:
    return f"/subscriptions/{subscription_id}/providers/Microsoft.Authorization/roleDefinitions/{role}"


# kubelogin (Azure/kubelogin v0.2.19, docs/references.md#kubelogin-login-modes) login modes this package writes into the kubeconfig, and the switches that
# make each read the credentials of the environment running `pulumi up` (pkg/internal/token/options.go:103-290,
# pkg/internal/env/variables.go). No secret is written into the kubeconfig: kubelogin reads them at token time.
KUBELOGIN_MODES = ("azurecli", "spn", "workloadidentity", "msi")
# `--use-azurerm-env-vars`: read ARM_CLIENT_ID, ARM_CLIENT_SECRET, ARM_CLIENT_CERTIFICATE_PATH,
# ARM_CLIENT_CERTIFICATE_PASSWORD and ARM_TENANT_ID (the names Pulumi's azure-native provider reads) instead of
# AZURE_* (options.go:133-134, 193-208).
KUBELOGIN_ARM_ENV_FLAG = "--use-azurerm-env-vars"


def agent_pool_name(pool_name: str) -> str:
    """Deterministic AKS pool name from the stack's pool name: its letters and digits, at most 12."""
    return re.sub(r"[^a-z0-9]", "", pool_name.lower())[:MAX_POOL_NAME]


def agent_pool_name_problem(pool_name: str) -> str | None:
    """Why the derived name cannot be used (None when it can)."""
    derived = agent_pool_name(pool_name)
    if not _POOL_NAME.match(derived):
        return f"the AKS agent pool name derived from it ({derived!r}) must start with a letter"
    if derived == SYSTEM_POOL_NAME:
        return f"the derived AKS agent pool name {derived!r} is the system pool's"
    return None


def colliding_pool_names(pool_names: Iterable[str]) -> dict[str, list[str]]:
    """Derived name → the stack pool names that map to it, for names shared by two or more pools."""
    groups: dict[str, list[str]] = {}
    for name in pool_names:
        groups.setdefault(agent_pool_name(name), []).append(name)
    return {derived: names for derived, names in groups.items() if len(names) > 1}


def gpu_instance_profile(gpu: str, profile: str) -> str | None:
    """AKS partitions MIG pools by slice count only (MIG1g … MIG7g) and then uses that GPU's smallest
    profile of that size; return the AKS value, or None when AKS cannot express `profile`. "Smallest" is the
    fewest memory slices, which every catalog profile records (published memory is unknown for some)."""
    model = catalog.gpu_model(gpu)
    wanted = model.mig_profile(profile)
    if wanted is None or wanted.slices not in AKS_MIG_SLICES or "+" in wanted.name:
        return None
    plain = [p for p in model.mig_profiles if p.slices == wanted.slices and "+" not in p.name]
    smallest = min(plain, key=lambda p: (p.memory_slices, p.nominal_gb))
    return f"MIG{wanted.slices}g" if smallest.name == wanted.name else None


def aks_mig_profiles(gpu: str) -> list[str]:
    """The profiles of `gpu` that an AKS pool can be partitioned into."""
    model = catalog.gpu_model(gpu)
    return [p.name for p in model.mig_profiles if gpu_instance_profile(gpu, p.name) is not None]
