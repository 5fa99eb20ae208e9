"""dra-gpu-platform: one stack file in, one GPU Kubernetes platform scheduled with DRA out."""

import pulumi
from dra_gpu_platform.resources.platform import GpuPlatform, GpuPlatformArgs
from dra_gpu_platform.resources.stack_config import kubeconfig_secret, load_stack_config

# Config enters here, once: validated as a whole, then handed to components as typed models.
config = load_stack_config()
platform = GpuPlatform(config.cluster.name, GpuPlatformArgs(config=config, kubeconfig=kubeconfig_secret()))

pulumi.export("platform", config.platform)
pulumi.export("clusterName", config.cluster.name)
pulumi.export("kubernetesVersion", config.cluster.kubernetes_version)
pulumi.export("kubeconfig", platform.kubeconfig)
pulumi.export("deviceClasses", sorted(c.name for c in config.device_classes))
pulumi.export("namespaces", {ns.name: ns.migration for ns in config.namespaces})
