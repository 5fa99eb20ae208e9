"""Rules of `nodePools`: sizes, instance types against the catalog, capacity options, MIG, labels; EKS zones and
AKS agent pool names."""

from __future__ import annotations

from dra_gpu_platform.config.problems import MISSING
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import catalog

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
    r.unique("nodePools", (p.name for p in c.node_pools))
    for i, pool in enumerate(c.node_pools):
        at = f"nodePools[{i}]"
        model = catalog.gpu_model(pool.gpu)
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
        if platform in ("eks", "aks"):
            _cloud_instance(r, at, pool, platform)
            if pool.gpus_per_node is not None:
                r.add(
                    f"{at}.gpusPerNode",
                    pool.gpus_per_node,
                    "on eks/aks the GPU count comes from the instance type",
                    "remove gpusPerNode; choose an instanceType with that many GPUs",
                )
        elif pool.instance_type is not None and platform == "kind":
            r.add(f"{at}.instanceType", pool.instance_type, "kind workers have no instance type", "remove instanceType")
        elif pool.instance_type is not None:
            known = catalog.instance_type_named(pool.instance_type)
            if known is None:
                r.add(
                    f"{at}.instanceType",
                    pool.instance_type,
                    "unknown instance type (used to count GPUs per node)",
                    "set gpusPerNode instead, or use a catalog type",
                )
            elif known.gpu != pool.gpu:
                r.add(
                    f"{at}.instanceType",
                    pool.instance_type,
                    f"{pool.instance_type} carries {known.gpu}, not {pool.gpu}",
                    f"set gpu: {known.gpu} or pick another type",
                )
        if pool.capacity != "on-demand" and platform in ("kind", "existing"):
            r.add(
                f"{at}.capacity",
                pool.capacity,
                f"capacity applies to cloud pools, not platform {platform}",
                "remove capacity",
            )
        if pool.capacity == "capacity-block":
            if platform == "aks":
                r.add(
                    f"{at}.capacity",
                    pool.capacity,
                    "EC2 Capacity Blocks do not exist on AKS",
                    "use on-demand or spot; for reserved Azure capacity use a capacity reservation group",
                )
            elif pool.capacity_reservation_id is None:
                r.add(
                    f"{at}.capacityReservationId",
                    MISSING,
                    "capacity-block pools need the Capacity Block reservation id",
                    "add capacityReservationId: cr-... (from the EC2 console or `aws ec2 describe-capacity-reservations`)",
                )
            if platform == "eks" and pool.availability_zone is None:
                r.add(
                    f"{at}.availabilityZone",
                    MISSING,
                    "a Capacity Block lives in one zone; the pool's subnets must be limited to it",
                    "add availabilityZone: us-east-1a (the reservation's zone)",
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
        elif pool.capacity_reservation_id is not None and (platform != "eks" or pool.capacity == "spot"):
            r.add(
                f"{at}.capacityReservationId",
                pool.capacity_reservation_id,
                "a capacity reservation id applies to EKS capacity-block or on-demand pools only",
                "remove it, or set capacity: capacity-block",
            )
        if pool.availability_zone is not None and platform != "eks":
            r.add(f"{at}.availabilityZone", pool.availability_zone, "availabilityZone is an EKS setting", "remove it")
        if pool.ami_type is not None and platform != "eks":
            r.add(f"{at}.amiType", pool.ami_type, "amiType is an EKS setting", "remove it")
        if pool.mig is not None:
            if not model.supports_mig:
                r.add(
                    f"{at}.mig",
                    {"profile": pool.mig.profile},
                    f"{pool.gpu} does not support MIG",
                    "remove mig, or use an A100/H100/H200 pool",
                )
            elif model.mig_profile(pool.mig.profile) is None:
                r.add(
                    f"{at}.mig.profile",
                    pool.mig.profile,
                    f"not a MIG profile of {pool.gpu}",
                    f"use one of {', '.join(p.name for p in model.mig_profiles)}",
                )
            if platform == "kind" and c.uses_example_driver:
                r.add(
                    f"{at}.mig",
                    {"profile": pool.mig.profile},
                    "the dra-example-driver has no MIG devices",
                    "remove mig or use kind.gpuDriver: nvidia",
                )
        if platform == "existing" and pool.nodes and len(pool.nodes) != pool.max_nodes:
            r.add(
                f"{at}.maxNodes",
                pool.max_nodes,
                f"an existing pool has exactly the nodes it names ({len(pool.nodes)} in nodes), so maxNodes must "
                "say the same: fit and the policy pack simulate maxNodes nodes",
                f"set maxNodes: {len(pool.nodes)}, or list every node of the pool in nodes",
            )
        if pool.nodes and platform != "existing":
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


def _block_window(r: RuleContext, at: str, pool) -> None:
    start, end = pool.capacity_block_start, pool.capacity_block_end
    if (start is None) != (end is None):
        missing = "capacityBlockEnd" if end is None else "capacityBlockStart"
        r.add(
            f"{at}.{missing}",
            MISSING,
            "scheduled scaling needs both the block's start and its end",
            f"add {missing} (from `aws ec2 describe-capacity-reservations`: StartDate / EndDate)",
        )
    elif start is not None and end <= start:
        r.add(
            f"{at}.capacityBlockEnd",
            str(end),
            f"the block must end after it starts ({start.isoformat()})",
            "copy StartDate and EndDate of the reservation",
        )


def _cloud_instance(r: RuleContext, at: str, pool, platform: str) -> None:
    if pool.instance_type is None:
        if catalog.default_instance_type(platform, pool.gpu) is None:
            offered = sorted({t.gpu for t in catalog.INSTANCE_TYPES.values() if t.platform == platform})
            r.add(
                f"{at}.gpu",
                pool.gpu,
                f"no {platform.upper()} {'VM size' if platform == 'aks' else 'instance type'} in the catalog carries {pool.gpu}",
                f"use one of {', '.join(offered)} on {platform}, or set instanceType to a known size",
            )
        return
    shape = catalog.instance_type(platform, pool.instance_type)
    if shape is None:
        options = [t.name for t in catalog.instance_types_for(platform, pool.gpu)]
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"unknown {platform.upper()} {'VM size' if platform == 'aks' else 'instance type'} for GPU pools",
            f"use one of {', '.join(options) or '(none for ' + pool.gpu + ')'}",
        )
    elif shape.gpu != pool.gpu:
        options = [t.name for t in catalog.instance_types_for(platform, pool.gpu)]
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            f"{pool.instance_type} carries {shape.gpu}, not {pool.gpu}",
            f"set gpu: {shape.gpu}, or use one of {', '.join(options) or '(none)'}",
        )


def check_cloud(r: RuleContext) -> None:
    c = r.c
    if c.platform == "eks":
        _eks_pools(r)
    elif c.platform == "aks":
        _aks_pools(r)


def _eks_pools(r: RuleContext) -> None:
    region = r.c.region
    for i, pool in enumerate(r.c.node_pools):
        at = f"nodePools[{i}]"
        zone = pool.availability_zone
        if zone is not None and region and not (zone.startswith(region) and len(zone) > len(region)):
            r.add(
                f"{at}.availabilityZone",
                zone,
                f"not a zone of the stack's region {region}",
                f"use a zone of {region}, e.g. {region}a",
            )


def _aks_pools(r: RuleContext) -> None:
    c = r.c
    settings = c.cluster.settings()
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
        if pool.mig is not None and catalog.gpu_model(pool.gpu).mig_profile(pool.mig.profile) is not None:
            if aks_facts.gpu_instance_profile(pool.gpu, pool.mig.profile) is None:
                r.add(
                    f"{at}.mig.profile",
                    pool.mig.profile,
                    "AKS partitions MIG pools by slice count only (gpuInstanceProfile MIG1g…MIG7g) into the smallest profile of that size",
                    f"use one of {', '.join(aks_facts.aks_mig_profiles(pool.gpu))}",
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
