"""Rules on elastic GPU pools, judged on any program's karpenter.sh/v1 NodePools (Karpenter's, EKS Auto Mode's, AKS
NAP's): gpu-nodepool-limits, gpu-nodepool-consolidation and the GPU taint (gpu-node-pool-tainted); the pack's own
NodePools pass them."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pulumi_policy import EnforcementLevel

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.policies.rules import cloud, elastic
from dra_gpu_platform.recorded import pools as recorded
from tests.config.test_provisioner_rules import EKS
from tests.policies import builders as b

NODE_POOL = Upstream.KARPENTER_NODE_POOL
# A NodePool as someone else's program writes it (the Karpenter docs' GPU example): no limits, no taint, the defaults.
FOREIGN: dict[str, Any] = {
    "apiVersion": "karpenter.sh/v1",
    "kind": "NodePool",
    "metadata": {"name": "gpu"},
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [
                    {"key": "karpenter.k8s.aws/instance-family", "operator": "In", "values": ["g6", "p5"]},
                    {"key": "karpenter.k8s.aws/instance-gpu-count", "operator": "Gt", "values": ["0"]},
                ],
            }
        }
    },
}
CPU: dict[str, Any] = {
    **FOREIGN,
    "spec": {
        "template": {
            "spec": {
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"},
                "requirements": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m7i.large"]}
                ],
            }
        }
    },
}


def messages(policy, props: dict[str, Any], config: dict | None = None) -> list[str]:
    return [m for m, _ in b.check(policy, NODE_POOL, props, "gpu", config)]


def own_node_pools() -> list[dict[str, Any]]:
    plan = plan_stack(StackConfig.model_validate(EKS))
    return [p.node_pool for p in plan.cluster.karpenter.pools]


def test_a_foreign_gpu_nodepool_without_limits_taint_or_patience_is_judged():
    assert "has no spec.limits" in messages(elastic.GPU_NODEPOOL_LIMITS, FOREIGN)[0]
    assert "lacks the taint nvidia.com/gpu:NoSchedule" in messages(cloud.GPU_NODE_POOL_TAINTED, FOREIGN)[0]
    found = messages(elastic.GPU_NODEPOOL_CONSOLIDATION, FOREIGN)
    assert "after 0s (the default, unset)" in found[0] and "WhenEmptyOrUnderutilized (the default, unset)" in found[1]


def test_a_cpu_nodepool_is_none_of_these_rules_business():
    for policy in (elastic.GPU_NODEPOOL_LIMITS, elastic.GPU_NODEPOOL_CONSOLIDATION, cloud.GPU_NODE_POOL_TAINTED):
        assert messages(policy, CPU) == []


def test_an_nvidia_gpu_limit_does_not_bind_on_a_dra_pool():
    dra = copy.deepcopy(FOREIGN)
    dra["spec"]["template"]["metadata"] = {"labels": {"dra-gpu-platform.io/gpu-stack": "dra"}}
    dra["spec"]["limits"] = {"nvidia.com/gpu": "16"}
    assert "never binds" in messages(elastic.GPU_NODEPOOL_LIMITS, dra)[0]
    dra["spec"]["limits"]["nodes"] = "2"
    assert messages(elastic.GPU_NODEPOOL_LIMITS, dra) == []


@pytest.mark.parametrize(
    ("after", "config", "violates"),
    [("5m", {}, True), ("10m", {}, False), ("Never", {}, False), ("5m", {"minConsolidateAfter": "2m"}, False)],
)
def test_consolidation_waits_at_least_min_consolidate_after(after, config, violates):
    pool = copy.deepcopy(FOREIGN)
    pool["spec"]["disruption"] = {"consolidationPolicy": "WhenEmpty", "consolidateAfter": after}
    assert bool(messages(elastic.GPU_NODEPOOL_CONSOLIDATION, pool, config)) == violates


def test_underutilized_consolidation_is_refused_unless_allowed():
    pool = copy.deepcopy(FOREIGN)
    pool["spec"]["disruption"] = {"consolidationPolicy": "Balanced", "consolidateAfter": "30m"}
    assert "evicts running GPU pods" in messages(elastic.GPU_NODEPOOL_CONSOLIDATION, pool)[0]
    assert messages(elastic.GPU_NODEPOOL_CONSOLIDATION, pool, {"allowUnderutilizedConsolidation": True}) == []


def test_remediation_adds_the_taint_and_slows_consolidation():
    args = b.resource_args(NODE_POOL, FOREIGN, "gpu")
    fixed = elastic.GPU_NODEPOOL_CONSOLIDATION.remediate(args)
    assert fixed["spec"]["disruption"] == {"consolidateAfter": "10m", "consolidationPolicy": "WhenEmpty"}
    tainted = cloud.GPU_NODE_POOL_TAINTED.remediate(b.resource_args(NODE_POOL, FOREIGN, "gpu"))
    assert tainted["spec"]["template"]["spec"]["taints"] == [
        {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}
    ]


def test_levels():
    assert elastic.GPU_NODEPOOL_LIMITS.enforcement_level == EnforcementLevel.MANDATORY
    assert elastic.GPU_NODEPOOL_CONSOLIDATION.enforcement_level == EnforcementLevel.ADVISORY


def test_the_stacks_own_nodepools_pass_and_read_back_as_their_pools():
    plan = plan_stack(StackConfig.model_validate(EKS))
    for manifest in own_node_pools():
        for policy in (elastic.GPU_NODEPOOL_LIMITS, elastic.GPU_NODEPOOL_CONSOLIDATION, cloud.GPU_NODE_POOL_TAINTED):
            assert messages(policy, manifest) == [], policy.name
        pool = recorded.karpenter_node_pool("np", manifest)
        planned = plan.pool(manifest["metadata"]["name"])
        assert (
            pool.name,
            pool.labels,
            pool.taints,
            pool.max_nodes,
            pool.types,
            pool.provisioner,
            pool.gpus_per_node,
        ) == (
            planned.name,
            planned.labels,
            planned.taints,
            planned.max_nodes,
            planned.types,
            planned.provisioner,
            planned.gpus_per_node,
        )


def test_the_budget_counts_a_nodepool_at_its_largest_type_and_names_an_unbounded_one():
    typed = copy.deepcopy(FOREIGN)
    typed["spec"]["template"]["spec"]["requirements"] = [
        {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["g6.xlarge", "g6.12xlarge"]}
    ]
    typed["spec"]["limits"] = {"nodes": "5"}
    found = b.check_stack(cloud.GPU_BUDGET, [b.resource(NODE_POOL, typed, "typed")], {"maxGpus": 16}).messages
    assert found == ["20 GPUs at max scale exceed maxGpus 16: gpu: 5 × g6.12xlarge (4 GPUs) = 20."]
    unbounded = b.check_stack(cloud.GPU_BUDGET, [b.resource(NODE_POOL, FOREIGN, "gpu")]).messages
    assert len(unbounded) == 1 and "NodePools without a node limit" in unbounded[0] and ": gpu." in unbounded[0]
