"""Addresses and selectors the tenant NetworkPolicies name. Pure data.

Sources (docs/references.md#instance-metadata-addresses, docs/references.md#cluster-dns-pods,
docs/references.md#vpc-cni-network-policy, docs/references.md#aks-network-policy-engines):
- AWS and Azure serve instance metadata at 169.254.169.254 (EC2 IMDS; Azure IMDS, which every AKS pod reaches by
  default: azure-aks-docs `articles/aks/imds-restriction.md`); the EKS Pod Identity agent listens on
  169.254.170.23 (amazon-eks-user-guide `service-accounts.adoc:196`) and only answers a pod's own service-account
  token, so it stays reachable.
- Cluster DNS: CoreDNS pods labelled `k8s-app: kube-dns` in kube-system on EKS (coredns add-on), AKS and kind
  (kubeadm's CoreDNS Deployment), serving UDP and TCP 53 (TCP for truncated answers).
"""

from __future__ import annotations

METADATA_ADDRESSES: tuple[str, ...] = ("169.254.169.254/32",)
ANY_IPV4 = "0.0.0.0/0"

DNS_NAMESPACE = "kube-system"
DNS_POD_LABELS: dict[str, str] = {"k8s-app": "kube-dns"}
DNS_PORT = 53
DNS_PROTOCOLS: tuple[str, ...] = ("UDP", "TCP")
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace

# EKS: the VPC CNI add-on enforces NetworkPolicies only with this configuration value (a string, not a boolean;
# amazon-eks-user-guide `networking/eks-networking-add-ons.adoc:1465-1475`).
VPC_CNI_NETWORK_POLICY = {"enableNetworkPolicy": "true"}
# AKS: Azure CNI powered by Cilium enforces NetworkPolicies (the engine Microsoft recommends; Azure Network Policy
# Manager retires on Linux in 2028): containerservice NetworkDataplane/NetworkPolicy "cilium"
# (pulumi-azure-native 3.29.0 `containerservice/_enums.py:616-695`; azure-aks-docs `use-network-policies.md:44-64`).
AKS_NETWORK_DATAPLANE = "cilium"
AKS_NETWORK_POLICY = "cilium"
AKS_POLICY_ENGINES = ("cilium", "azure", "calico")  # values that enforce NetworkPolicies ("none" does not)
