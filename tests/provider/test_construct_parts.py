"""The component package's Construct of each finer component under mocks, with its inputs as the engine sends them
(a protobuf Struct: every number a float; the Kubernetes provider in the resource options): it registers exactly
what the library class built from the same sections registers, and a bad input is one property error naming it,
with nothing registered."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable
from typing import Any

import pulumi
import pytest
from pulumi.output import Unknown

from dra_gpu_platform.facts.type_tokens import Component
from tests.provider.construct import hosting_provider, over_the_wire
from tests.resources.alone import provider, register

ROLE = "arn:aws:iam::123456789012:role/ml-nodes"
SUBNETS = ["subnet-0a1b2c3d4e5f60718", "subnet-0b1c2d3e4f5a60718"]
SECURITY_GROUP = "sg-0a1b2c3d4e5f60718"
# A team's GPU platform on a cluster it runs: every section but `cluster`, with integers where the models want them.
SECTIONS: dict[str, Any] = {
    "nodePools": [
        {"name": "h100", "gpu": "H100", "minNodes": 1, "maxNodes": 3, "labels": {"team": "ml"}},
        {"name": "a100", "gpu": "A100-80GB", "maxNodes": 2, "mig": {"profile": "3g.40gb"}},
    ],
    "gpuOperator": {"driver": "operator"},
    "deviceClasses": [{"name": "h100", "gpu": "H100"}, {"name": "slices", "migProfile": "3g.40gb"}],
    "namespaces": [
        {
            "name": "research",
            "quota": {"claims": 4, "devices": {"h100": 8}},
            "claimTemplates": [{"name": "two-h100", "deviceClass": "h100", "count": 2}],
        }
    ],
}
EXISTING = {"platform": "existing", "kubernetes_version": "1.35"}
EKS_POOL = {
    "pool": "h100",
    "cluster_name": "ml",
    "kubernetes_version": "1.35",
    "region": "us-east-1",
    "subnet_ids": SUBNETS,
    "cluster_security_group_id": SECURITY_GROUP,
    "tags": {"cost-center": "ml"},
}
AKS_POOL = {"pool": "a100", "cluster_name": "ml", "kubernetes_version": "1.35", "region": "eastus", "protect": True}


def _eks_sections() -> dict[str, Any]:
    sections = copy.deepcopy(SECTIONS)
    del sections["gpuOperator"]  # EKS NVIDIA AMIs bring the driver: the operator cannot install one there
    return sections


def _camel(arguments: dict[str, Any]) -> dict[str, Any]:
    from pulumi.provider.experimental.util import camel_case

    return {camel_case(key): value for key, value in arguments.items()}


def _known(value: Any) -> Any:
    """`value` with each value unknown in the preview as one marker (an Unknown equals only itself)."""
    if isinstance(value, dict):
        return {key: _known(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_known(item) for item in value]
    return "<unknown>" if isinstance(value, Unknown) else value


def _registrations(registered) -> list:
    """By URN: children registered from an apply (the pool's Auto Scaling group tags) come in no fixed order."""
    found = [dataclasses.replace(r, inputs=_known(r.inputs), state=_known(r.state)) for r in registered]
    return sorted((r for r in found if r.type != "pulumi:pulumi:Stack"), key=lambda r: r.urn)


def _hosted(token: str, name: str, inputs: dict[str, Any], *, kubernetes: bool, edit=None, depends_on=None):
    """Construct `token` through the package's provider; (registrations, the error it raised or None)."""
    raised: list[Exception] = []

    def build():
        options = pulumi.ResourceOptions(providers={"kubernetes": provider()} if kubernetes else None)
        if depends_on is not None:
            options.depends_on = [depends_on()]
        sent = over_the_wire(inputs)
        if edit is not None:
            edit(sent)
        try:
            hosting_provider().construct(name, token, sent, options)
        except (pulumi.InputPropertiesError, pulumi.InputPropertyError) as error:
            raised.append(error)

    return _registrations(register(build)), (raised[0] if raised else None)


def _library(build: Callable[[pulumi.ResourceOptions], Any], *, kubernetes: bool):
    def run():
        build(pulumi.ResourceOptions(providers={"kubernetes": provider()} if kubernetes else None))

    return _registrations(register(run))


def _eks_library(options):
    from dra_gpu_platform import EksGpuNodePool, EksGpuNodePoolArgs

    role = pulumi.Output.from_input(ROLE)
    EksGpuNodePool(
        "ml-h100", EksGpuNodePoolArgs.from_sections(_eks_sections(), node_role_arn=role, **EKS_POOL), options
    )


def _aks_library(options):
    from dra_gpu_platform import AksGpuNodePool, AksGpuNodePoolArgs

    args = AksGpuNodePoolArgs.from_sections(SECTIONS, resource_group_name="rg-ml", **AKS_POOL)
    AksGpuNodePool("ml-a100", args, options)


def _kubernetes_library(component: str, **extra: Any):
    def build(options):
        import dra_gpu_platform

        cls, args = getattr(dra_gpu_platform, component), getattr(dra_gpu_platform, f"{component}Args")
        k8s = options.providers["kubernetes"]
        cls(component.lower(), args.from_sections(SECTIONS, provider=k8s, **EXISTING, **extra), options)

    return build


CASES = {
    # token: (name, inputs as a program writes them, library build, Kubernetes-side)
    Component.EKS_GPU_NODE_POOL: (
        "ml-h100",
        {**_eks_sections(), **_camel(EKS_POOL), "nodeRoleArn": ROLE},
        _eks_library,
        False,
    ),
    Component.AKS_GPU_NODE_POOL: (
        "ml-a100",
        {**SECTIONS, **_camel(AKS_POOL), "resourceGroupName": "rg-ml"},
        _aks_library,
        False,
    ),
    Component.DEVICE_CLASSES: (
        "deviceclasses",
        {**SECTIONS, **_camel(EXISTING)},
        _kubernetes_library("DeviceClasses"),
        True,
    ),
    Component.TENANT_NAMESPACE: (
        "tenantnamespace",
        {**SECTIONS, **_camel(EXISTING), "namespace": "research", "protect": True},
        _kubernetes_library("TenantNamespace", namespace="research", protect=True),
        True,
    ),
    Component.GPU_OPERATOR: ("gpuoperator", {**SECTIONS, **_camel(EXISTING)}, _kubernetes_library("GpuOperator"), True),
}


@pytest.mark.parametrize("token", list(CASES))
def test_construct_registers_what_the_library_class_registers(token):
    name, inputs, library, kubernetes = CASES[token]

    def wiring_later(sent):  # the wiring may be an output of another resource
        if "nodeRoleArn" in sent:
            sent["nodeRoleArn"] = pulumi.Output.from_input(ROLE)

    hosted, error = _hosted(token, name, inputs, kubernetes=kubernetes, edit=wiring_later)
    assert error is None
    reference = _library(library, kubernetes=kubernetes)
    assert any(r.type == token and r.name == name for r in hosted)
    assert hosted == reference  # URNs, parents, providers, dependencies, options and inputs
    assert len(hosted) >= 2  # the component and its children


def test_a_hosted_dra_driver_waits_for_the_operator_it_depends_on():
    from dra_gpu_platform import DraDriver, DraDriverArgs, GpuOperator, GpuOperatorArgs

    def operator():
        return GpuOperator("gpu-operator", GpuOperatorArgs.from_sections(SECTIONS, provider=provider(), **EXISTING))

    inputs = {**SECTIONS, **_camel(EXISTING)}
    hosted, error = _hosted(Component.DRA_DRIVER, "dra-driver", inputs, kubernetes=True, depends_on=operator)
    assert error is None

    def library(options):
        # what the hosted DraDriver makes of dependsOn: the release waits for the resources listed there
        k8s = options.providers["kubernetes"]
        first = operator()
        options.depends_on = [first]
        plan = DraDriverArgs.from_sections(SECTIONS, provider=k8s, gpu_operator=first, **EXISTING).plan
        DraDriver("dra-driver", DraDriverArgs(plan, k8s, [first]), options)

    reference = _library(library, kubernetes=True)
    assert hosted == reference
    (release,) = [r for r in hosted if r.name == "dra-driver-release"]
    (operator_release,) = [r.urn for r in hosted if r.name == "gpu-operator-release"]
    assert operator_release in release.dependencies  # the SDK expands a component it waits for to its children
    _, error = _hosted(Component.DRA_DRIVER, "dra-driver", inputs, kubernetes=True)
    assert [e["property_path"] for e in error.errors] == ["dependsOn"]


BAD = {
    # token: (inputs, edit of what is sent, the paths named)
    Component.EKS_GPU_NODE_POOL: (
        {**_eks_sections(), **_camel(EKS_POOL), "nodeRoleArn": ROLE},
        lambda sent: (
            sent.pop("clusterSecurityGroupId"),
            sent.update(pool="h200", clusterName=pulumi.Output.from_input("ml")),
            sent["nodePools"][0].update(maxNodes=0.0),
        ),
        {"clusterSecurityGroupId", "clusterName", "pool", "nodePools[0].maxNodes"},
    ),
    Component.AKS_GPU_NODE_POOL: (
        {**SECTIONS, **_camel(AKS_POOL), "resourceGroupName": "rg-ml"},
        lambda sent: (sent.update(kubernetesVersion="1.2"), sent["nodePools"][1].update(capacity="capacity-block")),
        {"kubernetesVersion", "nodePools[1].capacity"},
    ),
    Component.DEVICE_CLASSES: (
        {**SECTIONS, **_camel(EXISTING)},
        lambda sent: (sent.update(platform="kind"), sent.pop("kubernetesVersion")),
        {"platform", "kubernetesVersion"},
    ),
    Component.TENANT_NAMESPACE: (
        {**SECTIONS, **_camel(EXISTING), "namespace": "research"},
        lambda sent: (sent.update(namespace="reserch", cluster={"name": "ml"}),),
        {"namespace", "cluster"},
    ),
    Component.GPU_OPERATOR: (
        {**SECTIONS, **_camel(EXISTING)},
        lambda sent: sent["gpuOperator"].update(version="v1.0.0"),
        {"gpuOperator.version"},
    ),
}


@pytest.mark.parametrize("token", list(BAD))
def test_a_bad_input_is_a_property_error_naming_it_and_nothing_is_registered(token):
    inputs, edit, paths = BAD[token]
    registered, error = _hosted(token, "bad", inputs, kubernetes=token not in Component.GPU_NODE_POOLS, edit=edit)
    assert isinstance(error, pulumi.InputPropertiesError), error
    assert {e["property_path"] for e in error.errors} >= paths, error.errors
    assert [r for r in registered if r.type != "pulumi:providers:kubernetes"] == []


def test_a_kubernetes_side_component_without_a_kubernetes_provider_names_the_option():
    _, error = _hosted(Component.DEVICE_CLASSES, "classes", {**SECTIONS, **_camel(EXISTING)}, kubernetes=False)
    assert [e["property_path"] for e in error.errors] == ["providers.kubernetes"]
