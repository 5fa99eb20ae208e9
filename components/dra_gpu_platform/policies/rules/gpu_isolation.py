"""Stack rule that GPU isolation holds per container, not per pod: where the stack has GPU tenant namespaces, every
GPU node it launches runs an NVIDIA container toolkit that ignores NVIDIA_VISIBLE_DEVICES from unprivileged
containers. A container that lists no claim gets no CDI `void` from the kubelet, so without this its image's
NVIDIA_VISIBLE_DEVICES=all hands it every GPU of its node (docs/references.md#kubelet-cdi-per-container,
docs/references.md#nvidia-toolkit-unprivileged-envvar). Read from what the stack declares: EKS launch templates'
user data (AL2023 NVIDIA: the toolkit script of dra_gpu_platform/plans/node_hardening.py; Bottlerocket: its
nvidia-container-runtime settings) and the GPU Operator's `toolkit.env` where it installs the toolkit; AKS GPU pools
whose driver and toolkit AKS installs (which no AKS setting hardens, docs/references.md#aks-gpu-toolkit) get an
advisory rule of their own."""

from __future__ import annotations

import base64
import binascii
import tomllib
from collections.abc import Callable
from typing import Any

from pulumi_policy import EnforcementLevel, Severity, StackValidationArgs

from dra_gpu_platform.facts import container_toolkit, eks_amis
from dra_gpu_platform.facts.aks import GPU_DRIVER_NONE
from dra_gpu_platform.plans import node_hardening
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import objects
from dra_gpu_platform.recorded import pools as recorded

TAGS = ["gpu", "security", "tenancy"]


def _decoded(user_data: Any) -> str | None:
    if not isinstance(user_data, str) or not user_data:
        return None
    try:
        return base64.b64decode(user_data, validate=True).decode("utf-8")
    except (binascii.Error, ValueError, UnicodeDecodeError):
        return None


def launch_template_problem(ami_type: str | None, launch_template: Any) -> str | None:
    """Why an EKS GPU node group's nodes may accept NVIDIA_VISIBLE_DEVICES from unprivileged containers, or None."""
    user_data = _decoded(c.dig(launch_template, "userData"))
    if ami_type in eks_amis.AL2023_NVIDIA_AMI_TYPES:
        if user_data is None or not node_hardening.al2023_hardens_toolkit(user_data):
            return (
                f"its {ami_type} nodes keep the toolkit's default (accept-nvidia-visible-devices-envvar-when-"
                f"unprivileged = true): the launch template's user data has no shell part running "
                f"`{node_hardening.TOOLKIT_COMMAND}`"
            )
        return None
    if eks_amis.is_bottlerocket(ami_type):
        try:
            settings = tomllib.loads(user_data) if user_data is not None else {}
        except tomllib.TOMLDecodeError:
            settings = {}
        if not node_hardening.bottlerocket_hardens_toolkit(settings):
            wanted = ", ".join(f"{k} = {str(v).lower()}" for k, v in container_toolkit.BOTTLEROCKET_SETTINGS.items())
            return (
                f"its Bottlerocket user data does not write [settings.{container_toolkit.BOTTLEROCKET_TABLE}] "
                f"{wanted} (safe by default, but a stack must say so to be checked)"
            )
    return None


def operator_toolkit_problem(release: objects.HelmRelease) -> str | None:
    """A GPU Operator release that installs the toolkit without refusing the variable."""
    if release.chart not in objects.GPU_OPERATOR_CHARTS or release.value("toolkit", "enabled") is not True:
        return None
    if release.renders_gpu_cluster:
        return None  # a GPUCluster installs no toolkit
    env = c.as_list(release.value("toolkit", "env"))
    if any(
        c.dig(e, "name") == container_toolkit.INSTALLER_ENVVAR_UNPRIVILEGED
        and str(c.dig(e, "value")) == container_toolkit.INSTALLER_VALUE
        for e in env
    ):
        return None
    return (
        f"the GPU Operator release {release.name} installs the container toolkit without toolkit.env "
        f'{container_toolkit.INSTALLER_ENVVAR_UNPRIVILEGED}="{container_toolkit.INSTALLER_VALUE}"'
    )


def _aks_pools(args: StackValidationArgs) -> list[tuple[str, str, Any]]:
    """(urn, pool name, gpuProfile.driver) of every AKS GPU agent pool."""
    found = []
    for r in args.resources:
        profiles: list[tuple[str, Any]] = []
        if c.AKS_AGENT_POOL_RE.match(r.resource_type):
            profiles = [(r.name, r.props)]
        elif c.AKS_CLUSTER_RE.match(r.resource_type):
            profiles = [(str(c.dig(p, "name", default="")), p) for p in c.as_list(c.dig(r.props, "agentPoolProfiles"))]
        for name, props in profiles:
            if recorded.aks_agent_pool(name, props) is not None:
                found.append((r.urn, name, c.known(lambda p=props: c.dig(p, "gpuProfile", "driver"), "unknown")))
    return found


def _validate(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    tenants = [ns for ns in objects.stack_namespaces(args.resources).values() if ns.gpu_mode is not None]
    if not tenants:
        return
    why = "a container of a tenant pod that lists no claim (a sidecar, an init container) gets every GPU of its node"
    for r in args.resources:
        if r.resource_type != c.EKS_NODE_GROUP:
            continue
        ami = c.known(lambda props=r.props: c.dig(props, "amiType"), None)
        template = recorded.launch_template_of(r)
        problem = c.known(lambda a=ami, t=template: launch_template_problem(a, t), None)
        if problem is not None and recorded.pools_of(r.resource_type, r.name, r.props, template):
            report_violation(f"EKS node group {r.name}: {problem}, so {why}.", r.urn)
    for release in objects.stack_releases(args.resources):
        problem = operator_toolkit_problem(release)
        if problem is not None:
            report_violation(f"{problem}, so {why}.", release.urn)


def _validate_aks(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    if not any(ns.gpu_mode is not None for ns in objects.stack_namespaces(args.resources).values()):
        return
    for urn, name, driver in _aks_pools(args):
        if driver != GPU_DRIVER_NONE:
            report_violation(
                f"AKS GPU pool {name} (gpuProfile.driver {driver or 'Install'}): AKS installs its NVIDIA toolkit with "
                "the defaults and has no setting to change them, so a container of a tenant pod that lists no claim "
                "could get every GPU of its node through its image's NVIDIA_VISIBLE_DEVICES; the guard refuses such "
                "containers in pods that tolerate the GPU taint, and this node-side layer is missing.",
                urn,
            )


GPU_TOOLKIT_HARDENED = c.stack_policy(
    "gpu-toolkit-hardened",
    description="Where the stack has GPU tenant namespaces, every GPU node's NVIDIA container toolkit ignores "
    "NVIDIA_VISIBLE_DEVICES from unprivileged containers: AL2023 NVIDIA launch templates run the toolkit script, "
    "Bottlerocket ones write the nvidia-container-runtime settings, the GPU Operator's toolkit has "
    "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false.",
    validate=_validate,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "dra-gpu-platform writes the launch templates' user data (dra_gpu_platform/plans/node_hardening.py) and the "
        "operator's toolkit.env. In your own program call node_hardening.gpu_user_data for each GPU launch "
        "template, or run `nvidia-ctk config --in-place --set accept-nvidia-visible-devices-envvar-when-unprivileged"
        "=false` on every GPU node before the kubelet starts."
    ),
    tags=TAGS,
)


# Advisory, not mandatory: AKS's own driver and toolkit (the default of a stack's AKS GPU pools) offer no setting for
# this, and the guard already refuses the containers that could use it; `gpuOperator.driver: operator` adds the node
# layer (AKS then skips its driver and the operator installs a toolkit that refuses the variable).
AKS_GPU_TOOLKIT_DEFAULT = c.stack_policy(
    "aks-gpu-toolkit-default",
    description="Where the stack has GPU tenant namespaces, AKS GPU pools run the GPU Operator's hardened toolkit "
    "rather than AKS's own driver and toolkit, which accept NVIDIA_VISIBLE_DEVICES from unprivileged containers.",
    validate=_validate_aks,
    severity=Severity.MEDIUM,
    level=EnforcementLevel.ADVISORY,
    remediation_steps=(
        "Set gpuOperator.driver: operator (with gpuOperator.enabled: true and draManagement: chart): AKS then skips "
        "its driver (gpuProfile.driver None) and the GPU Operator installs the driver and a container toolkit with "
        "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false."
    ),
    tags=TAGS,
)
