"""The Python examples run as `gpuplan preview --project` runs them: each program under gpuplan's mock engine for its
`dev` stack (one run per example, shared by the tests: tests/examples/examples.py), with what it registers checked
against what the example says it builds, and every manifest strict-valid as preview validates it."""

from __future__ import annotations

import ast
import re
from types import SimpleNamespace

import pytest
import yaml

from dra_gpu_platform.facts import catalog
from dra_gpu_platform.facts.type_tokens import Component, Upstream
from gpuplan.preview.stack import render_preview
from tests.conftest import run_config
from tests.examples.examples import examples, folder, run

KUBERNETES_PROVIDER = Upstream.KUBERNETES_PROVIDER


def _config(example: str) -> dict:
    return yaml.safe_load((folder(example) / "Pulumi.dev.yaml").read_text(encoding="utf-8"))["config"]


def _sections(example: str) -> dict:
    """The `sections = {...}` literal of the example's program."""
    source = (folder(example) / "__main__.py").read_text(encoding="utf-8")
    return ast.literal_eval(re.search(r"^sections = (\{.*?^\})", source, re.DOTALL | re.MULTILINE).group(1))


def _components(example: str) -> set[tuple[str, str]]:
    return {(r.type, r.name) for r in run(example).resources if not r.custom}


def test_the_python_examples_are_the_four_of_the_readme():
    assert examples("python") == ["aks-pool-py", "eks-pools-py", "platform-kind-py", "tenancy-py"]


@pytest.mark.parametrize("example", examples("python"))
def test_every_manifest_is_strict_valid_as_preview_checks_it(example, tmp_path):
    preview = render_preview(SimpleNamespace(run=lambda: run(example)), tmp_path)
    declares = any(r.type.startswith("kubernetes:") for r in run(example).resources)  # aks-pool-py: node pools only
    assert preview.checked and bool(preview.manifests) == declares
    assert [error.render() for error in preview.errors] == []


def test_the_gpu_platform_example_registers_what_the_stack_program_does_for_its_sections(tmp_path):
    example = run("platform-kind-py")
    stack_file = run_config(tmp_path, _sections("platform-kind-py"), "dev")  # the same sections as a stack file
    assert [(r.type, r.name) for r in example.resources] == [(r.type, r.name) for r in stack_file.resources]
    assert example.project == "gpu-lab" and example.plan is not None and example.plan.name == "gpu-lab"
    assert set(example.outputs) == {"kubeconfig", "deviceClasses"} and example.outputs["deviceClasses"] == ["big-gpu"]


def test_the_eks_example_builds_its_pools_and_software_on_the_existing_cluster():
    example, config = run("eks-pools-py"), _config("eks-pools-py")
    assert example.plan is None  # no GpuPlatform: the cluster is not this program's
    assert {
        (Component.EKS_GPU_NODE_POOL, "ml-prod-pool-h100"),
        (Component.EKS_GPU_NODE_POOL, "ml-prod-pool-l4"),
        (Component.GPU_OPERATOR, "gpu-operator"),
        (Component.DRA_DRIVER, "dra-driver"),
        (Component.DEVICE_CLASSES, "device-classes"),
        (Component.TENANT_NAMESPACE, "ns-research"),
    } <= _components("eks-pools-py")
    node_groups = [r.inputs for r in example.resources if r.type == Upstream.EKS_NODE_GROUP]
    assert sorted(group["instanceTypes"][0] for group in node_groups) == ["g6.xlarge", "p5.48xlarge"]
    assert {group["clusterName"] for group in node_groups} == {config["ml-gpus:clusterName"]}
    assert all(group["subnetIds"] == config["ml-gpus:subnetIds"] for group in node_groups)
    assert all(group["nodeRoleArn"] == config["ml-gpus:nodeRoleArn"] for group in node_groups)
    (provider,) = [r for r in example.resources if r.type == KUBERNETES_PROVIDER]
    kubernetes = [r for r in example.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes and {r.provider for r in kubernetes} == {provider.urn}
    assert example.outputs["deviceClasses"] == ["h100", "l4"]


def test_the_aks_example_builds_one_mig_pool_in_the_clusters_resource_group():
    example, config = run("aks-pool-py"), _config("aks-pool-py")
    assert _components("aks-pool-py") == {(Component.AKS_GPU_NODE_POOL, "ml-aks-pool-a100")}
    (pool,) = [r.inputs for r in example.resources if r.custom]
    shape = catalog.default_instance_type("aks", "A100-80GB")
    assert (pool["resourceGroupName"], pool["resourceName"], pool["vmSize"]) == (
        config["aks-gpus:resourceGroupName"],
        config["aks-gpus:clusterName"],
        shape.name,
    )
    assert pool["gpuInstanceProfile"] == "MIG3g" and pool["nodeLabels"]["nvidia.com/mig.config"] == "all-3g.40gb"
    assert pool["enableAutoScaling"] and pool["maxCount"] == 2
    assert example.outputs == {"agentPool": "a100"}


def test_the_tenancy_example_declares_only_classes_and_namespaces_on_its_provider():
    example = run("tenancy-py")
    assert example.plan is None
    assert _components("tenancy-py") == {
        (Component.DEVICE_CLASSES, "device-classes"),
        (Component.TENANT_NAMESPACE, "ns-vision"),
        (Component.TENANT_NAMESPACE, "ns-speech"),
    }
    (provider,) = [r for r in example.resources if r.type == KUBERNETES_PROVIDER]
    assert provider.inputs["context"] == _config("tenancy-py")["gpu-tenancy:kubeContext"]
    objects = [r for r in example.resources if r.custom and r.type != KUBERNETES_PROVIDER]
    assert {r.provider for r in objects} == {provider.urn}  # no cloud resource, no Helm release: Kubernetes only
    names = {(r.inputs["kind"], r.inputs["metadata"].get("namespace"), r.inputs["metadata"]["name"]) for r in objects}
    assert {
        ("DeviceClass", None, "a100"),
        ("DeviceClass", None, "any-40g"),
        ("Namespace", None, "vision"),
        ("Namespace", None, "speech"),
        ("ResourceQuota", "vision", "gpu-quota"),
        ("ResourceClaimTemplate", "vision", "one-a100"),
        ("ResourceClaimTemplate", "speech", "two-gpus"),
    } <= names
    assert example.outputs == {"deviceClasses": ["a100", "any-40g"], "namespaces": ["vision", "speech"]}
