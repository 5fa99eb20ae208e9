"""GpuPlatform: the whole GPU platform of one stack. The only component that sees the whole StackConfig: it
turns it into plans (components/plans/) and hands each child only its plan. The cluster (with its node pools)
yields an explicit Kubernetes provider; everything Kubernetes-side uses that provider and nothing else."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.config.models import PROJECT, StackConfig
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans.device_classes import plan_device_classes
from dra_gpu_platform.plans.gpu_software import (
    dra_driver_plan,
    dra_driver_waits_for_operator,
    example_driver_plan,
    gpu_operator_plan,
)
from dra_gpu_platform.resources.dra.device_classes import DeviceClasses, DeviceClassesArgs
from dra_gpu_platform.resources.dra.maintenance import Maintenance, MaintenanceArgs
from dra_gpu_platform.resources.software.dra_driver import DraDriver
from dra_gpu_platform.resources.software.example_dra_driver import ExampleDraDriver
from dra_gpu_platform.resources.software.gpu_operator import GpuOperator
from dra_gpu_platform.resources.software.helm_release import ReleaseArgs
from dra_gpu_platform.resources.tenancy.dra_only_guard import DraOnlyGuard, DraOnlyGuardArgs
from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs

# The stack-file key that carries `region` on each platform that has one.
REGION_KEYS = {"eks": "aws:region", "aks": "azure-native:location"}
# What a problem found in sections given to from_sections names as its file.
SECTIONS_SOURCE = "GpuPlatformArgs.from_sections"


@dataclass(frozen=True)
class GpuPlatformArgs:
    config: StackConfig
    # kubeconfig of an existing cluster (secret config value); unused on other platforms
    kubeconfig: pulumi.Input[str] | None = None

    @classmethod
    def from_sections(
        cls, sections: Mapping[str, Any], *, region: str | None = None, kubeconfig: pulumi.Input[str] | None = None
    ) -> GpuPlatformArgs:
        """A stack file's `dra-gpu-platform:*` sections (keys without the prefix), validated the way the stack file
        is (the one loader: same keys, defaults, rules and messages). `region` is the AWS region (eks) or the Azure
        location (aks); `kubeconfig` the secret kubeconfig of an `existing` cluster. Raises the loader's error,
        which lists every problem."""
        values: dict[str, Any] = {f"{PROJECT}:{key}": value for key, value in sections.items()}
        cluster = sections.get("cluster")
        platform = cluster.get("platform") if isinstance(cluster, Mapping) else None
        if region is not None and platform in REGION_KEYS:
            values[REGION_KEYS[platform]] = region
        if kubeconfig is not None:
            values[f"{PROJECT}:kubeconfig"] = kubeconfig
        config = parse_config_map(values, stack=pulumi.get_stack(), source=SECTIONS_SOURCE)
        return cls(config=config, kubeconfig=kubeconfig)


def _cluster(name: str, args: GpuPlatformArgs, parent: pulumi.Resource):
    config = args.config
    opts = pulumi.ResourceOptions(parent=parent)
    # Cloud SDKs are imported only for their platform: importing pulumi_azure_native for a kind stack
    # would cost seconds for nothing.
    if config.platform == "kind":
        from dra_gpu_platform.plans import kind
        from dra_gpu_platform.resources.clusters.kind import KindCluster, KindClusterArgs

        return KindCluster(child(name, "kind"), KindClusterArgs(kind.cluster_plan(config)), opts)
    if config.platform == "existing":
        from dra_gpu_platform.plans import node_pools
        from dra_gpu_platform.resources.clusters.existing import ExistingCluster, ExistingClusterArgs

        if args.kubeconfig is None:
            raise pulumi.RunError("platform existing needs the secret config value `kubeconfig`")
        context = config.cluster.settings().context
        existing = ExistingClusterArgs(
            context,
            args.kubeconfig,
            node_pools.existing_node_plans(config),
            tuple(node_pools.unmapped_pool_warning(p) for p in node_pools.unmapped_pools(config)),
        )
        return ExistingCluster(child(name, "existing"), existing, opts)
    if config.platform == "eks":
        from dra_gpu_platform.plans import eks
        from dra_gpu_platform.resources.clusters.eks import EksCluster, EksClusterArgs

        return EksCluster(child(name, "eks"), EksClusterArgs(eks.cluster_plan(config)), opts)
    if config.platform == "aks":
        from dra_gpu_platform.plans import aks
        from dra_gpu_platform.resources.clusters.aks import AksCluster, AksClusterArgs

        # the kubeconfig's kubelogin signs in the way the environment running `pulumi up` is signed in
        return AksCluster(child(name, "aks"), AksClusterArgs(aks.cluster_plan(config, os.environ)), opts)
    raise pulumi.RunError(f"platform {config.platform} is not available in this version of dra-gpu-platform")


class GpuPlatform(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.GPU_PLATFORM, name, None, opts)
        config = args.config
        self.cluster = _cluster(name, args, self)
        provider = self.cluster.provider
        parent = pulumi.ResourceOptions(parent=self)
        protect = config.cluster.protect
        # In a protected stack the GPU software's releases and namespaces are protected too (children inherit
        # `protect`): deleting them takes every GPU workload's devices away.
        software = pulumi.ResourceOptions(parent=self, protect=protect)

        # GPU software right after the cluster; the DRA driver waits for the operator only when the
        # operator installs the driver (components/plans/gpu_software.py).
        self.gpu_operator = self.dra_driver = None
        if (operator := gpu_operator_plan(config)) is not None:
            self.gpu_operator = GpuOperator(child(name, "gpu-operator"), ReleaseArgs(operator, provider), software)
        if (example := example_driver_plan(config)) is not None:
            self.dra_driver = ExampleDraDriver(
                child(name, "dra-example-driver"), ReleaseArgs(example, provider), software
            )
        elif (driver := dra_driver_plan(config)) is not None:
            after = [self.gpu_operator.release] if self.gpu_operator and dra_driver_waits_for_operator(config) else []
            self.dra_driver = DraDriver(child(name, "dra-driver"), ReleaseArgs(driver, provider, after), software)

        self.device_classes = DeviceClasses(
            child(name, "device-classes"), DeviceClassesArgs(plan_device_classes(config), provider), parent
        )
        DraOnlyGuard(child(name, "dra-only-guard"), DraOnlyGuardArgs(provider), parent)
        self.namespaces = {
            ns.name: TenantNamespace(child(name, "ns", ns.name), TenantNamespaceArgs(ns, provider, protect), parent)
            for ns in sorted(config.namespaces, key=lambda n: n.name)
        }
        if config.maintenance.device_taints:
            Maintenance(child(name, "maintenance"), MaintenanceArgs(config.maintenance, provider), parent)
        if config.monitoring.enabled:
            # imported only when used: the Grafana dashboard builder costs half a second to import
            from dra_gpu_platform.plans.monitoring.plan import monitoring_plan
            from dra_gpu_platform.resources.monitoring import Monitoring, MonitoringArgs

            Monitoring(child(name, "monitoring"), MonitoringArgs(monitoring_plan(config), provider), parent)

        self.kubeconfig = self.cluster.kubeconfig
        self.register_outputs(
            {
                "kubeconfig": self.kubeconfig,
                "deviceClasses": sorted(self.device_classes.classes),
                "namespaces": sorted(self.namespaces),
            }
        )
