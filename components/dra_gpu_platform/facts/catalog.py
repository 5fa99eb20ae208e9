"""The GPU catalog: GPU models (dra_gpu_platform/facts/gpu_models.py) and the instance types and VM sizes that carry
them (dra_gpu_platform/facts/instance_types.py), under the one import name the layers above use. Pure: no Pulumi
imports, no I/O.

Sources (docs/references.md): architecture, compute capability and memory (docs/references.md#gpu-architecture-facts),
NVML product names (docs/references.md#nvidia-product-names), MIG profiles from gpu-operator's mig-parted defaults
(docs/references.md#gpu-operator-mig-profiles), EC2 instance types (docs/references.md#ec2-gpu-instance-types) and
Azure VM sizes (docs/references.md#azure-gpu-vm-sizes). "Published" memory is what the NVIDIA DRA driver advertises
as the `memory` capacity (NVML's total, below the marketing number; docs/references.md#nvidia-published-memory);
tests/facts/test_catalog.py checks the H200 entry against a real H200's NVML snapshot when the team's shared
fixtures sit beside the checkout.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from dra_gpu_platform.facts.gpu_models import (
    GPU_MODELS,
    GpuModel,
    MigProfile,
    all_mig_profile_names,
    described_gpu_model,
    described_mig_profile,
    gpu_model,
)
from dra_gpu_platform.facts.instance_types import (
    EFA_FAMILIES,
    FRACTIONAL_GPU_FAMILIES,
    INSTANCE_TYPES,
    InstanceType,
    declared_instance_type,
    default_instance_type,
    gpus_offered,
    instance_type,
    instance_type_named,
    instance_types_for,
    pool_shape,
)

__all__ = [
    "EFA_FAMILIES",
    "EXAMPLE_DEVICE",
    "EXAMPLE_DRIVER",
    "FRACTIONAL_GPU_FAMILIES",
    "GPU_MODELS",
    "INSTANCE_TYPES",
    "NVIDIA_DRIVER",
    "STANDARD_DOMAIN",
    "ExampleDriverDevice",
    "GpuModel",
    "InstanceType",
    "MigProfile",
    "all_mig_profile_names",
    "declared_instance_type",
    "default_instance_type",
    "described_gpu_model",
    "described_mig_profile",
    "gpu_model",
    "gpus_offered",
    "instance_type",
    "instance_type_named",
    "instance_types_for",
    "pool_shape",
]

NVIDIA_DRIVER = "gpu.nvidia.com"
EXAMPLE_DRIVER = "gpu.example.com"
STANDARD_DOMAIN = "resource.kubernetes.io"


@dataclass(frozen=True)
class ExampleDriverDevice:
    """What kubernetes-sigs/dra-example-driver publishes per fake GPU (docs/references.md#example-driver-devices)."""

    count_per_node: int = 8
    model: str = "LATEST-GPU-MODEL"
    driver_version: str = "1.0.0"
    memory: str = "80Gi"
    attributes: tuple[str, ...] = field(default=("index", "uuid", "model", "driverVersion"))


EXAMPLE_DEVICE = ExampleDriverDevice()
