"""The escapes of the 2026-12 review, in foreign programs (hand-built props, not this package's stacks): the pack
finds a claimed pod's unclaimed sidecar, init container, envFrom and runtimeClassName the guard lets through; a guard
whose deployer group holds every tenant; a platform or system namespace made a tenant; Services with externalIPs;
GPU nodes whose NVIDIA toolkit accepts NVIDIA_VISIBLE_DEVICES from unprivileged containers."""

from __future__ import annotations

import copy

import pytest
from pulumi_policy import EnforcementLevel

from dra_gpu_platform.facts import cluster_access
from dra_gpu_platform.plans import node_hardening
from dra_gpu_platform.plans.admission_policy import (
    DRA_ONLY_POLICY,
    SERVICES_POLICY_NAME,
    WORKLOAD_POLICIES,
    services_policy,
    tenancy_policies,
)
from dra_gpu_platform.policies.rules import gpu_isolation
from dra_gpu_platform.policies.rules import tenancy as rules
from tests.policies import builders as b
from tests.policies.test_tenancy_rules import GROUPS, _guards, _plan, _stack

NEW_GUARD_RULES = ("unclaimedContainers", "envFromContainers", "runtimeClassName")


def _old_guard(policy=DRA_ONLY_POLICY) -> tuple[dict, dict]:
    """The guard as it was before the review: none of the per-container rules."""
    manifest = copy.deepcopy(policy.policy_manifest())
    spec = manifest["spec"]
    spec["validations"] = [v for v in spec["validations"] if not any(r in v["expression"] for r in NEW_GUARD_RULES)]
    spec["variables"] = [v for v in spec["variables"] if v["name"] not in NEW_GUARD_RULES]
    return manifest, policy.binding_manifest()


def test_the_old_guard_lets_a_claimed_pods_other_containers_through():
    guards = []
    for policy in (DRA_ONLY_POLICY, *WORKLOAD_POLICIES):
        manifest, binding = _old_guard(policy)
        guards += [b.resource(b.VAP, manifest, policy.name), b.resource(b.VAP_BINDING, binding, f"{policy.name}-b")]
    [message] = b.check_stack(rules.TENANT_GUARD_HOLDS, _stack(_plan("research"), guards=guards)).messages
    for gap in (
        "a claimed pod's sidecar that lists no claim",
        "a claimed pod's init container that lists no claim",
        "envFrom in a pod that tolerates the GPU taint",
        "runtimeClassName nvidia in a pod that tolerates the GPU taint",
        "a Deployment whose pod template has a sidecar that lists no claim",
        "a CronJob whose pod template has a sidecar that lists no claim",
    ):
        assert gap in message
    assert b.check_stack(rules.TENANT_GUARD_HOLDS, _stack(_plan("research"))) == []


# ---------------------------------------------------------------- the groups every tenant has


@pytest.mark.parametrize("group", ["system:authenticated", "system:serviceaccounts", "system:serviceaccounts:research"])
def test_a_guard_whose_deployer_group_holds_every_tenant_is_no_guard(group):
    guards = _guards((DRA_ONLY_POLICY, *WORKLOAD_POLICIES, *tenancy_policies((*GROUPS, group))))
    [message] = b.check_stack(rules.TENANT_CONTROLS_GUARDED, _stack(_plan("research"), guards=guards)).messages
    assert "remove gpu-mode" in message and "delete the platform's NetworkPolicies" in message
    assert b.check_stack(rules.TENANT_CONTROLS_GUARDED, _stack(_plan("research"))) == []


def test_the_simulated_tenant_carries_the_groups_a_tenant_really_has():
    assert cluster_access.tenant_groups("research") == (
        "system:authenticated",
        "system:serviceaccounts",
        "system:serviceaccounts:research",
    )


# ---------------------------------------------------------------- reserved namespaces


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("kube-system", "the platform installs the cluster autoscaler"),
        ("gpu-operator", "the platform installs the GPU Operator"),
        ("default", "Kubernetes system namespace"),
        ("dra-driver-nvidia-gpu", "the platform installs the NVIDIA DRA driver"),
    ],
)
def test_a_platform_or_system_namespace_labelled_as_a_tenant_is_caught(name, why):
    reported = b.check_stack(rules.TENANT_NAMESPACE_NOT_RESERVED, _stack(_plan("research"), _plan(name)))
    [message] = reported.messages
    assert message.startswith(f"namespace {name} is a GPU tenant namespace") and why in message
    assert reported.urns == [b.urn(b.NAMESPACE, f"{name}-Namespace-{name}")]


def test_a_tenant_in_a_namespace_a_release_of_the_stack_installs_into_is_caught():
    kps = b.helm_release("kube-prometheus-stack", "81.4.3", "https://prometheus-community.github.io/helm-charts")
    kps["namespace"] = "observability"
    resources = [*_stack(_plan("observability")), b.resource(b.HELM_RELEASE, kps, "kps")]
    [message] = b.check_stack(rules.TENANT_NAMESPACE_NOT_RESERVED, resources).messages
    assert "the stack's Helm release kube-prometheus-stack installs there" in message
    assert b.check_stack(rules.TENANT_NAMESPACE_NOT_RESERVED, _stack()) == []


# ---------------------------------------------------------------- Services


def test_without_the_services_guard_a_tenant_may_add_external_ips():
    guards = _guards((DRA_ONLY_POLICY, *WORKLOAD_POLICIES, *tenancy_policies(GROUPS)[:2]))
    reported = b.check_stack(rules.TENANT_SERVICES_GUARDED, _stack(guards=guards))
    assert len(reported) == 2 and "CVE-2020-8554" in reported.messages[0]
    assert b.check_stack(rules.TENANT_SERVICES_GUARDED, _stack()) == []
    # allowing LoadBalancer in a namespace never lets externalIPs through
    allowing = _guards((DRA_ONLY_POLICY, services_policy({"research": ("LoadBalancer", "NodePort")})))
    assert b.check_stack(rules.TENANT_SERVICES_GUARDED, _stack(guards=allowing)) == []
    assert services_policy({}).name == SERVICES_POLICY_NAME


# ---------------------------------------------------------------- the NVIDIA toolkit on every GPU node


def _eks_pool(name: str, ami: str, user_data: str | None) -> list:
    template = b.resource(
        b.LAUNCH_TEMPLATE, {**b.launch_template(), **({"userData": user_data} if user_data else {})}, f"{name}-lt"
    )
    group = b.resource(b.EKS_NODE_GROUP, b.node_group(ami=ami, name=name), name, dependencies=[template])
    return [template, group]


AL2023 = "AL2023_x86_64_NVIDIA"
BOTTLEROCKET = "BOTTLEROCKET_x86_64_NVIDIA"


@pytest.mark.parametrize(
    ("ami", "user_data", "found"),
    [
        (AL2023, None, "keep the toolkit's default"),
        (AL2023, node_hardening.encoded(node_hardening.al2023_user_data([{"instance": {}}]).replace("=false", "=true")), "keep the toolkit's default"),
        (AL2023, node_hardening.encoded(node_hardening.gpu_user_data(AL2023, raid0=True) or ""), None),
        ("AL2023_ARM_64_NVIDIA", node_hardening.encoded(node_hardening.gpu_user_data("AL2023_ARM_64_NVIDIA") or ""), None),
        (BOTTLEROCKET, None, "does not write [settings.nvidia-container-runtime]"),
        (BOTTLEROCKET, node_hardening.encoded(node_hardening.bottlerocket_user_data(host_dra_driver=False)), None),
        (BOTTLEROCKET, node_hardening.encoded("[settings.nvidia-container-runtime]\nvisible-devices-envvar-when-unprivileged = true\n"), "does not write"),
    ],
)  # fmt: skip
def test_every_eks_gpu_node_group_hardens_its_toolkit(ami, user_data, found):
    resources = [*_stack(_plan("research")), *_eks_pool("h100", ami, user_data)]
    messages = b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources).messages
    if found is None:
        assert messages == []
    else:
        [message] = messages
        assert message.startswith("EKS node group h100:") and found in message
        assert "lists no claim (a sidecar, an init container) gets every GPU of its node" in message


def test_without_tenant_namespaces_there_is_no_boundary_to_hold():
    resources = [*_eks_pool("h100", AL2023, None)]
    assert b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources) == []


@pytest.mark.parametrize(
    ("env", "found"),
    [
        (None, True),
        ([{"name": "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED", "value": "true"}], True),
        ([{"name": "ACCEPT_NVIDIA_VISIBLE_DEVICES_ENVVAR_WHEN_UNPRIVILEGED", "value": "false"}], False),
    ],
)
def test_the_operators_toolkit_refuses_the_variable_where_it_installs_the_toolkit(env, found):
    toolkit = {"enabled": True, **({"env": env} if env is not None else {})}
    operator = b.helm_release("gpu-operator", "v25.10.1", "https://helm.ngc.nvidia.com/nvidia", {"toolkit": toolkit})
    resources = [*_stack(_plan("research")), b.resource(b.HELM_RELEASE, operator, "operator")]
    messages = b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources).messages
    assert bool(messages) is found
    host = b.helm_release(
        "gpu-operator", "v25.10.1", "https://helm.ngc.nvidia.com/nvidia", {"toolkit": {"enabled": False}}
    )
    assert b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, [*_stack(), b.resource(b.HELM_RELEASE, host, "h")]) == []


@pytest.mark.parametrize(("driver", "found"), [(None, True), ("Install", True), ("None", False)])
def test_an_aks_gpu_pool_with_the_aks_toolkit_beside_tenants_is_caught(driver, found):
    pool = b.agent_pool()
    if driver is not None:
        pool["gpuProfile"] = {"driver": driver}
    resources = [*_stack(_plan("research")), b.resource(b.AKS_AGENT_POOL, pool, "a100")]
    # advisory: AKS has no setting for it and the guard refuses the containers; the mandatory rule stays quiet
    assert gpu_isolation.AKS_GPU_TOOLKIT_DEFAULT.enforcement_level == EnforcementLevel.ADVISORY
    assert b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources) == []
    messages = b.check_stack(gpu_isolation.AKS_GPU_TOOLKIT_DEFAULT, resources).messages
    assert bool(messages) is found
    if found:
        assert messages[0].startswith("AKS GPU pool a100 (gpuProfile.driver") and "no setting to change" in messages[0]


def _karpenter_pool(name: str, family_alias: str, user_data: str | None, *, gpu: bool = True) -> list:
    """A GPU NodePool and the EC2NodeClass it launches from, as any program writes them (userData not encoded)."""
    types = ["g6.12xlarge"] if gpu else ["m7i.large"]
    node_pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": f"{name}-class"},
                    "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": types}],
                }
            }
        },
    }
    spec = {"amiSelectorTerms": [{"alias": family_alias}], **({"userData": user_data} if user_data else {})}
    node_class = {"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": f"{name}-class"}}
    return [
        b.resource(b.EC2_NODE_CLASS, {**node_class, "spec": spec}, f"{name}-class"),
        b.resource(b.KARPENTER_NODE_POOL, node_pool, name),
    ]


@pytest.mark.parametrize(
    ("alias", "user_data", "found"),
    [
        ("al2023@v20260714", None, "its AL2023 nodes keep the toolkit's default"),
        ("al2023@v20260714", "#!/bin/bash\necho hi\n", "its userData has no shell part"),
        ("al2023@v20260714", node_hardening.gpu_user_data(AL2023), None),
        ("al2023@v20260714", f"#!/bin/bash\n{node_hardening.TOOLKIT_COMMAND}\n", None),  # Karpenter wraps a script
        ("bottlerocket@v1.66.0", None, "does not write [settings.nvidia-container-runtime]"),
        ("bottlerocket@v1.66.0", node_hardening.bottlerocket_user_data(host_dra_driver=True), None),
    ],
)  # fmt: skip
def test_every_karpenter_gpu_node_class_hardens_its_toolkit(alias, user_data, found):
    resources = [*_stack(_plan("research")), *_karpenter_pool("l4", alias, user_data)]
    messages = b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources).messages
    if found is None:
        assert messages == []
    else:
        [message] = messages
        assert message.startswith("EC2NodeClass l4-class (GPU NodePools l4):") and found in message
    # a node class only CPU NodePools launch from is not the rule's business
    cpu = [*_stack(_plan("research")), *_karpenter_pool("cpu", alias, None, gpu=False)]
    assert b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, cpu).messages == []


@pytest.mark.parametrize(("mode", "found"), [("Driver", True), ("None", False)])
def test_a_nap_gpu_node_class_with_the_aks_toolkit_beside_tenants_is_caught(mode, found):
    node_pool = {
        "apiVersion": "karpenter.sh/v1",
        "kind": "NodePool",
        "metadata": {"name": "a100"},
        "spec": {
            "template": {
                "spec": {
                    "nodeClassRef": {"group": "karpenter.azure.com", "kind": "AKSNodeClass", "name": "a100"},
                    "requirements": [
                        {
                            "key": "karpenter.azure.com/sku-name",
                            "operator": "In",
                            "values": ["Standard_NC24ads_A100_v4"],
                        }
                    ],
                }
            }
        },
    }
    node_class = {"apiVersion": "karpenter.azure.com/v1beta1", "kind": "AKSNodeClass", "metadata": {"name": "a100"}}
    resources = [
        *_stack(_plan("research")),
        b.resource(b.KARPENTER_NODE_POOL, node_pool, "a100"),
        b.resource(b.AKS_NODE_CLASS, {**node_class, "spec": {"gpu": {"mode": mode}}}, "a100-class"),
    ]
    messages = b.check_stack(gpu_isolation.AKS_GPU_TOOLKIT_DEFAULT, resources).messages
    assert bool(messages) is found
    if found:
        assert messages[0].startswith("AKS GPU NodePools a100 (AKSNodeClass a100 gpu.mode Driver)")
    assert b.check_stack(gpu_isolation.GPU_TOOLKIT_HARDENED, resources).messages == []
