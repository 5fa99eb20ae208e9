"""The stack file contract (docs/configuration.md documents it) as pydantic v2 models. Pure: no Pulumi imports.

`StackConfig` is a stack, valid by construction: however it is built (a stack file through `parse_config_map`, a dict
through `StackConfig.model_validate`, keyword arguments), the sections are validated, the derived defaults applied and
the cross-field rules (dra_gpu_platform/config/rules/) run inside the model, and an invalid stack raises one ConfigError
listing every problem. The section models live in fields.py, cluster.py and sections/ (one module per section), the
whole stack with what derives from it in derived.py; they are importable from here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, TypeVar

from pydantic import ModelWrapValidatorHandler, ValidationError, model_validator

from dra_gpu_platform.config.cluster import (
    CLUSTER_MODELS,
    AksCluster,
    AksSettings,
    ClusterBase,
    ClusterConfig,
    EksCluster,
    EksSettings,
    ExistingCluster,
    ExistingSettings,
    KindCluster,
    KindSettings,
    SystemNodesAks,
    SystemNodesEks,
    platform_cluster,
)
from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.config.fields import (
    PROJECT,
    STACK_CONFIG_DIR,
    CelExpression,
    ConfigModel,
    DnsLabel,
    GpuKey,
    StackBool,
    StackInt,
    check_kubernetes_version,
)
from dra_gpu_platform.config.sections.autoscaler import AUTOSCALED_PLATFORMS, AutoscalerConfig
from dra_gpu_platform.config.sections.device_classes import DeviceClassConfig, SharingConfig
from dra_gpu_platform.config.sections.maintenance import DeviceTaintConfig, MaintenanceConfig
from dra_gpu_platform.config.sections.monitoring import MonitoringConfig
from dra_gpu_platform.config.sections.namespaces import (
    ClaimTemplateConfig,
    DeviceTolerationConfig,
    NamespaceConfig,
    QuotaConfig,
    SubRequestConfig,
)
from dra_gpu_platform.config.sections.node_pools import MigSettings, NodePool
from dra_gpu_platform.config.sections.software import DraDriverConfig, GpuOperatorConfig
from dra_gpu_platform.config.validation import config_error, validate_stack
from dra_gpu_platform.facts.platforms import PLATFORMS

__all__ = [
    "AUTOSCALED_PLATFORMS",
    "CLUSTER_MODELS",
    "PLATFORMS",
    "PROJECT",
    "STACK_CONFIG_DIR",
    "AksCluster",
    "AksSettings",
    "AutoscalerConfig",
    "CelExpression",
    "ClaimTemplateConfig",
    "ClusterBase",
    "ClusterConfig",
    "ConfigModel",
    "DeviceClassConfig",
    "DeviceTaintConfig",
    "DeviceTolerationConfig",
    "DnsLabel",
    "DraDriverConfig",
    "EksCluster",
    "EksSettings",
    "ExistingCluster",
    "ExistingSettings",
    "GpuKey",
    "GpuOperatorConfig",
    "KindCluster",
    "KindSettings",
    "MaintenanceConfig",
    "MigSettings",
    "MonitoringConfig",
    "NamespaceConfig",
    "NodePool",
    "QuotaConfig",
    "SharingConfig",
    "StackBool",
    "StackConfig",
    "StackInt",
    "StackSections",
    "SubRequestConfig",
    "SystemNodesAks",
    "SystemNodesEks",
    "check_kubernetes_version",
    "platform_cluster",
]


class StackConfig(StackSections):
    """A whole stack, valid by construction.

    Build it from a stack file's `dra-gpu-platform:*` sections, keys without the prefix and spelled as in the file
    (`cluster`, `nodePools`, `gpuOperator`, `draDriver`, `deviceClasses`, `namespaces`, `maintenance`, `autoscaler`,
    `monitoring`, and `kubeconfig`, of which only its presence is kept), plus `region` (AWS region or Azure location),
    `hasKubeconfig`, `stack` and `source` (the file problems name) where known::

        StackConfig.model_validate({"cluster": {...}, "nodePools": [...], "region": "us-east-1"})
        StackConfig(cluster={...}, nodePools=[...])

    An invalid stack raises one ConfigError (a ValueError) whose `.problems` are every problem at once; where
    pydantic validates a StackConfig inside another model, its ValidationError carries the same lines.
    `model_construct` stays pydantic's documented escape hatch: it builds a StackConfig without any validation,
    for data that was validated before (a copy with `model_copy` is not validated either).
    """

    @model_validator(mode="wrap")
    @classmethod
    def _valid_stack(cls, data: Any, handler: ModelWrapValidatorHandler[Self]) -> Self:
        return validate_stack(cls, data, handler)

    def __init__(self, /, **sections: Any) -> None:
        try:
            super().__init__(**sections)
        except ValidationError as error:
            raise config_error(error, sections.get("source")) from None

    # pydantic's three validating entry points, whatever keywords pydantic gives them now or later: the keywords
    # pass through unnamed, so a keyword pydantic adds needs no edit here.
    @classmethod
    def model_validate(cls, obj: Any, **options: Any) -> Self:
        return _raising_config_error(super().model_validate, obj, **options)

    @classmethod
    def model_validate_json(cls, json_data: str | bytes | bytearray, **options: Any) -> Self:
        return _raising_config_error(super().model_validate_json, json_data, **options)

    @classmethod
    def model_validate_strings(cls, obj: Any, **options: Any) -> Self:
        return _raising_config_error(super().model_validate_strings, obj, **options)


_Validated = TypeVar("_Validated")


def _raising_config_error(validate: Callable[..., _Validated], data: Any, **options: Any) -> _Validated:
    """`validate(data, **options)`, with pydantic's ValidationError turned into one ConfigError (every problem)."""
    try:
        return validate(data, **options)
    except ValidationError as error:
        raise config_error(error) from None
