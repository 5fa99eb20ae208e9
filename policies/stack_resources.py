"""What a stack declares, read from resource props by type token: GPU node pools (EKS node groups, AKS
agent pools, kind workers), Helm releases, DRA objects, namespaces, quotas, admission policies, workloads.

Works on pulumi_policy's PolicyResource objects (or anything with resource_type/props/urn/name/
dependencies), so the same code serves `pulumi preview --policy-pack` and the offline `gpuplan policy`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import yaml

from dra_gpu_platform.dra.claims import RequestSelectors, request_selectors
from dra_gpu_platform.facts import catalog, driver_charts, eks_amis
from dra_gpu_platform.facts.node_labels import DEVICE_PLUGIN_DEPLOY_LABEL, GPU_LABEL, GPU_PRESENT_LABEL, POOL_LABEL
from dra_gpu_platform.plans.migration import GPU_MODE_LABEL
from dra_gpu_platform.policies.rules import common as c

# ---------------------------------------------------------------------------------------------------
# GPU hardware facts (docs/references.md#eks-ami-types, docs/references.md#ec2-gpu-instance-types,
# docs/references.md#eks-nvidia-ami-contents)

# EC2 families the EKS NVIDIA AMIs cover; the catalog knows GPU counts for the common sizes.
NVIDIA_EC2_FAMILIES = frozenset(
    {"p6-b200", "p6-b300", "p5", "p5e", "p5en", "p4d", "p4de", "g7e", "g6", "g6e", "g6f", "g5", "g4dn"}
)
# Azure N-series sizes with NVIDIA GPUs (NC, ND); the catalog knows the counts of the common ones.
_AZURE_GPU_SIZE = re.compile(r"^standard_n[cd]", re.IGNORECASE)
_EKS_TAINT_EFFECTS = {"NO_SCHEDULE": "NoSchedule", "NO_EXECUTE": "NoExecute", "PREFER_NO_SCHEDULE": "PreferNoSchedule"}


def ec2_gpus(instance_type: str | None) -> tuple[bool, int | None]:
    """(is a GPU type, GPUs per instance when known)."""
    if not instance_type:
        return False, None
    shape = catalog.instance_type("eks", instance_type)
    if shape is not None:
        return True, shape.gpus
    return instance_type.split(".", 1)[0] in NVIDIA_EC2_FAMILIES, None


def azure_gpus(vm_size: str | None) -> tuple[bool, int | None]:
    if not vm_size:
        return False, None
    shape = catalog.instance_type("aks", vm_size)
    if shape is not None:
        return True, shape.gpus
    return bool(_AZURE_GPU_SIZE.match(vm_size)), None


def labels_say_gpu(labels: dict[str, str]) -> bool:
    return labels.get(GPU_PRESENT_LABEL) == "true" or GPU_LABEL in labels


# ---------------------------------------------------------------------------------------------------
# Node pools


@dataclass(frozen=True)
class RecordedNodePool:
    urn: str
    name: str
    platform: str  # eks | aks | kind
    labels: dict[str, str]
    taints: tuple[tuple[str, str, str], ...]  # (key, value, effect) with Kubernetes effect names
    instance_type: str | None
    gpu: bool
    gpus_per_node: int | None
    max_nodes: int | None
    ami_type: str | None = None

    @property
    def ships_device_plugin(self) -> bool:
        """Bottlerocket NVIDIA AMIs ship the device plugin in the image (docs/references.md#eks-nvidia-ami-contents)."""
        return eks_amis.ships_device_plugin(self.ami_type)

    @property
    def device_plugin_label_off(self) -> bool:
        return self.labels.get(DEVICE_PLUGIN_DEPLOY_LABEL) == "false"

    def has_taint(self, key: str, effect: str) -> bool:
        return any(k == key and e == effect for k, _, e in self.taints)


def eks_node_group_pool(urn: str, name: str, props: Any, launch_template: Any = None) -> RecordedNodePool:
    labels = c.string_map(c.dig(props, "labels"))
    instance_types = [str(t) for t in c.as_list(c.dig(props, "instanceTypes"))]
    if not instance_types and launch_template is not None and c.dig(launch_template, "instanceType"):
        # Capacity Block node groups carry the instance type on their launch template
        # (docs/references.md#eks-capacity-block-node-groups).
        instance_types = [str(c.dig(launch_template, "instanceType"))]
    instance_type = instance_types[0] if instance_types else None
    gpu, gpus = ec2_gpus(instance_type)
    ami = c.dig(props, "amiType")
    if ami in eks_amis.NVIDIA_AMI_TYPES or ami in eks_amis.LEGACY_GPU_AMI_TYPES or labels_say_gpu(labels):
        gpu = True
    taints = tuple(
        (
            str(c.dig(t, "key", default="")),
            str(c.dig(t, "value", default="")),
            _EKS_TAINT_EFFECTS.get(str(c.dig(t, "effect", default="")), str(c.dig(t, "effect", default=""))),
        )
        for t in c.as_list(c.dig(props, "taints"))
    )
    return RecordedNodePool(
        urn=urn,
        name=labels.get(POOL_LABEL) or c.dig(props, "nodeGroupName") or name,
        platform="eks",
        labels=labels,
        taints=taints,
        instance_type=instance_type,
        gpu=gpu,
        gpus_per_node=gpus,
        max_nodes=c.as_int(c.dig(props, "scalingConfig", "maxSize")),
        ami_type=ami,
    )


def parse_aks_taint(text: str) -> tuple[str, str, str]:
    """ "key=value:Effect" or "key:Effect"."""
    head, _, effect = text.rpartition(":")
    key, _, value = head.partition("=")
    return key, value, effect


def _aks_pool(urn: str, name: str, props: Any) -> RecordedNodePool:
    labels = c.string_map(c.dig(props, "nodeLabels"))
    vm_size = c.dig(props, "vmSize")
    gpu, gpus = azure_gpus(vm_size)
    if labels_say_gpu(labels):
        gpu = True
    autoscale = bool(c.dig(props, "enableAutoScaling", default=False))
    max_nodes = c.as_int(c.dig(props, "maxCount")) if autoscale else c.as_int(c.dig(props, "count"))
    return RecordedNodePool(
        urn=urn,
        name=name,
        platform="aks",
        labels=labels,
        taints=tuple(parse_aks_taint(str(t)) for t in c.as_list(c.dig(props, "nodeTaints"))),
        instance_type=vm_size,
        gpu=gpu,
        gpus_per_node=gpus,
        max_nodes=max_nodes,
    )


def aks_agent_pool(urn: str, name: str, props: Any) -> RecordedNodePool:
    # The pool label holds the stack's pool name; AKS pool names are shorter (no dashes).
    label = c.string_map(c.dig(props, "nodeLabels")).get(POOL_LABEL)
    return _aks_pool(urn, label or c.dig(props, "agentPoolName") or name, props)


def aks_cluster_pools(urn: str, props: Any) -> list[RecordedNodePool]:
    return [
        _aks_pool(urn, str(c.dig(profile, "name", default=f"profile-{i}")), profile)
        for i, profile in enumerate(c.as_list(c.dig(props, "agentPoolProfiles")))
    ]


def kind_config(props: Any) -> dict[str, Any] | None:
    """The kind cluster config a command passes in its environment (kind reads it with --config)."""
    for value in c.as_dict(c.dig(props, "environment")).values():
        if not isinstance(value, str) or "kind.x-k8s.io/" not in value:
            continue
        try:
            document = yaml.safe_load(value)
        except yaml.YAMLError:
            continue
        if isinstance(document, dict) and document.get("kind") == "Cluster":
            return document
    return None


def kind_pools(urn: str, props: Any) -> list[RecordedNodePool]:
    document = kind_config(props)
    if document is None:
        return []
    groups: dict[tuple, list[dict]] = {}
    for node in document.get("nodes") or []:
        if not isinstance(node, dict) or node.get("role") != "worker":
            continue
        labels = {str(k): str(v) for k, v in (node.get("labels") or {}).items()}
        groups.setdefault(tuple(sorted(labels.items())), []).append(node)
    pools = []
    for index, (key, nodes) in enumerate(groups.items()):
        labels = dict(key)
        pools.append(
            RecordedNodePool(
                urn=urn,
                name=labels.get(POOL_LABEL, f"workers-{index + 1}"),
                platform="kind",
                labels=labels,
                taints=_kind_taints(nodes[0]),
                instance_type=None,
                gpu=labels_say_gpu(labels),
                gpus_per_node=None,
                max_nodes=len(nodes),
            )
        )
    return pools


def _kind_taints(node: dict) -> tuple[tuple[str, str, str], ...]:
    taints = []
    for patch in node.get("kubeadmConfigPatches") or []:
        try:
            document = yaml.safe_load(patch) if isinstance(patch, str) else patch
        except yaml.YAMLError:
            continue
        if isinstance(document, dict) and document.get("kind") == "JoinConfiguration":
            for taint in (document.get("nodeRegistration") or {}).get("taints") or []:
                taints.append((str(taint.get("key", "")), str(taint.get("value", "")), str(taint.get("effect", ""))))
    return tuple(taints)


def pools_of(
    resource_type: str, urn: str, name: str, props: Any, launch_template: Any = None
) -> list[RecordedNodePool]:
    if resource_type == c.EKS_NODE_GROUP:
        return [eks_node_group_pool(urn, name, props, launch_template)]
    if c.AKS_AGENT_POOL_RE.match(resource_type):
        return [aks_agent_pool(urn, name, props)]
    if c.AKS_CLUSTER_RE.match(resource_type):
        return aks_cluster_pools(urn, props)
    if resource_type == c.COMMAND:
        return kind_pools(urn, props)
    return []


def launch_template_of(resource: Any) -> Any:
    """The LaunchTemplate a node group uses, found through its (property) dependencies."""
    candidates = list(getattr(resource, "property_dependencies", {}).get("launchTemplate", []))
    candidates += list(getattr(resource, "dependencies", []))
    for dependency in candidates:
        if dependency.resource_type == c.LAUNCH_TEMPLATE:
            return dependency.props
    return None


def stack_pools(resources: Iterable[Any]) -> list[RecordedNodePool]:
    pools: list[RecordedNodePool] = []
    for r in resources:
        template = launch_template_of(r) if r.resource_type == c.EKS_NODE_GROUP else None
        pools.extend(pools_of(r.resource_type, r.urn, r.name, r.props, template))
    return pools


# ---------------------------------------------------------------------------------------------------
# Helm releases

NVIDIA_DRA_CHARTS = driver_charts.NVIDIA_DRA_CHART_NAMES
EXAMPLE_DRA_CHARTS = frozenset({driver_charts.EXAMPLE_CHART})
GPU_OPERATOR_CHARTS = frozenset({"gpu-operator"})
DEVICE_PLUGIN_CHARTS = frozenset({"nvidia-device-plugin"})  # NVIDIA/k8s-device-plugin's chart


@dataclass(frozen=True)
class HelmRelease:
    urn: str
    name: str
    chart: str  # chart name (last path segment)
    chart_ref: str  # as written: name, repo/name, oci://..., ./local/path
    version: str | None
    repository: str | None  # repositoryOpts.repo, or the oci:// location the chart was given by
    values: dict[str, Any] = field(default_factory=dict)

    def value(self, *path: str, default: Any = None) -> Any:
        return c.dig(self.values, *path, default=default)

    @property
    def dra_driver_release(self) -> driver_charts.DraDriverRelease | None:
        """The driver chart table's facts for this release's version (None: no or an unknown version)."""
        return driver_charts.dra_driver_release(self.version) if self.version else None


def helm_release(resource_type: str, urn: str, name: str, props: Any) -> HelmRelease | None:
    if resource_type not in (c.HELM_RELEASE, c.HELM_CHART_V4):
        return None
    chart_ref = str(c.dig(props, "chart", default=""))
    repository = c.dig(props, "repositoryOpts", "repo")
    if chart_ref.startswith("oci://") and not repository:
        repository = chart_ref.rsplit("/", 1)[0]
    version = c.dig(props, "version")
    return HelmRelease(
        urn=urn,
        name=str(c.dig(props, "name") or name),
        chart=chart_ref.rstrip("/").rsplit("/", 1)[-1],
        chart_ref=chart_ref,
        version=str(version) if version not in (None, "") else None,
        repository=str(repository) if repository else None,
        values=c.plain(c.dig(props, "values", default={})),
    )


def stack_releases(resources: Iterable[Any]) -> list[HelmRelease]:
    releases = []
    for r in resources:
        release = helm_release(r.resource_type, r.urn, r.name, r.props)
        if release is not None:
            releases.append(release)
    return releases


def nvidia_dra_classes(release: HelmRelease) -> set[str]:
    """DeviceClasses the NVIDIA DRA driver chart creates with this release's values (chart defaults: both
    resources.*.enabled true). An unpinned or unknown version is taken as the default chart's."""
    facts = release.dra_driver_release or driver_charts.DRA_DRIVER_RELEASES[driver_charts.DRA_DRIVER_DEFAULT]
    return set(
        facts.device_classes(
            gpus=release.value("resources", "gpus", "enabled", default=True) is not False,
            compute_domains=release.value("resources", "computeDomains", "enabled", default=True) is not False,
        )
    )


def chart_device_classes(releases: Iterable[HelmRelease]) -> dict[str, str]:
    """class name → URN of the release that creates it."""
    classes: dict[str, str] = {}
    for release in releases:
        if release.chart in NVIDIA_DRA_CHARTS:
            created = nvidia_dra_classes(release)
        elif release.chart in EXAMPLE_DRA_CHARTS:
            created = {catalog.EXAMPLE_DRIVER}  # the example driver's class is named after its driver
        else:
            continue
        for name in created:
            classes.setdefault(name, release.urn)
    return classes


# ---------------------------------------------------------------------------------------------------
# DRA objects


def claim_devices(resource_type: str, props: Any) -> tuple[Any, str] | None:
    """(DeviceClaim, its path) of a ResourceClaimTemplate or ResourceClaim."""
    if c.CLAIM_TEMPLATE_RE.match(resource_type):
        return c.dig(props, "spec", "spec", "devices"), "spec.spec.devices"
    if c.CLAIM_RE.match(resource_type):
        return c.dig(props, "spec", "devices"), "spec.devices"
    return None


@dataclass(frozen=True)
class ClaimUse:
    urn: str
    kind: str  # ResourceClaimTemplate | ResourceClaim
    name: str
    namespace: str
    requests: tuple[RequestSelectors, ...]

    @property
    def classes(self) -> list[str]:
        return sorted({r.device_class for r in self.requests if r.device_class})


def stack_claims(resources: Iterable[Any]) -> list[ClaimUse]:
    uses = []
    for r in resources:
        found = claim_devices(r.resource_type, r.props)
        if found is None:
            continue
        devices, path = found
        kind = r.resource_type.rsplit(":", 1)[-1]
        uses.append(
            ClaimUse(
                r.urn,
                kind,
                c.metadata_name(r.props) or r.name,
                c.metadata_namespace(r.props),
                tuple(request_selectors(c.plain(devices), path)),
            )
        )
    return uses


def stack_device_classes(resources: Iterable[Any]) -> dict[str, Any]:
    """DeviceClass name → resource."""
    return {c.metadata_name(r.props) or r.name: r for r in resources if c.DEVICE_CLASS_RE.match(r.resource_type)}


# ---------------------------------------------------------------------------------------------------
# Namespaces, quotas, admission policies, workloads


@dataclass(frozen=True)
class NamespaceInfo:
    urn: str
    name: str
    labels: dict[str, str]

    @property
    def gpu_mode(self) -> str | None:
        return self.labels.get(GPU_MODE_LABEL)


def stack_namespaces(resources: Iterable[Any]) -> dict[str, NamespaceInfo]:
    namespaces = {}
    for r in resources:
        if r.resource_type != c.NAMESPACE:
            continue
        name = c.metadata_name(r.props) or r.name
        labels = c.string_map(c.dig(r.props, "metadata", "labels"))
        labels.setdefault("kubernetes.io/metadata.name", name)  # set by the API server on every namespace
        namespaces[name] = NamespaceInfo(r.urn, name, labels)
    return namespaces


def stack_quotas(resources: Iterable[Any]) -> dict[str, list[tuple[str, dict[str, str]]]]:
    """namespace → [(quota URN, spec.hard)]."""
    quotas: dict[str, list[tuple[str, dict[str, str]]]] = {}
    for r in resources:
        if r.resource_type == c.RESOURCE_QUOTA:
            hard = c.string_map(c.dig(r.props, "spec", "hard"))
            quotas.setdefault(c.metadata_namespace(r.props), []).append((r.urn, hard))
    return quotas


@dataclass(frozen=True)
class Workload:
    urn: str
    kind: str
    name: str
    namespace: str
    pod_spec: Any

    def legacy_gpu_containers(self, resource: str) -> list[str]:
        """Containers (init containers included) that request or limit `resource`."""
        found = []
        for group in ("initContainers", "containers"):
            for container in c.as_list(c.dig(self.pod_spec, group)):
                requested = c.as_dict(c.dig(container, "resources", "limits")) | c.as_dict(
                    c.dig(container, "resources", "requests")
                )
                if resource in requested:
                    found.append(str(c.dig(container, "name", default="(unnamed)")))
        return found


def stack_workloads(resources: Iterable[Any]) -> list[Workload]:
    workloads = []
    for r in resources:
        path = c.POD_SPEC_PATHS.get(r.resource_type)
        if path is None:
            continue
        workloads.append(
            Workload(
                r.urn,
                r.resource_type.rsplit(":", 1)[-1],
                c.metadata_name(r.props) or r.name,
                c.metadata_namespace(r.props),
                c.dig(r.props, *path),
            )
        )
    return workloads
