"""Decisions behind an AKS cluster and its GPU agent pools, as plain data. Pure: no Pulumi imports.

Facts: ../shared/reference/clouds.md section 2 (AgentPool fields, GPUDriver, GPUInstanceProfile,
ScaleSetPriority enums, the driver-None route for the GPU Operator).
"""

from __future__ import annotations

import re
from typing import Iterable

import yaml

from components.facts import catalog
from components.facts.catalog import InstanceType
from components.config.models import NodePool, StackConfig
from components.plans.driver_ownership import driver_owner
from components.facts.node_labels import aks_taint_string
from components.facts.quantity import parse_quantity

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
AKS_MIG_SLICES = (1, 2, 3, 4, 7)  # GPUInstanceProfile MIG1g … MIG7g


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


def vm_shape(pool: NodePool) -> InstanceType:
    shape = catalog.pool_shape("aks", pool.gpu, pool.instance_type)
    if shape is None:
        raise ValueError(f"pool {pool.name}: no Azure VM size for {pool.gpu} (config rules should have caught this)")
    return shape


def gpu_instance_profile(gpu: str, profile: str) -> str | None:
    """AKS partitions MIG pools by slice count only (MIG1g … MIG7g) and then uses that GPU's smallest
    profile of that size; return the AKS value, or None when AKS cannot express `profile`."""
    model = catalog.gpu_model(gpu)
    wanted = model.mig_profile(profile)
    if wanted is None or wanted.slices not in AKS_MIG_SLICES or "+" in wanted.name:
        return None
    plain = [p for p in model.mig_profiles if p.slices == wanted.slices and "+" not in p.name]
    smallest = min(plain, key=lambda p: parse_quantity(p.memory))
    return f"MIG{wanted.slices}g" if smallest.name == wanted.name else None


def aks_mig_profiles(gpu: str) -> list[str]:
    """The profiles of `gpu` that an AKS pool can be partitioned into."""
    model = catalog.gpu_model(gpu)
    return [p.name for p in model.mig_profiles if gpu_instance_profile(gpu, p.name) is not None]


def gpu_driver(config: StackConfig) -> str:
    """`None` leaves the node without a driver, for the GPU Operator to install; otherwise AKS installs it."""
    return GPU_DRIVER_NONE if driver_owner(config) == "operator" else GPU_DRIVER_INSTALL


def node_taints(pool: NodePool) -> list[str]:
    taints = [aks_taint_string()]
    if pool.capacity == "spot":
        taints.append(SPOT_TAINT)
    return taints


def resource_group_name(config: StackConfig) -> str:
    settings = config.cluster.settings()
    return settings.resource_group or f"rg-{config.cluster.name}"


def non_interactive_kubeconfig(text: str) -> str:
    """AKS returns an exec kubeconfig whose kubelogin logs in with a device code, which would hang
    `pulumi up`; switch it to the Azure CLI login (what `kubelogin convert-kubeconfig -l azurecli` does)."""
    document = yaml.safe_load(text)
    for user in document.get("users") or []:
        exec_config = (user.get("user") or {}).get("exec")
        if not exec_config or "kubelogin" not in str(exec_config.get("command", "")):
            continue
        exec_config["args"] = _azurecli_args(list(exec_config.get("args") or []))
    return yaml.safe_dump(document, sort_keys=False)


def _azurecli_args(args: list[str]) -> list[str]:
    out: list[str] = []
    skip = False
    for arg in args:
        if skip:
            skip = False
            continue
        flag, eq, _ = arg.partition("=")
        if flag in ("--login", "-l"):
            out += ["--login", "azurecli"]
            skip = not eq
        elif flag == "--client-id":  # the public client app is only used by interactive logins
            skip = not eq
        else:
            out.append(arg)
    if "--login" not in out:
        out += ["--login", "azurecli"]
    return out
