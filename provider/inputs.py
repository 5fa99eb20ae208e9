"""Input types of the `dra-gpu-platform` component package, one per hosted component, generated from the config
models by `python -m provider.generate`: do not edit. Pulumi's analyzer reads these annotations and the docstring
after each key to infer provider/schema.json."""

from typing import NotRequired, TypedDict

import pulumi

from provider.input_types import (
    Autoscaler,
    Cluster,
    ClusterPlatform,
    DeviceClass,
    DraDriver,
    GpuOperator,
    Maintenance,
    Monitoring,
    Namespace,
    NodePool,
)


class GpuPlatformInputs(TypedDict):
    """The inputs of GpuPlatform: the stack file's sections, the region and the kubeconfig."""

    cluster: Cluster
    """The stack file's `dra-gpu-platform:cluster` section (docs/configuration.md)."""
    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    region: NotRequired[str]
    """Where an eks or aks cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`). Unused on other platforms."""
    kubeconfig: NotRequired[pulumi.Input[str]]
    """The kubeconfig of an `existing` cluster (the stack file's secret `dra-gpu-platform:kubeconfig`); a secret."""


class EksGpuNodePoolInputs(TypedDict):
    """The inputs of EksGpuNodePool: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and pool, clusterName, kubernetesVersion, region, nodeRoleArn, subnetIds, clusterSecurityGroupId, protect, tags."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    pool: str
    """The name of the pool to build, an item of nodePools."""
    cluster_name: str
    """The name of the existing EKS cluster the pool joins. Known when the program runs: the cluster autoscaler's discovery tags carry it."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: str
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`)."""
    node_role_arn: pulumi.Input[str]
    """The ARN of the cluster's node IAM role."""
    subnet_ids: pulumi.Input[list[str]]
    """The private subnets the pool's nodes run in (one zone's with availabilityZone)."""
    cluster_security_group_id: pulumi.Input[str]
    """The cluster security group, which the pool's EFA interfaces join."""
    protect: NotRequired[bool]
    """Protect the node group from deletion (the stack file's cluster.protect)."""
    tags: NotRequired[dict[str, str]]
    """AWS tags of the pool's resources, besides the cluster's own."""


class AksGpuNodePoolInputs(TypedDict):
    """The inputs of AksGpuNodePool: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and pool, clusterName, kubernetesVersion, region, resourceGroupName, protect."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    pool: str
    """The name of the pool to build, an item of nodePools."""
    cluster_name: str
    """The name of the existing AKS cluster the pool joins. Known when the program runs."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: str
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`)."""
    resource_group_name: pulumi.Input[str]
    """The resource group of the AKS cluster."""
    protect: NotRequired[bool]
    """Protect the agent pool from deletion (the stack file's cluster.protect)."""


class DeviceClassesInputs(TypedDict):
    """The inputs of DeviceClasses: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and platform, kubernetesVersion, region."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    platform: ClusterPlatform
    """The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster you run yourself too)."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: NotRequired[str]
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`). Needed on eks and aks, as in a stack file."""


class TenantNamespaceInputs(TypedDict):
    """The inputs of TenantNamespace: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and namespace, platform, kubernetesVersion, region, protect."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    namespace: str
    """The name of the namespace to build, an item of namespaces."""
    platform: ClusterPlatform
    """The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster you run yourself too)."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: NotRequired[str]
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`). Needed on eks and aks, as in a stack file."""
    protect: NotRequired[bool]
    """Protect what it creates from deletion (the stack file's cluster.protect)."""


class GpuOperatorInputs(TypedDict):
    """The inputs of GpuOperator: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and platform, kubernetesVersion, region."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    platform: ClusterPlatform
    """The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster you run yourself too)."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: NotRequired[str]
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`). Needed on eks and aks, as in a stack file."""


class DraDriverInputs(TypedDict):
    """The inputs of DraDriver: the stack file's sections but `cluster` (the component is composed on a cluster that exists), and platform, kubernetesVersion, region."""

    node_pools: NotRequired[list[NodePool]]
    """The stack file's `dra-gpu-platform:nodePools` section (docs/configuration.md)."""
    gpu_operator: NotRequired[GpuOperator]
    """The stack file's `dra-gpu-platform:gpuOperator` section (docs/configuration.md)."""
    dra_driver: NotRequired[DraDriver]
    """The stack file's `dra-gpu-platform:draDriver` section (docs/configuration.md)."""
    device_classes: NotRequired[list[DeviceClass]]
    """The stack file's `dra-gpu-platform:deviceClasses` section (docs/configuration.md)."""
    namespaces: NotRequired[list[Namespace]]
    """The stack file's `dra-gpu-platform:namespaces` section (docs/configuration.md)."""
    maintenance: NotRequired[Maintenance]
    """The stack file's `dra-gpu-platform:maintenance` section (docs/configuration.md)."""
    autoscaler: NotRequired[Autoscaler]
    """The stack file's `dra-gpu-platform:autoscaler` section (docs/configuration.md)."""
    monitoring: NotRequired[Monitoring]
    """The stack file's `dra-gpu-platform:monitoring` section (docs/configuration.md)."""
    platform: ClusterPlatform
    """The platform of the cluster the component is composed on: eks, aks, or existing for any other (a kind cluster you run yourself too)."""
    kubernetes_version: str
    """The cluster's Kubernetes minor, e.g. "1.35" (the stack file's cluster.kubernetesVersion)."""
    region: NotRequired[str]
    """Where the cluster runs: the AWS region (the stack file's `aws:region`) or the Azure location (`azure-native:location`). Needed on eks and aks, as in a stack file."""
