"""Outputs the mock runtime returns for resources and invokes that compute values in a real deployment
(kubeconfigs, ARNs, zones). Values are fixed and fake, so offline runs are byte-identical."""

from __future__ import annotations

import base64
import hashlib
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml

from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans.aks import AksClusterPlan
from dra_gpu_platform.plans.eks import EksClusterPlan
from dra_gpu_platform.plans.stack import StackPlan

FAKE_KUBECONFIG = """apiVersion: v1
kind: Config
clusters:
- name: offline
  cluster: {server: "https://offline.invalid:6443"}
contexts:
- name: offline
  context: {cluster: offline, user: offline}
current-context: offline
users:
- name: offline
  user: {token: offline}
"""


@dataclass(frozen=True)
class CloudScope:
    """What the fake cloud's answers depend on: the region (AWS region or Azure location), the cluster's name and,
    for an EKS cluster in existing subnets, their order (the n-th subnet lies in the n-th zone)."""

    region: str | None = None
    cluster_name: str = ""
    subnet_ids: tuple[str, ...] = ()

    @classmethod
    def of(cls, plan: StackPlan) -> CloudScope:
        cluster = plan.cluster
        if isinstance(cluster, EksClusterPlan):
            return cls(cluster.region or None, plan.name, cluster.network.subnet_ids)
        if isinstance(cluster, AksClusterPlan):
            return cls(cluster.location or None, plan.name)
        return cls(None, plan.name)


ResourceOutputs = Callable[[str, dict[str, Any], CloudScope], dict[str, Any]]
InvokeResult = Callable[[dict[str, Any], CloudScope], dict[str, Any]]

# type token -> extra outputs; extended by the cloud components' needs
RESOURCE_OUTPUTS: dict[str, ResourceOutputs] = {
    Upstream.COMMAND: lambda name, inputs, scope: {"stdout": FAKE_KUBECONFIG, "stderr": ""},
}

INVOKES: dict[str, InvokeResult] = {}


# ---- EKS / AKS (dra_gpu_platform/eks_*.py, dra_gpu_platform/aks_*.py): what AWS and Azure compute on create
FAKE_ACCOUNT = "123456789012"
FAKE_CA = base64.b64encode(b"offline certificate authority").decode()
_ZONE_LETTERS = "abcdef"


def _hex(seed: str, length: int) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:length]


def _aws_region(scope: CloudScope) -> str:
    return scope.region or "us-east-1"


def _eks_cluster(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    region, cluster = _aws_region(scope), inputs.get("name") or name
    return {
        "arn": f"arn:aws:eks:{region}:{FAKE_ACCOUNT}:cluster/{cluster}",
        "endpoint": f"https://{_hex(cluster, 32).upper()}.gr7.{region}.eks.amazonaws.com",
        "certificateAuthority": {"data": FAKE_CA},
        "status": "ACTIVE",
        "vpcConfig": {
            **(inputs.get("vpcConfig") or {}),
            "clusterSecurityGroupId": f"sg-{_hex(cluster, 17)}",
            "vpcId": f"vpc-{_hex(cluster, 17)}",
        },
    }


def _iam_role(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    role = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {"name": role, "arn": f"arn:aws:iam::{FAKE_ACCOUNT}:role/{role}"}


def _kms_key(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    key = str(uuid.uuid5(uuid.NAMESPACE_URL, name))
    return {"keyId": key, "arn": f"arn:aws:kms:{_aws_region(scope)}:{FAKE_ACCOUNT}:key/{key}"}


def _launch_template(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    template = f"lt-{_hex(name, 17)}"
    return {
        "latestVersion": 1,
        "defaultVersion": 1,
        "arn": f"arn:aws:ec2:{_aws_region(scope)}:{FAKE_ACCOUNT}:launch-template/{template}",
    }


def _placement_group(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    group = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {
        "name": group,
        "placementGroupId": f"pg-{_hex(name, 17)}",
        "arn": f"arn:aws:ec2:{_aws_region(scope)}:{FAKE_ACCOUNT}:placement-group/{group}",
    }


def _iam_policy(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    policy = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {"name": policy, "arn": f"arn:aws:iam::{FAKE_ACCOUNT}:policy/{policy}"}


def _sqs_queue(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    queue, region = inputs.get("name") or f"{name}-{_hex(name, 7)}", _aws_region(scope)
    return {
        "name": queue,
        "arn": f"arn:aws:sqs:{region}:{FAKE_ACCOUNT}:{queue}",
        "url": f"https://sqs.{region}.amazonaws.com/{FAKE_ACCOUNT}/{queue}",
    }


def _event_rule(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    rule = inputs.get("name") or f"{name}-{_hex(name, 7)}"
    return {"name": rule, "arn": f"arn:aws:events:{_aws_region(scope)}:{FAKE_ACCOUNT}:rule/{rule}"}


def _node_group(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    group = inputs.get("nodeGroupName") or f"{name}-{_hex(name, 7)}"
    cluster = inputs.get("clusterName") or scope.cluster_name
    return {
        "nodeGroupName": group,
        "arn": f"arn:aws:eks:{_aws_region(scope)}:{FAKE_ACCOUNT}:nodegroup/{cluster}/{group}/{uuid.uuid5(uuid.NAMESPACE_URL, name)}",
        "status": "ACTIVE",
        "resources": [{"autoscalingGroups": [{"name": f"eks-{group}-{uuid.uuid5(uuid.NAMESPACE_URL, name)}"}]}],
    }


def _resource_group(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    return {"name": inputs.get("resourceGroupName") or name}


def _managed_cluster(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    cluster = inputs.get("resourceName") or name
    location = inputs.get("location") or scope.region or "eastus"
    return {
        "name": cluster,
        "fqdn": f"{inputs.get('dnsPrefix') or cluster}-{_hex(cluster, 8)}.hcp.{location}.azmk8s.io",
        "provisioningState": "Succeeded",
    }


def _agent_pool(name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    return {"name": inputs.get("agentPoolName") or name, "provisioningState": "Succeeded"}


def _availability_zones(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    region = args.get("region") or _aws_region(scope)
    return {
        "id": region,
        "names": [f"{region}{letter}" for letter in _ZONE_LETTERS],
        "zoneIds": [f"{region[:2]}{region.split('-')[-1]}-az{i + 1}" for i in range(len(_ZONE_LETTERS))],
    }


def _subnet(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    """An existing subnet's zone: the n-th subnet of cluster.eks.subnetIds lies in the n-th zone."""
    subnet = args.get("id", "")
    ids = list(scope.subnet_ids)
    position = ids.index(subnet) if subnet in ids else 0
    return {"id": subnet, "availabilityZone": f"{_aws_region(scope)}{_ZONE_LETTERS[position % len(_ZONE_LETTERS)]}"}


def _aws_caller(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    """Who runs Pulumi (aws getCallerIdentity): a fixed fake role session."""
    return {
        "accountId": FAKE_ACCOUNT,
        "arn": f"arn:aws:sts::{FAKE_ACCOUNT}:assumed-role/offline-deployer/offline",
        "userId": "AROAOFFLINE:offline",
        "id": FAKE_ACCOUNT,
    }


def _aws_session_context(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    """The role behind an assumed-role session ARN (aws iam getSessionContext)."""
    arn = str(args.get("arn", ""))
    role = arn.split("/")[1] if ":assumed-role/" in arn else None
    issuer = f"arn:aws:iam::{FAKE_ACCOUNT}:role/{role}" if role else arn
    return {
        "arn": arn,
        "issuerArn": issuer,
        "issuerId": "AROAOFFLINE",
        "issuerName": role or "",
        "sessionName": "offline",
    }


FAKE_SUBSCRIPTION = "00000000-0000-0000-0000-000000005ab5"
FAKE_TENANT = "00000000-0000-0000-0000-0000000070e7"


def _azure_client_config(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    """Who runs Pulumi (azure-native authorization.getClientConfig): a fixed fake identity."""
    return {
        "clientId": "00000000-0000-0000-0000-00000000c1e7",
        "objectId": "00000000-0000-0000-0000-0000000000b1",
        "subscriptionId": FAKE_SUBSCRIPTION,
        "tenantId": FAKE_TENANT,
    }


def fake_aks_kubeconfig(cluster: str, location: str) -> str:
    """The shape AKS returns for format=exec on an Entra ID cluster: kubelogin with a device-code login."""
    server = f"https://{cluster}-{_hex(cluster, 8)}.hcp.{location}.azmk8s.io:443"
    args = [
        "get-token",
        "--environment",
        "AzurePublicCloud",
        "--server-id",
        "00000000-0000-0000-0000-00000000a0e5",
        "--client-id",
        "00000000-0000-0000-0000-00000000c11e",
        "--tenant-id",
        "00000000-0000-0000-0000-0000000070e7",
        "--login",
        "devicecode",
    ]
    return yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": cluster, "cluster": {"server": server, "certificate-authority-data": FAKE_CA}}],
            "contexts": [{"name": cluster, "context": {"cluster": cluster, "user": f"clusterUser_{cluster}"}}],
            "current-context": cluster,
            "users": [
                {
                    "name": f"clusterUser_{cluster}",
                    "user": {
                        "exec": {
                            "apiVersion": "client.authentication.k8s.io/v1beta1",
                            "command": "kubelogin",
                            "args": args,
                            "provideClusterInfo": False,
                            "interactiveMode": "IfAvailable",
                        }
                    },
                }
            ],
        },
        sort_keys=False,
    )


def _aks_credentials(args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    cluster = args.get("resourceName") or scope.cluster_name
    text = fake_aks_kubeconfig(cluster, scope.region or "eastus")
    return {"kubeconfigs": [{"name": "clusterUser", "value": base64.b64encode(text.encode()).decode()}]}


RESOURCE_OUTPUTS.update(
    {
        Upstream.EKS_CLUSTER: _eks_cluster,
        Upstream.IAM_ROLE: _iam_role,
        Upstream.KMS_KEY: _kms_key,
        Upstream.EC2_LAUNCH_TEMPLATE: _launch_template,
        Upstream.EC2_PLACEMENT_GROUP: _placement_group,
        Upstream.IAM_POLICY: _iam_policy,
        Upstream.SQS_QUEUE: _sqs_queue,
        Upstream.EVENT_RULE: _event_rule,
        Upstream.EKS_NODE_GROUP: _node_group,
        Upstream.AZURE_RESOURCE_GROUP: _resource_group,
        Upstream.AKS_MANAGED_CLUSTER: _managed_cluster,
        Upstream.AKS_AGENT_POOL: _agent_pool,
    }
)
INVOKES.update(
    {
        "aws:index/getAvailabilityZones:getAvailabilityZones": _availability_zones,
        "aws:ec2/getSubnet:getSubnet": _subnet,
        "aws:index/getCallerIdentity:getCallerIdentity": _aws_caller,
        "aws:iam/getSessionContext:getSessionContext": _aws_session_context,
        "azure-native:containerservice:listManagedClusterUserCredentials": _aks_credentials,
        "azure-native:authorization:getClientConfig": _azure_client_config,
    }
)


def outputs_for(type_: str, name: str, inputs: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    handler = RESOURCE_OUTPUTS.get(type_)
    return handler(name, inputs, scope) if handler else {}


def invoke(token: str, args: dict[str, Any], scope: CloudScope) -> dict[str, Any]:
    handler = INVOKES.get(token)
    return handler(args, scope) if handler else {}
