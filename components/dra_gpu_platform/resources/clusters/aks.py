"""AksCluster: a resource group (or an existing one), an AKS cluster with a managed identity and Azure AD
RBAC (local accounts off), API server authorized ranges or a private API server, Azure CNI powered by Cilium
enforcing NetworkPolicies, the managed cluster autoscaler's profile, a system pool, one AksGpuNodePool per stack
pool, "Azure Kubernetes Service RBAC Cluster Admin" for the deployers' Entra ID group and the narrower reader and
namespace-writer groups, the control plane's audit logs in Log Analytics, and the Kubernetes provider built from
the cluster's user kubeconfig with a kubelogin mode that needs no person."""

from __future__ import annotations

import base64
from dataclasses import dataclass

import pulumi
import pulumi_kubernetes as k8s
from pulumi_azure_native import authorization, containerservice, monitor, operationalinsights, resources

from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import cluster_access
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG, SYSTEM_ROLE_LABEL
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import aks as aks_plan
from dra_gpu_platform.resources.clusters.aks_nap import AksNodeAutoProvisioning, AksNodeAutoProvisioningArgs
from dra_gpu_platform.resources.clusters.aks_node_pool import AksGpuNodePool, AksGpuNodePoolArgs

CLUSTER_TIMEOUTS = pulumi.CustomTimeouts(create="30m", update="30m", delete="30m")


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
        cluster_name = plan.name
        version = plan.kubernetes_version
        protect = plan.protect
        tags = {CLUSTER_TAG: cluster_name}

        group_name: pulumi.Input[str] = plan.resource_group
        if plan.create_resource_group:
            group = resources.ResourceGroup(
                child(name, "resource-group"),
                resource_group_name=group_name,
                location=plan.location,
                tags=tags,
                # Deleting the group deletes the cluster in it.
                opts=pulumi.ResourceOptions(parent=self, protect=protect),
            )
            group_name = group.name

        self.cluster = containerservice.ManagedCluster(
            child(name, "aks"),
            resource_name_=cluster_name,
            resource_group_name=group_name,
            location=plan.location,
            dns_prefix=cluster_name,
            kubernetes_version=version,
            identity=containerservice.ManagedClusterIdentityArgs(
                type=containerservice.ResourceIdentityType.SYSTEM_ASSIGNED
            ),
            enable_rbac=True,
            aad_profile=containerservice.ManagedClusterAADProfileArgs(
                managed=True,
                enable_azure_rbac=True,
                admin_group_object_ids=list(plan.admin_group_object_ids) or None,
            ),
            # No static admin credentials: every kubeconfig authenticates through Entra ID.
            disable_local_accounts=True,
            sku=containerservice.ManagedClusterSKUArgs(
                name=containerservice.ManagedClusterSKUName.BASE,
                tier=containerservice.ManagedClusterSKUTier.STANDARD,
            ),
            network_profile=containerservice.ContainerServiceNetworkProfileArgs(
                network_plugin=containerservice.NetworkPlugin.AZURE,
                network_plugin_mode=containerservice.NetworkPluginMode.OVERLAY,
                # Cilium enforces the tenants' NetworkPolicies (dra_gpu_platform/facts/network.py).
                network_dataplane=plan.network_dataplane,
                network_policy=plan.network_policy,
            ),
            api_server_access_profile=containerservice.ManagedClusterAPIServerAccessProfileArgs(
                authorized_ip_ranges=list(plan.authorized_ip_ranges) or None,
                enable_private_cluster=True if plan.private_cluster else None,
            )
            if plan.authorized_ip_ranges or plan.private_cluster
            else None,
            # The managed cluster autoscaler sizes every pool with enableAutoScaling between its min and max.
            auto_scaler_profile=containerservice.ManagedClusterPropertiesAutoScalerProfileArgs(
                **aks_plan.AUTOSCALER_PROFILE
            )
            if plan.autoscaled
            else None,
            # Node auto-provisioning: AKS runs Karpenter for the stack's GPU NodePools, and no default NodePools
            # (dra_gpu_platform/facts/node_auto_provisioning.py).
            node_provisioning_profile=containerservice.ManagedClusterNodeProvisioningProfileArgs(
                mode=plan.nap.mode, default_node_pools=plan.nap.default_node_pools
            )
            if plan.nap is not None
            else None,
            agent_pool_profiles=[
                containerservice.ManagedClusterAgentPoolProfileArgs(
                    name=aks_facts.SYSTEM_POOL_NAME,
                    mode=containerservice.AgentPoolMode.SYSTEM,
                    type=containerservice.AgentPoolType.VIRTUAL_MACHINE_SCALE_SETS,
                    vm_size=plan.system_vm_size,
                    count=plan.system_count,
                    os_type=containerservice.OSType.LINUX,
                    os_sku=aks_facts.OS_SKU,
                    orchestrator_version=version,
                    node_labels={SYSTEM_ROLE_LABEL: "system"},
                )
            ],
            tags=tags,
            # No ignore_changes: edits to the system pool apply through the cluster. It cannot be an AgentPool
            # resource of its own: AKS needs one pool inline at creation, and azure-native refuses to create an
            # AgentPool that already exists ("cannot create already existing subresource"; ContainerService agent
            # pools are not in its default-state list). AKS leaves pools missing from agentPoolProfiles (the GPU
            # AgentPool resources) as they are (docs/references.md#aks-system-pool-inline).
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=protect,
                custom_timeouts=CLUSTER_TIMEOUTS,
                # A cluster created before the network policy engine keeps its own: moving an existing cluster to
                # the Cilium dataplane reimages its nodes and is done with `az aks update` (docs/security.md).
                ignore_changes=["networkProfile.networkDataplane", "networkProfile.networkPolicy"],
            ),
        )

        # The deployers' Entra ID group administers the cluster's Kubernetes objects through Entra ID RBAC (local
        # accounts are off, so there is no other way in); nobody is admin on their own.
        client = authorization.get_client_config_output(opts=pulumi.InvokeOutputOptions(parent=self))
        admin = authorization.RoleAssignment(
            child(name, "deployer-admin"),
            # Without a deployers' group, the identity running `pulumi up` itself (StackPlan.notes says so).
            principal_id=plan.deployer_group or client.object_id,
            principal_type=authorization.PrincipalType.GROUP if plan.deployer_group else plan.deployer_principal_type,
            role_definition_id=client.subscription_id.apply(aks_facts.role_definition_id),
            scope=self.cluster.id,
            description=f"Azure Kubernetes Service RBAC Cluster Admin on {cluster_name} for "
            + ("the deployers' group" if plan.deployer_group else "the identity running Pulumi"),
            opts=pulumi.ResourceOptions(parent=self),
        )
        for assignment in plan.role_assignments:
            scope = self.cluster.id
            if assignment.namespace is not None:
                scope = self.cluster.id.apply(lambda cid, ns=assignment.namespace: f"{cid}/namespaces/{ns}")
            authorization.RoleAssignment(
                child(name, assignment.name),
                principal_id=assignment.group_object_id,
                principal_type=authorization.PrincipalType.GROUP,
                role_definition_id=client.subscription_id.apply(
                    lambda sub, role=assignment.role: aks_facts.role_definition_id(sub, role)
                ),
                scope=scope,
                description=f"{cluster_access.AKS_ROLE_NAMES[assignment.role]} on {cluster_name}"
                + (f" namespace {assignment.namespace}" if assignment.namespace else ""),
                opts=pulumi.ResourceOptions(parent=self),
            )
        if plan.audit_logs is not None:
            self._audit_logs(name, plan.audit_logs, plan, group_name, tags)

        self.pools = {}
        for agent_pool in plan.agent_pools:
            self.pools[agent_pool.pool.name] = AksGpuNodePool(
                child(name, "pool", agent_pool.pool.name),
                AksGpuNodePoolArgs(
                    plan=agent_pool,
                    cluster_name=self.cluster.name,
                    resource_group_name=group_name,
                    kubernetes_version=version,
                    protect=protect,
                ),
                pulumi.ResourceOptions(parent=self),
            )

        credentials = containerservice.list_managed_cluster_user_credentials_output(
            resource_group_name=group_name,
            resource_name=self.cluster.name,
            format="exec",
            opts=pulumi.InvokeOutputOptions(parent=self),
        )
        self.kubeconfig = pulumi.Output.secret(
            credentials.kubeconfigs.apply(
                lambda found: aks_plan.non_interactive_kubeconfig(
                    base64.b64decode(found[0].value).decode("utf-8"), plan.kubelogin
                )
            )
        )
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            enable_server_side_apply=True,
            # Entra ID role assignments can take minutes to apply: a first run may meet 403 and succeed on a rerun.
            opts=pulumi.ResourceOptions(parent=self, depends_on=[self.cluster, admin]),
        )
        pulumi.log.info(
            f"kubeconfig signs in with kubelogin --login {plan.kubelogin.mode} ({plan.kubelogin.source})", resource=self
        )
        for note in plan.notes:
            pulumi.log.warn(note, resource=self)
        provisioned: list[str] = []
        if plan.nap is not None:
            nap = AksNodeAutoProvisioning(
                child(name, "node-auto-provisioning"),
                AksNodeAutoProvisioningArgs(plan.nap, cluster_name, self.provider, protect),
                pulumi.ResourceOptions(parent=self),
            )
            provisioned = sorted(nap.node_pools)
        self.register_outputs(
            {
                "clusterName": self.cluster.name,
                "resourceGroup": group_name,
                "kubeconfig": self.kubeconfig,
                "nodePools": {p: aks_facts.agent_pool_name(p) for p in sorted(self.pools)},
                **({"nodeAutoProvisioningPools": provisioned} if provisioned else {}),
            }
        )

    def _audit_logs(
        self,
        name: str,
        audit: aks_plan.AuditLogPlan,
        plan: aks_plan.AksClusterPlan,
        group_name: pulumi.Input[str],
        tags: dict[str, str],
    ) -> None:
        """The API server's audit trail (kube-audit-admin: every write) into Log Analytics, resource-specific tables."""
        workspace_id: pulumi.Input[str]
        if audit.workspace_id is not None:
            workspace_id = audit.workspace_id
        else:
            workspace = operationalinsights.Workspace(
                child(name, "audit-workspace"),
                workspace_name=audit.workspace_name,
                resource_group_name=group_name,
                location=plan.location,
                sku=operationalinsights.WorkspaceSkuArgs(name=cluster_access.LOG_ANALYTICS_SKU),
                retention_in_days=audit.retention_days,
                tags=tags,
                # Losing the workspace loses the audit trail.
                opts=pulumi.ResourceOptions(parent=self, protect=plan.protect),
            )
            workspace_id = workspace.id
        monitor.DiagnosticSetting(
            child(name, "audit-logs"),
            name="dra-gpu-platform-audit",
            resource_uri=self.cluster.id,
            workspace_id=workspace_id,
            log_analytics_destination_type=audit.destination_type,
            logs=[monitor.DiagnosticsLogSettingsArgs(category=c, enabled=True) for c in audit.categories],
            opts=pulumi.ResourceOptions(parent=self),
        )
