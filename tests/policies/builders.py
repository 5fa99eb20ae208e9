"""Hand-built policy arguments (pulumi_policy's public classes) and props of the resources the rules read.

Props are wire-shaped (camelCase) and wrapped in pulumi_policy's unknown-checking proxy, as the analyzer
hands them to rules under the real CLI.
"""

from __future__ import annotations

import copy
import inspect
from typing import Any

import yaml
from pulumi_policy import (
    PolicyCustomTimeouts,
    PolicyResource,
    PolicyResourceOptions,
    ResourceValidationArgs,
    StackValidationArgs,
)
from pulumi_policy.proxy import unknown_checking_proxy

from dra_gpu_platform.config.models import NodePool as NodePoolConfig
from dra_gpu_platform.plans import admission_policy as dra_only_rules
from dra_gpu_platform.plans.node_pools import pool_labels

STACK = "test"


class Reporter(list):
    """Collects report_violation(message, urn) calls."""

    def __call__(self, message: str, urn: str | None = None) -> None:
        self.append((message, urn))

    @property
    def messages(self) -> list[str]:
        return [m for m, _ in self]

    @property
    def urns(self) -> list[str | None]:
        return [u for _, u in self]


def urn(type_: str, name: str) -> str:
    return f"urn:pulumi:{STACK}::dra-gpu-platform::{type_}::{name}"


def options(protect: bool = False, parent: str | None = None) -> PolicyResourceOptions:
    return PolicyResourceOptions(protect, [], None, [], PolicyCustomTimeouts(0, 0, 0), [], parent)


def resource_args(
    type_: str, props: dict[str, Any], name: str = "res", config: dict | None = None, protect: bool = False
) -> ResourceValidationArgs:
    return ResourceValidationArgs(
        type_,
        unknown_checking_proxy(copy.deepcopy(props)),
        urn(type_, name),
        name,
        options(protect),
        None,
        config or {},
        {},
    )


def check(
    policy, type_: str, props: dict[str, Any], name: str = "res", config: dict | None = None, protect: bool = False
) -> Reporter:
    reporter = Reporter()
    result = policy.validate(resource_args(type_, props, name, config, protect), reporter)
    assert not inspect.isawaitable(result)
    return reporter


def resource(
    type_: str,
    props: dict[str, Any],
    name: str,
    *,
    dependencies: list[PolicyResource] = (),
    property_dependencies: dict[str, list[PolicyResource]] | None = None,
    protect: bool = False,
) -> PolicyResource:
    return PolicyResource(
        type_,
        unknown_checking_proxy(copy.deepcopy(props)),
        urn(type_, name),
        name,
        options(protect),
        None,
        None,
        list(dependencies),
        dict(property_dependencies or {}),
    )


def check_stack(policy, resources: list[PolicyResource], config: dict | None = None) -> Reporter:
    reporter = Reporter()
    result = policy.validate(StackValidationArgs(resources, config or {}, {}), reporter)
    assert not inspect.isawaitable(result)
    return reporter


# ---------------------------------------------------------------------------------------------------
# Type tokens

EKS_NODE_GROUP = "aws:eks/nodeGroup:NodeGroup"
EKS_CLUSTER = "aws:eks/cluster:Cluster"
LAUNCH_TEMPLATE = "aws:ec2/launchTemplate:LaunchTemplate"
AKS_AGENT_POOL = "azure-native:containerservice:AgentPool"
AKS_CLUSTER = "azure-native:containerservice:ManagedCluster"
HELM_RELEASE = "kubernetes:helm.sh/v3:Release"
NAMESPACE = "kubernetes:core/v1:Namespace"
QUOTA = "kubernetes:core/v1:ResourceQuota"
DEVICE_CLASS = "kubernetes:resource.k8s.io/v1:DeviceClass"
CLAIM_TEMPLATE = "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate"
VAP = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicy"
VAP_BINDING = "kubernetes:admissionregistration.k8s.io/v1:ValidatingAdmissionPolicyBinding"
DEPLOYMENT = "kubernetes:apps/v1:Deployment"
COMMAND = "command:local:Command"
KARPENTER_NODE_POOL = "kubernetes:karpenter.sh/v1:NodePool"
EC2_NODE_CLASS = "kubernetes:karpenter.k8s.aws/v1:EC2NodeClass"
AKS_NODE_CLASS = "kubernetes:karpenter.azure.com/v1beta1:AKSNodeClass"

GPU_TAINT = {"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}


def labels_for(pool: str, gpu: str = "H100", stack: str = "dra") -> dict[str, str]:
    return pool_labels(NodePoolConfig(name=pool, gpu=gpu, maxNodes=1, gpuStack=stack))


# ---------------------------------------------------------------------------------------------------
# Cloud resources


def node_group(
    instance: str | None = "p5.48xlarge",
    *,
    ami: str | None = "AL2023_x86_64_NVIDIA",
    taints: list | None = None,
    labels: dict | None = None,
    max_size: int = 4,
    name: str | None = None,
) -> dict:
    props: dict[str, Any] = {
        "clusterName": "gpu",
        "nodeRoleArn": "arn:aws:iam::123456789012:role/node",
        "subnetIds": ["subnet-0a1"],
        "scalingConfig": {"minSize": 0.0, "maxSize": float(max_size), "desiredSize": 0.0},
        "taints": [GPU_TAINT] if taints is None else taints,
        "labels": labels or {},
    }
    if instance:
        props["instanceTypes"] = [instance]
    if ami:
        props["amiType"] = ami
    if name:
        props["nodeGroupName"] = name
    return props


def launch_template(*, http_tokens: str | None = "required", instance: str | None = None) -> dict:
    props: dict[str, Any] = {"metadataOptions": {"httpEndpoint": "enabled"}}
    if http_tokens:
        props["metadataOptions"]["httpTokens"] = http_tokens
    if instance:
        props["instanceType"] = instance
    return props


def eks_cluster(public: bool | None = False, cidrs: list[str] | None = None, version: str = "1.35") -> dict:
    vpc: dict[str, Any] = {"subnetIds": ["subnet-0a1"], "endpointPrivateAccess": True}
    if public is not None:
        vpc["endpointPublicAccess"] = public
    if cidrs is not None:
        vpc["publicAccessCidrs"] = cidrs
    return {"roleArn": "arn:aws:iam::123456789012:role/cluster", "version": version, "vpcConfig": vpc}


def agent_pool(
    vm: str = "Standard_NC24ads_A100_v4",
    *,
    taints: list[str] | None = None,
    labels: dict | None = None,
    max_count: int = 3,
    autoscale: bool = True,
) -> dict:
    return {
        "agentPoolName": "gpu",
        "resourceName": "aks",
        "resourceGroupName": "rg",
        "vmSize": vm,
        "mode": "User",
        "count": 1.0,
        "enableAutoScaling": autoscale,
        "minCount": 0.0,
        "maxCount": float(max_count),
        "nodeTaints": ["nvidia.com/gpu=present:NoSchedule"] if taints is None else taints,
        "nodeLabels": labels or {},
    }


def managed_cluster(
    *,
    local_accounts_disabled: bool | None = True,
    profiles: list[dict] | None = None,
    access: dict | None = None,
    network_policy: str | None = "cilium",
) -> dict:
    props: dict[str, Any] = {
        "resourceGroupName": "rg",
        "apiServerAccessProfile": access if access is not None else {"authorizedIPRanges": ["203.0.113.0/24"]},
        "agentPoolProfiles": profiles
        if profiles is not None
        else [{"name": "system", "vmSize": "Standard_D4s_v5", "count": 2.0, "mode": "System"}],
    }
    if local_accounts_disabled is not None:
        props["disableLocalAccounts"] = local_accounts_disabled
    if network_policy is not None:
        props["networkProfile"] = {
            "networkPlugin": "azure",
            "networkDataplane": "cilium",
            "networkPolicy": network_policy,
        }
    return props


def kind_command(workers: list[dict[str, str]], taint: bool = True, gates: dict | None = None) -> dict:
    patch = yaml.safe_dump(
        {
            "kind": "JoinConfiguration",
            "nodeRegistration": {"taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}]},
        }
    )
    nodes: list[dict[str, Any]] = [{"role": "control-plane"}]
    for labels in workers:
        node: dict[str, Any] = {"role": "worker", "labels": labels}
        if taint:
            node["kubeadmConfigPatches"] = [patch]
        nodes.append(node)
    document = {
        "kind": "Cluster",
        "apiVersion": "kind.x-k8s.io/v1alpha4",
        "name": "gpu",
        "nodes": nodes,
        "featureGates": gates or {"DynamicResourceAllocation": True},
    }
    return {
        "create": "kind create cluster",
        "environment": {"KIND_CONFIG": yaml.safe_dump(document), "KIND_CLUSTER_NAME": "gpu"},
    }


def helm_release(
    chart: str, version: str | None, repo: str | None, values: dict | None = None, name: str | None = None
) -> dict:
    props: dict[str, Any] = {"chart": chart, "values": values or {}, "name": name or chart}
    if version is not None:
        props["version"] = version
    if repo is not None:
        props["repositoryOpts"] = {"repo": repo}
    return props


# ---------------------------------------------------------------------------------------------------
# Kubernetes objects


def namespace(name: str, mode: str | None = "dra-only", labels: dict | None = None) -> dict:
    all_labels = dict(labels or {})
    if mode:
        all_labels["gpu-mode"] = mode
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": all_labels}}


def quota(ns: str, hard: dict[str, str], name: str = "gpu-quota") -> dict:
    return {
        "apiVersion": "v1",
        "kind": "ResourceQuota",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"hard": hard},
    }


def device_class(name: str, *selectors: str, extended: str | None = None) -> dict:
    spec: dict[str, Any] = {"selectors": [{"cel": {"expression": e}} for e in selectors]}
    if extended:
        spec["extendedResourceName"] = extended
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": name}, "spec": spec}


def claim_template(
    ns: str,
    name: str,
    device_class: str | None = None,
    *,
    first_available: list[str] | None = None,
    selectors: list[str] | None = None,
) -> dict:
    if first_available:
        request: dict[str, Any] = {
            "name": "gpu",
            "firstAvailable": [
                {"name": cls.replace(".", "-"), "deviceClassName": cls, "allocationMode": "ExactCount", "count": 1}
                for cls in first_available
            ],
        }
    else:
        exactly: dict[str, Any] = {"deviceClassName": device_class, "allocationMode": "ExactCount", "count": 1}
        if selectors:
            exactly["selectors"] = [{"cel": {"expression": e}} for e in selectors]
        request = {"name": "gpu", "exactly": exactly}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": ns},
        "spec": {"spec": {"devices": {"requests": [request]}}},
    }


def guard_policy(name: str = dra_only_rules.POLICY_NAME) -> dict:
    """The GPU guard exactly as dra_gpu_platform/resources/tenancy/dra_only_guard.py declares it (its plan's manifest)."""
    manifest = dra_only_rules.DRA_ONLY_POLICY.policy_manifest()
    manifest["metadata"]["name"] = name
    return manifest


def guard_binding(
    policy: str = dra_only_rules.POLICY_NAME, actions: list[str] | None = None, selector: dict | None = None
) -> dict:
    return {
        "apiVersion": "admissionregistration.k8s.io/v1",
        "kind": "ValidatingAdmissionPolicyBinding",
        "metadata": {"name": policy},
        "spec": {
            "policyName": policy,
            "validationActions": actions or ["Deny", "Audit"],
            "matchResources": {
                "namespaceSelector": selector if selector is not None else {"matchLabels": {"gpu-mode": "dra-only"}}
            },
        },
    }


def deployment(ns: str, name: str, resources: dict | None = None, init: bool = False) -> dict:
    container = {"name": "main", "image": "nvcr.io/nvidia/cuda:12.4.0-base-ubuntu22.04"}
    if resources:
        container["resources"] = resources
    pod: dict[str, Any] = {"containers": [{"name": "sidecar", "image": "busybox"}]}
    if init:
        pod["initContainers"] = [container]
    else:
        pod["containers"].append(container)
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": ns},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod},
        },
    }
