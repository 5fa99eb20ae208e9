"""A GPU lab on kind: the whole platform from a stack file's sections."""

import pulumi

from dra_gpu_platform import GpuPlatform, GpuPlatformArgs

sections = {  # a stack file's `dra-gpu-platform:*` sections, keys without the prefix
    "cluster": {"platform": "kind", "name": "gpu-lab", "kubernetesVersion": "1.35"},
    "nodePools": [{"name": "dra", "gpu": "H100", "maxNodes": 2}],
    "deviceClasses": [{"name": "big-gpu", "minMemory": "40Gi"}],
    "namespaces": [
        {
            "name": "team-a",
            "migration": "dra-only",
            "quota": {"claims": 4, "devices": {"big-gpu": 4}},
            "claimTemplates": [{"name": "two-gpus", "deviceClass": "big-gpu", "count": 2}],
        }
    ],
}

args = GpuPlatformArgs.from_sections(sections, region=None, kubeconfig=None)  # raises ConfigError, every problem
platform = GpuPlatform("gpu-lab", args)  # named after cluster.name: the stack program's logical names
pulumi.export("kubeconfig", platform.kubeconfig)
pulumi.export("deviceClasses", sorted(platform.device_classes.classes))
