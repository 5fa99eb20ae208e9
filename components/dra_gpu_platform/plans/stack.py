"""StackConfig -> StackPlan: the one derivation of everything a stack declares. Pure: no Pulumi imports.

`plan_stack` derives every part once, in plain frozen data (no config models inside): the cluster plan of the
platform, one PoolPlan per pool, the GPU software releases, DeviceClasses, tenant namespaces, the admission policy,
maintenance and monitoring. Everything downstream reads the plan and only the plan: the resources (GpuPlatform and
its children, each taking its part), `gpuplan fit`, `render` and the offline tools, and (through the adapter from
recorded resources to the same PoolPlan) the policy pack.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias

from dra_gpu_platform.config.models import AksCluster, ExistingCluster, StackConfig
from dra_gpu_platform.dra.inventory import Inventory
from dra_gpu_platform.facts import platforms
from dra_gpu_platform.facts.catalog import EXAMPLE_DRIVER, NVIDIA_DRIVER
from dra_gpu_platform.inputs.problems import ConfigError, Problem
from dra_gpu_platform.plans import aks, eks, existing, kind
from dra_gpu_platform.plans.admission_policy import (
    DRA_ONLY_POLICY,
    WORKLOAD_POLICIES,
    AdmissionPolicyPlan,
    tenancy_policies,
)
from dra_gpu_platform.plans.device_classes import DeviceClassPlan, plan_device_classes
from dra_gpu_platform.plans.gpu_software import SoftwarePlan, software_plan
from dra_gpu_platform.plans.gpu_toleration import GpuTolerationPlan, plan_gpu_toleration
from dra_gpu_platform.plans.image_digests import pin_software
from dra_gpu_platform.plans.maintenance import DeviceTaintRulePlan, plan_device_taints
from dra_gpu_platform.plans.monitoring.plan import MonitoringPlan, monitoring_plan
from dra_gpu_platform.plans.namespaces import NamespacePlan, plan_namespaces
from dra_gpu_platform.plans.node_pools import PoolPlan, plan_pools
from dra_gpu_platform.plans.quota import quota_context
from dra_gpu_platform.plans.stack_inventory import pools_inventory
from dra_gpu_platform.plans.tenancy_notes import tenancy_notes
from dra_gpu_platform.plans.upgrade import software_notes

ClusterPlan: TypeAlias = eks.EksClusterPlan | aks.AksClusterPlan | kind.KindClusterPlan | existing.ExistingClusterPlan


@dataclass(frozen=True)
class StackPlan:
    stack: str | None  # None for a StackConfig built without a stack name (a library call)
    name: str  # the cluster's name: GpuPlatform's name and the root of every logical name
    platform: str  # eks | aks | kind | existing
    kubernetes_version: str
    protect: bool
    cluster: ClusterPlan
    pools: tuple[PoolPlan, ...]  # sorted by name
    software: SoftwarePlan
    device_classes: tuple[DeviceClassPlan, ...]  # sorted by name
    namespaces: tuple[NamespacePlan, ...]  # sorted by name
    admission_policy: AdmissionPolicyPlan  # the GPU guard on pods of every tenant namespace (gpu-dra-only)
    device_taints: tuple[DeviceTaintRulePlan, ...]  # maintenance
    monitoring: MonitoringPlan | None
    # What publishes devices and which classes its chart brings (for the simulated inventory and `gpuplan fit`).
    dra_driver: str  # NVIDIA_DRIVER, or EXAMPLE_DRIVER on kind with gpuDriver: example
    # the NVIDIA DRA driver's version (the chart's, or the one a GPUCluster runs); None with the example driver
    dra_driver_version: str | None
    driver_device_classes: tuple[str, ...]  # DeviceClasses the driver chart creates itself
    feature_gates: dict[str, bool]  # gates the stack turns on in its cluster (kind's featureGates, the bridge)
    # adds the GPU taint's toleration to pods with claims (namespaces[].gpuToleration; created from 1.36 on)
    gpu_toleration: GpuTolerationPlan | None = None
    # the driver's gpu.nvidia.com class carries extendedResourceName (chart 25.12.0+; not a GPUCluster's)
    driver_class_extended_resource: bool = False
    region: str | None = None  # AWS region / Azure location of an eks or aks cluster (prices are per region)
    dynamic_mig: bool = False  # the NVIDIA DRA driver's DynamicMIG gate: GPUs published as partitionable devices
    # The GPU guard's rules on workload pod templates, and the guards of tenant namespace labels and NetworkPolicies
    # (with a known deployer) and of tenant Services.
    workload_policies: tuple[AdmissionPolicyPlan, ...] = WORKLOAD_POLICIES
    tenancy_policies: tuple[AdmissionPolicyPlan, ...] = ()
    deployer_groups: tuple[str, ...] = ()  # the Kubernetes groups the platform's deployer authenticates into
    notes: tuple[str, ...] = ()  # what the preview should tell the operator about the stack as a whole
    # what grows the GPU pools (dra_gpu_platform/facts/provisioners.py), None where nothing does; its release
    provisioner: str | None = None
    provisioner_version: str | None = None

    @property
    def minor(self) -> int:
        return int(self.kubernetes_version.split(".")[1])

    @property
    def profile(self) -> platforms.PlatformProfile:
        """What differs on the stack's platform (dra_gpu_platform/facts/platforms.py)."""
        return platforms.profile(self.platform)

    def pool(self, name: str) -> PoolPlan | None:
        return next((p for p in self.pools if p.name == name), None)

    def inventory(self) -> Inventory:
        """The stack's simulated DRA inventory: every DRA pool at maxNodes, as its driver would publish it."""
        return pools_inventory(
            self.pools,
            self.dra_driver,
            self.dra_driver_version,
            f"stack:{self.stack}",
            dynamic_mig=self.dynamic_mig,
            minor=self.minor,
        )


# The cluster planner of each platform (one module each: dra_gpu_platform/plans/{eks,aks,kind,existing}.py). Only the
# AKS kubeconfig's login mode reads the environment.
CLUSTER_PLANNERS: Mapping[str, Callable[[StackConfig, tuple[PoolPlan, ...], Mapping[str, str]], ClusterPlan]] = {
    "eks": lambda config, pools, _environ: eks.cluster_plan(config, pools),
    "aks": aks.cluster_plan,
    "kind": lambda config, pools, _environ: kind.cluster_plan(config, pools),
    "existing": lambda config, pools, _environ: existing.cluster_plan(config, pools),
}


def cluster_plan(config: StackConfig, pools: tuple[PoolPlan, ...], environ: Mapping[str, str]) -> ClusterPlan:
    return CLUSTER_PLANNERS[config.platform](config, pools, environ)


UNGUARDED_NOTE = {
    "aks": "no deployers' Entra ID group (cluster.aks.adminGroupObjectIds or deployerGroupObjectId): the identity "
    "running `pulumi up` is made cluster admin on its own, and tenant namespace labels and the platform's "
    "NetworkPolicies are not guarded against other cluster users",
    "existing": "cluster.existing.deployerGroups is empty: tenant namespace labels and the platform's NetworkPolicies "
    "are not guarded against other cluster users; list the groups `kubectl auth whoami` shows for the stack's "
    "kubeconfig",
}


def deployer_groups(config: StackConfig) -> tuple[str, ...]:
    """The Kubernetes groups `pulumi up` authenticates into: the EKS access entry's group, the AKS deployers' Entra
    ID group, kubeadm's admin group on kind, what the stack declares for an existing cluster."""
    fixed = config.profile.deployer_group
    if fixed is not None:
        return (fixed,)
    cluster = config.cluster
    if isinstance(cluster, AksCluster):
        group = aks.deployer_group(config)
        return (group,) if group else ()
    return tuple(cluster.settings().deployer_groups) if isinstance(cluster, ExistingCluster) else ()


def feature_gates(config: StackConfig) -> dict[str, bool]:
    if config.profile.kubernetes.sets_feature_gates:
        return kind.feature_gates(config)
    # EKS, AKS and existing clusters run the minor's defaults (the config rules allow the bridge, tolerations,
    # DeviceTaintRules and dynamic MIG there only where those have their gates on by default): nothing to set.
    return {}


def plan_stack(config: StackConfig, *, environ: Mapping[str, str] | None = None) -> StackPlan:
    """The StackPlan of a valid stack. `environ`: the environment `pulumi up` runs in (only the AKS kubeconfig's
    login mode reads it; dra_gpu_platform/plans/aks.py kubelogin_plan)."""
    pools = plan_pools(config)
    gates = feature_gates(config)
    deployers = deployer_groups(config)
    return StackPlan(
        stack=config.stack,
        name=config.cluster.name,
        platform=config.platform,
        kubernetes_version=config.cluster.kubernetes_version,
        protect=config.cluster.protect,
        cluster=cluster_plan(config, pools, environ or {}),
        pools=pools,
        software=pin_software(software_plan(config, pools)),
        device_classes=plan_device_classes(config),
        namespaces=plan_namespaces(config.namespaces, quota_context(config, gates), config.cluster.minor),
        admission_policy=DRA_ONLY_POLICY,
        device_taints=plan_device_taints(config.maintenance, config.cluster.kubernetes_version),
        monitoring=monitoring_plan(config),
        dra_driver=EXAMPLE_DRIVER if config.uses_example_driver else NVIDIA_DRIVER,
        dra_driver_version=None if config.uses_example_driver else config.nvidia_dra_driver_version,
        driver_device_classes=tuple(config.driver_device_classes()),
        feature_gates=gates,
        tenancy_policies=tenancy_policies(
            deployers, {ns.name: tuple(ns.service_types) for ns in config.namespaces if ns.service_types}
        ),
        deployer_groups=deployers,
        notes=(
            *(() if deployers else (UNGUARDED_NOTE[config.platform],)),
            *tenancy_notes(config),
            *software_notes(config),
        ),
        gpu_toleration=plan_gpu_toleration(config),
        driver_class_extended_resource=config.driver_class_has_extended_resource(),
        region=config.region if config.profile.region is not None else None,
        dynamic_mig=config.dynamic_mig,
        provisioner=config.provisioner if config.autoscaler_enabled else None,
        provisioner_version=config.autoscaler.version,
    )


def plan_sections(
    sections: Mapping[str, Any],
    *,
    stack: str,
    region: str | None = None,
    has_kubeconfig: bool = False,
    environ: Mapping[str, str] | None = None,
) -> StackPlan:
    """A stack file's `dra-gpu-platform:*` sections (keys without the prefix), validated by the config layer with
    the same keys, defaults, rules and messages as a stack file, then planned. `region`: the AWS region or Azure
    location; `has_kubeconfig`: an existing cluster's kubeconfig is given. Raises ConfigError listing every problem."""
    if not isinstance(sections, Mapping):
        rule = "the sections are a mapping of stack-file keys (cluster, nodePools, ...) to their values"
        raise ConfigError([Problem(None, "", sections, rule, "pass a dict such as {'cluster': {...}}")])
    config = StackConfig.model_validate(
        {**sections, "region": region, "hasKubeconfig": has_kubeconfig, "stack": stack, "source": None}
    )
    return plan_stack(config, environ=environ)
