"""What the preview tells the operator about the tenancy boundary that no resource of the stack can change: what the
extended-resource bridge serves (or will serve after an upgrade), and GPU nodes whose NVIDIA container toolkit is the
host's own. Pure: no Pulumi imports.

- The bridge: from Kubernetes 1.36 (DRAExtendedResource beta and on) the driver chart's gpu.nvidia.com class, which
  carries extendedResourceName nvidia.com/gpu, serves nvidia.com/gpu pods on DRA nodes whatever the stack says; only
  the namespaces' quotas decide whether the claim the scheduler makes for such a pod is admitted
  (docs/references.md#dra-quota-extended-resource-keys, docs/references.md#nvidia-dra-extended-resource-bridge).
- The toolkit: on kind (real GPUs) and existing clusters the nodes' toolkit is the host's; the platform cannot set
  accept-nvidia-visible-devices-envvar-when-unprivileged there (docs/references.md#nvidia-toolkit-unprivileged-envvar).
"""

from __future__ import annotations

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import container_toolkit, kubernetes
from dra_gpu_platform.plans.quota import BRIDGED_MODES

BRIDGE_MINOR = 36  # DRAExtendedResource beta and on by default (docs/references.md#kubernetes-dra-gates-per-minor)


def _legacy_namespaces(config: StackConfig) -> list[str]:
    return sorted(ns.name for ns in config.namespaces if ns.migration in BRIDGED_MODES)


def bridge_notes(config: StackConfig) -> tuple[str, ...]:
    legacy = _legacy_namespaces(config)
    served = sorted((p for p in config.dra_pools if p.mig is None), key=lambda p: p.name)
    if not legacy or not served or not config.driver_class_has_extended_resource():
        return ()
    names = ", ".join(legacy)
    pools = ", ".join(f"{p.name} ({p.gpu_name})" for p in served)
    models = ", ".join(sorted({p.gpu_name for p in served}))
    opt_in = f"name the models it may serve with draDriver.extendedResourceBridge: {{gpus: [{models}]}}"
    any_gpu = (
        f"nvidia.com/gpu pods of {names} may get any GPU of the DRA pools {pools}, whatever model their legacyGpus "
        "were meant for (gpu.nvidia.com matches every GPU and no pool)"
    )
    kept = (
        f"the quotas of {names} hold gpu.nvidia.com at 0 and their nvidia.com/gpu pods keep to device-plugin pools "
        "(one the scheduler places on a DRA node waits: the claim it makes for the pod is refused)"
    )
    chosen = config.dra_driver.extended_resource_bridge
    if config.extended_resource_bridge_on:
        if config.bridge_models is not None:
            return (
                f"extended-resource bridge: nvidia.com/gpu pods of {names} may get the GPUs of the DRA pools {pools} "
                f"(draDriver.extendedResourceBridge names {', '.join(config.bridge_models)}), charged to their "
                "legacyGpus",
            )
        if chosen is True:
            return (f"extended-resource bridge (draDriver.extendedResourceBridge: true): {any_gpu}; {opt_in}",)
        if config.bridge_serves_legacy_grants:  # on by default, and no device-plugin pool serves them otherwise
            return (
                f"extended-resource bridge (on by default from Kubernetes 1.{BRIDGE_MINOR}; no device-plugin pool "
                f"serves these namespaces otherwise): {any_gpu}; {opt_in}",
            )
        return (
            f"extended-resource bridge (on by default from Kubernetes 1.{BRIDGE_MINOR}): the driver's gpu.nvidia.com "
            f"class serves nvidia.com/gpu on DRA nodes; this stack has device-plugin pools, so {kept}; to let DRA "
            f"serve them, {opt_in}",
        )
    if config.cluster.minor >= BRIDGE_MINOR:
        return (
            f"Kubernetes {config.cluster.kubernetes_version}: the driver's gpu.nvidia.com class serves nvidia.com/gpu "
            f"on DRA nodes (DRAExtendedResource); draDriver.extendedResourceBridge is false, so {kept}",
        )
    stage = kubernetes.gate_stage(kubernetes.DRA_EXTENDED_RESOURCE, BRIDGE_MINOR)
    if stage is None or not stage.default or chosen is False:
        return ()
    after = kept if config.device_plugin_pools else any_gpu + f" ({opt_in})"
    return (
        f"on an upgrade to Kubernetes 1.{BRIDGE_MINOR} the extended-resource bridge turns on by default "
        f"(DRAExtendedResource) and the driver's gpu.nvidia.com class serves nvidia.com/gpu on the DRA pools "
        f"{pools}: {after}",
    )


def host_toolkit_notes(config: StackConfig) -> tuple[str, ...]:
    """GPU nodes whose toolkit the platform does not configure: kind with real GPUs and existing clusters (the hosts'),
    EKS Auto Mode's nodes (AWS's), and AKS GPU pools with AKS's own driver and toolkit, which no AKS setting hardens (docs/references.md#aks-gpu-toolkit;
    the advisory rule aks-gpu-toolkit-default says the same of a recorded stack)."""
    if not config.namespaces or config.uses_example_driver or not config.node_pools:
        return ()
    owner = config.profile.software.toolkit_owner
    if config.auto_mode:
        # AWS's immutable node AMIs take no user data (docs/references.md#eks-auto-mode): nothing of the stack's reaches
        # their toolkit, and what it accepts is undocumented
        return (
            "EKS Auto Mode GPU nodes run AWS's immutable AMIs with AWS's NVIDIA driver and container toolkit: the stack "
            f"cannot set {container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED} = false there, and AWS does not document its "
            "value, so the guard's refusal of tenant containers that list no claim in GPU pods is the only layer; use "
            "provisioner karpenter or cluster-autoscaler for GPU tenants that must not share a node's GPUs "
            "(docs/security.md, GPU isolation per container)",
        )
    if owner == "service":
        if config.gpu_operator_enabled and config.gpu_operator.driver == "operator" and not config.uses_gpu_cluster:
            return ()
        return (
            "AKS GPU pools run AKS's own NVIDIA driver and container toolkit, with the toolkit's default "
            f"{container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED} = true and no AKS setting to change it: the guard "
            "refuses tenant containers that list no claim in GPU pods, and this node-side layer is missing; set "
            "gpuOperator.driver: operator (AKS then skips its driver and the GPU Operator installs the driver and a "
            "toolkit that refuses NVIDIA_VISIBLE_DEVICES from unprivileged containers; docs/security.md)",
        )
    if owner != "hosts":
        return ()
    command = f"sudo nvidia-ctk config --in-place --set {container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED}=false"
    return (
        f"{config.platform} GPU nodes run their hosts' NVIDIA container toolkit: set "
        f"{container_toolkit.ACCEPT_ENVVAR_UNPRIVILEGED} = false in {container_toolkit.CONFIG_FILE} on every GPU "
        f"host (`{command}`), or a container of a tenant pod that lists no claim gets every GPU its image's "
        "NVIDIA_VISIBLE_DEVICES names (docs/security.md, GPU isolation per container)",
    )


def tenancy_notes(config: StackConfig) -> tuple[str, ...]:
    return (*bridge_notes(config), *host_toolkit_notes(config))
