"""The GPU software sections: `gpuOperator` (the NVIDIA GPU Operator) and `draDriver` (the NVIDIA DRA driver).
Pure: no Pulumi imports.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from dra_gpu_platform.config.fields import ConfigModel, StackBool
from dra_gpu_platform.facts import driver_charts, versions


class GpuOperatorConfig(ConfigModel):
    enabled: StackBool | None = Field(None, description="Install the NVIDIA GPU Operator (default: on, off on kind).")
    version: Annotated[str, Field(pattern=r"^v\d+\.\d+\.\d+$")] = Field(
        versions.GPU_OPERATOR_DEFAULT, description="Pinned gpu-operator chart version."
    )
    allow_unlisted: StackBool = Field(
        False,
        description="Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked).",
    )
    driver: Literal["auto", "host", "operator"] = Field(
        "auto",
        description="Who installs the NVIDIA kernel driver: auto (host on EKS NVIDIA AMIs and AKS), host, operator.",
    )
    dra_management: Literal["chart", "gpucluster"] = Field(
        "chart",
        description="Who deploys the NVIDIA DRA driver: chart (its own Helm release, beside the operator's "
        "ClusterPolicy) or gpucluster (GPU Operator v26.7.0+ deploys it through its GPUCluster resource instead of "
        "a ClusterPolicy; technology preview, new clusters only, DRA pools only).",
    )


class DraDriverConfig(ConfigModel):
    enabled: StackBool = Field(True, description="Install the NVIDIA DRA driver.")
    version: str = Field(driver_charts.DRA_DRIVER_DEFAULT, description="Pinned DRA driver chart version.")
    allow_unlisted: StackBool = Field(
        False,
        description="Accept a version that is not a listed release (a newer one pinned on purpose; values unchecked).",
    )
    feature_gates: dict[str, StackBool] = Field(
        default_factory=dict, description="Driver feature gates; TimeSlicingSettings/MPSSupport are set for you."
    )
    compute_domains: StackBool | None = Field(
        None,
        description="ComputeDomains (multi-node NVLink, IMEX channels): default on when a DRA pool's GPU has "
        "multi-node NVLink (GB200), else off; true without such a pool is an error.",
    )
    extended_resource_bridge: StackBool | None = Field(
        None,
        description="Let pods requesting nvidia.com/gpu be served by DRA (KEP-5004, DRAExtendedResource). Default: "
        "on from Kubernetes 1.36 where the driver's gpu.nvidia.com class carries extendedResourceName, else off.",
    )
