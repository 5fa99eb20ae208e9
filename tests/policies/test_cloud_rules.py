"""Cloud rules on hand-built resources: each a compliant and a violating case, asserting the message."""

from __future__ import annotations

import pytest

from dra_gpu_platform.policies.rules import cloud as rules
from tests.policies import builders as b

# ---------------------------------------------------------------- gpu-node-pool-tainted


def test_tainted_eks_gpu_node_group_passes():
    assert b.check(rules.GPU_NODE_POOL_TAINTED, b.EKS_NODE_GROUP, b.node_group("p5.48xlarge")) == []


def test_untainted_eks_gpu_node_group_is_reported_with_its_taints():
    props = b.node_group("g6e.xlarge", taints=[{"key": "team", "value": "ml", "effect": "NO_SCHEDULE"}], name="l40s")
    [message] = b.check(rules.GPU_NODE_POOL_TAINTED, b.EKS_NODE_GROUP, props).messages
    assert message.startswith("GPU node pool l40s (g6e.xlarge) lacks the taint nvidia.com/gpu:NoSchedule")
    assert "(its taints: team=ml:NoSchedule)" in message


def test_wrong_effect_does_not_count_as_the_gpu_taint():
    props = b.node_group(taints=[{"key": "nvidia.com/gpu", "value": "present", "effect": "PREFER_NO_SCHEDULE"}])
    [message] = b.check(rules.GPU_NODE_POOL_TAINTED, b.EKS_NODE_GROUP, props).messages
    assert "nvidia.com/gpu=present:PreferNoSchedule" in message


def test_cpu_node_group_needs_no_gpu_taint():
    props = b.node_group("m7i.large", ami="AL2023_x86_64_STANDARD", taints=[])
    assert b.check(rules.GPU_NODE_POOL_TAINTED, b.EKS_NODE_GROUP, props) == []


def test_capacity_block_node_group_is_gpu_by_its_nvidia_ami_even_without_instance_types():
    props = b.node_group(None, taints=[])
    assert len(b.check(rules.GPU_NODE_POOL_TAINTED, b.EKS_NODE_GROUP, props)) == 1


def test_aks_agent_pools():
    assert b.check(rules.GPU_NODE_POOL_TAINTED, b.AKS_AGENT_POOL, b.agent_pool()) == []
    [message] = b.check(
        rules.GPU_NODE_POOL_TAINTED, b.AKS_AGENT_POOL, b.agent_pool(taints=["sku=gpu:NoSchedule"])
    ).messages
    assert "GPU node pool gpu (Standard_NC24ads_A100_v4) lacks the taint" in message and "sku=gpu:NoSchedule" in message


def test_aks_cluster_profiles_are_pools_too():
    gpu_profile = {"name": "gpu", "vmSize": "Standard_ND96isr_H100_v5", "count": 1.0, "mode": "User"}
    [message] = b.check(rules.GPU_NODE_POOL_TAINTED, b.AKS_CLUSTER, b.managed_cluster(profiles=[gpu_profile])).messages
    assert "GPU node pool gpu (Standard_ND96isr_H100_v5)" in message


def test_kind_gpu_workers_without_the_taint():
    labels = b.labels_for("dra-workers")
    assert b.check(rules.GPU_NODE_POOL_TAINTED, b.COMMAND, b.kind_command([labels, labels])) == []
    [message] = b.check(rules.GPU_NODE_POOL_TAINTED, b.COMMAND, b.kind_command([labels], taint=False)).messages
    assert "GPU node pool dra-workers (GPU nodes) lacks the taint" in message


def test_remediation_adds_the_taint_in_each_cloud_shape():
    eks = rules.GPU_NODE_POOL_TAINTED.remediate(b.resource_args(b.EKS_NODE_GROUP, b.node_group(taints=[])))
    assert eks["taints"] == [{"key": "nvidia.com/gpu", "value": "present", "effect": "NO_SCHEDULE"}]
    assert eks["instanceTypes"] == ["p5.48xlarge"]  # the rest of the resource is kept
    aks = rules.GPU_NODE_POOL_TAINTED.remediate(
        b.resource_args(b.AKS_AGENT_POOL, b.agent_pool(taints=["a=b:NoExecute"]))
    )
    assert aks["nodeTaints"] == ["a=b:NoExecute", "nvidia.com/gpu=present:NoSchedule"]
    assert rules.GPU_NODE_POOL_TAINTED.remediate(b.resource_args(b.EKS_NODE_GROUP, b.node_group())) is None


# ---------------------------------------------------------------- gpu-node-pool-nvidia-ami


@pytest.mark.parametrize("ami", ["AL2023_x86_64_NVIDIA", "BOTTLEROCKET_x86_64_NVIDIA", "AL2023_ARM_64_NVIDIA"])
def test_nvidia_amis_pass(ami):
    assert b.check(rules.GPU_NODE_POOL_NVIDIA_AMI, b.EKS_NODE_GROUP, b.node_group(ami=ami)) == []


@pytest.mark.parametrize(
    "ami, why",
    [
        (
            "AL2_x86_64_GPU",
            "amiType AL2_x86_64_GPU is Amazon Linux 2, which EKS stopped publishing AMIs for on 2025-11-26",
        ),
        ("AL2023_x86_64_STANDARD", "amiType AL2023_x86_64_STANDARD is a CPU AMI: no NVIDIA driver"),
        (None, "amiType is not set, so EKS picks its default CPU AMI"),
        ("CUSTOM", "amiType CUSTOM takes an unchecked AMI"),
    ],
)
def test_gpu_node_group_on_a_non_nvidia_ami_is_reported(ami, why):
    [message] = b.check(
        rules.GPU_NODE_POOL_NVIDIA_AMI, b.EKS_NODE_GROUP, b.node_group("p4d.24xlarge", ami=ami)
    ).messages
    assert message.startswith(f"GPU node group res (p4d.24xlarge): {why}")
    assert message.endswith(
        "Use one of AL2023_x86_64_NVIDIA, AL2023_ARM_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA, "
        "BOTTLEROCKET_ARM_64_NVIDIA, BOTTLEROCKET_x86_64_NVIDIA_FIPS."
    )


def test_custom_ami_allowed_by_config_and_cpu_pools_ignored():
    props = b.node_group("p5.48xlarge", ami="CUSTOM")
    assert b.check(rules.GPU_NODE_POOL_NVIDIA_AMI, b.EKS_NODE_GROUP, props, config={"allowCustomAmi": True}) == []
    cpu = b.node_group("m7i.large", ami="AL2023_x86_64_STANDARD")
    assert b.check(rules.GPU_NODE_POOL_NVIDIA_AMI, b.EKS_NODE_GROUP, cpu) == []


def test_gpu_family_outside_the_catalog_is_still_gpu():
    [message] = b.check(rules.GPU_NODE_POOL_NVIDIA_AMI, b.EKS_NODE_GROUP, b.node_group("g5.2xlarge", ami=None)).messages
    assert "(g5.2xlarge)" in message


# ---------------------------------------------------------------- protected-in-production

PRODUCTION = {"production": True}


def test_production_cluster_and_gpu_pool_must_be_protected():
    [cluster] = b.check(
        rules.PROTECTED_IN_PRODUCTION, b.EKS_CLUSTER, b.eks_cluster(), name="gpu-eks", config=PRODUCTION
    ).messages
    assert cluster.startswith("cluster gpu-eks is not protected in a production stack")
    [pool] = b.check(rules.PROTECTED_IN_PRODUCTION, b.AKS_AGENT_POOL, b.agent_pool(), config=PRODUCTION).messages
    assert pool.startswith("GPU node pool gpu is not protected in a production stack")


def test_protected_production_resources_pass():
    assert b.check(rules.PROTECTED_IN_PRODUCTION, b.EKS_CLUSTER, b.eks_cluster(), config=PRODUCTION, protect=True) == []
    assert (
        b.check(rules.PROTECTED_IN_PRODUCTION, b.EKS_NODE_GROUP, b.node_group(), config=PRODUCTION, protect=True) == []
    )


def test_non_production_stacks_and_cpu_pools_are_not_checked():
    assert b.check(rules.PROTECTED_IN_PRODUCTION, b.EKS_CLUSTER, b.eks_cluster()) == []
    cpu = b.node_group("m7i.large", ami="AL2023_x86_64_STANDARD")
    assert b.check(rules.PROTECTED_IN_PRODUCTION, b.EKS_NODE_GROUP, cpu, config=PRODUCTION) == []


# ---------------------------------------------------------------- cluster-endpoint-private


@pytest.mark.parametrize("public, cidrs", [(False, []), (True, ["203.0.113.0/24"]), (False, None)])
def test_private_or_restricted_eks_endpoints_pass(public, cidrs):
    assert b.check(rules.CLUSTER_ENDPOINT_PRIVATE, b.EKS_CLUSTER, b.eks_cluster(public, cidrs)) == []


def test_eks_endpoint_open_to_the_internet_is_reported():
    [message] = b.check(
        rules.CLUSTER_ENDPOINT_PRIVATE, b.EKS_CLUSTER, b.eks_cluster(True, ["10.0.0.0/8", "0.0.0.0/0"]), name="c"
    ).messages
    assert message == (
        "EKS cluster c opens its public API endpoint to 0.0.0.0/0: the whole internet can reach the Kubernetes API."
    )


def test_eks_endpoint_public_by_aws_default_without_cidrs_is_reported():
    [message] = b.check(rules.CLUSTER_ENDPOINT_PRIVATE, b.EKS_CLUSTER, b.eks_cluster(None, None), name="c").messages
    assert "has a public API endpoint without publicAccessCidrs, so AWS allows 0.0.0.0/0" in message


def test_aks_local_accounts():
    assert b.check(rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, b.managed_cluster()) == []
    for value in (False, None):
        [message] = b.check(
            rules.CLUSTER_ENDPOINT_PRIVATE, b.AKS_CLUSTER, b.managed_cluster(local_accounts_disabled=value), name="aks"
        ).messages
        assert message.startswith("AKS cluster aks keeps local accounts")


# ---------------------------------------------------------------- imds-v2-required


def test_launch_template_requiring_tokens_passes():
    assert b.check(rules.IMDS_V2_REQUIRED, b.LAUNCH_TEMPLATE, b.launch_template()) == []
    disabled = {"metadataOptions": {"httpEndpoint": "disabled"}}
    assert b.check(rules.IMDS_V2_REQUIRED, b.LAUNCH_TEMPLATE, disabled) == []


@pytest.mark.parametrize(
    "tokens, detail",
    [
        ("optional", "httpTokens is 'optional'"),
        (None, "metadataOptions.httpTokens is not set (EC2 then accepts IMDSv1)"),
    ],
)
def test_launch_template_allowing_imdsv1_is_reported(tokens, detail):
    [message] = b.check(
        rules.IMDS_V2_REQUIRED, b.LAUNCH_TEMPLATE, b.launch_template(http_tokens=tokens), name="gpu-lt"
    ).messages
    assert message.startswith(f"launch template gpu-lt: {detail}; IMDSv1 lets any pod")


def test_imds_remediation_requires_tokens_and_keeps_the_rest():
    props = b.launch_template(http_tokens="optional", instance="p5.48xlarge")
    fixed = rules.IMDS_V2_REQUIRED.remediate(b.resource_args(b.LAUNCH_TEMPLATE, props))
    assert fixed == {
        "metadataOptions": {"httpEndpoint": "enabled", "httpTokens": "required"},
        "instanceType": "p5.48xlarge",
    }
    assert rules.IMDS_V2_REQUIRED.remediate(b.resource_args(b.LAUNCH_TEMPLATE, b.launch_template())) is None


# ---------------------------------------------------------------- gpu-budget (stack)


def _pools():
    return [
        b.resource(b.EKS_NODE_GROUP, b.node_group("p5.48xlarge", max_size=4, name="h100"), "h100"),  # 32
        b.resource(b.AKS_AGENT_POOL, b.agent_pool("Standard_NC24ads_A100_v4", max_count=3), "a100"),  # 3
        b.resource(
            b.EKS_NODE_GROUP, b.node_group("m7i.large", ami="AL2023_x86_64_STANDARD", taints=[], max_size=50), "cpu"
        ),
    ]


def test_budget_within_limit_passes():
    assert b.check_stack(rules.GPU_BUDGET, _pools(), {"maxGpus": 35}) == []


def test_budget_exceeded_names_each_pool():
    [(message, urn)] = b.check_stack(rules.GPU_BUDGET, _pools(), {"maxGpus": 34})
    assert message == (
        "35 GPUs at max scale exceed maxGpus 34: h100: 4 × p5.48xlarge (8 GPUs) = 32; "
        "gpu: 3 × Standard_NC24ads_A100_v4 (1 GPU) = 3."
    )
    assert urn is None


def test_budget_default_limit_and_unknown_shapes():
    big = [
        b.resource(b.EKS_NODE_GROUP, b.node_group("p5.48xlarge", max_size=9, name="h100"), "h100"),
        b.resource(b.EKS_NODE_GROUP, b.node_group("p3dn.24xlarge", max_size=2, name="v100"), "v100"),
    ]
    [message] = b.check_stack(rules.GPU_BUDGET, big).messages
    assert message.startswith("72 GPUs at max scale exceed maxGpus 64")
    assert message.endswith("Not counted (GPU count unknown): v100.")


def test_budget_reads_the_instance_type_of_a_capacity_block_launch_template():
    template = b.resource(b.LAUNCH_TEMPLATE, b.launch_template(instance="p5.48xlarge"), "h100-lt")
    group = b.resource(
        b.EKS_NODE_GROUP,
        b.node_group(None, max_size=2, name="h100"),
        "h100",
        property_dependencies={"launchTemplate": [template]},
    )
    [message] = b.check_stack(rules.GPU_BUDGET, [template, group], {"maxGpus": 8}).messages
    assert message == "16 GPUs at max scale exceed maxGpus 8: h100: 2 × p5.48xlarge (8 GPUs) = 16."
