"""Karpenter on EKS as plain data: the chart release with the stack's values, the interruption queue's EventBridge
rules, and per GPU pool a NodePool and an EC2NodeClass. Pure: no Pulumi imports.

What the resources fill in at deploy time (the node role, subnets, the cluster security group, a placement group)
is an argument of `ec2_node_class_manifest`, so tests build the same objects with fixed values and validate them
against the pinned release's CRDs. Facts: dra_gpu_platform/facts/karpenter.py; the EC2NodeClass fields
(docs/references.md#karpenter-ec2nodeclass-crd): aws/karpenter-provider-aws@release-v1.14.1
`pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml` (role :623, amiSelectorTerms :77, subnetSelectorTerms :670,
securityGroupSelectorTerms :631, blockDeviceMappings :145, capacityReservationSelectorTerms :256, metadataOptions
:492, instanceStorePolicy, placementGroupSelector, userData :720, tags :702).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts import eks_amis, karpenter
from dra_gpu_platform.facts.node_labels import CLUSTER_TAG, POOL_LABEL, SYSTEM_ROLE_LABEL
from dra_gpu_platform.plans import node_hardening
from dra_gpu_platform.plans.gpu_software import ReleasePlan
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.provisioning.node_pools import node_pool_manifest

NODE_CLASS_REF_KIND = karpenter.EC2_NODE_CLASS_KIND
# The chart waits for its pods (a GPU-less Deployment on the system nodes): minutes at most.
RELEASE_TIMEOUT_S = 600


@dataclass(frozen=True)
class KarpenterPoolPlan:
    """One GPU pool as Karpenter runs it: its NodePool and what its EC2NodeClass needs."""

    pool: PoolPlan
    ami_alias: str  # amiSelectorTerms alias, pinned
    raid0: bool  # instanceStorePolicy RAID0 (AL2023 on NVMe instance-store types)
    # dra_gpu_platform/plans/node_hardening.py, as on the node groups' launch templates: AL2023 NVIDIA a MIME document
    # whose shell part hardens the NVIDIA toolkit; Bottlerocket NVIDIA TOML with the toolkit's settings (and on DRA
    # pools the host DRA driver on, its device plugin off)
    user_data: str | None
    placement_group: bool  # a cluster placement group of its own (EFA pools outside a reservation)

    @property
    def node_pool(self) -> dict[str, Any]:
        return node_pool_manifest(
            self.pool,
            {"group": karpenter.EC2_NODE_CLASS_GROUP, "kind": NODE_CLASS_REF_KIND, "name": self.pool.name},
        )


@dataclass(frozen=True)
class KarpenterPlan:
    version: str
    release: ReleasePlan
    namespace: str
    service_account: str
    queue_name: str  # the interruption queue (settings.interruptionQueue)
    interruption_rules: tuple[tuple[str, dict[str, Any]], ...]  # (name suffix, EventBridge event pattern)
    pools: tuple[KarpenterPoolPlan, ...]
    nvidia_dra: bool  # settings.awsFeatureGates.draNVIDIAGPU (1.15.0, alpha)
    notes: tuple[str, ...] = ()


def chart_values(cluster_name: str, queue: str, system_nodes: int, nvidia_dra: bool) -> dict[str, Any]:
    settings: dict[str, Any] = {
        "clusterName": cluster_name,
        "interruptionQueue": queue,
        # on by default (values.yaml:237-239); Capacity Blocks and reservations need it, so it cannot drift
        "featureGates": {"reservedCapacity": True},
    }
    if nvidia_dra:
        # alpha (1.15.0 values.yaml awsFeatureGates.draNVIDIAGPU): claim pods launch nodes; forces ignoreDRARequests
        # off (templates/_helpers.tpl "karpenter.dra"). Not enableDRA: that also models the EFA DRA driver, which this
        # stack does not install ("Karpenter launches nodes for its claims that can never serve them", tasks/dra).
        settings["awsFeatureGates"] = {karpenter.SETTING_DRA_NVIDIA_GPU: True}
    return {
        "settings": settings,
        "serviceAccount": {"name": karpenter.SERVICE_ACCOUNT},
        # the chart's required anti-affinity puts each replica on its own node, and nodes Karpenter manages are
        # excluded (values.yaml:93-102): the system nodes hold them
        "replicas": max(1, min(karpenter.REPLICAS, system_nodes)),
        "controller": {"resources": karpenter.CONTROLLER_RESOURCES},
        "nodeSelector": {"kubernetes.io/os": "linux", SYSTEM_ROLE_LABEL: "system"},
    }


def interruption_rules() -> tuple[tuple[str, dict[str, Any]], ...]:
    return tuple(
        (name, {"source": [source], "detail-type": [detail]})
        for name, (source, detail) in karpenter.INTERRUPTION_RULES.items()
    )


def pool_plan(pool: PoolPlan) -> KarpenterPoolPlan:
    bottlerocket = eks_amis.is_bottlerocket(pool.ami_type)
    nvme = pool.shape.nvme_disks if pool.shape is not None else 0
    # Karpenter puts its own NodeConfig part before an AL2023 MIME document's parts and merges Bottlerocket TOML with
    # its settings (release-v1.14.1 website/content/en/v1.14/concepts/nodeclasses.md:1391-1394,1562-1565); RAID0 is
    # instanceStorePolicy's, not a NodeConfig part of ours.
    user_data = (
        node_hardening.gpu_user_data(pool.ami_type, host_dra_driver=pool.host_dra_driver)
        if pool.ami_type is not None
        else None
    )
    return KarpenterPoolPlan(
        pool=pool,
        ami_alias=karpenter.BOTTLEROCKET_ALIAS if bottlerocket else karpenter.AL2023_ALIAS,
        raid0=nvme > 0 and not bottlerocket,
        user_data=user_data,
        placement_group=pool.efa_interfaces > 0 and pool.capacity_reservation_id is None,
    )


def block_devices(pool: PoolPlan) -> list[dict[str, Any]]:
    """Root (AL2023) or OS plus data volume (Bottlerocket), gp3 and encrypted, the pool's disk size where images
    live (website/content/en/v1.14/concepts/nodeclasses.md:1131-1160)."""

    def volume(device: str, gib: int, root: bool) -> dict[str, Any]:
        mapping: dict[str, Any] = {
            "deviceName": device,
            "ebs": {
                "volumeSize": f"{gib}Gi",
                "volumeType": "gp3",
                "encrypted": True,
                "deleteOnTermination": True,
            },
        }
        if root:
            mapping["rootVolume"] = True
        return mapping

    if eks_amis.is_bottlerocket(pool.ami_type):
        return [
            volume(karpenter.BOTTLEROCKET_OS_DEVICE, karpenter.BOTTLEROCKET_OS_GIB, True),
            volume(karpenter.BOTTLEROCKET_DATA_DEVICE, pool.disk_size_gb, False),
        ]
    return [volume(karpenter.AL2023_ROOT_DEVICE, pool.disk_size_gb, True)]


def ec2_node_class_manifest(
    plan: KarpenterPoolPlan,
    cluster_name: str,
    role: str,
    subnet_ids: Sequence[str],
    security_group_ids: Sequence[str],
    placement_group_id: str | None = None,
) -> dict[str, Any]:
    """The EC2NodeClass of one pool: the node role (Karpenter makes its instance profile), the pinned AMI alias, the
    cluster's private subnets (the pool's zone only where it is pinned) and security group by id, IMDSv2 with one hop,
    the block devices, RAID0 instance store, the Capacity Block or reservation, a placement group."""
    pool = plan.pool
    spec: dict[str, Any] = {
        "role": role,
        "amiSelectorTerms": [{"alias": plan.ami_alias}],
        "subnetSelectorTerms": [{"id": subnet} for subnet in subnet_ids],
        "securityGroupSelectorTerms": [{"id": group} for group in security_group_ids],
        # pods reach AWS through Pod Identity, never the node's instance role (dra_gpu_platform/plans/eks.py IMDS_HOP_LIMIT)
        "metadataOptions": {
            "httpEndpoint": "enabled",
            "httpProtocolIPv6": "disabled",
            "httpPutResponseHopLimit": 1,
            "httpTokens": "required",
        },
        "blockDeviceMappings": block_devices(pool),
        "tags": {CLUSTER_TAG: cluster_name, POOL_LABEL: pool.name},
    }
    if plan.raid0:
        spec["instanceStorePolicy"] = "RAID0"
    if pool.capacity_reservation_id:
        # Capacity Blocks are on-demand capacity reservations to Karpenter (tasks/odcrs.md:31-32)
        spec["capacityReservationSelectorTerms"] = [{"id": pool.capacity_reservation_id}]
    if plan.user_data:
        spec["userData"] = plan.user_data
    if placement_group_id:
        spec["placementGroupSelector"] = {"id": placement_group_id}
    return {
        "apiVersion": karpenter.EC2_NODE_CLASS_API,
        "kind": karpenter.EC2_NODE_CLASS_KIND,
        "metadata": {"name": pool.name, "labels": {POOL_LABEL: pool.name}},
        "spec": spec,
    }


def karpenter_plan(
    cluster_name: str, version: str | None, system_nodes: int, pools: Sequence[PoolPlan]
) -> KarpenterPlan:
    found = karpenter.release(version or karpenter.DEFAULT_VERSION)
    assert found is not None  # config rules refuse other versions
    queue = cluster_name
    return KarpenterPlan(
        version=found.version,
        release=ReleasePlan(
            release=karpenter.RELEASE,
            chart=karpenter.CHART_REFERENCE,
            version=found.version,
            repository=None,
            namespace=karpenter.NAMESPACE,
            values=chart_values(cluster_name, queue, system_nodes, found.nvidia_dra),
            timeout_s=RELEASE_TIMEOUT_S,
        ),
        namespace=karpenter.NAMESPACE,
        service_account=karpenter.SERVICE_ACCOUNT,
        queue_name=queue,
        interruption_rules=interruption_rules(),
        pools=tuple(pool_plan(pool) for pool in pools),
        nvidia_dra=found.nvidia_dra,
        notes=karpenter_notes(found, pools),
    )


def karpenter_notes(found: karpenter.KarpenterRelease, pools: Sequence[PoolPlan]) -> tuple[str, ...]:
    notes = []
    dra = [p.name for p in pools if p.dra]
    plugin = [p.name for p in pools if not p.dra]
    if found.nvidia_dra and dra:
        notes.append(
            f"Karpenter {found.version}: dra pools ({', '.join(dra)}) launch nodes for claims from zero through the "
            "alpha NVIDIA DRA support (settings.awsFeatureGates.draNVIDIAGPU); claims are judged against Karpenter's "
            "per-instance-type metadata (whole GPUs; attributes productName, architecture, cudaComputeCapability, "
            "memory)"
        )
    if found.nvidia_dra and dra and plugin:
        notes.append(
            f"Karpenter picks the first NodePool, by name from the end, whose instance types can hold a pending pod: "
            f"a claim pod may launch a device-plugin pool's node ({', '.join(plugin)}) and an nvidia.com/gpu pod a "
            f"dra pool's ({', '.join(dra)}), where it never runs; give GPU pods a nodeSelector on "
            "dra-gpu-platform.io/gpu-stack (`gpuplan fit` shows which pool each pod would get)"
        )
    for pool in pools:
        if pool.shape is not None and pool.shape.nvme_disks and eks_amis.is_bottlerocket(pool.ami_type):
            notes.append(
                f"pool {pool.name}: {pool.instance_type} has {pool.shape.nvme_disks} NVMe instance-store disk(s), "
                "left unused on Bottlerocket (instanceStorePolicy RAID0 is for AL2023 here)"
            )
    return tuple(notes)
