"""The `deviceClasses` section: the stack's DeviceClasses, from class sugar or raw CEL selectors, with their sharing
settings. Pure: no Pulumi imports.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dra_gpu_platform.config.fields import (
    CelExpression,
    ComputeCapability,
    ConfigModel,
    DnsSubdomain,
    GpuKey,
    QuantityText,
    StackInt,
)


class SharingConfig(ConfigModel):
    strategy: Literal["TimeSlicing", "MPS"] = Field(description="GPU sharing strategy of the NVIDIA driver.")
    interval: Literal["Default", "Short", "Medium", "Long"] | None = Field(None, description="TimeSlicing interval.")
    default_active_thread_percentage: StackInt | None = Field(None, ge=1, le=100, description="MPS thread share.")
    default_pinned_device_memory_limit: QuantityText | None = Field(None, description="MPS pinned memory limit.")


class DeviceClassConfig(ConfigModel):
    # a DNS subdomain, as Kubernetes names a DeviceClass (`nvidia-h100-mig-3g.40gb`; docs/references.md#dra-api-object-names)
    name: DnsSubdomain = Field(description="DeviceClass name, used by claim templates and quotas.")
    gpu: GpuKey | None = Field(None, description="Match this GPU model (NVML productName).")
    min_memory: QuantityText | None = Field(None, description="Minimum `memory` capacity, e.g. 79Gi.")
    mig_profile: str | None = Field(None, description="Match MIG devices of this profile.")
    min_compute_capability: ComputeCapability | None = Field(None, description='Minimum compute capability, "8.0".')
    sharing: SharingConfig | None = Field(None, description="Opaque sharing config passed to the driver.")
    selectors: list[CelExpression] = Field(default_factory=list, max_length=32, description="Raw CEL selectors.")
