"""The DRA driver Helm charts, per released version: the ONE table of what each chart version is called, where
it lives, which DeviceClasses it creates, which of our values it reads, and how its driver names devices.

Config rules, the stack's simulated inventory, the GPU software values, the policy pack and preview all read this
table; nothing else knows a chart-version cut-off. Sources (read at each tag; docs/references.md#nvidia-dra-charts,
docs/references.md#nvidia-dra-deviceclasses, docs/references.md#nvidia-dra-feature-gates,
docs/references.md#nvidia-dra-resource-api-version, docs/references.md#nvidia-dra-mig-devices,
docs/references.md#example-driver-chart, docs/references.md#example-driver-deviceclass):
- NVIDIA/k8s-dra-driver-gpu v25.3.0 … v25.12.0, `deployments/helm/nvidia-dra-driver-gpu/` (`Chart.yaml`,
  `values.yaml`, `templates/deviceclass-*.yaml`, `templates/_helpers.tpl`);
- kubernetes-sigs/dra-driver-nvidia-gpu v0.4.0, v0.4.1, `deployments/helm/dra-driver-nvidia-gpu/` (same files);
- kubernetes-sigs/dra-example-driver chart/0.1.0 … chart/0.4.0, `deployments/helm/dra-example-driver/`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypedDict, Unpack

from packaging.version import InvalidVersion, Version

from dra_gpu_platform.facts.catalog import EXAMPLE_DRIVER
from dra_gpu_platform.facts.chart_releases import ChartSource

NGC_REPO = "https://helm.ngc.nvidia.com/nvidia"
DRA_DRIVER_OCI_REPO = "oci://registry.k8s.io/dra-driver-nvidia/charts"
EXAMPLE_DRIVER_OCI_REPO = "oci://registry.k8s.io/dra-example-driver/charts"
NVIDIA_CALVER_CHART = "nvidia-dra-driver-gpu"
NVIDIA_SIGS_CHART = "dra-driver-nvidia-gpu"
EXAMPLE_CHART = "dra-example-driver"
# Chart names of earlier in-repo releases, still recognised when a stack's Helm release uses them.
NVIDIA_DRA_CHART_NAMES = frozenset({NVIDIA_CALVER_CHART, NVIDIA_SIGS_CHART, "k8s-dra-driver"})

# templates/deviceclass-*.yaml: the CEL selector of each class the charts create.
DEVICE_CLASS_SELECTORS: dict[str, str] = {
    "gpu.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'",
    "mig.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'",
    "vfio.gpu.nvidia.com": "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'vfio'",
    "compute-domain-daemon.nvidia.com": (
        "device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == 'daemon'"
    ),
    "compute-domain-default-channel.nvidia.com": (
        "device.driver == 'compute-domain.nvidia.com' && device.attributes['compute-domain.nvidia.com'].type == 'channel' "
        "&& device.attributes['compute-domain.nvidia.com'].id == 0"
    ),
    "gpu.example.com": "device.driver == 'gpu.example.com'",
}
COMPUTE_DOMAIN_CLASSES = ("compute-domain-daemon.nvidia.com", "compute-domain-default-channel.nvidia.com")
NVIDIA_GPU_CLASS = "gpu.nvidia.com"  # the chart's class of whole GPUs
# gpu.nvidia.com carries this extendedResourceName when rendered for resource.k8s.io/v1 (KEP-5004 bridge).
GPU_CLASS_EXTENDED_RESOURCE = "nvidia.com/gpu"

# Driver feature gates per release line (pkg/featuregates/featuregates.go at each tag; the 25.3 charts have no
# gates at all: docs/references.md#nvidia-dra-feature-gates) and the gate each GPU sharing strategy needs (custom
# time-slicing: TimeSlicingSettings; MPS: MPSSupport).
_GATES_25_8 = ("TimeSlicingSettings", "MPSSupport", "IMEXDaemonsWithDNSNames")
_GATES_25_12 = (
    *_GATES_25_8,
    "PassthroughSupport",
    "NVMLDeviceHealthCheck",
    "DynamicMIG",
    "ComputeDomainCliques",
    "CrashOnNVLinkFabricErrors",
)
_GATES_0_4 = (*_GATES_25_12, "DeviceMetadata")
SHARING_FEATURE_GATES = {"TimeSlicing": "TimeSlicingSettings", "MPS": "MPSSupport"}

# The kubelet plugin's default required node affinity (values.yaml kubeletPlugin.affinity; dra-driver-nvidia-gpu
# v0.4.1 values.yaml:288-321): any one of these labels (NFD's PCI and Tegra CPU labels, the GPU Operator's
# nvidia.com/gpu.present). The CalVer charts list the same without the two PCI class labels (25.3.2-25.12.0).
# Our values replace it only to wait for a MIG layout.
KUBELET_PLUGIN_DEFAULT_AFFINITY = (
    ("feature.node.kubernetes.io/pci-10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0302_10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0300_10de.present", "true"),
    ("feature.node.kubernetes.io/cpu-model.vendor_id", "NVIDIA"),
    ("nvidia.com/gpu.present", "true"),
)

Lineage = Literal["nvidia-calver", "kubernetes-sigs"]
AttributeNaming = Literal["legacy", "current"]


@dataclass(frozen=True)
class DraDriverRelease:
    """One released chart version of the NVIDIA DRA driver (chart version = driver version)."""

    version: str
    lineage: Lineage
    # DeviceClasses rendered with resources.gpus.enabled (chart default true); the compute-domain classes
    # come with resources.computeDomains.enabled.
    gpu_classes: tuple[str, ...]
    # DeviceClass apiVersion: "detect" = templates/_helpers.tpl picks v1 > v1beta2 > v1beta1 from the cluster's
    # capabilities; "v1beta1" = hard-coded, which a 1.34+ cluster serves only with --runtime-config.
    resource_api: Literal["detect", "v1beta1"]
    feature_gates_value: bool  # values.yaml has `featureGates` (rendered into FEATURE_GATES)
    resource_api_version_value: bool  # values.yaml has `resourceApiVersion` (overrides the detection)
    gpu_class_extended_resource: bool  # deviceclass-gpu.yaml sets extendedResourceName on v1
    feature_gates: tuple[str, ...]  # gates the driver of this tag knows (an unknown one stops it at start)
    # Device naming of cmd/gpu-kubelet-plugin: "legacy" = pcieBusID attribute and MIG names
    # gpu-<minor>-mig-<profileId>-<start>-<size>; "current" = resource.kubernetes.io/pciBusID and
    # gpu-<minor>-mig-<profile>-<profileId>-<start>.
    attribute_naming: AttributeNaming
    # templates/controller.yaml renders the controller only with resources.computeDomains.enabled (line 15 at
    # every tag); its default affinity in values.yaml is a *required* node-role.kubernetes.io/control-plane term
    # in the CalVer charts and only *preferred* from 0.4.0 on, so only CalVer needs an override on managed
    # control planes, and only with ComputeDomains on.
    controller_requires_control_plane: bool
    source: ChartSource  # the release tag the facts above were read at

    @property
    def chart(self) -> str:
        return NVIDIA_CALVER_CHART if self.lineage == "nvidia-calver" else NVIDIA_SIGS_CHART

    @property
    def repository(self) -> str:
        return NGC_REPO if self.lineage == "nvidia-calver" else DRA_DRIVER_OCI_REPO

    def device_classes(self, *, gpus: bool = True, compute_domains: bool = True) -> tuple[str, ...]:
        """Classes the chart creates for these `resources.*.enabled` values (chart defaults: both true)."""
        return (self.gpu_classes if gpus else ()) + (COMPUTE_DOMAIN_CLASSES if compute_domains else ())


class _ChartFacts(TypedDict):
    """The facts of DraDriverRelease that several releases share (one set per chart generation)."""

    gpu_classes: tuple[str, ...]
    resource_api: Literal["detect", "v1beta1"]
    feature_gates_value: bool
    resource_api_version_value: bool
    gpu_class_extended_resource: bool
    feature_gates: tuple[str, ...]
    attribute_naming: AttributeNaming


def _calver(version: str, commit: str, **facts: Unpack[_ChartFacts]) -> DraDriverRelease:
    source = ChartSource("NVIDIA/k8s-dra-driver-gpu", f"v{version}", commit, "deployments/helm/nvidia-dra-driver-gpu")
    return DraDriverRelease(
        version=version, lineage="nvidia-calver", controller_requires_control_plane=True, source=source, **facts
    )


def _sigs(version: str, commit: str, **facts: Unpack[_ChartFacts]) -> DraDriverRelease:
    source = ChartSource(
        "kubernetes-sigs/dra-driver-nvidia-gpu", f"v{version}", commit, "deployments/helm/dra-driver-nvidia-gpu"
    )
    return DraDriverRelease(
        version=version, lineage="kubernetes-sigs", controller_requires_control_plane=False, source=source, **facts
    )


_LEGACY_25_3: _ChartFacts = {
    "gpu_classes": ("gpu.nvidia.com", "mig.nvidia.com"),
    "resource_api": "v1beta1",
    "feature_gates_value": False,
    "resource_api_version_value": False,
    "gpu_class_extended_resource": False,
    "feature_gates": (),
    "attribute_naming": "legacy",
}
_LEGACY_25_8: _ChartFacts = {
    **_LEGACY_25_3,
    "resource_api": "detect",
    "feature_gates_value": True,
    "feature_gates": _GATES_25_8,
}
_CURRENT_25_12: _ChartFacts = {
    "gpu_classes": ("gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com"),
    "resource_api": "detect",
    "feature_gates_value": True,
    "resource_api_version_value": True,
    "gpu_class_extended_resource": True,
    "feature_gates": _GATES_25_12,
    "attribute_naming": "current",
}
_CURRENT_0_4: _ChartFacts = {**_CURRENT_25_12, "feature_gates": _GATES_0_4}

DRA_DRIVER_RELEASES: dict[str, DraDriverRelease] = {
    r.version: r
    for r in (
        _calver("25.3.0", "06db1a78434d01cdf82521a6546077cc5a8ac39b", **_LEGACY_25_3),
        _calver("25.3.1", "42270a3bd6fc2f38404b6d82dc1ffaf6926844a0", **_LEGACY_25_3),
        _calver("25.3.2", "7020737a5e6d17d53003b19b1c473fa352f59232", **_LEGACY_25_3),
        _calver("25.8.0", "2ef1f2ad8ad2e65756d19f454f55e5b021d0bf3b", **_LEGACY_25_8),
        _calver("25.8.1", "fc69d98528027bfe06efff81e6fd99c98ede8ff7", **_LEGACY_25_8),
        _calver("25.12.0", "0882da8720c28763137e0987778ec476ec4cf8df", **_CURRENT_25_12),
        _sigs("0.4.0", "6910a2bea298933cf64cfb061ddf88b6e17743ff", **_CURRENT_0_4),
        _sigs("0.4.1", "764900e7833798a1528bd52a2af3e1b2d5f7a616", **_CURRENT_0_4),
    )
}
DRA_DRIVER_DEFAULT = "0.4.1"
# The default release's gates (what the config docs list).
FEATURE_GATES = DRA_DRIVER_RELEASES[DRA_DRIVER_DEFAULT].feature_gates

# Released upstream but not listed, and why (docs/references.md#nvidia-dra-driver-0-5-0). Such a version is usable
# only with draDriver.allowUnlisted: true, with the chart facts of the newest listed release of its line; its
# feature gates are then not checked (main after v0.4.1 added FabricManagerPartitioning, HostManagedIMEXDaemon,
# DRAListTypeAttributes and ConsumableShares, all alpha and off).
NOT_LISTED: dict[str, str] = {
    "0.5.0": "its v0.5.0 tag could not be read (the newest snapshot of kubernetes-sigs/dra-driver-nvidia-gpu is main "
    "at 95932046 of 2026-08-07, chart 0.5.0-dev), so its chart was never rendered with these values",
}

# chart/<version> tags (0.2.0 hard-codes resource.k8s.io/v1beta1 in templates/deviceclass.yaml; 0.2.1 on detect
# the API); every version renders the one class gpu.example.com. Chart.yaml at a tag says 0.0.0-dev: the
# publish job stamps the tag's version.
EXAMPLE_DRIVER_RELEASES: dict[str, ChartSource] = {
    version: ChartSource(
        "kubernetes-sigs/dra-example-driver", f"chart/{version}", commit, "deployments/helm/dra-example-driver"
    )
    for version, commit in (
        ("0.2.0", "5f544fa3d28d32b6bac67a124c616ef814cd8cc9"),
        ("0.2.1", "bb67e6bac6b045a80498017ad60a1aa6b23eb9ce"),
        ("0.3.0", "445c162bbd679f49dabd5ee4d23aa600cf2dc5d7"),
        ("0.4.0", "bab2dce4b045e729565c9a3b85554738247cda30"),
    )
}
EXAMPLE_DRIVER_DEFAULT = "0.2.1"
EXAMPLE_DRIVER_CLASSES = (EXAMPLE_DRIVER,)


def parse_version(text: str) -> Version | None:
    """A chart version as packaging reads it (a leading `v` is allowed), or None when it is not one."""
    try:
        return Version(text)
    except (InvalidVersion, TypeError):
        return None


def lineage_of(version: str) -> Lineage | None:
    """NVIDIA's CalVer charts (25.x and later years) came first; kubernetes-sigs restarted at 0.4.0."""
    parsed = parse_version(version)
    if parsed is None:
        return None
    return "nvidia-calver" if parsed.major >= 25 else "kubernetes-sigs"


def dra_driver_release(version: str) -> DraDriverRelease | None:
    """The table's row for a chart version; for an unlisted version (a newer release pinned on purpose) the
    newest listed release of the same lineage that is not newer, whose chart facts it is assumed to keep.
    None when the version is not a version or older than every listed release of its lineage."""
    if version in DRA_DRIVER_RELEASES:
        return DRA_DRIVER_RELEASES[version]
    parsed, lineage = parse_version(version), lineage_of(version)
    if parsed is None:
        return None
    older = [r for r in DRA_DRIVER_RELEASES.values() if r.lineage == lineage and Version(r.version) <= parsed]
    return max(older, key=lambda r: Version(r.version)) if older else None


def chart_reference(version: str) -> tuple[str, str]:
    """(chart name, repository) of a DRA driver chart version: CalVer on NGC, kubernetes-sigs on registry.k8s.io."""
    if lineage_of(version) == "nvidia-calver":
        return NVIDIA_CALVER_CHART, NGC_REPO
    return NVIDIA_SIGS_CHART, DRA_DRIVER_OCI_REPO


def attribute_naming(driver_version: str) -> AttributeNaming:
    """Device naming of a driver version; unknown or unparseable versions get the current naming."""
    release = dra_driver_release(driver_version)
    if release is not None:
        return release.attribute_naming
    return "legacy" if lineage_of(driver_version) == "nvidia-calver" else "current"
