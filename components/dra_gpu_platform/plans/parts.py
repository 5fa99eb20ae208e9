"""A finer component's part of the StackPlan, from its sections (dra_gpu_platform/config/parts.py). Pure: no Pulumi imports.

Each function validates the sections as the stack they are part of and plans that stack with `plan_stack`, the one
derivation, then hands back the part GpuPlatform would give the same component: a node pool, the DeviceClasses, a
namespace, a GPU software release. The same sections give the same part, whichever door they come through.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.config.parts import Part, part_stack
from dra_gpu_platform.inputs.problems import ConfigError, Problem
from dra_gpu_platform.plans import aks, eks
from dra_gpu_platform.plans.device_classes import DeviceClassPlan
from dra_gpu_platform.plans.gpu_software import ReleasePlan
from dra_gpu_platform.plans.namespaces import NamespacePlan
from dra_gpu_platform.plans.stack import StackPlan, plan_stack


def _plan(sections: Mapping[str, Any], component: str, **cluster: Any) -> StackPlan:
    return plan_stack(part_stack(sections, what=f"the sections of {component}", **cluster))


def eks_node_group(
    sections: Mapping[str, Any],
    *,
    pool: str,
    cluster_name: str,
    kubernetes_version: str,
    region: str,
    stack: str | None = None,
) -> eks.EksNodeGroupPlan:
    """EksGpuNodePool's plan: the EKS node group of the pool named `pool` in the sections' nodePools."""
    plan = _plan(
        sections,
        "EksGpuNodePool",
        platform="eks",
        cluster_name=cluster_name,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
        part=Part("nodePools", "pool", pool),
    )
    assert isinstance(plan.cluster, eks.EksClusterPlan)  # platform eks plans an EKS cluster
    return next(group for group in plan.cluster.node_groups if group.pool.name == pool)


def aks_agent_pool(
    sections: Mapping[str, Any],
    *,
    pool: str,
    cluster_name: str,
    kubernetes_version: str,
    region: str,
    stack: str | None = None,
) -> aks.AksAgentPoolPlan:
    """AksGpuNodePool's plan: the AKS agent pool of the pool named `pool` in the sections' nodePools."""
    plan = _plan(
        sections,
        "AksGpuNodePool",
        platform="aks",
        cluster_name=cluster_name,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
        part=Part("nodePools", "pool", pool),
    )
    assert isinstance(plan.cluster, aks.AksClusterPlan)  # platform aks plans an AKS cluster
    return next(agent_pool for agent_pool in plan.cluster.agent_pools if agent_pool.pool.name == pool)


def device_classes(
    sections: Mapping[str, Any],
    *,
    platform: str,
    kubernetes_version: str,
    region: str | None = None,
    stack: str | None = None,
) -> tuple[DeviceClassPlan, ...]:
    """DeviceClasses' plans: every class of the sections' deviceClasses."""
    return _plan(
        sections,
        "DeviceClasses",
        platform=platform,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
    ).device_classes


def namespace(
    sections: Mapping[str, Any],
    *,
    namespace: str,
    platform: str,
    kubernetes_version: str,
    region: str | None = None,
    stack: str | None = None,
) -> NamespacePlan:
    """TenantNamespace's plan: the namespace named `namespace` in the sections' namespaces."""
    plan = _plan(
        sections,
        "TenantNamespace",
        platform=platform,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
        part=Part("namespaces", "namespace", namespace),
    )
    return next(ns for ns in plan.namespaces if ns.name == namespace)


def gpu_operator_release(
    sections: Mapping[str, Any],
    *,
    platform: str,
    kubernetes_version: str,
    region: str | None = None,
    stack: str | None = None,
) -> ReleasePlan:
    """GpuOperator's release, as the whole stack would install it on these pools."""
    software = _plan(
        sections,
        "GpuOperator",
        platform=platform,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
    ).software
    if software.gpu_operator is None:
        raise ConfigError(
            [
                Problem(
                    None,
                    "gpuOperator.enabled",
                    False,
                    "these sections install no GPU Operator",
                    "leave out the GpuOperator component, or remove gpuOperator.enabled: false",
                )
            ],
            "the sections of GpuOperator",
        )
    return software.gpu_operator


@dataclass(frozen=True)
class DraDriverPart:
    release: ReleasePlan
    waits_for_operator: bool  # the GPU Operator installs the driver files the DRA driver reads


def dra_driver_release(
    sections: Mapping[str, Any],
    *,
    platform: str,
    kubernetes_version: str,
    region: str | None = None,
    stack: str | None = None,
    operator_given: bool = False,
) -> DraDriverPart:
    """DraDriver's release, and whether it must wait for the GPU Operator's (`operator_given`: the caller passes that
    component, which a driver the operator installs needs)."""
    software = _plan(
        sections,
        "DraDriver",
        platform=platform,
        kubernetes_version=kubernetes_version,
        region=region,
        stack=stack,
    ).software
    problems = []
    if software.dra_driver is None:
        problems.append(
            Problem(
                None,
                "draDriver.enabled",
                False,
                "these sections install no NVIDIA DRA driver",
                "leave out the DraDriver component, or remove draDriver.enabled: false",
            )
        )
    if software.dra_driver_waits_for_operator and not operator_given:
        problems.append(
            Problem(
                None,
                "gpu_operator",
                None,
                "the GPU Operator installs the NVIDIA driver here (gpuOperator.driver: operator), and the DRA driver "
                "reads its files: it must be installed after the operator",
                "pass gpu_operator=<the GpuOperator component>",
            )
        )
    if problems or software.dra_driver is None:
        raise ConfigError(problems, "the sections of DraDriver")
    return DraDriverPart(software.dra_driver, software.dra_driver_waits_for_operator)
