"""NetworkPolicies: the isolation of every tenant namespace and of the monitoring namespace. Pure: no Pulumi.

Tenant namespace (NetworkPolicies only ever allow; a pod is isolated for a direction once any policy selects it):
- `gpu-default-deny`: every pod, Ingress and Egress, no rule (nothing in, nothing out);
- `gpu-allow-dns`: egress to the cluster DNS pods on UDP and TCP 53;
- `gpu-allow-same-namespace`: ingress from and egress to the namespace's own pods (multi-pod jobs, NCCL bootstrap);
- `gpu-allow-internet` (`egress: internet`, the default): egress to any address except the instance metadata
  service, which hands out the node's cloud credentials (the only barrier on AKS; IMDSv2 hop limit 1 on EKS).
Monitoring (with `monitoring.install`): ingress only from the monitoring namespace, and to the Prometheus Operator's
admission webhook port from any source (the API server calls it, and its address is not selectable by a
NetworkPolicy on EKS or AKS); egress stays open, Prometheus scrapes everything.
Facts: dra_gpu_platform/facts/network.py; docs/references.md#kube-prometheus-stack-webhook.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.facts import network

DEFAULT_DENY = "gpu-default-deny"
ALLOW_DNS = "gpu-allow-dns"
ALLOW_SAME_NAMESPACE = "gpu-allow-same-namespace"
ALLOW_INTERNET = "gpu-allow-internet"
MONITORING_INGRESS = "gpu-monitoring-ingress"
MONITORING_WEBHOOK = "gpu-monitoring-operator-webhook"

INGRESS = "Ingress"
EGRESS = "Egress"

# kube-prometheus-stack 81.4.3: the operator pods' labels (templates/prometheus-operator/_prometheus-operator.tpl:4,
# `app: <chart name>-operator` with the release label, the Deployment's selector) and the port its validating and
# mutating webhooks are served on (values.yaml:2658 prometheusOperator.tls.internalPort; the webhook Service targets
# it while admissionWebhooks.deployment.enabled is false, values.yaml:2712).
PROMETHEUS_OPERATOR_WEBHOOK_PORT = 10250


def prometheus_operator_labels(release: str, chart_name: str = "kube-prometheus-stack") -> dict[str, str]:
    return {"app": f"{chart_name}-operator", "release": release}


@dataclass(frozen=True)
class PeerPlan:
    """One `from`/`to` peer: a namespace selector, a pod selector (both: pods in those namespaces), or a CIDR."""

    namespace_labels: dict[str, str] | None = None
    pod_labels: dict[str, str] | None = None
    cidr: str | None = None
    excepts: tuple[str, ...] = ()

    def manifest(self) -> dict[str, Any]:
        peer: dict[str, Any] = {}
        if self.cidr is not None:
            peer["ipBlock"] = {"cidr": self.cidr, **({"except": list(self.excepts)} if self.excepts else {})}
        if self.namespace_labels is not None:
            peer["namespaceSelector"] = {"matchLabels": dict(self.namespace_labels)} if self.namespace_labels else {}
        if self.pod_labels is not None:
            peer["podSelector"] = {"matchLabels": dict(self.pod_labels)} if self.pod_labels else {}
        return peer


@dataclass(frozen=True)
class PortPlan:
    protocol: str
    port: int


@dataclass(frozen=True)
class RulePlan:
    peers: tuple[PeerPlan, ...] = ()  # empty: any source or destination
    ports: tuple[PortPlan, ...] = ()  # empty: every port

    def manifest(self, direction: str) -> dict[str, Any]:
        rule: dict[str, Any] = {}
        if self.peers:
            rule["from" if direction == INGRESS else "to"] = [p.manifest() for p in self.peers]
        if self.ports:
            rule["ports"] = [{"protocol": p.protocol, "port": p.port} for p in self.ports]
        return rule


@dataclass(frozen=True)
class NetworkPolicyPlan:
    name: str
    pod_labels: dict[str, str]  # podSelector.matchLabels; {}: every pod of the namespace
    policy_types: tuple[str, ...]
    ingress: tuple[RulePlan, ...] = ()
    egress: tuple[RulePlan, ...] = ()

    def spec(self) -> dict[str, Any]:
        spec: dict[str, Any] = {
            "podSelector": {"matchLabels": dict(self.pod_labels)} if self.pod_labels else {},
            "policyTypes": list(self.policy_types),
        }
        if self.ingress:
            spec["ingress"] = [r.manifest(INGRESS) for r in self.ingress]
        if self.egress:
            spec["egress"] = [r.manifest(EGRESS) for r in self.egress]
        return spec

    def manifest(self, namespace: str) -> dict[str, Any]:
        return {
            "apiVersion": "networking.k8s.io/v1",
            "kind": "NetworkPolicy",
            "metadata": {"name": self.name, "namespace": namespace},
            "spec": self.spec(),
        }


_SAME_NAMESPACE = PeerPlan(pod_labels={})
_DNS = RulePlan(
    peers=(
        PeerPlan(
            namespace_labels={network.NAMESPACE_NAME_LABEL: network.DNS_NAMESPACE}, pod_labels=network.DNS_POD_LABELS
        ),
    ),
    ports=tuple(PortPlan(protocol, network.DNS_PORT) for protocol in network.DNS_PROTOCOLS),
)


def tenant_policies(egress: str) -> tuple[NetworkPolicyPlan, ...]:
    """The NetworkPolicies of one tenant namespace (`namespaces[].egress`: internet | namespace)."""
    policies = [
        NetworkPolicyPlan(DEFAULT_DENY, {}, (INGRESS, EGRESS)),
        NetworkPolicyPlan(ALLOW_DNS, {}, (EGRESS,), egress=(_DNS,)),
        NetworkPolicyPlan(
            ALLOW_SAME_NAMESPACE,
            {},
            (INGRESS, EGRESS),
            ingress=(RulePlan(peers=(_SAME_NAMESPACE,)),),
            egress=(RulePlan(peers=(_SAME_NAMESPACE,)),),
        ),
    ]
    if egress == "internet":
        internet = PeerPlan(cidr=network.ANY_IPV4, excepts=network.METADATA_ADDRESSES)
        policies.append(NetworkPolicyPlan(ALLOW_INTERNET, {}, (EGRESS,), egress=(RulePlan(peers=(internet,)),)))
    return tuple(sorted(policies, key=lambda p: p.name))


def monitoring_policies(release: str) -> tuple[NetworkPolicyPlan, ...]:
    """The monitoring namespace's ingress isolation around an installed kube-prometheus-stack."""
    return (
        NetworkPolicyPlan(MONITORING_INGRESS, {}, (INGRESS,), ingress=(RulePlan(peers=(_SAME_NAMESPACE,)),)),
        NetworkPolicyPlan(
            MONITORING_WEBHOOK,
            prometheus_operator_labels(release),
            (INGRESS,),
            ingress=(RulePlan(ports=(PortPlan("TCP", PROMETHEUS_OPERATOR_WEBHOOK_PORT),)),),
        ),
    )
