"""Image digests of the charts the platform installs, where the chart takes one and the digest of that very tag is
published upstream at the chart's release tag. Pure data.

Only GPU Operator operands qualify today. The GPU Operator builds an operand's image as `<repository>/<image>@<version>`
when its ClusterPolicy `version` starts with `sha256:` (NVIDIA/gpu-operator v25.10.1
`api/nvidia/v1/clusterpolicy_types.go:1794-1811`), and the operator's OLM bundle at each release tag pins the same
operands by digest (`bundle/manifests/gpu-operator-certified.clusterserviceversion.yaml`, `spec.relatedImages`):
- v26.7.0 names each as `<tag>@sha256:<digest>`;
- v25.10.1 names the digest only; each was bumped in the same commit as its tag in `deployments/gpu-operator/values.yaml`
  (3e65c0d27 device plugin v0.18.1, 8afa059cc MIG manager v0.13.1, 8e476d27c toolkit v1.18.1, 1bdfcd2e6 dcgm-exporter
  4.4.2-4.7.0-distroless).
Left at their tags, and why (docs/references.md#image-digests): the operator and validator images (the bundle names
`main-latest`), DCGM (the bundle pins the UBI build, the chart the Ubuntu one), the driver (one image per OS), NFD,
the DRA driver, the dra-example-driver, cluster-autoscaler, the EFA device plugin and kube-prometheus-stack's images
(their charts take a digest, but no digest of the pinned tags is published with them, and none is invented here).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PinnedImage:
    value_path: tuple[str, ...]  # the chart value that takes the digest
    image: str  # registry/repository
    tag: str  # the tag the chart pins at this release
    digest: str  # sha256:<hex> of that tag

    @property
    def value(self) -> str:
        """What the chart value gets (the ClusterPolicy form: the digest alone)."""
        return self.digest


def _operands(device_plugin: str, toolkit: str, mig_manager: str, dcgm_exporter: str) -> tuple[PinnedImage, ...]:
    def pin(path: str, image: str, tagged: str) -> PinnedImage:
        tag, _, digest = tagged.partition("@")
        return PinnedImage(tuple(path.split(".")), image, tag, digest)

    return (
        pin("devicePlugin.version", "nvcr.io/nvidia/k8s-device-plugin", device_plugin),
        pin("gfd.version", "nvcr.io/nvidia/k8s-device-plugin", device_plugin),
        pin("toolkit.version", "nvcr.io/nvidia/k8s/container-toolkit", toolkit),
        pin("migManager.version", "nvcr.io/nvidia/cloud-native/k8s-mig-manager", mig_manager),
        pin("dcgmExporter.version", "nvcr.io/nvidia/k8s/dcgm-exporter", dcgm_exporter),
    )


# (chart, chart version) -> the images that chart version pins by digest here.
CHART_IMAGES: dict[tuple[str, str], tuple[PinnedImage, ...]] = {
    ("gpu-operator", "v25.10.1"): _operands(
        "v0.18.1@sha256:50ac011ab941ab0140d52f56aa0e2fdc553bca96836ab3b26be394fc823fd9e7",
        "v1.18.1@sha256:ef2a0ef6bbf9c43529da3730974de9d51b8436c2314a68e718d437e6ab7c4b58",
        "v0.13.1@sha256:8e0803d2f29776cd4cc0501381a20a0b04b2da507a794d66a15894c57beaadb5",
        "4.4.2-4.7.0-distroless@sha256:7c0ac4430bb0a5868b7404a0e06c47e02b0375b61aadd614385ad0bc2d43815a",
    ),
    ("gpu-operator", "v26.7.0"): _operands(
        "v0.20.0@sha256:a61ba9fd8efb82f3a79f877f7580e02c1e8e7593f62473644bc9c79e315c3312",
        "v1.20.0@sha256:f8c647d581f7c8b178efdb7e6c94f5fb6eb12ebc05e2157fa314d327560fcb7a",
        "v0.15.0@sha256:cab2cf9deafc9602da69d0832a82958a7687f22f4a2f19674099dc9a5c4ea8e2",
        "4.6.0-4.8.3-distroless@sha256:613ab03c11d442fd960ff515f547e9921537454a712d08160bc8f677f89f1c35",
    ),
}


def pinned_images(chart: str, version: str | None) -> tuple[PinnedImage, ...]:
    return CHART_IMAGES.get((chart, version or ""), ())
