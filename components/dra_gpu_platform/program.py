"""The stack program: read the stack's config once, plan it once, build GpuPlatform, export the stack outputs.

This repository's `__main__.py` calls `run()`, which reads the config from the Pulumi runtime (the stack file that
`pulumi up` hands it); gpuplan, which has validated the stack file already, passes the StackConfig in. Outside the
layers (like the package's `__init__`): it joins the config contract, the plans and the resources.
"""

from __future__ import annotations

import os

import pulumi
from pulumi.runtime import config as runtime_config

from dra_gpu_platform.config.loading import parse_config_map, plaintext_secret_warnings
from dra_gpu_platform.config.models import PROJECT, STACK_CONFIG_DIR, StackConfig
from dra_gpu_platform.facts import kubernetes
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.plans.stack import StackPlan, plan_stack
from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs


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


def run(config: StackConfig | None = None, plan: StackPlan | None = None) -> GpuPlatform:
    """The whole stack: GpuPlatform named after the cluster, and the stack outputs. gpuplan passes the config it
    validated and the plan it derived from it (planned once); `pulumi up` passes neither."""
    if config is None:
        config = load_stack_config()
    for note in kubernetes.lifecycle_notes(config.platform, config.cluster.kubernetes_version, kubernetes.today()):
        pulumi.log.info(note)
    if plan is None:
        # the AKS kubeconfig's kubelogin signs in the way the environment running `pulumi up` is signed in
        plan = plan_stack(config, environ=os.environ)
    platform = GpuPlatform(plan.name, GpuPlatformArgs(plan, kubeconfig=kubeconfig_secret()))
    pulumi.export("platform", plan.platform)
    pulumi.export("clusterName", plan.name)
    pulumi.export("kubernetesVersion", plan.kubernetes_version)
    pulumi.export("kubeconfig", platform.kubeconfig)
    pulumi.export("deviceClasses", [c.name for c in plan.device_classes])
    pulumi.export("namespaces", {ns.name: ns.migration for ns in plan.namespaces})
    return platform
