"""dra-gpu-platform: what `pulumi up` needs, in layers (import-linter enforces the direction, see pyproject.toml).

    facts, inputs, cel < config | dra < plans < resources | recorded < policies

- `facts`: pure data (GPU/instance catalog, Kubernetes minors, pinned chart versions, driver charts, node labels).
- `inputs`: reading what users hand in: input problems (errors with path, value, rule, fix) and strict YAML.
- `cel`: the one CEL engine, as Kubernetes evaluates DRA selectors and admission policies.
- `config`: the stack file contract (pydantic models, loading, cross-field rules), valid by construction.
- `dra`: DRA and scheduling semantics with no stack knowledge (ResourceSlices, claims, allocator, quota, admission).
- `plans`: StackConfig -> StackPlan, plain data (cloud plans, Helm values, DeviceClasses, claim templates, monitoring).
- `resources`: the only Pulumi ComponentResources, one per file, each taking a plan.
- `recorded`: a recorded stack (resource props) read back into plans, for the policy pack and `gpuplan diff`.
- `policies`: the CrossGuard rules (the pack's shell is the repository's policies/ folder).

The package exports GpuPlatform, GpuPlatformArgs, StackConfig, ConfigError and the finer components a team composes
on a cluster it already manages (docs/library.md) lazily, so importing a pure layer (`dra_gpu_platform.facts`, as the
policy pack does) never loads the Pulumi resource SDKs, and a name loads only its own cloud's SDK.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

# public name -> the module that defines it
_EXPORTS = {
    "StackConfig": "dra_gpu_platform.config.models",
    "ConfigError": "dra_gpu_platform.inputs.problems",
    "GpuPlatform": "dra_gpu_platform.resources.platform",
    "GpuPlatformArgs": "dra_gpu_platform.resources.platform",
    "EksGpuNodePool": "dra_gpu_platform.resources.clusters.eks_node_pool",
    "EksGpuNodePoolArgs": "dra_gpu_platform.resources.clusters.eks_node_pool",
    "AksGpuNodePool": "dra_gpu_platform.resources.clusters.aks_node_pool",
    "AksGpuNodePoolArgs": "dra_gpu_platform.resources.clusters.aks_node_pool",
    "DeviceClasses": "dra_gpu_platform.resources.dra.device_classes",
    "DeviceClassesArgs": "dra_gpu_platform.resources.dra.device_classes",
    "TenantNamespace": "dra_gpu_platform.resources.tenancy.tenant_namespace",
    "TenantNamespaceArgs": "dra_gpu_platform.resources.tenancy.tenant_namespace",
    "GpuOperator": "dra_gpu_platform.resources.software.gpu_operator",
    "GpuOperatorArgs": "dra_gpu_platform.resources.software.gpu_operator",
    "DraDriver": "dra_gpu_platform.resources.software.dra_driver",
    "DraDriverArgs": "dra_gpu_platform.resources.software.dra_driver",
}

__all__ = [
    "AksGpuNodePool",
    "AksGpuNodePoolArgs",
    "ConfigError",
    "DeviceClasses",
    "DeviceClassesArgs",
    "DraDriver",
    "DraDriverArgs",
    "EksGpuNodePool",
    "EksGpuNodePoolArgs",
    "GpuOperator",
    "GpuOperatorArgs",
    "GpuPlatform",
    "GpuPlatformArgs",
    "StackConfig",
    "TenantNamespace",
    "TenantNamespaceArgs",
]  # tests check it lists every name of _EXPORTS

if TYPE_CHECKING:
    from dra_gpu_platform.config.models import StackConfig
    from dra_gpu_platform.inputs.problems import ConfigError
    from dra_gpu_platform.resources.clusters.aks_node_pool import AksGpuNodePool, AksGpuNodePoolArgs
    from dra_gpu_platform.resources.clusters.eks_node_pool import EksGpuNodePool, EksGpuNodePoolArgs
    from dra_gpu_platform.resources.dra.device_classes import DeviceClasses, DeviceClassesArgs
    from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs
    from dra_gpu_platform.resources.software.dra_driver import DraDriver, DraDriverArgs
    from dra_gpu_platform.resources.software.gpu_operator import GpuOperator, GpuOperatorArgs
    from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs


def __getattr__(name: str) -> Any:
    # PEP 562: resolve the public names on first use only.
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'dra_gpu_platform' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
