"""Rules on the clouds' GPU node pools and clusters: taint, AMI, protection, endpoint exposure, IMDSv2,
and the GPU budget at max scale. Facts: docs/references.md#eks-ami-types,
docs/references.md#eks-nvidia-ami-contents, docs/references.md#ec2-gpu-instance-types,
docs/references.md#aks-agentpool-arguments, docs/references.md#azure-gpu-vm-sizes."""

from __future__ import annotations

from typing import Any

from pulumi_policy import EnforcementLevel, PolicyConfigSchema, ResourceValidationArgs, Severity, StackValidationArgs

from dra_gpu_platform.facts import eks_amis, ip_ranges
from dra_gpu_platform.plans.node_pools import GPU_TAINT, PoolPlan
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import pools as recorded

TAINT_KEY, TAINT_VALUE, TAINT_EFFECT = GPU_TAINT.key, GPU_TAINT.value, GPU_TAINT.effect
OPEN_CIDRS = ("0.0.0.0/0", "::/0")


def _describe_taints(pool: PoolPlan) -> str:
    return ", ".join(t.text for t in pool.taints) if pool.taints else "none"


# ---------------------------------------------------------------------------------------------------
# gpu-node-pool-tainted


def _untainted_gpu_pools(resource_type: str, name: str, props: Any) -> list[PoolPlan]:
    return [p for p in recorded.pools_of(resource_type, name, props) if not p.has_taint(TAINT_KEY, TAINT_EFFECT)]


def _validate_tainted(args: ResourceValidationArgs, report_violation) -> None:
    for pool in _untainted_gpu_pools(args.resource_type, args.name, args.props):
        report_violation(
            f"GPU node pool {pool.name} ({pool.instance_type or 'GPU nodes'}) lacks the taint "
            f"{TAINT_KEY}:{TAINT_EFFECT} (its taints: {_describe_taints(pool)}); any pod can land on these nodes "
            f"and hold CPU and memory that GPU jobs need."
        )


def _remediate_tainted(args: ResourceValidationArgs) -> dict[str, Any] | None:
    props = c.plain(args.props)
    if not _untainted_gpu_pools(args.resource_type, args.name, props):
        return None
    if args.resource_type == c.EKS_NODE_GROUP:
        props["taints"] = [
            *list(props.get("taints") or []),
            {"key": TAINT_KEY, "value": TAINT_VALUE, "effect": GPU_TAINT.eks_effect},
        ]
        return props
    if c.AKS_AGENT_POOL_RE.match(args.resource_type):
        props["nodeTaints"] = [*list(props.get("nodeTaints") or []), GPU_TAINT.text]
        return props
    if c.AKS_CLUSTER_RE.match(args.resource_type):
        for profile in props.get("agentPoolProfiles") or []:
            pool = recorded.aks_agent_pool(str(profile.get("name", "")), profile)
            if pool is not None and not pool.has_taint(TAINT_KEY, TAINT_EFFECT):
                profile["nodeTaints"] = [*list(profile.get("nodeTaints") or []), GPU_TAINT.text]
        return props
    if args.resource_type == c.KARPENTER_NODE_POOL:
        spec = props.setdefault("spec", {}).setdefault("template", {}).setdefault("spec", {})
        spec["taints"] = [*list(spec.get("taints") or []), GPU_TAINT.manifest()]
        return props
    if args.resource_type == recorded.NODE_PATCH:
        spec = props.setdefault("spec", {})
        spec["taints"] = [*list(spec.get("taints") or []), GPU_TAINT.manifest()]
        return props
    return None  # a kind config is a YAML string; fix it at the source


GPU_NODE_POOL_TAINTED = c.resource_policy(
    "gpu-node-pool-tainted",
    description=f"GPU node pools (EKS node groups, AKS agent pools, Karpenter NodePools, kind GPU workers, patched nodes of existing clusters) carry the taint {TAINT_KEY}:{TAINT_EFFECT}.",
    validate=_validate_tainted,
    remediate=_remediate_tainted,
    severity=Severity.HIGH,
    remediation_steps=(
        f"Add the taint {TAINT_KEY}={TAINT_VALUE}:{TAINT_EFFECT} to the pool: on EKS "
        f'`taints=[NodeGroupTaintArgs(key="{TAINT_KEY}", value="{TAINT_VALUE}", effect="NO_SCHEDULE")]`, on AKS '
        f'`node_taints=["{GPU_TAINT.text}"]`. dra-gpu-platform pools get it automatically. '
        "GPU workloads, the GPU Operator and the DRA kubelet plugin tolerate it. At enforcement level "
        "`remediate` the pack adds the taint itself."
    ),
)

# ---------------------------------------------------------------------------------------------------
# gpu-node-pool-nvidia-ami

AMI_SCHEMA = PolicyConfigSchema(
    properties={
        "allowCustomAmi": {
            "type": "boolean",
            "default": False,
            "description": "Accept amiType CUSTOM (an AMI from the launch template that you vouch for).",
        }
    }
)


def _validate_nvidia_ami(args: ResourceValidationArgs, report_violation) -> None:
    if args.resource_type != c.EKS_NODE_GROUP:
        return
    pool = recorded.eks_node_group_pool(args.name, args.props)
    if pool is None or pool.ami_type in eks_amis.NVIDIA_AMI_TYPES:
        return
    ami = pool.ami_type
    if ami == "CUSTOM" and c.setting(args, AMI_SCHEMA, "allowCustomAmi"):
        return
    if ami is None:
        why = "amiType is not set, so EKS picks its default CPU AMI: no NVIDIA driver, no container toolkit"
    elif ami in eks_amis.LEGACY_GPU_AMI_TYPES:
        why = f"amiType {ami} is Amazon Linux 2, which EKS stopped publishing AMIs for on 2025-11-26"
    elif ami == "CUSTOM":
        why = "amiType CUSTOM takes an unchecked AMI from the launch template"
    else:
        why = f"amiType {ami} is a CPU AMI: no NVIDIA driver, no container toolkit"
    report_violation(
        f"GPU node group {pool.name} ({pool.instance_type or 'GPU instances'}): {why}. "
        f"Use one of {', '.join(eks_amis.NVIDIA_AMI_TYPES)}."
    )


GPU_NODE_POOL_NVIDIA_AMI = c.resource_policy(
    "gpu-node-pool-nvidia-ami",
    description="EKS GPU node groups use an NVIDIA AMI type (AL2023 or Bottlerocket NVIDIA), never AL2 or a CPU AMI.",
    validate=_validate_nvidia_ami,
    config_schema=AMI_SCHEMA,
    severity=Severity.HIGH,
    remediation_steps=(
        'Set `ami_type="AL2023_x86_64_NVIDIA"` (or `BOTTLEROCKET_x86_64_NVIDIA`) on the node group; in a '
        "dra-gpu-platform stack set `nodePools[].amiType` or leave it out (AL2023 NVIDIA is the default). "
        "These AMIs ship the NVIDIA driver and container toolkit with CDI on. Only if you build and test your own "
        "GPU AMI, set `allowCustomAmi: true` in the policy config."
    ),
)

# ---------------------------------------------------------------------------------------------------
# protected-in-production

PRODUCTION_SCHEMA = PolicyConfigSchema(
    properties={
        "production": {
            "type": "boolean",
            "default": False,
            "description": "This stack is production: clusters and GPU pools must be protected from deletion.",
        }
    }
)


def _validate_protected(args: ResourceValidationArgs, report_violation) -> None:
    if not c.setting(args, PRODUCTION_SCHEMA, "production") or args.opts.protect:
        return
    what = None
    if args.resource_type == c.EKS_CLUSTER or c.AKS_CLUSTER_RE.match(args.resource_type):
        what = f"cluster {args.name}"
    elif args.resource_type == c.EKS_NODE_GROUP or c.AKS_AGENT_POOL_RE.match(args.resource_type):
        gpu_pools = recorded.pools_of(args.resource_type, args.name, args.props)
        if gpu_pools:
            what = f"GPU node pool {gpu_pools[0].name}"
    if what:
        report_violation(
            f"{what} is not protected in a production stack: one mistaken `pulumi destroy` or a replacement "
            f"deletes it, and with it every running GPU job (GPU capacity is often not available again)."
        )


PROTECTED_IN_PRODUCTION = c.resource_policy(
    "protected-in-production",
    description="In stacks marked production, clusters and GPU node pools have the `protect` resource option.",
    validate=_validate_protected,
    config_schema=PRODUCTION_SCHEMA,
    severity=Severity.HIGH,
    remediation_steps=(
        "Set `cluster.protect: true` in the stack file (dra-gpu-platform protects the cluster and its pools), or "
        "`opts=ResourceOptions(protect=True)` on the resource. To delete on purpose, run "
        "`pulumi state unprotect <urn>` first."
    ),
)

# ---------------------------------------------------------------------------------------------------
# cluster-endpoint-private


def _validate_endpoint(args: ResourceValidationArgs, report_violation) -> None:
    if args.resource_type == c.EKS_CLUSTER:
        vpc = c.dig(args.props, "vpcConfig")
        # AWS defaults: public access on, reachable from 0.0.0.0/0 (EKS VpcConfigRequest).
        public = c.dig(vpc, "endpointPublicAccess", default=True)
        if not public:
            return
        cidrs = [str(x) for x in c.as_list(c.dig(vpc, "publicAccessCidrs"))]
        if not cidrs:
            report_violation(
                f"EKS cluster {args.name} has a public API endpoint without publicAccessCidrs, so AWS allows "
                f"0.0.0.0/0: the whole internet can reach the Kubernetes API."
            )
        for cidr in cidrs:
            if cidr in OPEN_CIDRS:
                report_violation(
                    f"EKS cluster {args.name} opens its public API endpoint to {cidr}: the whole internet can reach "
                    f"the Kubernetes API."
                )
        found = ip_ranges.coverage(cidrs)
        if found.internet_wide and not set(cidrs) & set(OPEN_CIDRS):
            report_violation(
                f"EKS cluster {args.name} opens its public API endpoint to {', '.join(cidrs)}: {found.describe()}, "
                "as good as the whole internet."
            )
    elif c.AKS_CLUSTER_RE.match(args.resource_type):
        if c.dig(args.props, "disableLocalAccounts") is not True:
            report_violation(
                f"AKS cluster {args.name} keeps local accounts: the static cluster-admin credential bypasses "
                f"Entra ID and cannot be audited per person."
            )
        access = c.dig(args.props, "apiServerAccessProfile")
        if c.dig(access, "enablePrivateCluster") is True:
            return
        ranges = [str(x) for x in c.as_list(c.dig(access, "authorizedIPRanges"))]
        found = ip_ranges.coverage(ranges)
        if not ranges:
            report_violation(
                f"AKS cluster {args.name} has a public API server without authorized IP ranges: the whole internet "
                "can reach the Kubernetes API."
            )
        elif found.internet_wide:
            report_violation(
                f"AKS cluster {args.name} authorizes {', '.join(ranges)} on its API server: {found.describe()}, as "
                "good as the whole internet."
            )


CLUSTER_ENDPOINT_PRIVATE = c.resource_policy(
    "cluster-endpoint-private",
    description="EKS and AKS API servers are private or limited to CIDRs that together are not the internet; AKS "
    "clusters disable local accounts.",
    validate=_validate_endpoint,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "EKS: keep `cluster.eks.endpointPublicAccess: false` (the default), or list office/VPN ranges in "
        "`cluster.eks.publicAccessCidrs`; on the resource, `vpc_config.endpoint_public_access=False` or explicit "
        "`public_access_cidrs`. AKS: `cluster.aks.authorizedIpRanges` (or `privateCluster: true`) and "
        "`disable_local_accounts=True` with Entra ID RBAC (dra-gpu-platform does this)."
    ),
)

# ---------------------------------------------------------------------------------------------------
# imds-v2-required


def _imds_problem(props: Any) -> str | None:
    options = c.dig(props, "metadataOptions")
    if c.dig(options, "httpEndpoint") == "disabled":
        return None  # no metadata service at all
    tokens = c.dig(options, "httpTokens")
    if tokens == "required":
        return None
    return f"httpTokens is {tokens!r}" if tokens else "metadataOptions.httpTokens is not set (EC2 then accepts IMDSv1)"


def _validate_imds(args: ResourceValidationArgs, report_violation) -> None:
    if args.resource_type != c.LAUNCH_TEMPLATE:
        return
    problem = _imds_problem(args.props)
    if problem:
        report_violation(
            f"launch template {args.name}: {problem}; IMDSv1 lets any pod that can make an HTTP request read the "
            f"node's IAM credentials."
        )


def _remediate_imds(args: ResourceValidationArgs) -> dict[str, Any] | None:
    if args.resource_type != c.LAUNCH_TEMPLATE or _imds_problem(args.props) is None:
        return None
    props = c.plain(args.props)
    props["metadataOptions"] = {**(props.get("metadataOptions") or {}), "httpTokens": "required"}
    return props


IMDS_V2_REQUIRED = c.resource_policy(
    "imds-v2-required",
    description="Launch templates (used by node groups) require IMDSv2 tokens.",
    validate=_validate_imds,
    remediate=_remediate_imds,
    severity=Severity.HIGH,
    remediation_steps=(
        'Set `metadata_options=LaunchTemplateMetadataOptionsArgs(http_tokens="required", http_endpoint="enabled")` '
        "on the launch template (dra-gpu-platform GPU pools do). At enforcement level `remediate` the pack sets "
        "httpTokens itself."
    ),
)

# ---------------------------------------------------------------------------------------------------
# gpu-budget (stack)

BUDGET_SCHEMA = PolicyConfigSchema(
    properties={
        "maxGpus": {
            "type": "integer",
            "minimum": 0,
            "default": 64,
            "description": "Most GPUs the stack's cloud node pools may reach at max scale.",
        }
    }
)


def _validate_budget(args: StackValidationArgs, report_violation) -> None:
    limit = int(c.setting(args, BUDGET_SCHEMA, "maxGpus"))
    counted: list[tuple[PoolPlan, int]] = []
    unknown: list[PoolPlan] = []
    unbounded: list[PoolPlan] = []
    for _, pool in recorded.stack_pools(args.resources):
        if not pool.profile.node_pools.bought:
            continue  # kind/existing clusters add no cloud GPUs
        if pool.node_pool and pool.max_nodes == 0:
            unbounded.append(pool)  # a NodePool without spec.limits.nodes (gpu-nodepool-limits says more)
        elif pool.max_gpus is None:
            unknown.append(pool)
        else:
            counted.append((pool, pool.max_gpus))
    total = sum(n for _, n in counted)
    if total <= limit and not unbounded:
        return
    breakdown = "; ".join(
        f"{p.name}: {p.max_nodes} × {p.instance_type} ({p.gpus_per_node} GPU{'s' if p.gpus_per_node != 1 else ''}) = {n}"
        for p, n in sorted(counted, key=lambda x: -x[1])
    )
    extra = f" Not counted (GPU count unknown): {c.short(p.name for p in unknown)}." if unknown else ""
    if unbounded:
        report_violation(
            f"NodePools without a node limit have no GPU count at max scale, so maxGpus {limit} cannot hold: "
            f"{c.short(p.name for p in unbounded)}. Counted: {total} GPUs ({breakdown or 'no other pool'}).{extra}"
        )
        return
    report_violation(f"{total} GPUs at max scale exceed maxGpus {limit}: {breakdown}.{extra}")


GPU_BUDGET = c.stack_policy(
    "gpu-budget",
    description="The GPUs of all cloud node pools at max scale stay within the budget (maxGpus) of the policy config.",
    validate=_validate_budget,
    config_schema=BUDGET_SCHEMA,
    level=EnforcementLevel.ADVISORY,
    severity=Severity.LOW,
    remediation_steps=(
        "Lower `nodePools[].maxNodes` or pick smaller instance types, or raise `maxGpus` for this stack in "
        "policies/config/<stack>.json once the spend is approved. GPUs per node come from the instance type "
        "(dra_gpu_platform/facts/catalog.py)."
    ),
    tags=["gpu", "cost"],
)
