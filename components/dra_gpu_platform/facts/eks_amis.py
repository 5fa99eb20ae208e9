"""EKS AMI types with the NVIDIA driver, and what each ships. Pure data.

Sources: botocore's EKS model `AMITypes` (1.44.x), AWS docs "ml-eks-optimized-ami" and "ml-eks-k8s-device-plugin"
(the Bottlerocket NVIDIA variants ship the NVIDIA device plugin; AL2023 NVIDIA does not), EKS stopped publishing AL2
AMIs on 2025-11-26 (amazon-eks-ami#2545). docs/references.md#eks-ami-types,
docs/references.md#eks-nvidia-ami-contents. Bottlerocket's host NVIDIA DRA driver:
docs/references.md#bottlerocket-nvidia-dra-driver.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, get_args

# What a GPU pool of the stack file may choose (x86_64: every catalog instance type is x86_64); the stack file's
# `amiType` is this type.
GpuPoolAmiType = Literal["AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA"]
GPU_POOL_AMI_TYPES: tuple[str, ...] = get_args(GpuPoolAmiType)
AL2023_NVIDIA, BOTTLEROCKET_NVIDIA = GPU_POOL_AMI_TYPES
DEFAULT_GPU_AMI = AL2023_NVIDIA
# Graviton instances (p6e-gb200: Grace CPUs) boot the arm64 NVIDIA AMI; an x86_64 AMI type does not launch there.
AL2023_NVIDIA_ARM64 = "AL2023_ARM_64_NVIDIA"


def default_gpu_ami(cpu_architecture: str) -> str:
    """The AMI type a GPU pool gets when it names none: AL2023 NVIDIA of the instance's CPU architecture."""
    return AL2023_NVIDIA_ARM64 if cpu_architecture == "arm64" else DEFAULT_GPU_AMI


# The AL2023 NVIDIA AMIs: the NVIDIA runtime is containerd's default there, with the toolkit's defaults
# (docs/references.md#eks-al2023-nvidia-runtime).
AL2023_NVIDIA_AMI_TYPES = (AL2023_NVIDIA, AL2023_NVIDIA_ARM64)

# Every EKS AMI type with the NVIDIA driver (what the policy pack accepts on any node group).
NVIDIA_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA_FIPS",
)
LEGACY_GPU_AMI_TYPES = ("AL2_x86_64_GPU",)

# EC2 families the EKS accelerated AL2023 NVIDIA AMIs support, sizes the catalog lists or not (AWS docs
# "ml-eks-optimized-ami", as quoted in NVIDIA/aicr#2743; docs/references.md#eks-nvidia-ami-families).
NVIDIA_AMI_INSTANCE_FAMILIES = frozenset(
    {
        # x86_64
        "p6-b300", "p6-b200", "p5", "p5e", "p5en", "p4d", "p4de", "p3", "p3dn",
        "g7e", "gr6", "g6", "g6e", "g6f", "gr6f", "g5", "g4dn",
        # arm64 (Grace and Graviton)
        "p6e-gb200", "p6e-gb300", "g5g",
    }
)  # fmt: skip  # no AMIs published since 2025-11-26

# Operands the Bottlerocket NVIDIA AMI provides itself, so the GPU Operator must not deploy them there.
BOTTLEROCKET_OPERANDS = ("device-plugin", "driver", "container-toolkit", "mig-manager")


# Bottlerocket's NVIDIA DRA driver on the host (bottlerocket-os/bottlerocket-core-kit packages/nvidia-dra-driver-gpu):
# the driver's gpu-kubelet-plugin as the systemd service nvidia-dra-driver-gpu.service, which runs only when
# settings.kubelet-dra-drivers.nvidia.enabled is true and settings.kubelet-device-plugins.nvidia.enabled is false
# (its enabled-marker template), so the AMI's device plugin and the host DRA driver never publish the same GPUs.
# The setting arrived in Bottlerocket 1.66.0 (its settings migration v1.66.0/kubelet-dra-drivers-nvidia-enabled),
# for the NVIDIA variants of Kubernetes 1.34 to 1.37.
BOTTLEROCKET_DRA_MIN_VERSION = "1.66.0"
BOTTLEROCKET_DRA_KUBERNETES = ("1.34", "1.35", "1.36", "1.37")
BOTTLEROCKET_DRA_SERVICE = "nvidia-dra-driver-gpu.service"
# The driver release the host service is built from (the package's gover) and what its ExecStart leaves out: no
# --feature-gates (every driver gate at its default, off for TimeSlicingSettings and MPSSupport), no compute-domain
# plugin. Its 25.8 line names devices the legacy way (dra_gpu_platform/facts/driver_charts.py).
BOTTLEROCKET_DRA_DRIVER_VERSION = "25.8.1"
# Bottlerocket user data (TOML) that EKS merges with its own for a managed node group's launch template
# (awsdocs/amazon-eks-user-guide latest/ug/nodes/launch-templates.adoc:121,200-211).
BOTTLEROCKET_DRA_SETTINGS: dict[str, dict[str, dict[str, bool]]] = {
    "kubelet-device-plugins": {"nvidia": {"enabled": False}},
    "kubelet-dra-drivers": {"nvidia": {"enabled": True}},
}


def is_bottlerocket(ami_type: str | None) -> bool:
    return ami_type is not None and ami_type.startswith("BOTTLEROCKET")


def ships_device_plugin(ami_type: str | None) -> bool:
    """The Bottlerocket NVIDIA AMIs carry their own NVIDIA device plugin (on unless user data turns it off)."""
    return ami_type is not None and is_bottlerocket(ami_type) and "NVIDIA" in ami_type


def runs_host_dra_driver(ami_type: str | None, gpu_stack: str) -> bool:
    """A DRA pool on a Bottlerocket NVIDIA AMI runs the host's NVIDIA DRA driver (its user data turns the AMI's
    device plugin off and the host driver on) instead of the DRA driver chart's kubelet plugin."""
    return gpu_stack == "dra" and ships_device_plugin(ami_type)


def has_bottlerocket_dra_settings(settings: dict[str, object]) -> bool:
    """Whether parsed Bottlerocket user data (a TOML document) turns the device plugin off and the host DRA driver on."""

    def enabled(extension: str) -> object:
        node: object = settings.get("settings")
        for key in (extension, "nvidia", "enabled"):
            node = node.get(key) if isinstance(node, dict) else None
        return node

    return enabled("kubelet-device-plugins") is False and enabled("kubelet-dra-drivers") is True


def bottlerocket_settings_toml(settings: Mapping[str, Any]) -> str:
    """Bottlerocket user data for `settings` (nested tables of booleans): one [settings.<path>] table per table that
    holds values, in the order given."""
    tables: list[str] = []

    def walk(path: str, table: Mapping[str, Any]) -> None:
        values = {k: v for k, v in table.items() if not isinstance(v, Mapping)}
        if values:
            body = "".join(f"{key} = {'true' if value else 'false'}\n" for key, value in values.items())
            tables.append(f"[{path}]\n{body}")
        for key, value in table.items():
            if isinstance(value, Mapping):
                walk(f"{path}.{key}", value)

    walk("settings", settings)
    return "\n".join(tables)


def root_device_name(ami_type: str) -> str:
    """Bottlerocket keeps images and containers on its second (data) volume; AL2023 on the root volume."""
    return "/dev/xvdb" if is_bottlerocket(ami_type) else "/dev/xvda"
