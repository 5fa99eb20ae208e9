"""EKS AMI types with the NVIDIA driver, and what each ships. Pure data.

Sources: botocore's EKS model `AMITypes` (1.44.x), AWS docs "ml-eks-optimized-ami" and "ml-eks-k8s-device-plugin"
(the Bottlerocket NVIDIA variants ship the NVIDIA device plugin; AL2023 NVIDIA does not), EKS stopped publishing AL2
AMIs on 2025-11-26 (amazon-eks-ami#2545). docs/references.md#eks-ami-types,
docs/references.md#eks-nvidia-ami-contents.
"""

from __future__ import annotations

AL2023_NVIDIA = "AL2023_x86_64_NVIDIA"
BOTTLEROCKET_NVIDIA = "BOTTLEROCKET_x86_64_NVIDIA"

# What a GPU pool of the stack file may choose (x86_64: every catalog instance type is x86_64).
GPU_POOL_AMI_TYPES = (AL2023_NVIDIA, BOTTLEROCKET_NVIDIA)
DEFAULT_GPU_AMI = AL2023_NVIDIA
# Graviton instances (p6e-gb200: Grace CPUs) boot the arm64 NVIDIA AMI; an x86_64 AMI type does not launch there.
AL2023_NVIDIA_ARM64 = "AL2023_ARM_64_NVIDIA"


def default_gpu_ami(cpu_architecture: str) -> str:
    """The AMI type a GPU pool gets when it names none: AL2023 NVIDIA of the instance's CPU architecture."""
    return AL2023_NVIDIA_ARM64 if cpu_architecture == "arm64" else DEFAULT_GPU_AMI


# Every EKS AMI type with the NVIDIA driver (what the policy pack accepts on any node group).
NVIDIA_AMI_TYPES = (
    "AL2023_x86_64_NVIDIA",
    "AL2023_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA",
    "BOTTLEROCKET_ARM_64_NVIDIA",
    "BOTTLEROCKET_x86_64_NVIDIA_FIPS",
)
LEGACY_GPU_AMI_TYPES = ("AL2_x86_64_GPU",)  # no AMIs published since 2025-11-26

# Operands the Bottlerocket NVIDIA AMI provides itself, so the GPU Operator must not deploy them there.
BOTTLEROCKET_OPERANDS = ("device-plugin", "driver", "container-toolkit", "mig-manager")


def is_bottlerocket(ami_type: str | None) -> bool:
    return bool(ami_type) and ami_type.startswith("BOTTLEROCKET")


def ships_device_plugin(ami_type: str | None) -> bool:
    """The Bottlerocket NVIDIA AMIs run their own NVIDIA device plugin."""
    return is_bottlerocket(ami_type) and "NVIDIA" in ami_type


def root_device_name(ami_type: str) -> str:
    """Bottlerocket keeps images and containers on its second (data) volume; AL2023 on the root volume."""
    return "/dev/xvdb" if is_bottlerocket(ami_type) else "/dev/xvda"
