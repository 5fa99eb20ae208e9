"""Karpenter on EKS (aws/karpenter-provider-aws): the releases this package installs, the chart values it sets, the
CRDs' spellings, the AMI aliases, the controller's IAM, the interruption queue and its EventBridge rules, and which
instance types 1.15's NVIDIA DRA metadata covers. Pure data.

Sources (docs/references.md#karpenter-releases, docs/references.md#karpenter-chart-values,
docs/references.md#karpenter-nodepool-crd, docs/references.md#karpenter-ec2nodeclass-crd,
docs/references.md#karpenter-iam, docs/references.md#karpenter-interruption-queue,
docs/references.md#karpenter-dra): aws/karpenter-provider-aws at release-v1.14.1 (c88abbbad, the published 1.14.1
chart) and at d77d1a3a (the 1.15.0 release's chart values and getting-started page, read from the stored copy);
kubernetes-sigs/karpenter at v1.14.1 (the core 1.14.1 runs).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

CHART = "karpenter"
# `helm push` to oci://public.ecr.aws/karpenter/ (hack/release/common.sh:4-5,115); helm.v3.Release takes an OCI chart
# as its full reference without a repository.
CHART_REPOSITORY = "oci://public.ecr.aws/karpenter"
CHART_REFERENCE = f"{CHART_REPOSITORY}/{CHART}"
RELEASE = "karpenter"
# getting-started _index.md:50-52 (KARPENTER_NAMESPACE="kube-system"); the chart's ServiceAccount is its fullname,
# `karpenter` (values.yaml:18-25, templates/_helpers.tpl:59-65), named here so Pod Identity can name it.
NAMESPACE = "kube-system"
SERVICE_ACCOUNT = "karpenter"


@dataclass(frozen=True)
class KarpenterRelease:
    version: str  # the chart's version (no "v"), as `helm install --version` takes it
    image: str  # controller image with its digest, as the chart's values.yaml pins it
    source: str  # where the chart values were read
    nvidia_dra: bool  # settings.awsFeatureGates.draNVIDIAGPU exists: claim pods launch nodes (alpha)
    newest_kubernetes: str  # the newest minor of the release's compatibility matrix


RELEASES: dict[str, KarpenterRelease] = {
    r.version: r
    for r in (
        KarpenterRelease(
            "1.14.1",
            "public.ecr.aws/karpenter/controller:1.14.1@sha256:445baefaaa689029cc12ac1f659b916b0b82fb14308ce536f8521fcf079116fa",
            "aws/karpenter-provider-aws@release-v1.14.1 (c88abbbad) charts/karpenter/values.yaml:129-131",
            nvidia_dra=False,
            newest_kubernetes="1.36",
        ),
        KarpenterRelease(
            "1.15.0",
            "public.ecr.aws/karpenter/controller:1.15.0@sha256:ab0f953e1460c61566d48209b517734ba79fe2105f335af1ff85faa8b6baf157",
            "aws/karpenter-provider-aws@d77d1a3a charts/karpenter/values.yaml (controller.image) and Chart.yaml "
            "(version 1.15.0)",
            nvidia_dra=True,
            newest_kubernetes="1.37",
        ),
    )
}
# The default: the newest release whose chart, CRDs and source are read and rendered here (1.15.0's deployment
# template and CRDs are not in any stored copy; its DRA support is alpha).
DEFAULT_VERSION = "1.14.1"
DRA_VERSION = "1.15.0"  # the first release with NVIDIA DRA metadata (settings.awsFeatureGates.draNVIDIAGPU)

# The oldest Karpenter each Kubernetes minor supports (website/content/en/v1.15/upgrading/compatibility.md
# "Compatibility Matrix", d77d1a3a; 1.37 needs 1.15.x).
MIN_FOR_KUBERNETES = {"1.34": "1.6", "1.35": "1.9", "1.36": "1.13", "1.37": "1.15"}


def release(version: str) -> KarpenterRelease | None:
    return RELEASES.get(version.lstrip("v"))


def version_tuple(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.lstrip("v").split(".") if part.isdigit())


def supports_kubernetes(version: str, minor: str) -> bool:
    needed = MIN_FOR_KUBERNETES.get(minor)
    return needed is None or version_tuple(version)[:2] >= version_tuple(needed)[:2]


# ------------------------------------------------------------------------------------------------- chart values
# Keys of charts/karpenter/values.yaml at release-v1.14.1 (line) and at 1.15.0 (d77d1a3a):
# settings.clusterName :196 (required: templates/deployment.yaml:150-151 fails the render without it),
# settings.interruptionQueue :209 (the SQS queue's name; interruption handling is off without it),
# settings.featureGates.reservedCapacity :237-239 (on by default: capacity reservations and Capacity Blocks),
# serviceAccount.name :23, replicas :49, controller.resources :145, nodeSelector :90-91, tolerations :109-111;
# 1.15.0 only: settings.awsFeatureGates.draNVIDIAGPU ("calculate the DRA devices the NVIDIA GPU driver publishes").
# settings.ignoreDRARequests is never set: the 1.14.1 chart drops `false` (`with` skips it, deployment.yaml:180-183),
# and in 1.15.0 either DRA gate forces it off (templates/_helpers.tpl "karpenter.dra").
SETTING_DRA_NVIDIA_GPU = "draNVIDIAGPU"
# getting-started step08-apply-helm-chart.sh:8-11: requests and limits of 1 CPU and 1Gi for the controller.
CONTROLLER_RESOURCES = {"requests": {"cpu": "1", "memory": "1Gi"}, "limits": {"cpu": "1", "memory": "1Gi"}}
# The chart's pod anti-affinity (values.yaml:93-102) puts each replica on its own node: at most the system nodes.
REPLICAS = 2

# ------------------------------------------------------------------------------------------------- the CRDs
NODEPOOL_API = "karpenter.sh/v1"
NODEPOOL_KIND = "NodePool"
EC2_NODE_CLASS_API = "karpenter.k8s.aws/v1"
EC2_NODE_CLASS_KIND = "EC2NodeClass"
EC2_NODE_CLASS_GROUP = "karpenter.k8s.aws"

# Labels and requirement keys (KCORE@v1.14.1 pkg/apis/v1/labels.go:34-42,75-84; KAWS pkg/apis/v1/labels.go:143-172).
NODEPOOL_LABEL = "karpenter.sh/nodepool"
CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
CAPACITY_ON_DEMAND, CAPACITY_SPOT, CAPACITY_RESERVED = "on-demand", "spot", "reserved"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"
ARCH_LABEL = "kubernetes.io/arch"
ZONE_LABEL = "topology.kubernetes.io/zone"
CAPACITY_RESERVATION_TYPE_LABEL = "karpenter.k8s.aws/capacity-reservation-type"

# Disruption (nodepool.go:94-156; disruption.md:76-96): consolidation of empty nodes only, after this long without a
# pod coming or going; the policy pack's gpu-nodepool-consolidation holds it to its own threshold.
CONSOLIDATION_POLICY = "WhenEmpty"
CONSOLIDATE_AFTER = "15m"
DISRUPTION_BUDGET_NODES = "1"  # at most one GPU node of a pool voluntarily disrupted at once
# expireAfter (default 720h) replaces nodes forcefully, budgets and do-not-disrupt pods notwithstanding
# (disruption.md:190-213): GPU nodes keep running until drift (a new pinned AMI) replaces them; a drain waits this
# long for pods that block it.
EXPIRE_AFTER = "Never"
TERMINATION_GRACE_PERIOD = "24h"

# AMI aliases, pinned (website/content/en/v1.14/tasks/managing-amis.md:9,44 advises against @latest); the alias picks
# the NVIDIA variant for GPU instance types (pkg/providers/amifamily/al2023.go:42-43, bottlerocket.go:49-52).
# al2023 v20260714: awslabs/amazon-eks-ami CHANGELOG.md at v20260724 lists AL2023 NVIDIA AMIs of Kubernetes 1.30-1.36
# in release v20260714; Bottlerocket 1.66.0 is the first release with the host NVIDIA DRA driver setting
# (docs/references.md#bottlerocket-nvidia-dra-driver) for the NVIDIA variants of Kubernetes 1.34 to 1.37.
AL2023_ALIAS = "al2023@v20260714"
BOTTLEROCKET_ALIAS = "bottlerocket@v1.66.0"
AL2023_NEWEST_KUBERNETES = "1.36"

# Default root volumes per AMI family (website/content/en/v1.14/concepts/nodeclasses.md:1131-1160): AL2023 keeps
# images on /dev/xvda; Bottlerocket boots from a 4Gi /dev/xvda and keeps images and logs on /dev/xvdb.
AL2023_ROOT_DEVICE = "/dev/xvda"
BOTTLEROCKET_OS_DEVICE, BOTTLEROCKET_OS_GIB = "/dev/xvda", 4
BOTTLEROCKET_DATA_DEVICE = "/dev/xvdb"

# ------------------------------------------------------------------------------------------------- IAM
# Node role policies: the project's node policies (dra_gpu_platform/facts/eks_addons.py NODE_POLICIES); the access
# entry of a role for self-managed EC2 nodes is EC2_LINUX (botocore eks CreateAccessEntryRequest.type).
NODE_ACCESS_ENTRY_TYPE = "EC2_LINUX"


def controller_policies(partition: str, region: str, account: str, cluster: str) -> dict[str, dict[str, Any]]:
    """The controller role's policies, as the getting-started CloudFormation template grants them
    (website/content/en/v1.14/getting-started/getting-started-with-karpenter/cloudformation.yaml:27-380 at
    release-v1.14.1): node lifecycle, IAM integration, EKS integration, resource discovery. The interruption queue's
    and the node role's ARNs are filled in where they are known (`QUEUE_ARN`, `NODE_ROLE_ARN` placeholders), the
    zonal-shift policy is left out (settings.enableZonalShift is off)."""
    ec2 = f"arn:{partition}:ec2:{region}"
    owned = f"kubernetes.io/cluster/{cluster}"
    launched = [f"{ec2}:*:{kind}/*" for kind in ("fleet", "instance", "volume", "network-interface")] + [
        f"{ec2}:*:launch-template/*",
        f"{ec2}:*:spot-instances-request/*",
    ]
    profile = f"arn:{partition}:iam::{account}:instance-profile/*"
    return {
        "node-lifecycle": _document(
            {
                "Sid": "AllowScopedEC2InstanceAccessActions",
                "Effect": "Allow",
                "Resource": [
                    f"{ec2}::image/*",
                    f"{ec2}::snapshot/*",
                    f"{ec2}:*:security-group/*",
                    f"{ec2}:*:subnet/*",
                    f"{ec2}:*:capacity-reservation/*",
                    f"{ec2}:*:placement-group/*",
                ],
                "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
            },
            {
                "Sid": "AllowScopedEC2LaunchTemplateAccessActions",
                "Effect": "Allow",
                "Resource": f"{ec2}:*:launch-template/*",
                "Action": ["ec2:RunInstances", "ec2:CreateFleet"],
                "Condition": {
                    "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                },
            },
            {
                "Sid": "AllowScopedEC2InstanceActionsWithTags",
                "Effect": "Allow",
                "Resource": launched,
                "Action": ["ec2:RunInstances", "ec2:CreateFleet", "ec2:CreateLaunchTemplate"],
                "Condition": {
                    "StringEquals": {
                        f"aws:RequestTag/{owned}": "owned",
                        "aws:RequestTag/eks:eks-cluster-name": cluster,
                    },
                    "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
                },
            },
            {
                "Sid": "AllowScopedResourceCreationTagging",
                "Effect": "Allow",
                "Resource": launched,
                "Action": "ec2:CreateTags",
                "Condition": {
                    "StringEquals": {
                        f"aws:RequestTag/{owned}": "owned",
                        "aws:RequestTag/eks:eks-cluster-name": cluster,
                        "ec2:CreateAction": ["RunInstances", "CreateFleet", "CreateLaunchTemplate"],
                    },
                    "StringLike": {"aws:RequestTag/karpenter.sh/nodepool": "*"},
                },
            },
            {
                "Sid": "AllowScopedResourceTagging",
                "Effect": "Allow",
                "Resource": f"{ec2}:*:instance/*",
                "Action": "ec2:CreateTags",
                "Condition": {
                    "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                    "StringEqualsIfExists": {"aws:RequestTag/eks:eks-cluster-name": cluster},
                    "ForAllValues:StringEquals": {
                        "aws:TagKeys": ["eks:eks-cluster-name", "karpenter.sh/nodeclaim", "Name"]
                    },
                },
            },
            {
                "Sid": "AllowScopedDeletion",
                "Effect": "Allow",
                "Resource": [f"{ec2}:*:instance/*", f"{ec2}:*:launch-template/*"],
                "Action": ["ec2:TerminateInstances", "ec2:DeleteLaunchTemplate"],
                "Condition": {
                    "StringEquals": {f"aws:ResourceTag/{owned}": "owned"},
                    "StringLike": {"aws:ResourceTag/karpenter.sh/nodepool": "*"},
                },
            },
        ),
        "iam-integration": _document(
            {
                "Sid": "AllowPassingInstanceRole",
                "Effect": "Allow",
                "Resource": NODE_ROLE_ARN,
                "Action": "iam:PassRole",
                "Condition": {"StringEquals": {"iam:PassedToService": ["ec2.amazonaws.com", "ec2.amazonaws.com.cn"]}},
            },
            {
                "Sid": "AllowScopedInstanceProfileCreationActions",
                "Effect": "Allow",
                "Resource": profile,
                "Action": ["iam:CreateInstanceProfile"],
                "Condition": {
                    "StringEquals": {
                        f"aws:RequestTag/{owned}": "owned",
                        "aws:RequestTag/eks:eks-cluster-name": cluster,
                        "aws:RequestTag/topology.kubernetes.io/region": region,
                    },
                    "StringLike": {"aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            },
            {
                "Sid": "AllowScopedInstanceProfileTagActions",
                "Effect": "Allow",
                "Resource": profile,
                "Action": ["iam:TagInstanceProfile"],
                "Condition": {
                    "StringEquals": {
                        f"aws:ResourceTag/{owned}": "owned",
                        "aws:ResourceTag/topology.kubernetes.io/region": region,
                        f"aws:RequestTag/{owned}": "owned",
                        "aws:RequestTag/eks:eks-cluster-name": cluster,
                        "aws:RequestTag/topology.kubernetes.io/region": region,
                    },
                    "StringLike": {
                        "aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*",
                        "aws:RequestTag/karpenter.k8s.aws/ec2nodeclass": "*",
                    },
                },
            },
            {
                "Sid": "AllowScopedInstanceProfileActions",
                "Effect": "Allow",
                "Resource": profile,
                "Action": [
                    "iam:AddRoleToInstanceProfile",
                    "iam:RemoveRoleFromInstanceProfile",
                    "iam:DeleteInstanceProfile",
                ],
                "Condition": {
                    "StringEquals": {
                        f"aws:ResourceTag/{owned}": "owned",
                        "aws:ResourceTag/topology.kubernetes.io/region": region,
                    },
                    "StringLike": {"aws:ResourceTag/karpenter.k8s.aws/ec2nodeclass": "*"},
                },
            },
        ),
        "eks-integration": _document(
            {
                "Sid": "AllowAPIServerEndpointDiscovery",
                "Effect": "Allow",
                "Resource": f"arn:{partition}:eks:{region}:{account}:cluster/{cluster}",
                "Action": "eks:DescribeCluster",
            }
        ),
        "interruption": _document(
            {
                "Sid": "AllowInterruptionQueueActions",
                "Effect": "Allow",
                "Resource": QUEUE_ARN,
                "Action": ["sqs:DeleteMessage", "sqs:GetQueueUrl", "sqs:ReceiveMessage"],
            }
        ),
        "resource-discovery": _document(
            {
                "Sid": "AllowRegionalReadActions",
                "Effect": "Allow",
                "Resource": "*",
                "Action": [
                    "ec2:DescribeCapacityReservations",
                    "ec2:DescribeImages",
                    "ec2:DescribeInstances",
                    "ec2:DescribeInstanceStatus",
                    "ec2:DescribeInstanceTypeOfferings",
                    "ec2:DescribeInstanceTypes",
                    "ec2:DescribeLaunchTemplates",
                    "ec2:DescribePlacementGroups",
                    "ec2:DescribeSecurityGroups",
                    "ec2:DescribeSpotPriceHistory",
                    "ec2:DescribeSubnets",
                ],
                "Condition": {"StringEquals": {"aws:RequestedRegion": region}},
            },
            {
                "Sid": "AllowSSMReadActions",
                "Effect": "Allow",
                "Resource": f"arn:{partition}:ssm:{region}::parameter/aws/service/*",
                "Action": "ssm:GetParameter",
            },
            {"Sid": "AllowPricingReadActions", "Effect": "Allow", "Resource": "*", "Action": "pricing:GetProducts"},
            {
                "Sid": "AllowUnscopedInstanceProfileListAction",
                "Effect": "Allow",
                "Resource": "*",
                "Action": "iam:ListInstanceProfiles",
            },
            {
                "Sid": "AllowInstanceProfileReadActions",
                "Effect": "Allow",
                "Resource": profile,
                "Action": "iam:GetInstanceProfile",
            },
        ),
    }


QUEUE_ARN = "${QUEUE_ARN}"  # placeholders the resource replaces with the ARNs it creates
NODE_ROLE_ARN = "${NODE_ROLE_ARN}"


def _document(*statements: dict[str, Any]) -> dict[str, Any]:
    return {"Version": "2012-10-17", "Statement": list(statements)}


# ------------------------------------------------------------------------------------------------- interruption
# cloudformation.yaml:381-464: the queue (its name is the cluster's), retention 300 s, SSE; EventBridge rules target it.
QUEUE_RETENTION_SECONDS = 300
QUEUE_TARGET_ID = "KarpenterInterruptionQueueTarget"
QUEUE_SENDERS = ("events.amazonaws.com", "sqs.amazonaws.com")
# rule name suffix -> (source, detail-type); the capacity reservation warning is parsed by
# pkg/controllers/interruption/messages/capacityreservationinterruption/parser.go:42-43.
INTERRUPTION_RULES: dict[str, tuple[str, str]] = {
    "scheduled-change": ("aws.health", "AWS Health Event"),
    "spot-interruption": ("aws.ec2", "EC2 Spot Instance Interruption Warning"),
    "rebalance": ("aws.ec2", "EC2 Instance Rebalance Recommendation"),
    "instance-state-change": ("aws.ec2", "EC2 Instance State-change Notification"),
    "capacity-reservation-interruption": ("aws.ec2", "EC2 Capacity Reservation Instance Interruption Warning"),
}


def queue_policy(queue_arn: str) -> dict[str, Any]:
    """The interruption queue's resource policy (cloudformation.yaml:388-409)."""
    return {
        "Version": "2012-10-17",
        "Id": "EC2InterruptionPolicy",
        "Statement": [
            {
                "Effect": "Allow",
                "Principal": {"Service": list(QUEUE_SENDERS)},
                "Action": "sqs:SendMessage",
                "Resource": queue_arn,
            },
            {
                "Sid": "DenyHTTP",
                "Effect": "Deny",
                "Action": "sqs:*",
                "Resource": queue_arn,
                "Condition": {"Bool": {"aws:SecureTransport": "false"}},
                "Principal": "*",
            },
        ],
    }


# ------------------------------------------------------------------------------------------------- DRA (1.15.0)
# Instance types whose NVIDIA DRA metadata 1.15 carries (pkg/providers/drametadata/zz_generated_gpu_metadata.go at
# 25682c49, GPUMetadataByInstanceType; one device per physical GPU, type "gpu", with productName, architecture,
# cudaComputeCapability, pcieRoot and memory: pkg/providers/nvidiadra/nvidiadra.go at 0732fac7). The catalog's types of
# the families listed; p6e-gb200, p6-b300 and g7e have none (and ComputeDomains have no metadata at all: tasks/dra
# "Note").
NVIDIA_DRA_INSTANCE_TYPES = frozenset(
    {
        *(f"g4dn.{s}" for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "metal")),
        *(
            f"g5.{s}"
            for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
        ),
        *(
            f"g6.{s}"
            for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
        ),
        *(
            f"g6e.{s}"
            for s in ("xlarge", "2xlarge", "4xlarge", "8xlarge", "12xlarge", "16xlarge", "24xlarge", "48xlarge")
        ),
        "gr6.4xlarge",
        "gr6.8xlarge",
        "p4d.24xlarge",
        "p4de.24xlarge",
        "p5.4xlarge",
        "p5.48xlarge",
        "p5e.48xlarge",
        "p5en.48xlarge",
        "p6-b200.48xlarge",
    }
)
# What the NVIDIA DRA driver chart needs beside Karpenter's gate (website tasks/dra "Installing the Drivers"):
# gpuResourcesEnabledOverride true (the stack sets it, dra_gpu_platform/plans/gpu_software.py).

# Defaults of spec.disruption when a NodePool leaves them out (karpenter.sh_nodepools.yaml :73-153, nodepool.go:94-102).
DEFAULT_CONSOLIDATE_AFTER = "0s"
DEFAULT_CONSOLIDATION_POLICY = "WhenEmptyOrUnderutilized"
NEVER = "Never"
_DURATION_PART = re.compile(r"([0-9]+)([smh])")
_DURATION = re.compile(r"^([0-9]+[smh])+$")


def duration_seconds(text: str) -> int | None:
    """A NodePool duration (the CRD's pattern `([0-9]+(s|m|h))+`) in seconds; None for `Never` or text that is none."""
    if not _DURATION.match(text):
        return None
    return sum(int(n) * {"s": 1, "m": 60, "h": 3600}[unit] for n, unit in _DURATION_PART.findall(text))
