"""EksGpuNodePool (EKS): one stack node pool as an EKS managed node group with its launch template
(IMDSv2, EFA interfaces, Capacity Block market options), an optional cluster placement group, and the
cluster-autoscaler node-template tags on the node group's Auto Scaling group."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from components.facts import eks_amis
from components.plans import eks as eks_plan
from components.facts.catalog import InstanceType
from components.config.models import NodePool
from components.facts.naming import child
from components.plans.node_pools import pool_labels
from components.facts.type_tokens import Component

GPU_POOL_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="60m")
IMDS_HOP_LIMIT = 2  # containers on the node sit one network hop further from IMDS than the host


@dataclass(frozen=True)
class EksGpuNodePoolArgs:
    pool: NodePool
    shape: InstanceType
    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    node_role_arn: pulumi.Input[str]
    subnet_ids: pulumi.Input[list[str]]
    cluster_security_group_id: pulumi.Input[str]
    autoscaler_tags: dict[str, str]
    protect: bool = False
    tags: dict[str, str] = field(default_factory=dict)


def imds_v2() -> aws.ec2.LaunchTemplateMetadataOptionsArgs:
    return aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint="enabled", http_tokens="required", http_put_response_hop_limit=IMDS_HOP_LIMIT,
    )


def root_volume(ami_type: str, size_gb: int) -> aws.ec2.LaunchTemplateBlockDeviceMappingArgs:
    return aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
        device_name=eks_amis.root_device_name(ami_type),
        ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_size=size_gb, volume_type="gp3", encrypted="true", delete_on_termination="true",
        ),
    )


class EksGpuNodePool(pulumi.ComponentResource):
    node_group: aws.eks.NodeGroup
    launch_template: aws.ec2.LaunchTemplate

    def __init__(self, name: str, args: EksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_GPU_NODE_POOL, name, None, opts)
        pool, shape = args.pool, args.shape
        parent = pulumi.ResourceOptions(parent=self)
        ami_type = eks_plan.gpu_ami_type(pool)
        capacity_type = eks_plan.capacity_type(pool)
        capacity_block = pool.capacity == "capacity-block"
        efa = eks_plan.efa_interfaces(shape)
        instance_tags = {**args.tags, "Name": name, "dra-gpu-platform.io/pool": pool.name}

        placement = None
        if eks_plan.uses_placement_group(pool, shape):
            # EFA traffic wants the lowest latency between nodes: one cluster placement group per pool.
            group = aws.ec2.PlacementGroup(child(name, "placement"), strategy="cluster", tags=instance_tags, opts=parent)
            placement = aws.ec2.LaunchTemplatePlacementArgs(group_name=group.name)

        market = reservation = None
        if capacity_block:
            market = aws.ec2.LaunchTemplateInstanceMarketOptionsArgs(market_type=eks_plan.CAPACITY_BLOCK_MARKET)
        if pool.capacity_reservation_id is not None:
            reservation = aws.ec2.LaunchTemplateCapacityReservationSpecificationArgs(
                capacity_reservation_target=aws.ec2.LaunchTemplateCapacityReservationSpecificationCapacityReservationTargetArgs(
                    capacity_reservation_id=pool.capacity_reservation_id,
                ),
            )

        self.launch_template = aws.ec2.LaunchTemplate(
            child(name, "launch-template"),
            description=f"GPU pool {pool.name}: {shape.gpus}x {pool.gpu} on {shape.name}",
            metadata_options=imds_v2(),
            block_device_mappings=[root_volume(ami_type, pool.disk_size_gb)],
            # Capacity Blocks need the instance type on the template, not on the node group.
            instance_type=shape.name if capacity_block else None,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            placement=placement,
            network_interfaces=[
                aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                    network_card_index=interface.network_card_index,
                    device_index=interface.device_index,
                    interface_type="efa",
                    delete_on_termination="true",
                    # With interfaces on the template, EKS no longer attaches the cluster security group itself.
                    security_groups=[args.cluster_security_group_id],
                )
                for interface in efa
            ] or None,
            tag_specifications=[
                aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=instance_tags)
                for kind in ("instance", "volume")
            ],
            update_default_version=True,
            tags=args.tags,
            opts=parent,
        )

        taint_key, taint_value, taint_effect = eks_plan.eks_taint()
        self.node_group = aws.eks.NodeGroup(
            child(name, "nodes"),
            cluster_name=args.cluster_name,
            node_role_arn=args.node_role_arn,
            subnet_ids=args.subnet_ids,
            version=args.kubernetes_version,
            ami_type=ami_type,
            capacity_type=capacity_type,
            instance_types=None if capacity_block else [shape.name],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=pool.min_nodes, max_size=pool.max_nodes, desired_size=pool.initial_nodes,
            ),
            update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            labels=pool_labels(pool),
            taints=[aws.eks.NodeGroupTaintArgs(key=taint_key, value=taint_value, effect=taint_effect)],
            launch_template=aws.eks.NodeGroupLaunchTemplateArgs(
                id=self.launch_template.id, version=self.launch_template.latest_version.apply(str),
            ),
            tags={**args.tags, **args.autoscaler_tags},
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                custom_timeouts=GPU_POOL_TIMEOUTS,
                # The cluster autoscaler owns the size between min and max.
                ignore_changes=["scalingConfig.desiredSize"],
            ),
        )

        # Managed node groups do not copy their tags to the Auto Scaling group, where the autoscaler
        # reads node templates; tag the group directly (not propagated to instances).
        asg_name = self.node_group.resources.apply(lambda resources: resources[0].autoscaling_groups[0].name)
        for key, value in eks_plan.node_template_tags(args.autoscaler_tags).items():
            aws.autoscaling.Tag(
                child(name, "asg-tag", key.removeprefix(f"{eks_plan.NODE_TEMPLATE}/")),
                autoscaling_group_name=asg_name,
                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                opts=parent,
            )

        self.register_outputs({
            "nodeGroupArn": self.node_group.arn,
            "instanceType": shape.name,
            "gpusPerNode": shape.gpus,
            "maxGpus": shape.gpus * pool.max_nodes,
        })
