"""EksGpuNodePool (EKS): one stack node pool as an EKS managed node group with its launch template
(IMDSv2 with one hop, EFA on card 0 and EFA-only on the other cards, Capacity Block market options, a RAID0
instance store on NVMe instances), node auto-repair, an optional cluster placement group, the
cluster-autoscaler discovery and node-template tags on the node group's Auto Scaling group, and scheduled
scaling to a Capacity Block's start and end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pulumi_aws as aws

from dra_gpu_platform.facts import eks_amis
from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan
from dra_gpu_platform.plans import parts

GPU_POOL_TIMEOUTS = pulumi.CustomTimeouts(create="60m", update="60m", delete="60m")


@dataclass(frozen=True)
class EksGpuNodePoolArgs:
    plan: eks_plan.EksNodeGroupPlan
    cluster_name: pulumi.Input[str]
    kubernetes_version: str
    node_role_arn: pulumi.Input[str]
    subnet_ids: pulumi.Input[list[str]]
    cluster_security_group_id: pulumi.Input[str]
    protect: bool = False
    tags: dict[str, str] = field(default_factory=dict)
    # what the node group waits for: the node role's policies and the add-ons nodes need to become Ready
    after: Sequence[pulumi.Resource] = ()

    @classmethod
    def from_sections(cls, sections: Mapping[str, Any], **arguments: Any) -> EksGpuNodePoolArgs:
        """The pool named `pool` of a stack file's sections (every section but `cluster`; keys without the prefix),
        on the existing EKS cluster `cluster_name` (plain text: the autoscaler's discovery tags carry it) of
        `kubernetes_version` in `region`. Validated as a stack file is (one ConfigError listing every problem), then
        planned as GpuPlatform plans it; the other arguments are the cluster's wiring. The arguments and their docs:
        dra_gpu_platform/config/descriptors.py EKS_GPU_NODE_POOL (docs/library.md)."""
        part = parts.plan_part(parts.EKS_GPU_NODE_POOL, sections, arguments, stack=pulumi.get_stack())
        kept = part.kept(parts.EKS_GPU_NODE_POOL)
        # EksCluster tags its pools the same way
        kept["tags"] = {CLUSTER_TAG: kept["cluster_name"], **(kept["tags"] or {})}
        return cls(plan=part.plan, **kept)


def imds_v2() -> aws.ec2.LaunchTemplateMetadataOptionsArgs:
    return aws.ec2.LaunchTemplateMetadataOptionsArgs(
        http_endpoint="enabled",
        http_tokens="required",
        http_put_response_hop_limit=eks_plan.IMDS_HOP_LIMIT,
    )


def node_repair() -> aws.eks.NodeGroupNodeRepairConfigArgs:
    # EKS replaces nodes that stay unhealthy (NotReady, or conditions the node monitoring agent reports).
    return aws.eks.NodeGroupNodeRepairConfigArgs(enabled=True)


def root_volume(ami_type: str | None, size_gb: int) -> aws.ec2.LaunchTemplateBlockDeviceMappingArgs:
    return aws.ec2.LaunchTemplateBlockDeviceMappingArgs(
        device_name=eks_amis.root_device_name(ami_type),
        ebs=aws.ec2.LaunchTemplateBlockDeviceMappingEbsArgs(
            volume_size=size_gb,
            volume_type="gp3",
            encrypted="true",
            delete_on_termination="true",
        ),
    )


class EksGpuNodePool(pulumi.ComponentResource):
    node_group: aws.eks.NodeGroup
    launch_template: aws.ec2.LaunchTemplate

    def __init__(self, name: str, args: EksGpuNodePoolArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_GPU_NODE_POOL, name, None, opts)
        plan = args.plan
        pool = plan.pool
        parent = pulumi.ResourceOptions(parent=self)
        ami_type = pool.ami_type
        capacity_block = plan.capacity_block
        instance_tags = {**args.tags, "Name": name, "dra-gpu-platform.io/pool": pool.name}

        placement = None
        if plan.placement_group:
            # EFA traffic wants the lowest latency between nodes: one cluster placement group per pool.
            group = aws.ec2.PlacementGroup(
                child(name, "placement"), strategy="cluster", tags=instance_tags, opts=parent
            )
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
            description=f"GPU pool {pool.name}: {pool.gpus_per_node}x {pool.gpu} on {pool.instance_type}",
            metadata_options=imds_v2(),
            block_device_mappings=[root_volume(ami_type, pool.disk_size_gb)],
            # Capacity Blocks need the instance type on the template, not on the node group.
            instance_type=pool.instance_type if capacity_block else None,
            instance_market_options=market,
            capacity_reservation_specification=reservation,
            placement=placement,
            network_interfaces=[
                aws.ec2.LaunchTemplateNetworkInterfaceArgs(
                    network_card_index=interface.network_card_index,
                    device_index=interface.device_index,
                    interface_type=interface.interface_type,
                    delete_on_termination="true",
                    # With interfaces on the template, EKS no longer attaches the cluster security group itself.
                    security_groups=[args.cluster_security_group_id],
                )
                for interface in plan.efa
            ]
            or None,
            user_data=plan.user_data,
            tag_specifications=[
                aws.ec2.LaunchTemplateTagSpecificationArgs(resource_type=kind, tags=instance_tags)
                for kind in ("instance", "volume")
            ],
            update_default_version=True,
            tags=args.tags,
            opts=parent,
        )

        self.node_group = aws.eks.NodeGroup(
            child(name, "nodes"),
            cluster_name=args.cluster_name,
            node_role_arn=args.node_role_arn,
            subnet_ids=args.subnet_ids,
            version=args.kubernetes_version,
            ami_type=ami_type,
            capacity_type=plan.capacity_type,
            instance_types=None if capacity_block else [pool.instance_type],
            scaling_config=aws.eks.NodeGroupScalingConfigArgs(
                min_size=pool.min_nodes,
                max_size=pool.max_nodes,
                desired_size=pool.desired_nodes,
            ),
            update_config=aws.eks.NodeGroupUpdateConfigArgs(max_unavailable=1),
            node_repair_config=node_repair(),
            labels=pool.labels,
            taints=[aws.eks.NodeGroupTaintArgs(key=t.key, value=t.value, effect=t.eks_effect) for t in pool.taints],
            launch_template=aws.eks.NodeGroupLaunchTemplateArgs(
                id=self.launch_template.id,
                version=self.launch_template.latest_version.apply(str),
            ),
            tags={**args.tags, **plan.autoscaler_tags},
            opts=pulumi.ResourceOptions(
                parent=self,
                protect=args.protect,
                custom_timeouts=GPU_POOL_TIMEOUTS,
                # The cluster autoscaler (or a Capacity Block's schedule) owns the size between min and max;
                # the EKS API reference says not to change desiredSize under the autoscaler.
                ignore_changes=["scalingConfig.desiredSize"],
                depends_on=list(args.after),
            ),
        )

        # Managed node groups do not copy their tags to the Auto Scaling group, where the autoscaler
        # discovers groups and reads node templates; tag the group directly (not propagated to instances).
        asg_name = self.node_group.resources.apply(lambda resources: resources[0].autoscaling_groups[0].name)
        for key, value in plan.asg_tags.items():
            aws.autoscaling.Tag(
                child(name, "asg-tag", key.removeprefix(f"{eks_plan.NODE_TEMPLATE}/")),
                autoscaling_group_name=asg_name,
                tag=aws.autoscaling.TagTagArgs(key=key, value=value, propagate_at_launch=False),
                opts=parent,
            )
        for schedule in plan.schedules:
            aws.autoscaling.Schedule(
                child(name, "schedule", schedule.name.removeprefix(f"{pool.name}-")),
                scheduled_action_name=schedule.name,
                autoscaling_group_name=asg_name,
                start_time=schedule.start_time,
                desired_capacity=schedule.desired,
                min_size=schedule.min_size,
                max_size=schedule.max_size,
                opts=parent,
            )

        self.register_outputs(
            {
                "nodeGroupArn": self.node_group.arn,
                "instanceType": pool.instance_type,
                "gpusPerNode": pool.gpus_per_node,
                "maxGpus": pool.max_gpus,
                "autoscaled": pool.autoscaled,
            }
        )
