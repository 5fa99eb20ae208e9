"""A DRA GPU node pool (A100 80GB, MIG 3g.40gb) on an AKS cluster this team runs already."""

import pulumi

from dra_gpu_platform import AksGpuNodePool, AksGpuNodePoolArgs

config = pulumi.Config()
cluster_name = config.require("clusterName")

sections = {  # a stack file's sections but `cluster`: the cluster exists
    "nodePools": [{"name": "a100", "gpu": "A100-80GB", "maxNodes": 2, "mig": {"profile": "3g.40gb"}}],
}

pool = AksGpuNodePool(
    f"{cluster_name}-pool-a100",
    AksGpuNodePoolArgs.from_sections(
        sections,
        pool="a100",
        cluster_name=cluster_name,
        resource_group_name=config.require("resourceGroupName"),
        kubernetes_version=config.require("kubernetesVersion"),
        region=pulumi.Config("azure-native").require("location"),
    ),
)

pulumi.export("agentPool", pool.agent_pool.name)
