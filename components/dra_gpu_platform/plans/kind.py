"""The kind cluster config for a kind stack: DRA feature gates, CDI in containerd, one worker per node of
every pool (PoolPlan.nodes) with the pool's labels and taints. Pure: no Pulumi imports.

Sources: docs/references.md#kind-dra-cluster-config (dra-example-driver and NVIDIA kind configs).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from dra_gpu_platform.config.models import KindCluster, StackConfig, platform_cluster
from dra_gpu_platform.facts import driver_charts, versions
from dra_gpu_platform.facts import kubernetes as k8s
from dra_gpu_platform.inputs.yamlio import dump_yaml
from dra_gpu_platform.plans.maintenance import taint_rule_api
from dra_gpu_platform.plans.monitoring.sources import dcgm_dra_pod_mapping
from dra_gpu_platform.plans.node_pools import PoolPlan

# containerd 2.x has CDI on by default; the upstream DRA kind configs still set it explicitly.
CDI_PATCH = '[plugins."io.containerd.grpc.v1.cri"]\n  enable_cdi = true\n'


def uses_device_tolerations(config: StackConfig) -> bool:
    return any(
        t.tolerations or any(sub.tolerations for sub in t.first_available or [])
        for ns in config.namespaces
        for t in (*ns.claim_templates, *ns.shared_claims)
    )


def feature_gates(config: StackConfig) -> dict[str, bool]:
    """The Kubernetes gates the stack's DRA features need, where the minor has them off by default (kind sets
    them on every component)."""
    gates = {"DynamicResourceAllocation": True}
    wanted = []
    if config.maintenance.device_taints or uses_device_tolerations(config):
        wanted.append(k8s.DRA_DEVICE_TAINTS)
    if config.maintenance.device_taints:
        # 1.35 split DeviceTaintRule into its own gate (docs/references.md#dra-api-device-taint-rules-gate)
        wanted.append(k8s.DRA_DEVICE_TAINT_RULES)
    if config.extended_resource_bridge_on:
        wanted.append(k8s.DRA_EXTENDED_RESOURCE)
    if config.dynamic_mig:
        wanted.append(k8s.DRA_PARTITIONABLE_DEVICES)
    for gate in wanted:
        stage = k8s.gate_stage(gate, config.cluster.minor)
        if stage is not None and not stage.default:
            gates[gate] = True
    return dict(sorted(gates.items()))


def runtime_config(config: StackConfig) -> dict[str, str]:
    runtime = {}
    # DeviceTaintRule is served from resource.k8s.io/v1alpha3 in 1.34/1.35 and v1beta2 in 1.36, both off by default;
    # 1.37 serves it as v1 (dra_gpu_platform/plans/maintenance.py taint_rule_api).
    if config.maintenance.device_taints:
        api = taint_rule_api(config.cluster.kubernetes_version)
        if api not in k8s.MINORS[config.cluster.kubernetes_version].resource_apis and not (
            k8s.MINORS[config.cluster.kubernetes_version].device_taint_rule_default
        ):
            runtime[api] = "true"
    # dcgm-exporter's DRA pod mapping lists resource.k8s.io/v1beta1 ResourceSlices, off by default from 1.34
    # (dra_gpu_platform/plans/monitoring/sources.py dcgm_dra_pod_mapping).
    if dcgm_dra_pod_mapping(config) or v1beta1_driver_chart(config):
        runtime["resource.k8s.io/v1beta1"] = "true"
    return runtime


def v1beta1_driver_chart(config: StackConfig) -> bool:
    """The NVIDIA DRA driver chart of the stack hard-codes resource.k8s.io/v1beta1 DeviceClasses (25.3.x)."""
    if config.uses_example_driver or not config.dra_driver.enabled:
        return False
    release = driver_charts.dra_driver_release(config.dra_driver.version)
    return release is not None and release.resource_api == "v1beta1"


def node_image(config: StackConfig) -> str:
    settings = platform_cluster(config.cluster, KindCluster).settings()
    return settings.node_image or versions.KIND_NODE_IMAGES[config.cluster.kubernetes_version]


def join_patch(pool: PoolPlan) -> str:
    """The kubeadm JoinConfiguration patch that registers a worker with the pool's taints."""
    return yaml.safe_dump(
        {"kind": "JoinConfiguration", "nodeRegistration": {"taints": [t.manifest() for t in pool.taints]}},
        sort_keys=False,
    )


def render(config: StackConfig, pools: tuple[PoolPlan, ...]) -> dict[str, Any]:
    image = node_image(config)
    nodes: list[dict[str, Any]] = [{"role": "control-plane", "image": image}]
    for pool in pools:
        patch = join_patch(pool)
        for _ in pool.nodes:
            nodes.append(
                {"role": "worker", "image": image, "labels": dict(pool.labels), "kubeadmConfigPatches": [patch]}
            )
    document: dict[str, Any] = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "name": config.cluster.name,
        "featureGates": feature_gates(config),
        "containerdConfigPatches": [CDI_PATCH],
        "nodes": nodes,
    }
    runtime = runtime_config(config)
    if runtime:
        document["runtimeConfig"] = runtime
    return document


def render_yaml(config: StackConfig, pools: tuple[PoolPlan, ...]) -> str:
    return dump_yaml(render(config, pools))


@dataclass(frozen=True)
class KindClusterPlan:
    """What KindCluster needs: the cluster name, its rendered kind config and whether it is protected."""

    name: str
    config_yaml: str
    protect: bool
    notes: tuple[str, ...] = ()


def image_notes(config: StackConfig) -> tuple[str, ...]:
    """A node image named by tag alone can change under the same name; say which digest the default pins."""
    image = node_image(config)
    if "@sha256:" in image:
        return ()
    pinned = versions.KIND_NODE_IMAGES[config.cluster.kubernetes_version]
    return (
        f"cluster.kind.nodeImage {image} is not pinned by digest; the default for {config.cluster.kubernetes_version} "
        f"is {pinned} (changing it recreates the kind cluster)",
    )


def cluster_plan(config: StackConfig, pools: tuple[PoolPlan, ...]) -> KindClusterPlan:
    return KindClusterPlan(
        name=config.cluster.name,
        config_yaml=render_yaml(config, pools),
        protect=config.cluster.protect,
        notes=image_notes(config),
    )
