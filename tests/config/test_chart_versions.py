"""Pinned chart versions must be listed releases (dra_gpu_platform/facts/chart_releases.py, driver_charts.py) unless the
section says allowUnlisted; one GPU Operator serves one NVIDIA GPU stack. Each problem names the field, the value,
the rule and a fix that fits the stack."""

from __future__ import annotations

import copy
import re

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.facts import chart_releases, driver_charts, versions
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.plans.monitoring import values as monitoring_values
from tests.conftest import KIND_BASE, qualify

EKS = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "prod",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2},
        {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"},
    ],
}
AKS = {
    "azure-native:location": "eastus",
    "cluster": {
        "platform": "aks",
        "name": "staging",
        "kubernetesVersion": "1.35",
        "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
    },
    "nodePools": [
        {"name": "a100", "gpu": "A100-80GB", "maxNodes": 2},
        {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"},
    ],
}


def parse(config: dict):
    return parse_config_map(qualify(config), stack="t", source="Pulumi.t.yaml")


def problems(config: dict):
    with pytest.raises(InputError) as caught:
        parse(config)
    return {p.path: p for p in caught.value.problems}


def dra_only(config: dict, **sections) -> dict:
    config = copy.deepcopy(config)
    config["nodePools"] = config["nodePools"][:1]
    config.update(copy.deepcopy(sections))
    return config


@pytest.mark.parametrize(
    "config, path, value, section",
    [
        (dra_only(EKS, gpuOperator={"version": "v26.7.1"}), "gpuOperator.version", "v26.7.1", "gpuOperator"),
        (dra_only(EKS, draDriver={"version": "0.5.0"}), "draDriver.version", "0.5.0", "draDriver"),
        (
            {
                **copy.deepcopy(KIND_BASE),
                "cluster": {**KIND_BASE["cluster"], "kind": {"gpuDriver": "example", "exampleDriverVersion": "0.5.0"}},
            },
            "cluster.kind.exampleDriverVersion",
            "0.5.0",
            "cluster.kind",
        ),
    ],
    ids=["gpu-operator", "dra-driver", "example-driver"],
)
def test_an_unlisted_version_is_refused_with_the_escape_hatch_in_the_fix(config, path, value, section):
    problem = problems(config)[path]
    assert problem.value == value
    assert "this package lists" in problem.rule
    assert f"set {section}.allowUnlisted: true" in problem.fix


@pytest.mark.parametrize(
    "config",
    [
        dra_only(EKS, gpuOperator={"version": "v26.7.1", "allowUnlisted": True}),
        dra_only(EKS, draDriver={"version": "0.5.0", "allowUnlisted": True}),
        {
            **copy.deepcopy(KIND_BASE),
            "cluster": {
                **KIND_BASE["cluster"],
                "kind": {"gpuDriver": "example", "exampleDriverVersion": "0.5.0", "allowUnlisted": True},
            },
        },
    ],
    ids=["gpu-operator", "dra-driver", "example-driver"],
)
def test_allow_unlisted_lets_a_newer_release_through(config):
    parse(config)


def test_allow_unlisted_still_needs_a_version_whose_chart_facts_are_known():
    found = problems(dra_only(EKS, draDriver={"version": "0.3.0", "allowUnlisted": True}))
    assert "older than every listed release" in found["draDriver.version"].rule


def test_the_defaults_are_listed_releases_with_their_sources():
    assert versions.GPU_OPERATOR_DEFAULT in chart_releases.GPU_OPERATOR_RELEASES
    assert driver_charts.DRA_DRIVER_DEFAULT in driver_charts.DRA_DRIVER_RELEASES
    assert driver_charts.EXAMPLE_DRIVER_DEFAULT in driver_charts.EXAMPLE_DRIVER_RELEASES
    assert monitoring_values.VERSION in chart_releases.KUBE_PROMETHEUS_STACK_RELEASES
    assert "81.4.5" not in chart_releases.KUBE_PROMETHEUS_STACK_RELEASES  # never released
    sources = [
        *chart_releases.GPU_OPERATOR_RELEASES.values(),
        *chart_releases.KUBE_PROMETHEUS_STACK_RELEASES.values(),
        *(r.source for r in driver_charts.DRA_DRIVER_RELEASES.values()),
        *driver_charts.EXAMPLE_DRIVER_RELEASES.values(),
    ]
    assert all(re.fullmatch(r"[0-9a-f]{40}", s.commit) and s.repo.count("/") == 1 and s.tag and s.path for s in sources)
    for version, release in driver_charts.DRA_DRIVER_RELEASES.items():
        assert release.source.tag == f"v{version}"
    for version, source in chart_releases.KUBE_PROMETHEUS_STACK_RELEASES.items():
        assert source.tag == f"kube-prometheus-stack-{version}"


@pytest.mark.parametrize(
    "config, fix",
    [
        (EKS, "set amiType: BOTTLEROCKET_x86_64_NVIDIA on this pool"),
        (AKS, "set gpuStack: dra on this pool, or put the device-plugin pools in a stack (cluster) of their own"),
    ],
    ids=["eks", "aks"],
)
def test_the_operators_device_plugin_beside_dra_pools_is_refused(config, fix):
    problem = problems(config)["nodePools[1].gpuStack"]
    assert problem.value == "device-plugin"
    assert "crash-loops on the DRA nodes and the ClusterPolicy never becomes ready" in problem.rule
    assert problem.fix.startswith(fix)


def test_what_one_operator_can_serve():
    bottlerocket = copy.deepcopy(EKS)
    bottlerocket["nodePools"][1]["amiType"] = "BOTTLEROCKET_x86_64_NVIDIA"
    parse(bottlerocket)  # the AMI's own device plugin: the operator's stays off
    parse({**copy.deepcopy(AKS), "gpuOperator": {"enabled": False}})  # no operator: the cluster's own software
    plugin_only = copy.deepcopy(AKS)
    plugin_only["nodePools"] = plugin_only["nodePools"][1:]
    parse(plugin_only)


@pytest.mark.parametrize("base", [EKS, AKS], ids=["eks", "aks"])
def test_a_driver_chart_with_v1beta1_device_classes_is_refused_on_managed_control_planes(base):
    # nvidia-dra-driver-gpu 25.3.x templates/deviceclass-*.yaml hard-code resource.k8s.io/v1beta1
    for version in ("25.3.0", "25.3.2"):
        problem = problems(dra_only(base, draDriver={"version": version}))["draDriver.version"]
        assert "resource.k8s.io/v1beta1" in problem.rule and "does not serve by default" in problem.rule
        assert driver_charts.DRA_DRIVER_DEFAULT in problem.fix
    assert parse(dra_only(base, draDriver={"version": "25.8.1"})).dra_driver.version == "25.8.1"  # detects v1


def test_kind_serves_v1beta1_for_a_driver_chart_that_needs_it():
    from dra_gpu_platform.plans.kind import runtime_config

    nvidia_kind = {
        **copy.deepcopy(KIND_BASE),
        "cluster": {**KIND_BASE["cluster"], "kind": {"gpuDriver": "nvidia"}},
        "nodePools": [KIND_BASE["nodePools"][0]],
        "namespaces": [KIND_BASE["namespaces"][0]],
    }
    old = parse({**nvidia_kind, "draDriver": {"version": "25.3.2"}})
    new = parse({**nvidia_kind, "draDriver": {"version": "0.4.1"}})
    assert runtime_config(old).get("resource.k8s.io/v1beta1") == "true"
    assert "resource.k8s.io/v1beta1" not in runtime_config(new)
