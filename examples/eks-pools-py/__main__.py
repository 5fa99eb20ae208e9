"""DRA GPU pools, the NVIDIA GPU Operator and DRA driver, DeviceClasses and a tenant namespace on an EKS cluster
this team runs already."""

import pulumi
import pulumi_kubernetes as k8s

from dra_gpu_platform import (
    DeviceClasses,
    DeviceClassesArgs,
    DraDriver,
    DraDriverArgs,
    EksGpuNodePool,
    EksGpuNodePoolArgs,
    GpuOperator,
    GpuOperatorArgs,
    TenantNamespace,
    TenantNamespaceArgs,
)

config = pulumi.Config()
cluster_name = config.require("clusterName")
version = config.require("kubernetesVersion")
region = pulumi.Config("aws").require("region")

sections = {  # a stack file's sections but `cluster`: the cluster exists
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "labels": {"team": "research"}},
        {"name": "l4", "gpu": "L4", "minNodes": 1, "maxNodes": 4},
    ],
    "deviceClasses": [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}, {"name": "l4", "gpu": "L4"}],
    "namespaces": [
        {
            "name": "research",
            "migration": "dra-only",
            "quota": {"claims": 8, "devices": {"h100": 16, "l4": 8}},
            "claimTemplates": [{"name": "two-h100", "deviceClass": "h100", "count": 2}],
        }
    ],
}

pools = [
    EksGpuNodePool(
        f"{cluster_name}-pool-{pool['name']}",
        EksGpuNodePoolArgs.from_sections(
            sections,
            pool=pool["name"],
            cluster_name=cluster_name,
            kubernetes_version=version,
            region=region,
            node_role_arn=config.require("nodeRoleArn"),
            subnet_ids=config.require_object("subnetIds"),
            cluster_security_group_id=config.require("clusterSecurityGroupId"),
        ),
    )
    for pool in sections["nodePools"]
]

# Everything Kubernetes-side goes through the cluster's own provider.
kubernetes = k8s.Provider("ml-prod", context=config.require("kubeContext"), enable_server_side_apply=True)
cluster = {"platform": "eks", "kubernetes_version": version, "region": region, "provider": kubernetes}
operator = GpuOperator("gpu-operator", GpuOperatorArgs.from_sections(sections, **cluster))
DraDriver("dra-driver", DraDriverArgs.from_sections(sections, gpu_operator=operator, **cluster))
classes = DeviceClasses("device-classes", DeviceClassesArgs.from_sections(sections, **cluster))
research = TenantNamespace("ns-research", TenantNamespaceArgs.from_sections(sections, namespace="research", **cluster))

pulumi.export("nodeGroups", [pool.node_group.arn for pool in pools])
pulumi.export("deviceClasses", sorted(classes.classes))
