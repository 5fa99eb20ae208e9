"""dra-gpu-platform: what `pulumi up` needs, in layers (import-linter enforces the direction, see pyproject.toml).

    facts < config < dra < plans < resources

- `facts`: pure data (GPU/instance catalog, pinned chart versions, driver charts, node labels, quantities).
- `config`: the stack file contract (pydantic models, loading, problems, cross-field rules).
- `dra`: DRA semantics with no stack knowledge (CEL, ResourceSlices, the claim parser, allocator, quota charges).
- `plans`: StackConfig -> plain data (cloud plans, Helm values, DeviceClasses, claim templates, monitoring).
- `resources`: the only Pulumi ComponentResources, one per file, each taking a plan.

The package exports GpuPlatform, GpuPlatformArgs, StackConfig and ConfigError lazily, so importing a pure layer
(`components.facts`, as the policy pack does) never loads the Pulumi resource SDKs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["ConfigError", "GpuPlatform", "GpuPlatformArgs", "StackConfig"]

if TYPE_CHECKING:
    from dra_gpu_platform.config.models import StackConfig
    from dra_gpu_platform.config.problems import ConfigError
    from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs


def __getattr__(name: str) -> Any:
    # PEP 562: resolve the public names on first use only.
    if name == "StackConfig":
        from dra_gpu_platform.config.models import StackConfig

        return StackConfig
    if name == "ConfigError":
        from dra_gpu_platform.config.problems import ConfigError

        return ConfigError
    if name in ("GpuPlatform", "GpuPlatformArgs"):
        from dra_gpu_platform.resources import platform

        return getattr(platform, name)
    raise AttributeError(f"module 'components' has no attribute {name!r}")
