"""The GPU software releases as the program registers them (Pulumi mocks): which releases exist per platform,
their chart/version/namespace/options, the privileged namespaces, the explicit provider, the critical path
(the DRA driver waits for the operator only when the operator installs the driver), and values identical to
the pure plan of dra_gpu_platform/plans/gpu_software.py."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.plans import gpu_software as gsv
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine.outputs import HELM_RELEASE, helm_values
from tests.conftest import STACKS_DIR, clean_inputs, run_config, run_file

POOLS = [
    {"name": "h100", "gpu": "H100", "maxNodes": 2},
    {"name": "a100-mig", "gpu": "A100-80GB", "maxNodes": 1, "mig": {"profile": "3g.40gb"}},
    {"name": "t4", "gpu": "T4", "maxNodes": 2},  # DRA as well: one GPU Operator serves one NVIDIA GPU stack
]
EXISTING = {
    "cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"},
    "kubeconfig": {"secure": "v1:offline"},
    "nodePools": POOLS,
    "deviceClasses": [{"name": "shared", "gpu": "H100", "sharing": {"strategy": "TimeSlicing", "interval": "Long"}}],
    "namespaces": [
        {"name": "team", "migration": "dra-only", "claimTemplates": [{"name": "one", "deviceClass": "shared"}]}
    ],
    "monitoring": {"enabled": True},
}


def variant(**sections) -> dict:
    config = copy.deepcopy(EXISTING)
    config.update(copy.deepcopy(sections))
    return config


KIND_NVIDIA = {
    "cluster": {"platform": "kind", "name": "nv", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "nvidia"}},
    "nodePools": [{"name": "gpus", "gpu": "L4", "maxNodes": 1}],
}
CONFIGS = {
    "host-driver": EXISTING,
    "operator-driver": variant(gpuOperator={"driver": "operator"}),
    "operator-off": variant(gpuOperator={"enabled": False}),
    "kind-nvidia": KIND_NVIDIA,
}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    found = {name: run_config(tmp_path_factory.mktemp(name), config, stack=name) for name, config in CONFIGS.items()}
    found["dev"] = run_file(STACKS_DIR / "Pulumi.dev.yaml")
    return found


def releases(run) -> dict[str, object]:
    return {clean_inputs(r)["name"]: r for r in run.of_type(HELM_RELEASE)}


def component(run, type_suffix: str):
    matches = [r for r in run.resources if r.type.endswith(type_suffix)]
    return matches[0] if matches else None


@pytest.mark.parametrize(
    "name, expected",
    [
        ("host-driver", {"gpu-operator", "dra-driver-nvidia-gpu"}),
        ("operator-driver", {"gpu-operator", "dra-driver-nvidia-gpu"}),
        ("operator-off", {"dra-driver-nvidia-gpu"}),
        ("kind-nvidia", {"dra-driver-nvidia-gpu"}),  # the operator is off by default on kind
        ("dev", {"dra-example-driver"}),  # kind with gpuDriver: example: no GPU Operator, no NVIDIA chart
    ],
)
def test_releases_per_platform(runs, name, expected):
    assert set(releases(runs[name])) == expected
    assert (component(runs[name], ":software:GpuOperator") is not None) == ("gpu-operator" in expected)


def test_release_options_are_pinned_and_stable(runs):
    found = releases(runs["host-driver"])
    operator, dra = clean_inputs(found["gpu-operator"]), clean_inputs(found["dra-driver-nvidia-gpu"])
    assert {k: operator[k] for k in ("chart", "version", "namespace", "atomic", "createNamespace", "timeout")} == {
        "chart": "gpu-operator",
        "version": "v26.7.0",
        "namespace": "gpu-operator",
        "atomic": True,
        "createNamespace": False,
        "timeout": 900,
    }
    assert operator["repositoryOpts"] == {"repo": "https://helm.ngc.nvidia.com/nvidia"}
    assert dra["chart"] == "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
    assert "repositoryOpts" not in dra and dra["version"] == "0.4.1" and dra["atomic"] is True
    # logical names derive from the cluster name and the role, never from list positions
    assert found["gpu-operator"].name == "lab-gpu-operator-release"
    assert found["dra-driver-nvidia-gpu"].name == "lab-dra-driver-release"
    example = clean_inputs(releases(runs["dev"])["dra-example-driver"])
    assert (example["chart"], example["version"], example["namespace"]) == (
        "oci://registry.k8s.io/dra-example-driver/charts/dra-example-driver",
        "0.2.1",
        "dra-example-driver",
    )


def test_operator_timeout_covers_driver_compilation(runs):
    assert clean_inputs(releases(runs["operator-driver"])["gpu-operator"])["timeout"] == 1800


@pytest.mark.parametrize("name", [*sorted(CONFIGS), "dev"])
def test_release_namespaces_exist_first_with_privileged_pod_security(runs, name):
    run = runs[name]
    namespaces = {clean_inputs(r)["metadata"]["name"]: r for r in run.of_type("kubernetes:core/v1:Namespace")}
    for release in run.of_type(HELM_RELEASE):
        target = clean_inputs(release)["namespace"]
        namespace = namespaces[target]
        assert clean_inputs(namespace)["metadata"]["labels"]["pod-security.kubernetes.io/enforce"] == "privileged"
        assert namespace.urn in release.dependencies
        assert namespace.parent == release.parent  # both children of the software component


@pytest.mark.parametrize("name", [*sorted(CONFIGS), "dev"])
def test_every_software_resource_uses_the_cluster_provider(runs, name):
    run = runs[name]
    (provider,) = [r.urn for r in run.resources if r.type == "pulumi:providers:kubernetes"]
    software = {r.urn for r in run.resources if ":software:" in r.type and not r.custom}
    assert software
    children = [r for r in run.resources if r.parent in software]
    assert {r.type for r in children} == {"kubernetes:core/v1:Namespace", HELM_RELEASE}
    assert all(r.provider == provider for r in children)


def test_dra_driver_waits_for_the_operator_only_when_it_installs_the_driver(runs):
    building = releases(runs["operator-driver"])
    assert building["gpu-operator"].urn in building["dra-driver-nvidia-gpu"].dependencies
    host = releases(runs["host-driver"])
    assert host["gpu-operator"].urn not in host["dra-driver-nvidia-gpu"].dependencies
    assert clean_inputs(building["dra-driver-nvidia-gpu"])["values"]["nvidiaDriverRoot"] == "/run/nvidia/driver"
    assert clean_inputs(host["dra-driver-nvidia-gpu"])["values"]["nvidiaDriverRoot"] == "/"


@pytest.mark.parametrize("name", [*sorted(CONFIGS), "dev"])
def test_recorded_values_are_the_pure_plan(runs, name):
    run = runs[name]
    plans = [
        plan_stack(run.config).software.gpu_operator,
        plan_stack(run.config).software.dra_driver,
        gsv.example_driver_plan(run.config),
    ]
    expected = {p.release: p.values for p in plans if p is not None}
    assert {release: body["values"] for release, body in helm_values(run).items()} == expected


def test_kind_nvidia_uses_the_host_driver_root(runs):
    values = clean_inputs(releases(runs["kind-nvidia"])["dra-driver-nvidia-gpu"])["values"]
    assert values["nvidiaDriverRoot"] == "/" and "controller" not in values
