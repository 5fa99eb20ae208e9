"""Reads the stack's config from the Pulumi runtime into the same loader gpuplan uses on the file."""

from __future__ import annotations

import pulumi
from dra_gpu_platform.config.loading import parse_config_map, plaintext_secret_warnings
from dra_gpu_platform.config.models import PROJECT, STACK_CONFIG_DIR, StackConfig
from dra_gpu_platform.config.problems import InputError
from pulumi.runtime import config as runtime_config


def load_stack_config() -> StackConfig:
    """Validated StackConfig of the running stack; a config problem becomes a clean pulumi.RunError
    that lists every problem with its field path (no traceback)."""
    stack = pulumi.get_stack()
    values = {**runtime_config.get_config_env(), **runtime_config.CONFIG.get()}
    source = f"{STACK_CONFIG_DIR}/Pulumi.{stack.replace('/', '-')}.yaml"
    try:
        config = parse_config_map(values, stack=stack, source=source)
    except InputError as error:
        raise pulumi.RunError(error.render()) from None
    for warning in plaintext_secret_warnings(values, runtime_config.is_config_secret, stack=stack, source=source):
        pulumi.log.warn(warning)
    return config


def kubeconfig_secret() -> pulumi.Output[str] | None:
    return pulumi.Config(PROJECT).get_secret("kubeconfig")
