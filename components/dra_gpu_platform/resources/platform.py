"""GpuPlatform: the whole GPU platform of one stack, from its StackPlan (dra_gpu_platform/plans/stack.py). It hands each
child only its part of the plan. The cluster (with its node pools) yields an explicit Kubernetes provider;
everything Kubernetes-side uses that provider and nothing else."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pulumi

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import aks, eks, existing, kind
from dra_gpu_platform.plans.gpu_toleration import served
from dra_gpu_platform.plans.stack import StackPlan, plan_sections
from dra_gpu_platform.resources.dra.device_classes import DeviceClasses, DeviceClassesArgs
from dra_gpu_platform.resources.dra.maintenance import Maintenance, MaintenanceArgs
from dra_gpu_platform.resources.software.dra_driver import DraDriver
from dra_gpu_platform.resources.software.example_dra_driver import ExampleDraDriver
from dra_gpu_platform.resources.software.gpu_operator import GpuOperator
from dra_gpu_platform.resources.software.helm_release import ReleaseArgs
from dra_gpu_platform.resources.tenancy.dra_only_guard import DraOnlyGuard, DraOnlyGuardArgs
from dra_gpu_platform.resources.tenancy.gpu_toleration import GpuTolerationPolicy, GpuTolerationPolicyArgs
from dra_gpu_platform.resources.tenancy.tenancy_guards import TenancyGuards, TenancyGuardsArgs
from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs


@dataclass(frozen=True)
class GpuPlatformArgs:
    plan: StackPlan
    # kubeconfig of an existing cluster (secret config value); unused on other platforms
    kubeconfig: pulumi.Input[str] | None = None

    @classmethod
    def from_sections(
        cls,
        sections: Mapping[str, Any],
        *,
        region: str | None = None,
        kubeconfig: pulumi.Input[str] | None = None,
    ) -> GpuPlatformArgs:
        """The arguments of a stack file's `dra-gpu-platform:*` sections (keys without the prefix): validated with
        the same keys, defaults, rules and messages as a stack file (raising one error that lists every problem),
        then planned. `region`: the AWS region or Azure location; `kubeconfig`: an existing cluster's kubeconfig."""
        plan = plan_sections(
            sections,
            stack=pulumi.get_stack(),
            region=region,
            has_kubeconfig=kubeconfig is not None,
            # the AKS kubeconfig's kubelogin signs in the way the environment running `pulumi up` is signed in
            environ=os.environ,
        )
        return cls(plan, kubeconfig)


def _cluster(name: str, args: GpuPlatformArgs, parent: pulumi.Resource):
    cluster = args.plan.cluster
    opts = pulumi.ResourceOptions(parent=parent)
    # Cloud SDKs are imported only for their platform: importing pulumi_azure_native for a kind stack
    # would cost seconds for nothing.
    if isinstance(cluster, kind.KindClusterPlan):
        from dra_gpu_platform.resources.clusters.kind import KindCluster, KindClusterArgs

        return KindCluster(child(name, "kind"), KindClusterArgs(cluster), opts)
    if isinstance(cluster, existing.ExistingClusterPlan):
        from dra_gpu_platform.resources.clusters.existing import ExistingCluster, ExistingClusterArgs

        if args.kubeconfig is None:
            raise pulumi.RunError("platform existing needs the secret config value `kubeconfig`")
        return ExistingCluster(child(name, "existing"), ExistingClusterArgs(cluster, args.kubeconfig), opts)
    if isinstance(cluster, eks.EksClusterPlan):
        from dra_gpu_platform.resources.clusters.eks import EksCluster, EksClusterArgs

        return EksCluster(child(name, "eks"), EksClusterArgs(cluster), opts)
    if isinstance(cluster, aks.AksClusterPlan):
        from dra_gpu_platform.resources.clusters.aks import AksCluster, AksClusterArgs

        return AksCluster(child(name, "aks"), AksClusterArgs(cluster), opts)
    raise pulumi.RunError(f"platform {args.plan.platform} is not available in this version of dra-gpu-platform")


class GpuPlatform(pulumi.ComponentResource):
    def __init__(self, name: str, args: GpuPlatformArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.GPU_PLATFORM, name, None, opts)
        plan = args.plan
        self.cluster = _cluster(name, args, self)
        provider = self.cluster.provider
        parent = pulumi.ResourceOptions(parent=self)
        protect = plan.protect
        # In a protected stack the GPU software's releases and namespaces are protected too (children inherit
        # `protect`): deleting them takes every GPU workload's devices away.
        software = pulumi.ResourceOptions(parent=self, protect=protect)

        # GPU software right after the cluster; the DRA driver waits for the operator only when the
        # operator installs the driver (dra_gpu_platform/plans/gpu_software.py).
        releases = plan.software
        self.gpu_operator = self.dra_driver = None
        if releases.gpu_operator is not None:
            self.gpu_operator = GpuOperator(
                child(name, "gpu-operator"), ReleaseArgs(releases.gpu_operator, provider), software
            )
        if releases.example_driver is not None:
            self.dra_driver = ExampleDraDriver(
                child(name, "dra-example-driver"), ReleaseArgs(releases.example_driver, provider), software
            )
        elif releases.dra_driver is not None:
            waits = self.gpu_operator is not None and releases.dra_driver_waits_for_operator
            after = [self.gpu_operator.release] if waits else []
            self.dra_driver = DraDriver(
                child(name, "dra-driver"), ReleaseArgs(releases.dra_driver, provider, after), software
            )

        self.device_classes = DeviceClasses(
            child(name, "device-classes"), DeviceClassesArgs(plan.device_classes, provider), parent
        )
        DraOnlyGuard(
            child(name, "dra-only-guard"),
            DraOnlyGuardArgs(plan.admission_policy, provider, plan.workload_policies),
            parent,
        )
        if plan.tenancy_policies:
            TenancyGuards(child(name, "tenancy-guards"), TenancyGuardsArgs(plan.tenancy_policies, provider), parent)
        for note in plan.notes:
            pulumi.log.warn(note, resource=self)
        if plan.gpu_toleration is not None and served(plan.minor):  # MutatingAdmissionPolicy v1: 1.36+
            GpuTolerationPolicy(
                child(name, "gpu-toleration"), GpuTolerationPolicyArgs(plan.gpu_toleration, provider), parent
            )
        self.namespaces = {
            ns.name: TenantNamespace(child(name, "ns", ns.name), TenantNamespaceArgs(ns, provider, protect), parent)
            for ns in plan.namespaces
        }
        if plan.device_taints:
            Maintenance(child(name, "maintenance"), MaintenanceArgs(plan.device_taints, provider), parent)
        if plan.monitoring is not None:
            # imported only when used: the Grafana dashboard builder costs half a second to import
            from dra_gpu_platform.resources.monitoring import Monitoring, MonitoringArgs

            Monitoring(child(name, "monitoring"), MonitoringArgs(plan.monitoring, provider), parent)

        self.kubeconfig = self.cluster.kubeconfig
        self.register_outputs(
            {
                "kubeconfig": self.kubeconfig,
                "deviceClasses": sorted(self.device_classes.classes),
                "namespaces": sorted(self.namespaces),
            }
        )
