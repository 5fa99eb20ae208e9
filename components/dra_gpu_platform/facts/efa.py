"""The AWS EFA Kubernetes device plugin: its chart and the resource it advertises. Pure data.

Sources (docs/references.md#efa-device-plugin-chart, docs/references.md#eks-efa): aws/eks-charts stable/aws-efa-k8s-device-plugin at 52396092
(Chart.yaml `version: v0.5.30`, appVersion v0.5.20; gh-pages index.yaml digest 43b3d666…); values.yaml
`nodeSelector` (line 328) and `tolerations` (line 332); templates/daemonset.yaml tolerates only
CriticalAddonsOnly by itself, so GPU nodes' taint must be tolerated through the values. The plugin advertises
`vpc.amazonaws.com/efa` (AWS doc node-efa). EFA-only interfaces (no IP address) need vpc-cni 1.18.4+
(terraform-aws-eks v21.19.0 modules/eks-managed-node-group/variables.tf:340-345).
"""

from __future__ import annotations

CHART = "aws-efa-k8s-device-plugin"
CHART_VERSION = "v0.5.30"  # the chart's versions carry a leading "v"
REPOSITORY = "https://aws.github.io/eks-charts"
RELEASE = "aws-efa-k8s-device-plugin"
NAMESPACE = "kube-system"

RESOURCE = "vpc.amazonaws.com/efa"

# Launch-template interface types (botocore ec2 NetworkInterfaceType): the primary interface needs an IP
# address (`efa`); the other cards carry only EFA traffic (`efa-only`), so a p5.48xlarge takes one subnet
# address instead of 32 (terraform-aws-eks modules/eks-managed-node-group/main.tf:57-69).
PRIMARY_INTERFACE = "efa"
SECONDARY_INTERFACE = "efa-only"
# The primary interface on a card without EFA (p6-b300's card 0: EC2 NetworkCards[0].InterfaceTypes is ["interface"]).
ENA_INTERFACE = "interface"
