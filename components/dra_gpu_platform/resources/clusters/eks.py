"""EksCluster: an EKS control plane (access entries for the deployer, admins, viewers and namespace editors, no
bootstrap admin, KMS-encrypted secrets, control-plane logs with a retention,
private endpoint by default with 443 ingress for privateAccessCidrs), its IAM roles, the EKS managed add-ons, a
system node group and one EksGpuNodePool per stack pool, the Kubernetes provider everything Kubernetes-side uses,
and on it the cluster-autoscaler and the EFA device plugin."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pulumi
import pulumi_aws as aws
import pulumi_kubernetes as k8s

from dra_gpu_platform.facts import auto_mode as auto_mode_facts
from dra_gpu_platform.facts import cluster_access
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG, SYSTEM_ROLE_LABEL
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.provisioning.auto_mode import AutoModePlan
from dra_gpu_platform.resources.clusters.eks_addons import EksAddons, EksAddonsArgs
from dra_gpu_platform.resources.clusters.eks_auto_mode import EksAutoModePools, EksAutoModePoolsArgs
from dra_gpu_platform.resources.clusters.eks_autoscaler import ClusterAutoscaler, ClusterAutoscalerArgs
from dra_gpu_platform.resources.clusters.eks_efa import EfaDevicePlugin, EfaDevicePluginArgs
from dra_gpu_platform.resources.clusters.eks_network import EksNetwork, EksNetworkArgs
from dra_gpu_platform.resources.clusters.eks_node_pool import (
    GPU_POOL_TIMEOUTS,
    EksGpuNodePool,
    EksGpuNodePoolArgs,
    imds_v2,
    node_repair,
    root_volume,
)
from dra_gpu_platform.resources.clusters.karpenter import Karpenter, KarpenterArgs

CLUSTER_TIMEOUTS = pulumi.CustomTimeouts(create="30m", update="30m", delete="30m")
SYSTEM_DISK_GB = 50
API_PORT = 443


@dataclass(frozen=True)
class EksClusterArgs:
    plan: eks_plan.EksClusterPlan


class EksCluster(pulumi.ComponentResource):
    provider: k8s.Provider
    kubeconfig: pulumi.Output[str]
    cluster: aws.eks.Cluster
    pools: dict[str, EksGpuNodePool]

    def __init__(self, name: str, args: EksClusterArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_CLUSTER, name, None, opts)
        plan = args.plan
        access = plan.access
        region = plan.region
        cluster_name = plan.name
        protect = plan.protect
        parent = pulumi.ResourceOptions(parent=self)
        tags = {CLUSTER_TAG: cluster_name}

        subnet_ids, subnets_in_zone, single_zone = self._subnets(name, plan, tags)

        auto_mode = plan.auto_mode is not None
        cluster_role = self._role(
            name,
            "cluster-role",
            "eks.amazonaws.com",
            auto_mode_facts.CLUSTER_POLICIES if auto_mode else eks_plan.CLUSTER_POLICIES,
            region,
            tags,
            protect,
            auto_mode_facts.CLUSTER_TRUST_ACTIONS if auto_mode else ("sts:AssumeRole",),
        )
        node_role = self._role(name, "node-role", "ec2.amazonaws.com", eks_plan.NODE_POLICIES, region, tags, protect)

        # Losing the key makes every secret of the cluster unreadable.
        key = aws.kms.Key(
            child(name, "secrets-key"),
            description=f"Envelope encryption of Kubernetes secrets in EKS cluster {cluster_name}",
            enable_key_rotation=True,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect),
        )
        # Created before the cluster so EKS writes into a group with a retention, not one that never expires.
        log_group = aws.cloudwatch.LogGroup(
            child(name, "control-plane-logs"),
            name=plan.log_group,
            retention_in_days=plan.log_retention_days,
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect),
        )

        self.cluster = aws.eks.Cluster(
            child(name, "eks"),
            name=cluster_name,
            version=plan.kubernetes_version,
            role_arn=cluster_role.arn,
            vpc_config=aws.eks.ClusterVpcConfigArgs(
                subnet_ids=subnet_ids,
                endpoint_private_access=True,
                endpoint_public_access=access.endpoint_public_access,
                public_access_cidrs=list(access.public_access_cidrs) if access.endpoint_public_access else None,
            ),
            access_config=aws.eks.ClusterAccessConfigArgs(
                authentication_mode=eks_plan.AUTHENTICATION_MODE,
                # No admin outside the program: the deployer's access entry below is declared like every other.
                bootstrap_cluster_creator_admin_permissions=False,
            ),
            encryption_config=aws.eks.ClusterEncryptionConfigArgs(
                provider=aws.eks.ClusterEncryptionConfigProviderArgs(key_arn=key.arn),
                resources=["secrets"],
            ),
            enabled_cluster_log_types=list(eks_plan.CONTROL_PLANE_LOGS),
            # Standard support only: extended support is billed extra and should be a decision, not a default.
            upgrade_policy=aws.eks.ClusterUpgradePolicyArgs(support_type="STANDARD"),
            # VPC CNI, kube-proxy and CoreDNS come as EKS managed add-ons (EksAddons), upgraded with the cluster.
            # EKS Auto Mode requires it false too (pulumi_aws ClusterArgs: compute, block storage and load balancing
            # on together, bootstrapSelfManagedAddons false; dra_gpu_platform/facts/auto_mode.py).
            bootstrap_self_managed_addons=False,
            **(_auto_mode_capabilities(plan.auto_mode) if plan.auto_mode is not None else {}),
            deletion_protection=protect,
            tags=tags,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=protect,
                custom_timeouts=CLUSTER_TIMEOUTS,
                depends_on=[*cluster_role.attachments, log_group],
                # bootstrapSelfManagedAddons forces a new cluster (pulumi_aws ClusterArgs docstring) and only
                # matters at creation: a cluster created with the default (true) keeps running and its self-managed
                # add-ons are taken over by the managed ones (resolveConflicts OVERWRITE). terraform-aws-eks
                # v21.19.0 main.tf:207-212 ignores it the same way. bootstrapClusterCreatorAdminPermissions cannot be
                # updated either (EKS UpdateClusterConfig has no such field; it forces a new cluster): a cluster created
                # with it keeps its creator's access entry until removed by hand (docs/security.md, "EKS access").
                ignore_changes=["bootstrapSelfManagedAddons", "accessConfig.bootstrapClusterCreatorAdminPermissions"],
            ),
        )

        # A private endpoint admits only the cluster security group: let the deployer's networks reach it.
        api_ingress = [
            aws.vpc.SecurityGroupIngressRule(
                child(name, "api-ingress", cidr),
                security_group_id=self.cluster.vpc_config.cluster_security_group_id,
                cidr_ipv4=cidr,
                ip_protocol="tcp",
                from_port=API_PORT,
                to_port=API_PORT,
                description=f"Kubernetes API of {cluster_name} from {cidr} (cluster.eks.privateAccessCidrs)",
                tags=tags,
                opts=parent,
            )
            for cidr in access.private_access_cidrs
        ]

        # The CNI, its credentials and kube-proxy exist before any node: nodes become Ready only with a CNI.
        core_addons = EksAddons(
            child(name, "core-addons"),
            EksAddonsArgs(
                tuple(a for a in plan.addons if a.before_compute),
                self.cluster.name,
                protect,
                tags=tags,
                cluster_arn=self.cluster.arn,
            ),
            parent,
        )

        admins = []
        for arn in access.admin_role_arns:
            role = eks_plan.role_name_of(arn)
            entry = aws.eks.AccessEntry(
                child(name, "access", role),
                cluster_name=self.cluster.name,
                principal_arn=arn,
                type="STANDARD",
                tags=tags,
                opts=parent,
            )
            admins.append(
                aws.eks.AccessPolicyAssociation(
                    child(name, "access", role, "admin"),
                    cluster_name=self.cluster.name,
                    principal_arn=entry.principal_arn,
                    policy_arn=eks_plan.access_policy_arn(region),
                    access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
                    opts=parent,
                )
            )
        admins.append(self._deployer_access(name, access.deployer_role_arn, region, tags))
        for tier in access.tiers:
            entry = aws.eks.AccessEntry(
                child(name, "access", tier.name),
                cluster_name=self.cluster.name,
                principal_arn=tier.principal_arn,
                type="STANDARD",
                tags=tags,
                opts=parent,
            )
            aws.eks.AccessPolicyAssociation(
                child(name, "access", tier.name, tier.policy),
                cluster_name=self.cluster.name,
                principal_arn=entry.principal_arn,
                policy_arn=eks_plan.access_policy_arn(region, tier.policy),
                access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(
                    type="namespace", namespaces=list(tier.namespaces)
                )
                if tier.namespaces
                else aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
                opts=parent,
            )

        node_needs = [*node_role.attachments, *core_addons.addons.values()]
        system_template = aws.ec2.LaunchTemplate(
            child(name, "system-launch-template"),
            description=f"System nodes of {cluster_name}",
            metadata_options=imds_v2(),
            block_device_mappings=[root_volume(eks_plan.SYSTEM_AMI_TYPE, SYSTEM_DISK_GB)],
            update_default_version=True,
            tags=tags,
            opts=parent,
        )
        system_nodes = aws.eks.NodeGroup(
            child(name, "system-nodes"),
            cluster_name=self.cluster.name,
            node_role_arn=node_role.arn,
            subnet_ids=subnet_ids,
            version=plan.kubernetes_version,
            ami_type=eks_plan.SYSTEM_AMI_TYPE,
            capacity_type="ON_DEMAND",
            instance_types=[plan.system_nodes.instance_type],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=plan.system_nodes.count,
                max_size=plan.system_nodes.count,
                desired_size=plan.system_nodes.count,
            ),
            labels={SYSTEM_ROLE_LABEL: "system"},
            launch_template=aws.eks.NodeGroupLaunchTemplateArgs(
                id=system_template.id,
                version=system_template.latest_version.apply(str),
            ),
            node_repair_config=node_repair(),
            tags=tags,
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=protect,
                custom_timeouts=GPU_POOL_TIMEOUTS,
                depends_on=node_needs,
            ),
        )

        self.pools = {}
        for group in plan.node_groups:
            pool = group.pool
            self.pools[pool.name] = EksGpuNodePool(
                child(name, "pool", pool.name),
                EksGpuNodePoolArgs(
                    plan=group,
                    cluster_name=self.cluster.name,
                    kubernetes_version=plan.kubernetes_version,
                    node_role_arn=node_role.arn,
                    subnet_ids=self._pool_subnets(
                        group.pool, group.placement_group, subnet_ids, subnets_in_zone, single_zone
                    ),
                    cluster_security_group_id=self.cluster.vpc_config.cluster_security_group_id,
                    protect=protect,
                    tags=tags,
                    after=node_needs,
                ),
                parent,
            )

        # CoreDNS and the EBS CSI controller are Deployments: they need the system nodes.
        workload_addons = EksAddons(
            child(name, "addons"),
            EksAddonsArgs(
                tuple(a for a in plan.addons if not a.before_compute),
                self.cluster.name,
                protect,
                after=[system_nodes],
                tags=tags,
                cluster_arn=self.cluster.arn,
            ),
            parent,
        )

        kubeconfig = pulumi.Output.all(
            self.cluster.name,
            self.cluster.endpoint,
            self.cluster.certificate_authority.data,
        ).apply(lambda parts: eks_plan.kubeconfig(parts[0], parts[1], parts[2], region))
        self.kubeconfig = pulumi.Output.secret(kubeconfig)
        self.provider = k8s.Provider(
            child(name, "k8s"),
            kubeconfig=self.kubeconfig,
            enable_server_side_apply=True,
            # Kubernetes objects (and Helm releases that wait for pods) need nodes, DNS, the admins' access and,
            # for a private endpoint, the deployer's way in.
            opts=pulumi.ResourceOptions(
                parent=self,
                depends_on=[system_nodes, *workload_addons.addons.values(), *admins, *api_ingress],
            ),
        )

        if plan.autoscaler is not None:
            ClusterAutoscaler(
                child(name, "autoscaler"),
                ClusterAutoscalerArgs(
                    plan.autoscaler,
                    self.cluster.name,
                    self.provider,
                    protect,
                    after=list(core_addons.addons.values()),
                    tags=tags,
                    cluster_arn=self.cluster.arn,
                ),
                parent,
            )
        provisioned: list[str] = []
        if plan.karpenter is not None:
            karpenter = Karpenter(
                child(name, "karpenter"),
                KarpenterArgs(
                    plan.karpenter,
                    self.cluster.name,
                    self.cluster.arn,
                    region,
                    pool_subnets={
                        p.pool.name: self._pool_subnets(
                            p.pool, p.placement_group, subnet_ids, subnets_in_zone, single_zone
                        )
                        for p in plan.karpenter.pools
                    },
                    security_group_id=self.cluster.vpc_config.cluster_security_group_id,
                    provider=self.provider,
                    protect=protect,
                    tags=tags,
                    after=list(core_addons.addons.values()),
                ),
                parent,
            )
            provisioned = sorted(karpenter.node_pools)
        if plan.auto_mode is not None:
            auto_pools = EksAutoModePools(
                child(name, "auto-mode"),
                EksAutoModePoolsArgs(
                    plan.auto_mode,
                    self.cluster.name,
                    region,
                    pool_subnets={
                        p.pool.name: self._pool_subnets(p.pool, False, subnet_ids, subnets_in_zone, single_zone)
                        for p in plan.auto_mode.pools
                    },
                    security_group_id=self.cluster.vpc_config.cluster_security_group_id,
                    provider=self.provider,
                    protect=protect,
                    tags=tags,
                ),
                parent,
            )
            provisioned = sorted(auto_pools.node_pools)
        if plan.efa_plugin is not None:
            EfaDevicePlugin(
                child(name, "efa-device-plugin"), EfaDevicePluginArgs(plan.efa_plugin, self.provider, protect), parent
            )
        for note in plan.notes:
            pulumi.log.info(note, resource=self)

        self.register_outputs(
            {
                "clusterName": self.cluster.name,
                "endpoint": self.cluster.endpoint,
                "kubeconfig": self.kubeconfig,
                "nodePools": sorted([*self.pools, *provisioned]),
            }
        )

    # ------------------------------------------------------------------------------------------ helpers

    def _deployer_access(
        self, name: str, role_arn: str | None, region: str, tags: dict[str, str]
    ) -> aws.eks.AccessPolicyAssociation:
        """The access entry of whoever runs `pulumi up`: cluster admin (the Kubernetes provider deploys with it) and
        member of the deployers' group, the only identity the tenant-label guard lets change tenant namespaces. The
        role is cluster.eks.deployerRoleArn, else the caller's (its role, not the session: stable between runs)."""
        principal: pulumi.Input[str]
        if role_arn is not None:
            principal = role_arn
        else:
            caller = aws.get_caller_identity_output(opts=pulumi.InvokeOutputOptions(parent=self))
            principal = aws.iam.get_session_context_output(
                arn=caller.arn, opts=pulumi.InvokeOutputOptions(parent=self)
            ).issuer_arn
        parent = pulumi.ResourceOptions(parent=self)
        entry = aws.eks.AccessEntry(
            child(name, "deployer-access"),
            cluster_name=self.cluster.name,
            principal_arn=principal,
            type="STANDARD",
            kubernetes_groups=[cluster_access.DEPLOYER_GROUP],
            tags=tags,
            opts=parent,
        )
        return aws.eks.AccessPolicyAssociation(
            child(name, "deployer-access", "admin"),
            cluster_name=self.cluster.name,
            principal_arn=entry.principal_arn,
            policy_arn=eks_plan.access_policy_arn(region),
            access_scope=aws.eks.AccessPolicyAssociationAccessScopeArgs(type="cluster"),
            opts=parent,
        )

    def _role(
        self,
        name: str,
        role: str,
        service: str,
        policies,
        region: str,
        tags: dict[str, str],
        protect: bool,
        actions: tuple[str, ...] = ("sts:AssumeRole",),
    ) -> _Role:
        # A lost cluster or node role stops the control plane or every node from working.
        iam_role = aws.iam.Role(
            child(name, role),
            assume_role_policy=json.dumps(eks_plan.assume_role_policy(service, actions)),
            tags=tags,
            opts=pulumi.ResourceOptions(parent=self, protect=protect),
        )
        attachments = [
            aws.iam.RolePolicyAttachment(
                child(name, role, policy),
                role=iam_role.name,
                policy_arn=eks_plan.managed_policy_arn(region, policy),
                opts=pulumi.ResourceOptions(parent=self),
            )
            for policy in policies
        ]
        return _Role(iam_role.arn, attachments)

    def _pool_subnets(self, pool: PoolPlan, placement_group: bool, subnet_ids, subnets_in_zone, single_zone):
        if pool.zone:
            return subnets_in_zone(pool.zone)
        if placement_group:
            subnets, where = single_zone
            pulumi.log.info(
                f"pool {pool.name}: {pool.instance_type} nodes share a cluster placement group, which lives in one zone; "
                f"the pool uses {where} only (set nodePools[].availabilityZone to choose the zone)",
                resource=self,
            )
            return subnets
        return subnet_ids

    def _subnets(self, name: str, plan: eks_plan.EksClusterPlan, tags: dict[str, str]):
        """(all private subnet ids, zone → the subnet ids in that zone, (one zone's subnets, its description))."""
        network = plan.network
        pinned = list(network.pinned_zones)
        if network.subnet_ids:
            ids = list(network.subnet_ids)
            zones = {
                sid: aws.ec2.get_subnet_output(id=sid, opts=pulumi.InvokeOutputOptions(parent=self)).availability_zone
                for sid in (ids if pinned else [])
            }

            def in_zone(zone: str) -> pulumi.Output[list[str]]:
                return pulumi.Output.all(*(zones[sid] for sid in ids)).apply(
                    lambda found: [sid for sid, z in zip(ids, found, strict=False) if z == zone]
                )

            return ids, in_zone, ([ids[0]], f"the zone of subnet {ids[0]}")

        available = aws.get_availability_zones(state="available", opts=pulumi.InvokeOptions(parent=self)).names
        try:
            zones = eks_plan.vpc_zones(available, network.zone_count, pinned)
        except ValueError as error:
            raise pulumi.RunError(f"nodePools[].availabilityZone: {error}") from None
        vpc = EksNetwork(
            child(name, "network"),
            EksNetworkArgs(cluster_name=plan.name, vpc_cidr=network.vpc_cidr, zones=zones, tags=tags),
            pulumi.ResourceOptions(parent=self),
        )
        private = vpc.private_subnet_ids
        return list(private.values()), lambda zone: [private[zone]], ([private[zones[0]]], zones[0])


def _auto_mode_capabilities(plan: AutoModePlan) -> dict[str, object]:
    """EKS Auto Mode's three capabilities, on together (pulumi_aws eks/cluster.py:1037): compute without built-in
    pools (the stack's GPU NodePools bring their own NodeClass and node role), block storage, load balancing."""
    return {
        "compute_config": aws.eks.ClusterComputeConfigArgs(enabled=True, node_pools=list(plan.node_pools)),
        "storage_config": aws.eks.ClusterStorageConfigArgs(
            block_storage=aws.eks.ClusterStorageConfigBlockStorageArgs(enabled=True)
        ),
        "kubernetes_network_config": aws.eks.ClusterKubernetesNetworkConfigArgs(
            elastic_load_balancing=aws.eks.ClusterKubernetesNetworkConfigElasticLoadBalancingArgs(enabled=True)
        ),
    }


@dataclass(frozen=True)
class _Role:
    arn: pulumi.Output[str]
    attachments: list[aws.iam.RolePolicyAttachment]
