"""Rules of `nodePools`: sizes, instance types against the catalog (or declared with allowUnlisted), described GPUs,
capacity options and declared prices, MIG, labels; EKS zones and AKS agent pool names."""

from __future__ import annotations

from dra_gpu_platform.config.cluster import AksCluster
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.node_pools import DescribedGpu, NodePool
from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import catalog, eks_amis, platforms, regions
from dra_gpu_platform.facts.quantity import parse_quantity
from dra_gpu_platform.inputs.problems import MISSING

RESERVED_LABEL_PREFIXES = (
    "dra-gpu-platform.io/",
    "nvidia.com/",
    "kubernetes.io/",
    "k8s.io/",
    "node-role.kubernetes.io/",
)


def check(r: RuleContext) -> None:
    c = r.c
    platform = c.platform
    shapes = c.profile.node_pools
    r.unique("nodePools", (p.name for p in c.node_pools))
    for i, pool in enumerate(c.node_pools):
        at = f"nodePools[{i}]"
        model = pool.gpu_model
        if pool.described_gpu is not None:
            _described_gpu(r, at, pool, pool.described_gpu)
        if pool.price is not None:
            _declared_price(r, at, pool)
        if pool.min_nodes > pool.max_nodes:
            r.add(
                f"{at}.minNodes",
                pool.min_nodes,
                f"minNodes must be ≤ maxNodes ({pool.max_nodes})",
                "lower minNodes or raise maxNodes",
            )
        if pool.desired_nodes is not None and not pool.min_nodes <= pool.desired_nodes <= pool.max_nodes:
            r.add(
                f"{at}.desiredNodes",
                pool.desired_nodes,
                f"desiredNodes must lie within minNodes..maxNodes ({pool.min_nodes}..{pool.max_nodes})",
                "choose a size within the autoscaling range",
            )
        if shapes.bought:
            _cloud_instance(r, at, pool, platform)
            if shapes.ami_types:
                _ami_architecture(r, at, pool, platform)
            if shapes.capacity_blocks:
                _capacity_blocks_only(r, at, pool, platform)
            if pool.gpus_per_node is not None:
                r.add(
                    f"{at}.gpusPerNode",
                    pool.gpus_per_node,
                    "on eks/aks the GPU count comes from the instance type",
                    "remove gpusPerNode; choose an instanceType with that many GPUs",
                )
        else:
            _no_unlisted(r, at, pool, platform)
            if pool.instance_type is not None and not shapes.names_catalog_type:
                r.add(
                    f"{at}.instanceType",
                    pool.instance_type,
                    "kind workers have no instance type",
                    "remove instanceType",
                )
            elif pool.instance_type is not None:
                known = catalog.instance_type_named(pool.instance_type)
                if known is None:
                    r.add(
                        f"{at}.instanceType",
                        pool.instance_type,
                        "unknown instance type (used to count GPUs per node)",
                        "set gpusPerNode instead, or use a catalog type",
                    )
                elif known.gpu != pool.gpu_key:
                    r.add(
                        f"{at}.instanceType",
                        pool.instance_type,
                        f"{pool.instance_type} carries {known.gpu}, not {pool.gpu_name}",
                        f"set gpu: {known.gpu} or pick another type",
                    )
        if pool.capacity != "on-demand" and not shapes.bought:
            r.add(
                f"{at}.capacity",
                pool.capacity,
                f"capacity applies to cloud pools, not platform {platform}",
                "remove capacity",
            )
        if pool.capacity == "capacity-block":
            if shapes.bought and not shapes.capacity_blocks:
                r.add(
                    f"{at}.capacity",
                    pool.capacity,
                    f"EC2 Capacity Blocks do not exist on {c.profile.title}",
                    "use on-demand or spot; for reserved Azure capacity use a capacity reservation group",
                )
            elif pool.capacity_reservation_id is None:
                r.add(
                    f"{at}.capacityReservationId",
                    MISSING,
                    "capacity-block pools need the Capacity Block reservation id",
                    "add capacityReservationId: cr-... (from the EC2 console or `aws ec2 describe-capacity-reservations`)",
                )
            if shapes.zones and pool.availability_zone is None:
                reservation = pool.capacity_reservation_id or "cr-..."
                r.add(
                    f"{at}.availabilityZone",
                    MISSING,
                    "a Capacity Block lives in one zone; the pool's subnets must be limited to it",
                    f"add availabilityZone: the reservation's zone, {zone_choice(r)} (`aws ec2 "
                    f"describe-capacity-reservations --capacity-reservation-ids {reservation}` shows it)",
                )
            if pool.min_nodes > 0 or pool.desired_nodes is not None:
                field, value = (
                    ("minNodes", pool.min_nodes) if pool.min_nodes > 0 else ("desiredNodes", pool.desired_nodes)
                )
                r.add(
                    f"{at}.{field}",
                    value,
                    "a Capacity Block pool is sized by its block (maxNodes instances), not autoscaled",
                    f"remove {field}; set maxNodes to the block's instance count and, to scale with the block, "
                    "capacityBlockStart and capacityBlockEnd",
                )
            _block_window(r, at, pool)
        elif pool.capacity_block_start is not None or pool.capacity_block_end is not None:
            field = "capacityBlockStart" if pool.capacity_block_start is not None else "capacityBlockEnd"
            r.add(
                f"{at}.{field}",
                str(pool.capacity_block_start or pool.capacity_block_end),
                "a block's start and end apply to capacity: capacity-block pools",
                f"remove {field}",
            )
        elif pool.capacity_reservation_id is not None and (not shapes.capacity_reservations or pool.capacity == "spot"):
            r.add(
                f"{at}.capacityReservationId",
                pool.capacity_reservation_id,
                "a capacity reservation id applies to EKS capacity-block or on-demand pools only",
                "remove it, or set capacity: capacity-block",
            )
        if pool.availability_zone is not None and not shapes.zones:
            r.add(f"{at}.availabilityZone", pool.availability_zone, "availabilityZone is an EKS setting", "remove it")
        if pool.ami_type is not None and not shapes.ami_types:
            r.add(f"{at}.amiType", pool.ami_type, "amiType is an EKS setting", "remove it")
        if pool.mig is not None:
            if not model.supports_mig:
                r.add(
                    f"{at}.mig",
                    {"profile": pool.mig.profile},
                    f"{pool.gpu_name} does not support MIG",
                    "remove mig, or use an A100/H100/H200 pool",
                )
            elif model.mig_profile(pool.mig.profile) is None:
                r.add(
                    f"{at}.mig.profile",
                    pool.mig.profile,
                    f"not a MIG profile of {pool.gpu_name}",
                    f"use one of {', '.join(p.name for p in model.mig_profiles)}",
                )
            if c.uses_example_driver:
                r.add(
                    f"{at}.mig",
                    {"profile": pool.mig.profile},
                    "the dra-example-driver has no MIG devices",
                    "remove mig or use kind.gpuDriver: nvidia",
                )
        if shapes.existing_nodes and pool.nodes and len(pool.nodes) != pool.max_nodes:
            r.add(
                f"{at}.maxNodes",
                pool.max_nodes,
                f"an existing pool has exactly the nodes it names ({len(pool.nodes)} in nodes), so maxNodes must "
                "say the same: fit and the policy pack simulate maxNodes nodes",
                f"set maxNodes: {len(pool.nodes)}, or list every node of the pool in nodes",
            )
        if pool.nodes and not shapes.existing_nodes:
            r.add(
                f"{at}.nodes",
                pool.nodes,
                f"nodes names existing nodes of platform existing; on {platform} the pool creates its nodes",
                "remove nodes",
            )
        for key in pool.labels:
            if key.startswith(RESERVED_LABEL_PREFIXES):
                r.add(
                    f"{at}.labels.{key}",
                    pool.labels[key],
                    "this label domain is managed by the platform",
                    "use your own prefix, e.g. team: research or example.com/team",
                )
    _node_owners(r)


def _node_owners(r: RuleContext) -> None:
    """A node belongs to one pool: two pools' labels (gpu-stack, the DRA plugin label) on one node contradict."""
    owner: dict[str, str] = {}
    for i, pool in enumerate(r.c.node_pools):
        for j, node in enumerate(pool.nodes):
            if node in owner:
                r.add(
                    f"nodePools[{i}].nodes[{j}]",
                    node,
                    f"node {node} is already listed by {owner[node]}",
                    "list each node in one pool only",
                )
            else:
                owner[node] = f"nodePools[{i}] ({pool.name})"


def _block_window(r: RuleContext, at: str, pool: NodePool) -> None:
    start, end = pool.capacity_block_start, pool.capacity_block_end
    if (start is None) != (end is None):
        missing = "capacityBlockEnd" if end is None else "capacityBlockStart"
        r.add(
            f"{at}.{missing}",
            MISSING,
            "scheduled scaling needs both the block's start and its end",
            f"add {missing} (from `aws ec2 describe-capacity-reservations`: StartDate / EndDate)",
        )
    elif start is not None and end is not None and end <= start:
        r.add(
            f"{at}.capacityBlockEnd",
            str(end),
            f"the block must end after it starts ({start.isoformat()})",
            "copy StartDate and EndDate of the reservation",
        )


def _cloud_instance(r: RuleContext, at: str, pool: NodePool, platform: str) -> None:
    if pool.described_gpu is not None:
        return  # a described GPU on a cloud is its own problem (_described_gpu)
    kind = platforms.profile(platform).node_pools.bought_by
    if pool.instance_type is None:
        if pool.allow_unlisted or pool.instance_facts is not None:
            r.add(
                f"{at}.instanceType",
                MISSING,
                f"allowUnlisted and instanceFacts describe an {kind} the pool names",
                f"add instanceType: <the unlisted {kind}>, or remove allowUnlisted and instanceFacts",
            )
        if catalog.default_instance_type(platform, pool.gpu_key) is None:
            offered = sorted({t.gpu for t in catalog.INSTANCE_TYPES.values() if t.platform == platform})
            r.add(
                f"{at}.gpu",
                pool.gpu_name,
                f"no {platforms.profile(platform).title} {kind} in the catalog carries {pool.gpu_name}",
                f"use one of {', '.join(offered)} on {platform}, or set instanceType to a known size (or an unlisted "
                "one with allowUnlisted: true and instanceFacts)",
            )
        return
    shape = catalog.instance_type(platform, pool.instance_type)
    options = [t.name for t in catalog.instance_types_for(platform, pool.gpu_key)]
    fractional = platforms.profile(platform).node_pools.is_fractional_gpu_type
    if fractional is not None and fractional(pool.instance_type) and pool.gpu_stack == "dra":
        family = pool.instance_type.split(".", 1)[0]
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"{family} is a fractional-GPU family: EC2 reports no whole GPU (GpuInfo Count 0, a share of one L4), so "
            "the NVIDIA DRA driver has no GPU device to publish and Karpenter carries no NVIDIA DRA metadata for it "
            "(docs/references.md#ec2-fractional-gpu-types)",
            f"use a whole-GPU type for a DRA pool ({', '.join(options[:3]) or 'g6.xlarge'}), or gpuStack: "
            "device-plugin for the vGPU share",
        )
        return
    if shape is None:
        if pool.allow_unlisted:
            _unlisted(r, at, pool, platform)
            return
        declared = " (your instanceFacts describe it)" if pool.instance_facts is not None else ""
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"unknown {platforms.profile(platform).title} {kind} for GPU pools: the catalog does not list it",
            f"use one of {', '.join(options) or '(none for ' + pool.gpu_name + ')'}, or accept it with "
            f"allowUnlisted: true{declared} and instanceFacts: {{gpus, vcpu, memory, efaInterfaces}}",
        )
        return
    for field, given in (("allowUnlisted", pool.allow_unlisted), ("instanceFacts", pool.instance_facts is not None)):
        if given:
            r.add(
                f"{at}.{field}",
                True if field == "allowUnlisted" else "{...}",
                f"{pool.instance_type} is in the catalog: its facts come from there (docs/configuration.md)",
                f"remove {field}",
            )
    if shape.gpu != pool.gpu_key:
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"{pool.instance_type} carries {shape.gpu}, not {pool.gpu_name}",
            f"set gpu: {shape.gpu}, or use one of {', '.join(options) or '(none)'}",
        )


def _ami_architecture(r: RuleContext, at: str, pool: NodePool, platform: str) -> None:
    """Every amiType a stack may choose is x86_64; an arm64 instance (p6e-gb200) takes the arm64 default."""
    shape = pool.declared_shape(platform) or catalog.pool_shape(platform, pool.gpu_key, pool.instance_type)
    if pool.ami_type is not None and shape is not None and shape.cpu_architecture == "arm64":
        r.add(
            f"{at}.amiType",
            pool.ami_type,
            f"{shape.name} has arm64 (Grace) CPUs; {pool.ami_type} is an x86_64 AMI type",
            f"remove amiType: the pool gets {eks_amis.default_gpu_ami('arm64')}",
        )


def _capacity_blocks_only(r: RuleContext, at: str, pool: NodePool, platform: str) -> None:
    """An instance type AWS sells only through Capacity Blocks (p6e-gb200, inside UltraServers) has no on-demand or
    spot market: such a node group would never get an instance (docs/references.md#ec2-p6e-gb200)."""
    shape = catalog.pool_shape(platform, pool.gpu_key, pool.instance_type)
    if shape is not None and shape.capacity_blocks_only and pool.capacity != "capacity-block":
        r.add(
            f"{at}.capacity",
            pool.capacity,
            f"{shape.name} is sold only through EC2 Capacity Blocks (inside UltraServers), never {pool.capacity}",
            "set capacity: capacity-block with the block's capacityReservationId and availabilityZone, and maxNodes "
            "its instance count",
        )


def _unlisted(r: RuleContext, at: str, pool: NodePool, platform: str) -> None:
    """An instance type the catalog does not list, accepted with allowUnlisted: its facts must be declared."""
    shapes = platforms.profile(platform).node_pools
    if shapes.name_pattern is not None and not shapes.name_pattern.match(pool.instance_type or ""):
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"not {shapes.name_spelled}",
            "copy the name from the cloud's list",
        )
    facts = pool.instance_facts
    if facts is None:
        r.add(
            f"{at}.instanceFacts",
            MISSING,
            "allowUnlisted needs what the program cannot look up for an unlisted type: GPUs, vCPUs, memory, EFA",
            "add instanceFacts: {gpus: 4, vcpu: 64, memory: 256Gi, efaInterfaces: 0} with the type's real figures",
        )
        return
    if parse_quantity(facts.memory).value <= 0:
        r.add(f"{at}.instanceFacts.memory", facts.memory, "must be a positive quantity", "write it as e.g. 256Gi")
    if not shapes.efa and facts.efa_interfaces:
        r.add(
            f"{at}.instanceFacts.efaInterfaces",
            facts.efa_interfaces,
            "EFA is an EC2 network interface; AKS VM sizes have none",
            "remove efaInterfaces (0)",
        )


def _no_unlisted(r: RuleContext, at: str, pool: NodePool, platform: str) -> None:
    """allowUnlisted and instanceFacts are for the clouds' instance types; kind and existing nodes say gpusPerNode."""
    for field, given in (("allowUnlisted", pool.allow_unlisted), ("instanceFacts", pool.instance_facts is not None)):
        if given:
            r.add(
                f"{at}.{field}",
                True if field == "allowUnlisted" else "{...}",
                f"{field} declares an EKS or AKS instance type; platform {platform} nodes are not bought by type",
                f"remove {field}; say gpusPerNode (and describe the GPU in gpu if the catalog lacks it)",
            )


def _described_gpu(r: RuleContext, at: str, pool: NodePool, gpu: DescribedGpu) -> None:
    """A GPU the catalog does not list: only where no cloud API checks it, with GPUs per node, facts that hold."""
    c = r.c
    value = {"product": gpu.product}
    if c.profile.node_pools.bought:
        offered = ", ".join(catalog.gpus_offered(c.platform))
        r.add(
            f"{at}.gpu",
            value,
            f"a described GPU is allowed only where no cloud API checks it (platform existing, or kind with "
            f"gpuDriver: nvidia); {c.profile.title} pools take a catalog GPU",
            f"use one of {offered}; for an instance type the catalog does not list, keep a catalog GPU and set "
            "instanceType, allowUnlisted: true and instanceFacts",
        )
    elif c.uses_example_driver:
        r.add(
            f"{at}.gpu",
            value,
            "the dra-example-driver publishes fake GPUs of its own; a described GPU needs real ones",
            "use kind.gpuDriver: nvidia on a host with these GPUs, or a catalog GPU key",
        )
    if pool.gpus_per_node is None and not c.profile.node_pools.bought:  # on a cloud the GPU itself is refused
        r.add(
            f"{at}.gpusPerNode",
            MISSING,
            "a described GPU's pool must say how many GPUs each node has",
            "add gpusPerNode: <GPUs per node> (`nvidia-smi -L | wc -l` on a node)",
        )
    known = next((m for m in catalog.GPU_MODELS.values() if m.product_name == gpu.product), None)
    if known is not None:
        r.add(
            f"{at}.gpu.product",
            gpu.product,
            f"the catalog knows {gpu.product} as {known.key}",
            f"write gpu: {known.key}",
        )
    if parse_quantity(gpu.memory).value <= 0:
        r.add(f"{at}.gpu.memory", gpu.memory, "must be a positive quantity", "write what NVML reports, e.g. 24564Mi")
    names = [p.name for p in gpu.mig_profiles]
    for j, profile in enumerate(gpu.mig_profiles):
        if profile.max_count * profile.memory_slices > 8:
            r.add(
                f"{at}.gpu.migProfiles[{j}]",
                {"name": profile.name, "maxCount": profile.max_count, "memorySlices": profile.memory_slices},
                "maxCount × memorySlices exceeds the 8 memory slices of a GPU",
                "copy the profile's instances and memory slices from `nvidia-smi mig -lgip`",
            )
        if names.index(profile.name) != j:
            r.add(f"{at}.gpu.migProfiles[{j}].name", profile.name, "listed twice", "list each profile once")


def _declared_price(r: RuleContext, at: str, pool: NodePool) -> None:
    reserved = pool.capacity == "capacity-block" or (
        pool.capacity == "on-demand" and pool.capacity_reservation_id is not None
    )
    if not r.c.profile.node_pools.bought or not reserved:
        r.add(
            f"{at}.price",
            {"perNodeHour": pool.price.per_node_hour if pool.price else None},
            "a declared price applies to capacity-block pools and on-demand pools in a capacity reservation "
            "(capacityReservationId); other pools are priced from the project's price facts (or shown as unknown)",
            "remove price",
        )


def check_cloud(r: RuleContext) -> None:
    if r.c.profile.node_pools.zones:
        _zones(r)
    if isinstance(r.c.cluster, AksCluster):
        _aks_pools(r, r.c.cluster)


def _zones(r: RuleContext) -> None:
    """A pool limited to a zone names a zone of the stack's region."""
    region = r.c.region
    for i, pool in enumerate(r.c.node_pools):
        at = f"nodePools[{i}]"
        zone = pool.availability_zone
        if zone is not None and region and not (zone.startswith(region) and len(zone) > len(region)):
            r.add(
                f"{at}.availabilityZone",
                zone,
                f"not a zone of the stack's region {region}",
                f"use {zone_choice(r)}",
            )


def zone_choice(r: RuleContext) -> str:
    """The zones of the stack's region, as a fix offers them (dra_gpu_platform/facts/regions.py)."""
    region = r.c.region
    zones = regions.aws_zones(region or "")
    if zones:
        return f"one of {', '.join(zones)}"
    if not region:
        where = r.c.profile.region
        return f"a zone of the stack's {where.key if where else 'region'}"
    return f"a zone of {region}, e.g. {region}a (`aws ec2 describe-availability-zones --region {region}` lists them)"


def _aks_pools(r: RuleContext, cluster: AksCluster) -> None:
    c = r.c
    settings = cluster.settings()
    if settings.existing_resource_group and not settings.resource_group:
        r.add(
            "cluster.aks.resourceGroup",
            MISSING,
            "existingResourceGroup needs the group's name",
            "add resourceGroup: <name of the existing group>",
        )
    for i, pool in enumerate(c.node_pools):
        at = f"nodePools[{i}]"
        problem = aks_facts.agent_pool_name_problem(pool.name)
        if problem:
            r.add(
                f"{at}.name",
                pool.name,
                problem,
                "rename the pool so it starts with a letter (AKS pool names: 1-12 lower-case letters and digits)",
            )
        if pool.mig is not None and pool.described_gpu is None and pool.gpu_model.mig_profile(pool.mig.profile):
            if aks_facts.gpu_instance_profile(pool.gpu_key, pool.mig.profile) is None:
                r.add(
                    f"{at}.mig.profile",
                    pool.mig.profile,
                    "AKS partitions MIG pools by slice count only (gpuInstanceProfile MIG1g…MIG7g) into the smallest profile of that size",
                    f"use one of {', '.join(aks_facts.aks_mig_profiles(pool.gpu_key))}",
                )
    names = [p.name for p in c.node_pools]
    # duplicates of one name are reported by unique(); here only distinct names that collide
    for derived, pools in sorted(aks_facts.colliding_pool_names(dict.fromkeys(names)).items()):
        for name in pools[1:]:
            r.add(
                f"nodePools[{names.index(name)}].name",
                name,
                f"pools {', '.join(pools)} all become AKS agent pool {derived!r} (letters and digits of the name, at most 12)",
                "rename one of them so the first 12 letters and digits differ",
            )
