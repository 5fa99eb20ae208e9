"""AksCluster: a resource group (or an existing one), an AKS cluster with a managed identity and Azure AD
RBAC (local accounts off), a system pool, one AksGpuNodePool per stack pool, and the Kubernetes provider
built from the cluster's user kubeconfig."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import containerservice, resources

from components.facts import aks as aks_facts
from components.plans import aks as aks_plan
from components.resources.clusters.aks_node_pool import AksGpuNodePool, AksGpuNodePoolArgs
from components.facts.naming import child
from components.facts.type_tokens import Component

CLUSTER_TIMEOUTS = pulumi.CustomTimeouts(create="30m", update="30m", delete="30m")
SYSTEM_ROLE_LABEL = "dra-gpu-platform.io/role"


@dataclass(frozen=True)
class AksClusterArgs:
    plan: aks_plan.AksClusterPlan


class AksCluster(pulumi.ComponentResource):
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]
    cluster: containerservice.ManagedCluster
    pools: dict[str, AksGpuNodePool]

    def __init__(self, name: str, args: AksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.AKS_CLUSTER, name, None, opts)
        plan = args.plan
        settings = plan.settings
        cluster_name = plan.name
        version = plan.kubernetes_version
        protect = plan.protect
        tags = {"dra-gpu-platform.io/cluster": cluster_name}

        group_name: pulumi.Input[str] = plan.resource_group
        if not settings.existing_resource_group:
            group = resources.ResourceGroup(
                child(name, "resource-group"), resource_group_name=group_name, location=plan.location, tags=tags,
                # Deleting the group deletes the cluster in it.
                opts=pulumi.ResourceOptions(parent=self, protect=protect),
            )
            group_name = group.name

        system = settings.system_nodes
        self.cluster = containerservice.ManagedCluster(
            child(name, "aks"),
            resource_name_=cluster_name,
            resource_group_name=group_name,
            location=plan.location,
            dns_prefix=cluster_name,
            kubernetes_version=version,
            identity=containerservice.ManagedClusterIdentityArgs(type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED),
            enable_rbac=True,
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True, enable_azure_rbac=True, admin_group_object_ids=list(settings.admin_group_object_ids) or None,
            ),
            # No static admin credentials: every kubeconfig authenticates through Entra ID.
            disable_local_accounts=True,
            sku=containerservice.ManagedClusterSKUArgs(
                name=containerservice.ManagedClusterSKUName.BASE, tier=containerservice.ManagedClusterSKUTier.STANDARD,
            ),
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin=containerservice.NetworkPlugin.AZURE, network_plugin_mode=containerservice.NetworkPluginMode.OVERLAY,
            ),
            agent_pool_profiles=[
                containerservice.ManagedClusterAgentPoolProfileArgs(
                    name=aks_facts.SYSTEM_POOL_NAME,
                    mode=containerservice.AgentPoolMode.SYSTEM,
                    type=containerservice.AgentPoolType.VIRTUAL_MACHINE_SCALE_SETS,
                    vm_size=system.vm_size,
                    count=system.count,
                    os_type=containerservice.OSType.LINUX,
                    os_sku=aks_facts.OS_SKU,
                    orchestrator_version=version,
                    node_labels={SYSTEM_ROLE_LABEL: "system"},
                )
            ],
            tags=tags,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=protect,
                custom_timeouts=CLUSTER_TIMEOUTS,
                # The system pool is set at creation; GPU pools are AgentPool resources, which a refresh would
                # otherwise report inside agentPoolProfiles and a later update would try to rewrite.
                ignore_changes=["agentPoolProfiles"],
            ),
        )

        driver = plan.gpu_driver
        self.pools = {}
        for pool in plan.pools:
            self.pools[pool.name] = AksGpuNodePool(
                child(name, "pool", pool.name),
                AksGpuNodePoolArgs(
                    pool=pool,
                    shape=aks_plan.vm_shape(pool),
                    cluster_name=self.cluster.name,
                    resource_group_name=group_name,
                    kubernetes_version=version,
                    gpu_driver=driver,
                    protect=protect,
                ),
                pulumi.ResourceOptions(parent=self),
            )

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group_name, resource_name=self.cluster.name, format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(
            credentials.kubeconfigs.apply(
                lambda found: aks_plan.non_interactive_kubeconfig(base64.b64decode(found[0].value).decode("utf-8"))
            )
        )
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            enable_server_side_apply=True,
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cluster]),
        )
        self.register_outputs({
            "clusterName": self.cluster.name,
            "resourceGroup": group_name,
            "kubeconfig": self.kubeconfig,
            "nodePools": {p: aks_facts.agent_pool_name(p) for p in sorted(self.pools)},
        })
