"""Reading a recorded stack's resource properties: type tokens and safe access to props. The props are the engine's
(post-Check) inputs, under the real Pulumi CLI wrapped in pulumi_policy's unknown-checking proxies: reading an unknown
value raises UnknownValueError (the analyzer turns it into an advisory "can't run policy during preview"), so the
helpers read only what a caller asks for. The policy pack and `gpuplan diff` read recorded stacks through here."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

# Private pulumi-policy API (1.21): the proxies that raise on unknown values. A remediation returns whole props and
# must copy fields it does not touch even while they are unknown; the proxies' own `["__target"]` escape hatch is
# the only way to read them raw. tests/test_private_sdk_apis.py fails when pulumi-policy changes it.
from pulumi_policy.proxy import UnknownValueError, _DictProxy, _ListProxy

from dra_gpu_platform.facts.type_tokens import Upstream

# ---------------------------------------------------------------------------------------------------
# Type tokens (resource rules apply to any Pulumi program that declares these types)

EKS_CLUSTER = Upstream.EKS_CLUSTER
EKS_NODE_GROUP = Upstream.EKS_NODE_GROUP
LAUNCH_TEMPLATE = Upstream.EC2_LAUNCH_TEMPLATE
AKS_CLUSTER_RE = re.compile(r"^azure-native:containerservice(/v[0-9a-z]+)?:ManagedCluster$")
AKS_AGENT_POOL_RE = re.compile(r"^azure-native:containerservice(/v[0-9a-z]+)?:AgentPool$")
HELM_RELEASE = Upstream.HELM_RELEASE
KARPENTER_NODE_POOL = Upstream.KARPENTER_NODE_POOL  # Karpenter's, EKS Auto Mode's and AKS NAP's NodePools alike
EC2_NODE_CLASS = Upstream.EC2_NODE_CLASS
AKS_NODE_CLASS = Upstream.AKS_NODE_CLASS
HELM_CHART_V4 = Upstream.HELM_CHART_V4
COMMAND = Upstream.COMMAND
NAMESPACE = Upstream.NAMESPACE
RESOURCE_QUOTA = Upstream.RESOURCE_QUOTA
NETWORK_POLICY = Upstream.NETWORK_POLICY
EKS_ADDON = Upstream.EKS_ADDON
IAM_ROLE = Upstream.IAM_ROLE
IAM_ROLE_POLICY = Upstream.IAM_ROLE_POLICY
AZURE_ROLE_ASSIGNMENT_RE = re.compile(r"^azure-native:authorization(/v[0-9a-z]+)?:RoleAssignment$")
AZURE_DIAGNOSTIC_SETTING_RE = re.compile(r"^azure-native:(monitor|insights)(/v[0-9a-z]+)?:DiagnosticSetting$")
DEVICE_CLASS_RE = re.compile(r"^kubernetes:resource\.k8s\.io/v1(beta1|beta2)?:DeviceClass$")
CLAIM_TEMPLATE_RE = re.compile(r"^kubernetes:resource\.k8s\.io/v1(beta1|beta2)?:ResourceClaimTemplate$")
CLAIM_RE = re.compile(r"^kubernetes:resource\.k8s\.io/v1(beta1|beta2)?:ResourceClaim$")
VAP_RE = re.compile(r"^kubernetes:admissionregistration\.k8s\.io/v1(beta1|alpha1)?:ValidatingAdmissionPolicy$")
VAP_BINDING_RE = re.compile(
    r"^kubernetes:admissionregistration\.k8s\.io/v1(beta1|alpha1)?:ValidatingAdmissionPolicyBinding$"
)

# Where the pod spec sits in each workload kind.
POD_SPEC_PATHS: dict[str, tuple[str, ...]] = {
    "kubernetes:core/v1:Pod": ("spec",),
    "kubernetes:core/v1:PodTemplate": ("template", "spec"),
    "kubernetes:core/v1:ReplicationController": ("spec", "template", "spec"),
    "kubernetes:apps/v1:Deployment": ("spec", "template", "spec"),
    "kubernetes:apps/v1:StatefulSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:DaemonSet": ("spec", "template", "spec"),
    "kubernetes:apps/v1:ReplicaSet": ("spec", "template", "spec"),
    "kubernetes:batch/v1:Job": ("spec", "template", "spec"),
    "kubernetes:batch/v1:CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}

# ---------------------------------------------------------------------------------------------------
# Property access


def is_mapping(value: Any) -> bool:
    return isinstance(value, Mapping)


def is_list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def dig(value: Any, *path: str | int, default: Any = None) -> Any:
    """value[path[0]][path[1]]...; `default` when a step is missing or null."""
    current = value
    for step in path:
        if isinstance(step, int):
            if not is_list(current) or step >= len(current):
                return default
        elif not is_mapping(current) or step not in current:
            return default
        current = current[step]
        if current is None:
            return default
    return current


def as_dict(value: Any) -> dict[str, Any]:
    return {str(k): value[k] for k in value} if is_mapping(value) else {}


def as_list(value: Any) -> list[Any]:
    return [value[i] for i in range(len(value))] if is_list(value) else []


def as_int(value: Any) -> int | None:
    """Protobuf carries every number as a float; strings like "4" come from some providers."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return int(value)
    return None


def known(read: Callable[[], Any], default: Any = None) -> Any:
    """`read()`, or `default` while what it reads is unknown (a preview's computed value): for what a rule can do
    without, so an unknown detail never turns the whole rule into "can't run during preview"."""
    try:
        return read()
    except UnknownValueError:
        return default


def string_map(value: Any) -> dict[str, str]:
    return {str(k): str(v) for k, v in as_dict(value).items() if v is not None}


def plain(value: Any) -> Any:
    """A deep plain copy of props, unknown placeholders included (a remediation returns whole props and
    must not trip over an unknown field it does not touch)."""
    if isinstance(value, (_DictProxy, _ListProxy)):
        value = value["__target"]  # the proxies' own escape hatch: no unknown check
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, Mapping):
        return {k: plain(value[k]) for k in value}
    if is_list(value):
        return [plain(value[i]) for i in range(len(value))]
    return value


def metadata_name(props: Any) -> str | None:
    return dig(props, "metadata", "name")


def metadata_namespace(props: Any) -> str:
    return dig(props, "metadata", "namespace", default="default")
