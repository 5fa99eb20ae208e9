"""The `autoscaler` section: whether, by what and with which version the GPU node pools scale. Pure: no Pulumi imports."""

from __future__ import annotations

from pydantic import Field

from dra_gpu_platform.config.fields import ConfigModel, StackBool
from dra_gpu_platform.facts import provisioners
from dra_gpu_platform.facts.platforms import PROFILES

# The platforms whose node pools a provisioner scales (dra_gpu_platform/facts/platforms.py Autoscaling).
AUTOSCALED_PLATFORMS = tuple(name for name, profile in PROFILES.items() if profile.autoscaling.supported)


class AutoscalerConfig(ConfigModel):
    enabled: StackBool | None = Field(
        None, description="Scale GPU node pools automatically (default: on for eks and aks; not on kind/existing)."
    )
    provisioner: provisioners.Provisioner = Field(
        provisioners.DEFAULT,
        description="What turns a pending GPU pod into a node: cluster-autoscaler (managed node groups / agent pools), "
        "karpenter (EKS: a Karpenter NodePool per pool), auto-mode (EKS Auto Mode NodePools) or "
        "node-auto-provisioning (AKS NAP NodePools).",
    )
    version: str | None = Field(
        None,
        pattern=r"^v?\d+\.\d+\.\d+$",
        description="EKS: the cluster-autoscaler image version (same minor as the cluster; default: the newest of the "
        "minor), or with provisioner karpenter the Karpenter chart release (default 1.14.1; 1.15.0 for dra pools).",
    )
