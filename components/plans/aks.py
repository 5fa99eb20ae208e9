"""Decisions behind an AKS cluster and its GPU agent pools, as plain data. Pure: no Pulumi imports.

Facts: docs/references.md#aks-agentpool-arguments, docs/references.md#aks-gpu-driver-none,
docs/references.md#aks-gpu-operator-modes, docs/references.md#aks-mig-gpu-instance-profile (AgentPool fields,
GPUDriver, GPUInstanceProfile, ScaleSetPriority enums, the driver-None route for the GPU Operator).
"""

from __future__ import annotations

from dataclasses import dataclass

import yaml

from components.facts import catalog
from components.facts.aks import GPU_DRIVER_INSTALL, GPU_DRIVER_NONE, SPOT_TAINT
from components.facts.catalog import InstanceType
from components.config.models import AksSettings, NodePool, StackConfig
from components.plans.driver_ownership import driver_owner
from components.facts.node_labels import aks_taint_string


@dataclass(frozen=True)
class AksClusterPlan:
    """What AksCluster needs from the stack: its cluster block, location, pools (sorted) and GPU driver mode."""

    name: str
    kubernetes_version: str
    location: str
    protect: bool
    settings: AksSettings
    resource_group: str
    pools: tuple[NodePool, ...]
    gpu_driver: str


def cluster_plan(config: StackConfig) -> AksClusterPlan:
    return AksClusterPlan(
        name=config.cluster.name,
        kubernetes_version=config.cluster.kubernetes_version,
        location=config.region or "",
        protect=config.cluster.protect,
        settings=config.cluster.settings(),
        resource_group=resource_group_name(config),
        pools=tuple(sorted(config.node_pools, key=lambda p: p.name)),
        gpu_driver=gpu_driver(config),
    )


def vm_shape(pool: NodePool) -> InstanceType:
    shape = catalog.pool_shape("aks", pool.gpu, pool.instance_type)
    if shape is None:
        raise ValueError(f"pool {pool.name}: no Azure VM size for {pool.gpu} (config rules should have caught this)")
    return shape


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
