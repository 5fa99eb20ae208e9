"""EksNetwork: the VPC of an EKS stack that names no subnets: private subnets across zones (nodes and
control-plane ENIs), small public subnets holding one NAT gateway per zone for egress."""

from __future__ import annotations

from dataclasses import dataclass, field

import pulumi
import pulumi_aws as aws

from dra_gpu_platform.facts.naming import child
from dra_gpu_platform.facts.type_tokens import Component
from dra_gpu_platform.plans import eks as eks_plan


@dataclass(frozen=True)
class EksNetworkArgs:
    cluster_name: str
    vpc_cidr: str
    zones: list[str]  # from eks_plan.vpc_zones
    tags: dict[str, str] = field(default_factory=dict)


class EksNetwork(pulumi.ComponentResource):
    vpc_id: pulumi.Output[str]
    private_subnet_ids: dict[str, pulumi.Output[str]]  # zone → subnet id

    def __init__(self, name: str, args: EksNetworkArgs, opts: pulumi.ResourceOptions | None = None):
        super().__init__(Component.EKS_NETWORK, name, None, opts)
        parent = pulumi.ResourceOptions(parent=self)

        def tags(role: str, **extra: str) -> dict[str, str]:
            return {**args.tags, "Name": child(args.cluster_name, role), **extra}

        vpc = aws.ec2.Vpc(
            child(name, "vpc"),
            cidr_block=args.vpc_cidr,
            enable_dns_hostnames=True,
            enable_dns_support=True,
            tags=tags("vpc"),
            opts=parent,
        )
        gateway = aws.ec2.InternetGateway(child(name, "igw"), vpc_id=vpc.id, tags=tags("igw"), opts=parent)
        public_routes = aws.ec2.RouteTable(
            child(name, "public"),
            vpc_id=vpc.id,
            routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", gateway_id=gateway.id)],
            tags=tags("public"),
            opts=parent,
        )
        self.private_subnet_ids = {}
        # Names carry the zone, never a position: adding a zone later creates, never replaces.
        for plan in eks_plan.subnet_plan(args.vpc_cidr, args.zones):
            zone = plan.zone
            public = aws.ec2.Subnet(
                child(name, "public", zone),
                vpc_id=vpc.id,
                cidr_block=plan.public_cidr,
                availability_zone=zone,
                tags=tags(f"public-{zone}", **{"kubernetes.io/role/elb": "1"}),
                opts=parent,
            )
            aws.ec2.RouteTableAssociation(
                child(name, "public", zone), subnet_id=public.id, route_table_id=public_routes.id, opts=parent
            )
            address = aws.ec2.Eip(child(name, "nat", zone), domain="vpc", tags=tags(f"nat-{zone}"), opts=parent)
            nat = aws.ec2.NatGateway(
                child(name, "nat", zone),
                allocation_id=address.id,
                subnet_id=public.id,
                tags=tags(f"nat-{zone}"),
                opts=pulumi.ResourceOptions(parent=self, depends_on=[gateway]),
            )
            private = aws.ec2.Subnet(
                child(name, "private", zone),
                vpc_id=vpc.id,
                cidr_block=plan.private_cidr,
                availability_zone=zone,
                tags=tags(f"private-{zone}", **{"kubernetes.io/role/internal-elb": "1"}),
                opts=parent,
            )
            routes = aws.ec2.RouteTable(
                child(name, "private", zone),
                vpc_id=vpc.id,
                routes=[aws.ec2.RouteTableRouteArgs(cidr_block="0.0.0.0/0", nat_gateway_id=nat.id)],
                tags=tags(f"private-{zone}"),
                opts=parent,
            )
            aws.ec2.RouteTableAssociation(
                child(name, "private", zone), subnet_id=private.id, route_table_id=routes.id, opts=parent
            )
            self.private_subnet_ids[zone] = private.id

        self.vpc_id = vpc.id
        self.register_outputs({"vpcId": self.vpc_id, "privateSubnetIds": dict(self.private_subnet_ids)})
