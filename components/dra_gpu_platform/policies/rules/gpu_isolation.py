"""Stack rule that GPU isolation holds per container, not per pod: where the stack has GPU tenant namespaces, every
GPU node it launches runs an NVIDIA container toolkit that ignores NVIDIA_VISIBLE_DEVICES from unprivileged
containers. A container that lists no claim gets no CDI `void` from the kubelet, so without this its image's
NVIDIA_VISIBLE_DEVICES=all hands it every GPU of its node (docs/references.md#kubelet-cdi-per-container,
docs/references.md#nvidia-toolkit-unprivileged-envvar). Read from what the stack declares: EKS launch templates'
user data and the `userData` of the Karpenter EC2NodeClasses that GPU NodePools launch from (AL2023 NVIDIA: the
toolkit script of dra_gpu_platform/plans/node_hardening.py; Bottlerocket: its nvidia-container-runtime settings) and
the GPU Operator's `toolkit.env` where it installs the toolkit; AKS GPU pools
whose driver and toolkit AKS installs (which no AKS setting hardens, docs/references.md#aks-gpu-toolkit) get an
advisory rule of their own."""

from __future__ import annotations

import base64
import binascii
import tomllib
from collections.abc import Callable
from typing import Any

from pulumi_policy import EnforcementLevel, Severity, StackValidationArgs

from dra_gpu_platform.facts import container_toolkit, eks_amis, karpenter
from dra_gpu_platform.facts import node_auto_provisioning as nap
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
        return _al2023_problem(ami_type, "the launch template's user data", user_data)
    if eks_amis.is_bottlerocket(ami_type):
        return _bottlerocket_problem(user_data)
    return None


def ec2_node_class_problem(props: Any) -> str | None:
    """Why the nodes Karpenter launches from an EC2NodeClass may accept NVIDIA_VISIBLE_DEVICES from unprivileged
    containers, or None. Its family is its `amiFamily`, else its alias's (al2023@..., bottlerocket@...); `userData`
    is plain text that Karpenter merges with its own (release-v1.14.1 website/content/en/v1.14/concepts/
    nodeclasses.md:1391-1394,1562-1565). Other families (a Custom AMI) are the AMI's business."""
    aliases = [str(c.dig(t, "alias", default="")) for t in c.as_list(c.dig(props, "spec", "amiSelectorTerms"))]
    family = str(c.dig(props, "spec", "amiFamily", default="") or (aliases[0].split("@")[0] if aliases else ""))
    user_data = c.dig(props, "spec", "userData")
    text = user_data if isinstance(user_data, str) and user_data else None
    if family.lower() == "al2023":
        # Karpenter wraps a bare shell script into a MIME part of its own; a MIME document is used as written
        if text is not None and text.startswith("#!") and node_hardening.TOOLKIT_COMMAND in text:
            return None
        return _al2023_problem("AL2023", "its userData", text)
    if family.lower() == "bottlerocket":
        return _bottlerocket_problem(text)
    return None


def _al2023_problem(ami: str, where: str, user_data: str | None) -> str | None:
    if user_data is None or not node_hardening.al2023_hardens_toolkit(user_data):
        return (
            f"its {ami} nodes keep the toolkit's default (accept-nvidia-visible-devices-envvar-when-"
            f"unprivileged = true): {where} has no shell part running `{node_hardening.TOOLKIT_COMMAND}`"
        )
    return None


def _bottlerocket_problem(user_data: str | None) -> str | None:
    try:
        settings = tomllib.loads(user_data) if user_data is not None else {}
    except tomllib.TOMLDecodeError:
        settings = {}
    if node_hardening.bottlerocket_hardens_toolkit(settings):
        return None
    wanted = ", ".join(f"{k} = {str(v).lower()}" for k, v in container_toolkit.BOTTLEROCKET_SETTINGS.items())
    return (
        f"its Bottlerocket user data does not write [settings.{container_toolkit.BOTTLEROCKET_TABLE}] "
        f"{wanted} (safe by default, but a stack must say so to be checked)"
    )


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


def _gpu_node_class_names(
    args: StackValidationArgs, group: str = karpenter.EC2_NODE_CLASS_GROUP
) -> dict[str, list[str]]:
    """Node class name (of `group`: Karpenter's EC2NodeClasses, NAP's AKSNodeClasses) -> the GPU NodePools
    (recorded/pools.py karpenter_node_pool) that launch from it."""
    found: dict[str, list[str]] = {}
    for r in args.resources:
        if r.resource_type != c.KARPENTER_NODE_POOL:
            continue
        ref = c.known(lambda props=r.props: c.dig(props, "spec", "template", "spec", "nodeClassRef"), None)
        pool = c.known(lambda name=r.name, props=r.props: recorded.karpenter_node_pool(name, props), None)
        if pool is not None and c.dig(ref, "group") == group:
            found.setdefault(str(c.dig(ref, "name", default="")), []).append(pool.name)
    return found


def _aks_pools(args: StackValidationArgs) -> list[tuple[str, str, Any]]:
    """(urn, what, who installs the driver) of every AKS GPU agent pool (gpuProfile.driver) and every AKSNodeClass a
    GPU NodePool of node auto-provisioning launches from (gpu.mode: Driver, or None where the GPU Operator does)."""
    found = []
    nap_classes = _gpu_node_class_names(args, nap.NODE_CLASS_GROUP)
    for r in args.resources:
        if r.resource_type == c.AKS_NODE_CLASS:
            name = c.known(lambda props=r.props: c.metadata_name(props), None) or r.name
            if name in nap_classes:
                mode = c.known(lambda props=r.props: c.dig(props, "spec", "gpu", "mode"), "unknown")
                pools = ", ".join(nap_classes[name])
                found.append(
                    (r.urn, f"AKS GPU NodePools {pools} (AKSNodeClass {name} gpu.mode {mode or 'Driver'})", mode)
                )
            continue
        profiles: list[tuple[str, Any]] = []
        if c.AKS_AGENT_POOL_RE.match(r.resource_type):
            profiles = [(r.name, r.props)]
        elif c.AKS_CLUSTER_RE.match(r.resource_type):
            profiles = [(str(c.dig(p, "name", default="")), p) for p in c.as_list(c.dig(r.props, "agentPoolProfiles"))]
        for name, props in profiles:
            if recorded.aks_agent_pool(name, props) is not None:
                driver = c.known(lambda p=props: c.dig(p, "gpuProfile", "driver"), "unknown")
                found.append((r.urn, f"AKS GPU pool {name} (gpuProfile.driver {driver or 'Install'})", driver))
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
    gpu_classes = _gpu_node_class_names(args)
    for r in args.resources:
        if r.resource_type != c.EC2_NODE_CLASS:
            continue
        name = c.known(lambda props=r.props: c.metadata_name(props), None) or r.name
        problem = c.known(lambda props=r.props: ec2_node_class_problem(props), None)
        if problem is not None and name in gpu_classes:
            report_violation(
                f"EC2NodeClass {name} (GPU NodePools {', '.join(gpu_classes[name])}): {problem}, so {why}.", r.urn
            )
    for release in objects.stack_releases(args.resources):
        problem = operator_toolkit_problem(release)
        if problem is not None:
            report_violation(f"{problem}, so {why}.", release.urn)


def _validate_aks(args: StackValidationArgs, report_violation: Callable[..., None]) -> None:
    if not any(ns.gpu_mode is not None for ns in objects.stack_namespaces(args.resources).values()):
        return
    for urn, what, driver in _aks_pools(args):
        if driver not in (GPU_DRIVER_NONE, nap.GPU_MODE_NONE):
            report_violation(
                f"{what}: AKS installs its NVIDIA toolkit with "
                "the defaults and has no setting to change them, so a container of a tenant pod that lists no claim "
                "could get every GPU of its node through its image's NVIDIA_VISIBLE_DEVICES; the guard refuses such "
                "containers in pods that tolerate the GPU taint, and this node-side layer is missing.",
                urn,
            )


GPU_TOOLKIT_HARDENED = c.stack_policy(
    "gpu-toolkit-hardened",
    description="Where the stack has GPU tenant namespaces, every GPU node's NVIDIA container toolkit ignores "
    "NVIDIA_VISIBLE_DEVICES from unprivileged containers: AL2023 NVIDIA launch templates and Karpenter EC2NodeClasses "
    "run the toolkit script, Bottlerocket ones write the nvidia-container-runtime settings, the GPU Operator's toolkit has "
    "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED=false.",
    validate=_validate,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "dra-gpu-platform writes the launch templates' and EC2NodeClasses' user data "
        "(dra_gpu_platform/plans/node_hardening.py) and the operator's toolkit.env. In your own program call "
        "node_hardening.gpu_user_data for each GPU launch template or EC2NodeClass (spec.userData, not encoded), "
        "or run `nvidia-ctk config --in-place --set accept-nvidia-visible-devices-envvar-when-unprivileged=false` on "
        "every GPU node before the kubelet starts."
    ),
    tags=TAGS,
)


# Advisory, not mandatory: AKS's own driver and toolkit (the default of a stack's AKS GPU pools) offer no setting for
# this, and the guard already refuses the containers that could use it; `gpuOperator.driver: operator` adds the node
# layer (AKS then skips its driver and the operator installs a toolkit that refuses the variable).
AKS_GPU_TOOLKIT_DEFAULT = c.stack_policy(
    "aks-gpu-toolkit-default",
    description="Where the stack has GPU tenant namespaces, AKS GPU pools (agent pools, node auto-provisioning's "
    "AKSNodeClasses) run the GPU Operator's hardened toolkit "
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
