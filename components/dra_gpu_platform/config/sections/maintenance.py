"""The `maintenance` section: DeviceTaintRules that keep new claims off degraded devices. Pure: no Pulumi imports."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from dra_gpu_platform.config.fields import ConfigModel, DnsLabel


class DeviceTaintConfig(ConfigModel):
    name: DnsLabel = Field(description="DeviceTaintRule name.")
    driver: str = Field(description="Driver of the tainted device, e.g. gpu.nvidia.com.")
    pool: str | None = Field(
        None, description="ResourceSlice pool (the node name for node-local drivers); none: every pool of the driver."
    )
    device: str | None = Field(None, description="Device name in the pool, e.g. gpu-3; none: every device of the pool.")
    key: str = Field(description="Taint key.")
    value: str | None = Field(None, description="Taint value.")
    effect: Literal["NoSchedule", "NoExecute", "None"] = Field("NoSchedule", description="None needs Kubernetes 1.35.")


class MaintenanceConfig(ConfigModel):
    device_taints: list[DeviceTaintConfig] = Field(
        default_factory=list,
        description="DeviceTaintRules: resource.k8s.io/v1 on 1.37, v1beta2 on 1.36 and v1alpha3 before (kind only "
        "below 1.37, where the stack turns the gates and API versions on).",
    )
