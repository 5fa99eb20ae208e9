"""What a recorded stack declares besides its node pools, read from resource props by type token: Helm releases
(which GPU software, which chart classes), DRA objects, namespaces, quotas and workloads. Works on pulumi_policy's
PolicyResource objects (or anything with resource_type/props/urn/name/dependencies), so the same code serves
`pulumi preview --policy-pack` and the offline `gpuplan policy` and `gpuplan diff`."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.claims import RequestSelectors, request_selectors
from dra_gpu_platform.facts import catalog, driver_charts
from dra_gpu_platform.facts import gpu_operator as gpu_operator_facts
from dra_gpu_platform.plans.migration import GPU_MODE_LABEL
from dra_gpu_platform.recorded import props as c

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
    namespace: str | None = None  # where it installs

    def value(self, *path: str, default: Any = None) -> Any:
        return c.dig(self.values, *path, default=default)

    @property
    def dra_driver_release(self) -> driver_charts.DraDriverRelease | None:
        """The driver chart table's facts for this release's version (None: no or an unknown version)."""
        return driver_charts.dra_driver_release(self.version) if self.version else None

    @property
    def renders_gpu_cluster(self) -> bool:
        """A gpu-operator release whose chart renders a GPUCluster: the operator deploys the NVIDIA DRA driver
        (docs/references.md#gpu-operator-gpucluster)."""
        return self.chart in GPU_OPERATOR_CHARTS and self.value("gpuCluster", "deployCR", default=False) is True


@dataclass(frozen=True)
class NvidiaDraDriver:
    """The NVIDIA DRA driver a stack's releases install: its version and its own DeviceClasses."""

    release: HelmRelease
    version: str | None
    classes: frozenset[str]
    class_extended_resource: bool  # gpu.nvidia.com carries extendedResourceName


def nvidia_dra_driver(releases: Iterable[HelmRelease]) -> NvidiaDraDriver | None:
    """The NVIDIA DRA driver chart's release, or the gpu-operator release whose GPUCluster deploys the driver."""
    for release in releases:
        if release.chart in NVIDIA_DRA_CHARTS:
            facts = release.dra_driver_release
            return NvidiaDraDriver(
                release,
                release.version,
                frozenset(nvidia_dra_classes(release)),
                facts is not None and facts.gpu_class_extended_resource,
            )
        if release.renders_gpu_cluster:
            domains = release.value("draDriver", "computeDomains", "enabled", default=True) is not False
            classes = gpu_operator_facts.GPU_CLUSTER_GPU_CLASSES + (
                driver_charts.COMPUTE_DOMAIN_CLASSES if domains else ()
            )
            version = gpu_operator_facts.gpu_cluster_dra_driver(release.version) if release.version else None
            return NvidiaDraDriver(release, version, frozenset(classes), False)
    return None


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
        namespace=c.known(lambda: c.dig(props, "namespace"), None),
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
        elif release.renders_gpu_cluster and (driver := nvidia_dra_driver([release])) is not None:
            created = set(driver.classes)
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
