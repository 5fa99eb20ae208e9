"""Cluster Autoscaler: the chart, the image per Kubernetes minor, the DRA flag and the AWS IAM it needs. Pure data.

Sources (docs/references.md#cluster-autoscaler-chart, docs/references.md#cluster-autoscaler-dra,
docs/references.md#cluster-autoscaler-iam), kubernetes/autoscaler at the tags named:
- chart `cluster-autoscaler` 9.59.0 (tag cluster-autoscaler-chart-9.59.0, appVersion 1.35.0); its ClusterRole
  grants watch/list/get on resource.k8s.io resourceslices, deviceclasses, resourceclaims from 9.54.0
  (templates/clusterrole.yaml); the image tag is the `image.tag` value (values.yaml:306).
- images: tags cluster-autoscaler-1.34.5, -1.35.2, -1.36.1 (the newest patch of each minor).
- `--enable-dynamic-resource-allocation`: default false in 1.34 (config/flags/flags.go:227), locked to true
  from 1.35 (flags.go:231/302 in 1.35.2, 236/310 in 1.36.1).
- DRA scale-from-zero: docs/dra_support.md:70-73 needs provider support; the AWS and Azure providers return
  template nodes without ResourceSlices (cloudprovider/aws/aws_cloud_provider.go:412-425,
  cloudprovider/azure/azure_scale_set.go:933-952 at 1.36.1), so a DRA node group needs at least one node.
- IAM: cloudprovider/aws/README.md:34-69 ("Full Cluster Autoscaler Features Policy").
"""

from __future__ import annotations

CHART = "cluster-autoscaler"
CHART_VERSION = "9.59.0"
REPOSITORY = "https://kubernetes.github.io/autoscaler"
RELEASE = "cluster-autoscaler"
NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "cluster-autoscaler"

# Every released image per minor, newest last; the default is the newest.
RELEASES: dict[str, tuple[str, ...]] = {
    "1.34": ("1.34.0", "1.34.1", "1.34.2", "1.34.3", "1.34.4", "1.34.5"),
    "1.35": ("1.35.0", "1.35.1", "1.35.2"),
    "1.36": ("1.36.0", "1.36.1"),
}
# Minors this package renders for that have no cluster-autoscaler image yet, and what was looked at
# (docs/references.md#cluster-autoscaler-chart).
NO_IMAGE_YET: dict[str, str] = {
    "1.37": "kubernetes/autoscaler has no cluster-autoscaler-1.37.x tag (its newest, on 2026-08-22, is "
    "cluster-autoscaler-1.36.1; chart 9.59.0 still says appVersion 1.35.0)",
}
# How it picks among the node groups that fit a pending pod: `--expander`'s default on every image of RELEASES (the
# chart does not pass it; AKS's profile sets the same, dra_gpu_platform/plans/aks.py), docs/references.md#cluster-autoscaler-chart.
EXPANDER = "least-waste"
DRA_FLAG = "enable-dynamic-resource-allocation"
DRA_FLAG_LOCKED_FROM = (1, 35)  # from 1.35 the flag is locked to true and must not be passed as false

# The DRA support the autoscaler has per minor (dra_support.md "Cluster Autoscaler supported versions").
DRA_PRODUCTION_READY_FROM = (1, 35)

# Tag keys (on the Auto Scaling group) the autoscaler discovers node groups by: all of them, with these
# values. Our own key keeps Capacity Block and system node groups out even where EKS tags every group.
DISCOVERY_ENABLED = "k8s.io/cluster-autoscaler/enabled"
DISCOVERY_MARKER = "dra-gpu-platform.io/autoscaled"

DESCRIBE_ACTIONS = (
    "autoscaling:DescribeAutoScalingGroups",
    "autoscaling:DescribeAutoScalingInstances",
    "autoscaling:DescribeLaunchConfigurations",
    "autoscaling:DescribeScalingActivities",
    "ec2:DescribeImages",
    "ec2:DescribeInstanceTypes",
    "ec2:DescribeLaunchTemplateVersions",
    "ec2:GetInstanceTypesFromInstanceRequirements",
    "eks:DescribeNodegroup",
)
SCALE_ACTIONS = ("autoscaling:SetDesiredCapacity", "autoscaling:TerminateInstanceInAutoScalingGroup")


def default_version(minor: str) -> str:
    return RELEASES[minor][-1]


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.lstrip("v").split("."))


def discovery_owner_tag(cluster_name: str) -> str:
    return f"k8s.io/cluster-autoscaler/{cluster_name}"
