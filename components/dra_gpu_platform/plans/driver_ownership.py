"""Who installs the NVIDIA kernel driver and container toolkit on a GPU pool. Pure: no Pulumi imports.

EKS AL2023/Bottlerocket NVIDIA AMIs ship driver and toolkit (docs/references.md#eks-nvidia-ami-contents) and the GPU
Operator has no driver containers for them; AKS GPU pools install the driver unless created with
gpuProfile.driver=None (docs/references.md#aks-gpu-driver-none); kind and existing clusters use the host's driver.
`gpuOperator.driver` forces a choice.
"""

from __future__ import annotations

from typing import Literal

from dra_gpu_platform.config.models import StackConfig

DriverOwner = Literal["host", "operator"]


def driver_owner(config: StackConfig) -> DriverOwner:
    """One owner for the whole cluster: mixing driver owners across pools is not something the GPU
    Operator's single ClusterPolicy can express."""
    choice = config.gpu_operator.driver
    if choice == "operator" and config.gpu_operator_enabled:
        return "operator"
    return "host"


def operator_installs_driver(config: StackConfig) -> bool:
    return driver_owner(config) == "operator"


def dra_driver_root(config: StackConfig) -> str:
    """nvidiaDriverRoot of the DRA driver chart: where the driver's files live on the node."""
    return "/run/nvidia/driver" if operator_installs_driver(config) else "/"
