"""Images by digest: the chart values that pin an image by its digest, where the chart takes one and the digest of
the pinned tag is known (dra_gpu_platform/facts/image_digests.py). Pure: no Pulumi imports."""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any

from dra_gpu_platform.facts.image_digests import pinned_images
from dra_gpu_platform.plans.gpu_software import ReleasePlan, SoftwarePlan


def chart_name(chart: str) -> str:
    """The chart's name from a chart reference (`gpu-operator`, `oci://…/dra-driver-nvidia-gpu`)."""
    return chart.rstrip("/").rsplit("/", 1)[-1]


def pin_release(release: ReleasePlan) -> ReleasePlan:
    """The release with every image its chart version has a known digest for set to that digest (operands the
    values switch off too: the values say what would run, and the policy pack checks them all)."""
    images = pinned_images(chart_name(release.chart), release.version)
    if not images or release.values.get("clusterPolicy", {}).get("deployCR") is False:
        # the known digests are the ClusterPolicy's operands; under a GPUCluster no ClusterPolicy is deployed
        # (gpuOperator.draManagement: gpucluster), so none of them runs and the chart reads none of those values
        return release
    values: dict[str, Any] = copy.deepcopy(release.values)
    for image in images:
        node = values
        for key in image.value_path[:-1]:
            node = node.setdefault(key, {})
        node[image.value_path[-1]] = image.value
    return replace(release, values=values)


def pin_software(software: SoftwarePlan) -> SoftwarePlan:
    return replace(
        software,
        gpu_operator=pin_release(software.gpu_operator) if software.gpu_operator is not None else None,
        dra_driver=pin_release(software.dra_driver) if software.dra_driver is not None else None,
        example_driver=pin_release(software.example_driver) if software.example_driver is not None else None,
    )
