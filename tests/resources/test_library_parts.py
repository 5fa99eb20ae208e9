"""The finer components' friendly constructors (`<Component>Args.from_sections`): a stack file's sections but
`cluster`, on a cluster that exists (docs/library.md). The part each component gets is the part GpuPlatform gives it
for the same sections; a bad call lists every problem, at the sections' paths and the arguments' names, and
registers nothing; importing the package loads no cloud SDK."""

from __future__ import annotations

import copy
import subprocess
import sys

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts.type_tokens import Component, Upstream
from dra_gpu_platform.inputs.problems import ConfigError
from dra_gpu_platform.plans import parts
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import STACKS_DIR, load_committed
from tests.resources.alone import inputs, of_type, provider, register

REGION_KEYS = ("aws:region", "azure-native:location")
ROLE = "arn:aws:iam::123456789012:role/ml-nodes"
SUBNETS = ["subnet-0a1b2c3d4e5f60718"]
SECURITY_GROUP = "sg-0a1b2c3d4e5f60718"

# A team's GPU platform on its own EKS cluster `ml`: every section but `cluster`.
SECTIONS = {
    "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 2, "labels": {"team": "ml"}}],
    "deviceClasses": [{"name": "h100", "gpu": "H100"}],
    "namespaces": [
        {
            "name": "research",
            "quota": {"claims": 4, "devices": {"h100": 8}},
            "claimTemplates": [{"name": "two-h100", "deviceClass": "h100", "count": 2}],
        }
    ],
}
ON_EKS = {"platform": "eks", "kubernetes_version": "1.35", "region": "us-east-1"}


def _committed(stack: str):
    config = load_committed(stack)
    region = next(config[key] for key in REGION_KEYS if key in config)
    sections = {key: value for key, value in config.items() if ":" not in key and key not in ("cluster", "kubeconfig")}
    return sections, region, plan_stack(load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml"))


@pytest.mark.parametrize("stack", ["staging", "prod"])
def test_each_part_is_what_gpu_platform_gives_the_same_component(stack):
    sections, region, plan = _committed(stack)
    cluster = {"platform": plan.platform, "kubernetes_version": plan.kubernetes_version, "region": region}
    on_cluster = {**cluster, "provider": None}  # the provider is the resources' business: any value plans the same
    if plan.platform == "eks":
        pool_of, whole = parts.EKS_GPU_NODE_POOL, plan.cluster.node_groups
        wiring = {"node_role_arn": ROLE, "subnet_ids": SUBNETS, "cluster_security_group_id": SECURITY_GROUP}
    else:
        pool_of, whole, wiring = parts.AKS_GPU_NODE_POOL, plan.cluster.agent_pools, {"resource_group_name": "rg"}
    pool_cluster = {key: value for key, value in cluster.items() if key != "platform"}

    def part(component, **arguments):
        return parts.plan_part(component, sections, arguments)

    assert whole and [
        part(pool_of, pool=p.pool.name, cluster_name=plan.name, **pool_cluster, **wiring).plan for p in whole
    ] == list(whole)
    assert part(parts.DEVICE_CLASSES, **on_cluster).plan == plan.device_classes
    namespaces = [part(parts.TENANT_NAMESPACE, namespace=ns.name, **on_cluster).plan for ns in plan.namespaces]
    assert namespaces == list(plan.namespaces)
    assert part(parts.GPU_OPERATOR, **on_cluster).plan == plan.software.gpu_operator
    driver = part(parts.DRA_DRIVER, gpu_operator="the operator", **on_cluster)
    assert (driver.plan, driver.waits) == (plan.software.dra_driver, plan.software.dra_driver_waits_for_operator)


def test_a_team_composes_the_finer_components_on_its_eks_cluster():
    from dra_gpu_platform import (
        DeviceClasses,
        DeviceClassesArgs,
        DraDriver,
        DraDriverArgs,
        EksGpuNodePool,
        EksGpuNodePoolArgs,
        GpuOperator,
        GpuOperatorArgs,
        TenantNamespace,
        TenantNamespaceArgs,
    )

    def build():
        EksGpuNodePool(
            "ml-h100",
            EksGpuNodePoolArgs.from_sections(
                SECTIONS,
                pool="h100",
                cluster_name="ml",
                kubernetes_version="1.35",
                region="us-east-1",
                node_role_arn=ROLE,
                subnet_ids=SUBNETS,
                cluster_security_group_id=SECURITY_GROUP,
                tags={"cost-center": "ml"},
            ),
        )
        k8s = provider()
        operator = GpuOperator("gpu-operator", GpuOperatorArgs.from_sections(SECTIONS, provider=k8s, **ON_EKS))
        DraDriver("dra-driver", DraDriverArgs.from_sections(SECTIONS, provider=k8s, gpu_operator=operator, **ON_EKS))
        DeviceClasses("classes", DeviceClassesArgs.from_sections(SECTIONS, provider=k8s, **ON_EKS))
        TenantNamespace(
            "research",
            TenantNamespaceArgs.from_sections(SECTIONS, namespace="research", provider=k8s, protect=True, **ON_EKS),
        )

    registered = register(build)
    (node_group,) = of_type(registered, Upstream.EKS_NODE_GROUP)
    values = inputs(node_group)
    assert node_group.urn.endswith(f"{Component.EKS_GPU_NODE_POOL}${Upstream.EKS_NODE_GROUP}::ml-h100-nodes")
    assert (values["clusterName"], values["nodeRoleArn"], values["subnetIds"], values["version"]) == (
        "ml",
        ROLE,
        SUBNETS,
        "1.35",
    )
    # autoscaler on (the default on EKS): a DRA pool keeps one node, and its tags name the cluster
    assert values["scalingConfig"]["minSize"] == 1
    assert values["tags"]["k8s.io/cluster-autoscaler/ml"] == "owned" and values["tags"]["cost-center"] == "ml"
    assert values["tags"]["dra-gpu-platform.io/cluster"] == "ml" and values["labels"]["team"] == "ml"
    kubernetes = [r for r in registered if r.type.startswith("kubernetes:") and r.custom]
    assert {r.provider for r in kubernetes} == {"urn:pulumi:test::alone::pulumi:providers:kubernetes::k8s"}
    releases = {inputs(r)["name"]: r for r in of_type(registered, Upstream.HELM_RELEASE)}
    assert set(releases) == {"gpu-operator", "dra-driver-nvidia-gpu"}
    # EKS NVIDIA AMIs bring the driver: both releases install side by side, as in GpuPlatform
    assert releases["gpu-operator"].urn not in releases["dra-driver-nvidia-gpu"].dependencies
    assert [inputs(r)["metadata"]["name"] for r in of_type(registered, Upstream.DEVICE_CLASS)] == ["h100"]
    (template,) = of_type(registered, Upstream.RESOURCE_CLAIM_TEMPLATE)
    assert template.protect and inputs(template)["metadata"]["namespace"] == "research"


def test_a_dra_driver_waits_for_the_operator_that_installs_the_driver():
    from dra_gpu_platform import DraDriver, DraDriverArgs, GpuOperator, GpuOperatorArgs

    sections = {**SECTIONS, "gpuOperator": {"driver": "operator"}}
    cluster = {"platform": "existing", "kubernetes_version": "1.35"}

    def build():
        k8s = provider()
        operator = GpuOperator("gpu-operator", GpuOperatorArgs.from_sections(sections, provider=k8s, **cluster))
        DraDriver("dra-driver", DraDriverArgs.from_sections(sections, provider=k8s, gpu_operator=operator, **cluster))

    releases = {inputs(r)["name"]: r for r in of_type(register(build), Upstream.HELM_RELEASE)}
    assert releases["gpu-operator"].urn in releases["dra-driver-nvidia-gpu"].dependencies
    with pytest.raises(ConfigError) as raised:
        register(lambda: DraDriverArgs.from_sections(sections, provider=provider(), **cluster))
    assert [p.path for p in raised.value.problems] == ["gpu_operator"]


def test_a_bad_call_lists_every_problem_at_its_path_and_registers_nothing():
    from dra_gpu_platform import EksGpuNodePool, EksGpuNodePoolArgs

    sections = copy.deepcopy(SECTIONS)
    sections["nodePools"][0]["maxNodes"] = 0
    sections["nodePools"][0]["capacity"] = "reserved"
    sections["cluster"] = {"platform": "eks"}
    problems: list = []

    def build():
        try:
            EksGpuNodePool(
                "ml-h100",
                EksGpuNodePoolArgs.from_sections(
                    sections,
                    pool="h200",
                    cluster_name="ML",
                    kubernetes_version="1.35",
                    region="us-east-1",
                    node_role_arn=ROLE,
                    subnet_ids=SUBNETS,
                    cluster_security_group_id=SECURITY_GROUP,
                ),
            )
        except ConfigError as error:
            problems.extend(error.problems)

    assert register(build) == []
    paths = {p.path for p in problems}
    assert {"nodePools[0].maxNodes", "nodePools[0].capacity", "cluster", "pool", "cluster_name"} <= paths, paths
    assert next(p for p in problems if p.path == "pool").fix.startswith("use one of h100")


def test_kubernetes_side_components_take_an_existing_eks_or_aks_cluster_only():
    with pytest.raises(ConfigError) as raised:
        parts.plan_part(
            parts.DEVICE_CLASSES, SECTIONS, {"platform": "kind", "kubernetes_version": "1.35", "provider": 0}
        )
    assert [p.path for p in raised.value.problems] == ["platform"]
    with pytest.raises(ConfigError) as raised:
        arguments = {"namespace": "research", "platform": "aks", "kubernetes_version": "1.35", "provider": 0}
        parts.plan_part(parts.TENANT_NAMESPACE, SECTIONS, arguments)
    assert [p.path for p in raised.value.problems] == ["region"]  # an AKS stack names its location


def test_an_argument_a_component_does_not_take_or_leaves_out_is_a_problem_with_the_others():
    from dra_gpu_platform import TenantNamespaceArgs

    with pytest.raises(ConfigError) as raised:
        TenantNamespaceArgs.from_sections(SECTIONS, namespace="research", platfrom="eks", kubernetes_version="1.35")
    problems = {p.path: p for p in raised.value.problems}
    assert set(problems) == {"platfrom", "platform", "provider"}, problems
    assert problems["platfrom"].fix.startswith("did you mean platform?")
    assert problems["provider"].rule == "a required argument" and "Kubernetes provider" in problems["provider"].fix


def test_the_package_exports_every_component_lazily():
    import dra_gpu_platform

    assert sorted(dra_gpu_platform.__all__) == sorted(dra_gpu_platform._EXPORTS)
    for name in dra_gpu_platform.__all__:
        assert getattr(dra_gpu_platform, name).__name__ == name
    with pytest.raises(AttributeError, match="dra_gpu_platform"):
        dra_gpu_platform.EksCluster  # noqa: B018  (a module of the package, not a public name)
    # a fresh interpreter (this one has every SDK loaded already): the import itself loads no Pulumi SDK
    probe = "import sys, dra_gpu_platform; assert not [m for m in sys.modules if m.startswith('pulumi')], sys.modules"
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
