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
    if config.extended_resource_bridge_on:
        if config.bridge_models is not None:
            return (
                f"extended-resource bridge: nvidia.com/gpu pods of {names} may get the GPUs of the DRA pools {pools} "
                f"(draDriver.extendedResourceBridge names {', '.join(config.bridge_models)}), charged to their "
                "legacyGpus",
            )
        return (
            f"extended-resource bridge (draDriver.extendedResourceBridge: true): nvidia.com/gpu pods of {names} may "
            f"get any GPU of the DRA pools {pools}, whatever model their legacyGpus were meant for (gpu.nvidia.com "
            "matches every GPU and no pool); name the models it may serve with extendedResourceBridge: {gpus: [...]}",
        )
    if config.cluster.minor >= BRIDGE_MINOR:
        return (
            f"Kubernetes {config.cluster.kubernetes_version}: the driver's gpu.nvidia.com class serves nvidia.com/gpu "
            f"on DRA nodes (DRAExtendedResource); this stack does not opt in (draDriver.extendedResourceBridge), so the "
            f"quotas of {names} hold gpu.nvidia.com at 0 and their nvidia.com/gpu pods keep to device-plugin pools (one "
            "the scheduler places on a DRA node waits: the claim it makes for the pod is refused)",
        )
    stage = kubernetes.gate_stage(kubernetes.DRA_EXTENDED_RESOURCE, BRIDGE_MINOR)
    if stage is None or not stage.default:
        return ()
    return (
        f"on an upgrade to Kubernetes 1.{BRIDGE_MINOR} DRAExtendedResource turns on and the driver's gpu.nvidia.com "
        f"class serves nvidia.com/gpu on the DRA pools {pools}; the quotas of {names} keep gpu.nvidia.com at 0 (their "
        "nvidia.com/gpu pods stay on device-plugin pools) unless draDriver.extendedResourceBridge names the models "
        "it may serve",
    )


def host_toolkit_notes(config: StackConfig) -> tuple[str, ...]:
    """kind with real GPUs and existing clusters: the hosts' toolkit, which the platform does not configure."""
    if not config.namespaces or config.uses_example_driver or config.platform not in ("kind", "existing"):
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
