"""Rules of `autoscaler.provisioner` and `nodePools[].instanceTypes`: every combination whose pending GPU pods would
never get a node is refused at the path that causes it, with the fix (what each provisioner does for claims,
`nvidia.com/gpu` and the extended-resource bridge: dra_gpu_platform/facts/provisioners.py, docs/references.md#provisioner-dra-support).

The cluster autoscaler's own rules (a dra pool keeps one node, its image per minor) are in rules/autoscaler.py.
"""

from __future__ import annotations

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.node_pools import NodePool
from dra_gpu_platform.facts import catalog, driver_features, karpenter
from dra_gpu_platform.facts import provisioners as p
from dra_gpu_platform.facts.platforms import offering


def check(r: RuleContext) -> None:
    c = r.c
    provisioner = c.provisioner
    if provisioner != p.CLUSTER_AUTOSCALER and not _runs_here(r):
        return
    if not c.node_pool_provisioner:
        # the platform's first NodePool provisioner (dra_gpu_platform/facts/platforms.py Autoscaling), if it has one
        offered = next((n for n in c.profile.autoscaling.names if n in p.NODE_POOL_PROVISIONERS), None)
        for i, pool in enumerate(c.node_pools):
            if pool.instance_types is not None:
                r.add(
                    f"nodePools[{i}].instanceTypes",
                    pool.instance_types,
                    "a list of instance types is for NodePool provisioners (karpenter, auto-mode, "
                    "node-auto-provisioning); a node group or agent pool runs one instanceType",
                    f"write instanceType: {pool.instance_types[0]}"
                    + (f", or set autoscaler.provisioner: {offered}" if offered else ""),
                )
        return
    name = p.NAMES[provisioner]
    for i, pool in enumerate(c.node_pools):
        at = f"nodePools[{i}]"
        _instance_types(r, at, pool)
        if pool.min_nodes > 0:
            r.add(
                f"{at}.minNodes",
                pool.min_nodes,
                f"{name} keeps no minimum: a NodePool launches nodes for pending pods only (static NodePools are "
                "alpha and not used here)",
                "remove minNodes (0): the pool's first pending pod launches its first node",
            )
        if pool.desired_nodes is not None:
            r.add(
                f"{at}.desiredNodes",
                pool.desired_nodes,
                f"{name} sizes a NodePool by its pending pods; there is no desired size",
                "remove desiredNodes",
            )
        if pool.capacity == "capacity-block" and provisioner == p.KARPENTER:
            for field, value in (
                ("capacityBlockStart", pool.capacity_block_start),
                ("capacityBlockEnd", pool.capacity_block_end),
            ):
                if value is not None:
                    r.add(
                        f"{at}.{field}",
                        str(value),
                        "Karpenter launches into the Capacity Block while it is active and drains its nodes before it "
                        "ends (the block's times come from EC2): no schedule is needed",
                        f"remove {field}",
                    )
    if provisioner == p.KARPENTER:
        _karpenter(r)
    elif provisioner == p.AUTO_MODE:
        _auto_mode(r)
    else:
        _node_auto_provisioning(r)
    _bridge(r)


def _runs_here(r: RuleContext) -> bool:
    c = r.c
    provisioner = c.provisioner
    if c.provisioner_offered is None:
        where = offering(provisioner)
        others = c.profile.autoscaling.names
        r.add(
            "autoscaler.provisioner",
            provisioner,
            f"{p.NAMES[provisioner]} runs on {' and '.join(where)}; this stack's platform is {c.platform}",
            f"use one of {', '.join(others)}"
            if others
            else f"remove autoscaler.provisioner: nothing provisions nodes on platform {c.platform}",
        )
        return False
    if c.autoscaler.enabled is False:
        r.add(
            "autoscaler.enabled",
            False,
            f"with provisioner {provisioner} nothing but {p.NAMES[provisioner]} launches GPU nodes: turned off, no "
            "pending pod would ever get one",
            "remove autoscaler.enabled, or use provisioner cluster-autoscaler with fixed-size pools",
        )
        return False
    return True


def _instance_types(r: RuleContext, at: str, pool: NodePool) -> None:
    types = pool.instance_types
    if types is None:
        return
    platform = r.c.platform
    if pool.instance_type is not None:
        r.add(
            f"{at}.instanceType",
            pool.instance_type,
            "instanceType and instanceTypes name the same thing: give the list, or one type",
            f"remove instanceType (list it in instanceTypes: {sorted({pool.instance_type, *types})})",
        )
    for field in ("allowUnlisted", "instanceFacts"):
        if (field == "allowUnlisted" and pool.allow_unlisted) or (field == "instanceFacts" and pool.instance_facts):
            r.add(
                f"{at}.{field}",
                True if field == "allowUnlisted" else "{...}",
                f"{field} declares one unlisted instanceType; instanceTypes takes catalog types only",
                f"remove {field}, or name the unlisted type alone in instanceType",
            )
    options = [t.name for t in catalog.instance_types_for(platform, pool.gpu_key)]
    shapes = []
    for j, name in enumerate(types):
        shape = catalog.instance_type(platform, name)
        if types.index(name) != j:
            r.add(f"{at}.instanceTypes[{j}]", name, "listed twice", "list each type once")
        elif shape is None:
            r.add(
                f"{at}.instanceTypes[{j}]",
                name,
                f"not a {platform.upper()} GPU instance type of the catalog",
                f"use one of {', '.join(options) or '(none for ' + pool.gpu_name + ')'}",
            )
        elif shape.gpu != pool.gpu_key:
            r.add(
                f"{at}.instanceTypes[{j}]",
                name,
                f"{name} carries {shape.gpu}, not {pool.gpu_name}",
                f"use one of {', '.join(options) or '(none)'}, or a pool of gpu: {shape.gpu}",
            )
        else:
            shapes.append(shape)
    if shapes and len({(s.gpus, s.cpu_architecture) for s in shapes}) > 1:
        kinds = ", ".join(f"{s.name} ({s.gpus} GPUs, {s.cpu_architecture})" for s in shapes)
        r.add(
            f"{at}.instanceTypes",
            types,
            f"every node of a pool has the same GPUs per node and CPU architecture (claims, quotas and fit count "
            f"on it); these differ: {kinds}",
            "split them into one pool per GPU count",
        )


def _dra_refused(r: RuleContext, i: int, pool: NodePool, why: str, fix: str) -> None:
    r.add(f"nodePools[{i}].gpuStack", pool.gpu_stack, why, fix)


def _karpenter(r: RuleContext) -> None:
    c = r.c
    version = (c.autoscaler.version or karpenter.DEFAULT_VERSION).lstrip("v")
    release = karpenter.release(version)
    minor = c.cluster.kubernetes_version
    if release is None:
        r.add(
            "autoscaler.version",
            c.autoscaler.version,
            "with provisioner karpenter, autoscaler.version is the Karpenter chart release; this package knows "
            f"{', '.join(karpenter.RELEASES)} (their charts, CRDs and source were read)",
            f"use {karpenter.DEFAULT_VERSION}, or {karpenter.DRA_VERSION} for dra pools",
        )
    elif not karpenter.supports_kubernetes(version, minor):
        r.add(
            "autoscaler.version",
            c.autoscaler.version or version,
            f"Kubernetes {minor} needs Karpenter {karpenter.MIN_FOR_KUBERNETES[minor]} or newer",
            f"use {karpenter.DRA_VERSION}",
        )
    dra = release is not None and release.nvidia_dra
    for i, pool in enumerate(c.node_pools):
        if pool.gpu_stack != "dra":
            continue
        if not dra:
            growth = p.claims_growth(p.KARPENTER, c.cluster.minor, version)
            _dra_refused(
                r,
                i,
                pool,
                f"Karpenter {version} never launches a node for a pod with claims: {growth.why}",
                f"set autoscaler.version: {karpenter.DRA_VERSION} (alpha NVIDIA DRA support), or make {pool.name} a "
                "gpuStack: device-plugin pool, or use provisioner cluster-autoscaler (a dra node group keeps one node)",
            )
            continue
        default = catalog.default_instance_type(c.platform, pool.gpu_key)
        types = pool.instance_types or (
            [pool.instance_type] if pool.instance_type else [default.name] if default else []
        )
        missing = [t for t in types if t not in karpenter.NVIDIA_DRA_INSTANCE_TYPES]
        if missing and pool.described_gpu is None:
            field = "instanceTypes" if pool.instance_types else "instanceType"
            covered = sorted(
                t.name
                for t in catalog.instance_types_for(c.platform, pool.gpu_key)
                if t.name in karpenter.NVIDIA_DRA_INSTANCE_TYPES
            )
            r.add(
                f"nodePools[{i}].{field}",
                pool.instance_types or pool.instance_type or missing[0],
                f"Karpenter {version} has no NVIDIA DRA metadata for {', '.join(missing)}, so a claim never launches "
                "such a node",
                f"use {', '.join(covered)}"
                if covered
                else f"make {pool.name} a device-plugin pool, or use provisioner cluster-autoscaler for it",
            )
        if pool.mig is not None:
            r.add(
                f"nodePools[{i}].mig",
                {"profile": pool.mig.profile},
                "Karpenter's NVIDIA DRA metadata publishes whole GPUs (one device of type gpu per GPU): a claim for "
                "a MIG device never launches a node",
                "remove mig (claims then take whole GPUs), or use provisioner cluster-autoscaler for MIG pools",
            )
    if dra and any(pool.gpu_stack == "dra" for pool in c.node_pools):
        if c.dra_driver.feature_gates.get(driver_features.DYNAMIC_MIG) is True:
            r.add(
                f"draDriver.featureGates.{driver_features.DYNAMIC_MIG}",
                True,
                "Karpenter's NVIDIA DRA metadata has whole GPUs only: a claim for a partition never launches a node",
                f"remove {driver_features.DYNAMIC_MIG}, or use provisioner cluster-autoscaler",
            )
        if c.dra_driver.compute_domains is True:
            r.add(
                "draDriver.computeDomains",
                True,
                "Karpenter has no metadata for the compute-domain driver: a ComputeDomain channel claim never "
                "launches a node",
                "remove computeDomains, or use provisioner cluster-autoscaler for multi-node NVLink pools",
            )


def _auto_mode(r: RuleContext) -> None:
    c = r.c
    growth = p.claims_growth(p.AUTO_MODE, c.cluster.minor)
    if c.autoscaler.version is not None:
        r.add(
            "autoscaler.version",
            c.autoscaler.version,
            "EKS Auto Mode runs and upgrades its own provisioner",
            "remove autoscaler.version",
        )
    if c.gpu_operator.enabled is True:
        r.add(
            "gpuOperator.enabled",
            True,
            "EKS Auto Mode GPU nodes run the NVIDIA driver and device plugin themselves: the GPU Operator would put a "
            "second device plugin (and driver) on them",
            "remove gpuOperator.enabled",
        )
    if c.dra_driver.enabled and "enabled" in c.dra_driver.model_fields_set:
        r.add(
            "draDriver.enabled",
            True,
            "EKS Auto Mode pools are device-plugin pools here (see gpuStack): the DRA driver chart would run on no node",
            "remove draDriver.enabled",
        )
    for i, pool in enumerate(c.node_pools):
        at = f"nodePools[{i}]"
        if pool.gpu_stack == "dra":
            _dra_refused(
                r,
                i,
                pool,
                growth.why,
                f"make {pool.name} a gpuStack: device-plugin pool (Auto Mode's own device plugin), or use provisioner "
                f"karpenter with autoscaler.version: {karpenter.DRA_VERSION} for dra pools from zero",
            )
        unread = "is not in any readable source (the Auto Mode NodeClass schema this package read has no such field)"
        refused = (
            ("amiType", pool.ami_type, "EKS Auto Mode chooses the AMI of its nodes"),
            ("mig", {"profile": pool.mig.profile} if pool.mig else None, f"how Auto Mode partitions GPUs {unread}"),
            (
                "capacity",
                pool.capacity if pool.capacity == "capacity-block" else None,
                f"how an Auto Mode node launches into a Capacity Block {unread}",
            ),
            (
                "capacityReservationId",
                pool.capacity_reservation_id if pool.capacity == "on-demand" else None,
                f"how an Auto Mode node launches into a capacity reservation {unread}",
            ),
        )
        for field, value, what in refused:
            if value is not None:
                r.add(f"{at}.{field}", value, what, f"remove {field}, or use provisioner karpenter for this pool")


def _node_auto_provisioning(r: RuleContext) -> None:
    c = r.c
    growth = p.claims_growth(p.NODE_AUTO_PROVISIONING, c.cluster.minor)
    if c.autoscaler.version is not None:
        r.add(
            "autoscaler.version",
            c.autoscaler.version,
            "AKS runs and upgrades node auto-provisioning's Karpenter itself",
            "remove autoscaler.version",
        )
    if c.dra_driver.enabled and "enabled" in c.dra_driver.model_fields_set:
        r.add(
            "draDriver.enabled",
            True,
            "node auto-provisioning pools are device-plugin pools (see gpuStack): the DRA driver chart would run on no "
            "node",
            "remove draDriver.enabled",
        )
    for i, pool in enumerate(c.node_pools):
        if pool.gpu_stack == "dra":
            _dra_refused(
                r,
                i,
                pool,
                f"AKS node auto-provisioning: {growth.why}",
                f"make {pool.name} a gpuStack: device-plugin pool (the GPU Operator's device plugin), or use "
                "provisioner cluster-autoscaler (a dra agent pool keeps one node)",
            )
        if pool.mig is not None:
            r.add(
                f"nodePools[{i}].mig",
                {"profile": pool.mig.profile},
                "an AKSNodeClass has no MIG setting (AKS partitions GPUs by an agent pool's gpuInstanceProfile)",
                "remove mig, or use provisioner cluster-autoscaler for MIG pools",
            )


def _bridge(r: RuleContext) -> None:
    c = r.c
    growth = p.bridge_growth(c.provisioner)
    bridge = c.dra_driver.extended_resource_bridge
    if bridge is not None and c.extended_resource_bridge_on and c.dra_pools and not growth.gets_a_node:
        r.add(
            "draDriver.extendedResourceBridge",
            bridge if isinstance(bridge, bool) else {"gpus": list(bridge.gpus)},
            f"a pod asking for nvidia.com/gpu on a dra pool: {growth.why}",
            "remove extendedResourceBridge (pods then ask for GPUs by claims), or keep nvidia.com/gpu pods on "
            "device-plugin pools",
        )
