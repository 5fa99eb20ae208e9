"""The GPU software sections: `gpuOperator` (the NVIDIA GPU Operator) and `draDriver` (the NVIDIA DRA driver).
Pure: no Pulumi imports.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Discriminator, Field, Tag

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


class ExtendedResourceBridgeConfig(ConfigModel):
    """The extended-resource bridge, limited to the GPU models it serves."""

    gpus: list[Annotated[str, Field(min_length=1)]] = Field(
        min_length=1,
        max_length=16,
        description="GPU models whose DRA devices serve nvidia.com/gpu (a pool's gpu: a catalog key, or a described "
        "GPU's product).",
    )


def _bridge_choice(value: Any) -> str:
    return "models" if isinstance(value, (dict, ExtendedResourceBridgeConfig)) else "switch"


# true/false, or the models it serves. The tags name the branch only for pydantic (config/validation.py leaves them
# out of the field paths problems show).
BRIDGE_CHOICE_TAGS = ("switch", "models")
BridgeChoice = Annotated[
    Annotated[StackBool, Tag("switch")] | Annotated[ExtendedResourceBridgeConfig, Tag("models")],
    Discriminator(_bridge_choice),
]


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
    extended_resource_bridge: BridgeChoice | None = Field(
        None,
        description="Let nvidia.com/gpu pods of legacy and dual namespaces be served by DRA (KEP-5004, "
        "DRAExtendedResource): {gpus: [T4, ...]} names the GPU models it may serve (every DRA pool of another model "
        "is refused while the driver's gpu.nvidia.com, which matches every GPU, is the class that serves it); true "
        "serves any DRA GPU; false: off, their quotas hold gpu.nvidia.com at 0. Default: on from Kubernetes 1.36 "
        "where the driver's gpu.nvidia.com class carries extendedResourceName, else off; on by default it serves "
        "those namespaces only in a stack without device-plugin pools (their only server), and a stack with them "
        "keeps their legacyGpus there until it opts in.",
    )
