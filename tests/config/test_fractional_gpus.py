"""Fractional-GPU EC2 types (g6f, gr6f) cannot be DRA pools: EC2 reports no whole GPU and nothing publishes one."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import ConfigError

EKS = {
    "cluster": {
        "platform": "eks",
        "name": "frac",
        "kubernetesVersion": "1.35",
        "eks": {"endpointPublicAccess": True, "publicAccessCidrs": ["203.0.113.0/24"]},
    },
    "region": "us-east-1",
}


def stack(**pool):
    return {**EKS, "nodePools": [{"name": "frac", "gpu": "L4", "maxNodes": 2, **pool}]}


@pytest.mark.parametrize("instance_type", ["g6f.large", "gr6f.4xlarge"])
def test_a_fractional_gpu_type_is_refused_for_a_dra_pool_with_the_reason(instance_type):
    with pytest.raises(ConfigError) as caught:
        StackConfig.model_validate(stack(instanceType=instance_type, minNodes=1))
    (problem,) = [p for p in caught.value.problems if p.path.endswith("instanceType")]
    assert problem.value == instance_type
    assert "fractional-GPU" in problem.rule and "no whole GPU" in problem.rule
    assert "gpuStack: device-plugin" in problem.fix and "g6.xlarge" in problem.fix


def test_a_whole_gpu_type_of_the_same_gpu_is_accepted():
    config = StackConfig.model_validate(stack(instanceType="g6.xlarge", minNodes=1))
    assert config.node_pools[0].instance_type == "g6.xlarge"
