"""AKS planning decisions (dra_gpu_platform/plans/aks.py), without Pulumi: agent pool names, MIG instance
profiles, the GPU driver choice, taints, and the non-interactive kubeconfig."""

from __future__ import annotations

import re

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map
from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.facts import aks as aks_facts
from dra_gpu_platform.facts import catalog
from dra_gpu_platform.plans import aks as aks_plan
from dra_gpu_platform.plans.node_pools import plan_pool
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine.mock_outputs import fake_aks_kubeconfig
from tests.conftest import STACKS_DIR, qualify

DNS_LABEL = st.from_regex(r"\A[a-z0-9]([-a-z0-9]{0,20}[a-z0-9])?\Z")


@pytest.mark.parametrize(
    "name, expected",
    [("h100-train", "h100train"), ("t4-legacy", "t4legacy"), ("a100-80gb-dra-pool", "a10080gbdrap"), ("gpu", "gpu")],
)
def test_agent_pool_names_are_letters_and_digits_of_the_pool_name(name, expected):
    assert aks_facts.agent_pool_name(name) == expected


@given(DNS_LABEL)
def test_every_valid_derived_name_fits_aks(name):
    derived = aks_facts.agent_pool_name(name)
    assert derived == aks_facts.agent_pool_name(name)  # deterministic
    if aks_facts.agent_pool_name_problem(name) is None:
        assert re.fullmatch(r"[a-z][a-z0-9]{0,11}", derived) and derived != aks_facts.SYSTEM_POOL_NAME
    else:
        assert not derived[:1].isalpha() or derived == aks_facts.SYSTEM_POOL_NAME


def test_unusable_and_colliding_names_are_found():
    assert "must start with a letter" in aks_facts.agent_pool_name_problem("8gpu")
    assert "system pool" in aks_facts.agent_pool_name_problem("sys-tem")
    assert aks_facts.colliding_pool_names(["a100-training-1", "a100-training-2", "t4"]) == {
        "a100training": ["a100-training-1", "a100-training-2"]
    }
    assert aks_facts.colliding_pool_names(["h100", "h-100x"]) == {}


@pytest.mark.parametrize(
    "gpu, profile, expected",
    [
        ("A100-80GB", "3g.40gb", "MIG3g"),
        ("A100-80GB", "1g.10gb", "MIG1g"),
        ("A100-80GB", "7g.80gb", "MIG7g"),
        ("A100-80GB", "1g.20gb", None),
        ("A100-80GB", "1g.10gb+me", None),
        ("H100", "2g.20gb", "MIG2g"),
        ("H200", "4g.71gb", "MIG4g"),
        ("A100-40GB", "1g.10gb", None),
        ("T4", "3g.40gb", None),
    ],
)
def test_gpu_instance_profile_is_the_slice_count_of_the_smallest_profile(gpu, profile, expected):
    assert aks_facts.gpu_instance_profile(gpu, profile) == expected


def test_each_mig_gpu_has_one_aks_profile_per_slice_count():
    for model in catalog.GPU_MODELS.values():
        if model.supports_mig:
            profiles = aks_facts.aks_mig_profiles(model.key)
            assert sorted(aks_facts.gpu_instance_profile(model.key, p) for p in profiles) == [
                "MIG1g",
                "MIG2g",
                "MIG3g",
                "MIG4g",
                "MIG7g",
            ]


def aks_config(**operator):
    return parse_config_map(
        qualify(
            {
                "azure-native:location": "eastus",
                "cluster": {
                    "platform": "aks",
                    "name": "c",
                    "kubernetesVersion": "1.35",
                    "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
                },
                "nodePools": [{"name": "t4", "gpu": "T4", "maxNodes": 1, "gpuStack": "device-plugin"}],
                **({"gpuOperator": operator} if operator else {}),
            }
        ),
        stack="t",
        source="t.yaml",
    )


def test_gpu_driver_is_none_only_when_the_operator_installs_it():
    assert aks_plan.gpu_driver(aks_config()) == "Install"
    assert aks_plan.gpu_driver(aks_config(driver="host")) == "Install"
    assert aks_plan.gpu_driver(aks_config(driver="operator")) == "None"


def test_spot_pools_declare_the_taint_aks_sets():
    regular = plan_pool(NodePool.model_validate({"name": "a", "gpu": "T4", "maxNodes": 1}), "aks")
    spot = plan_pool(NodePool.model_validate({"name": "a", "gpu": "T4", "maxNodes": 1, "capacity": "spot"}), "aks")
    assert aks_plan.agent_pool_plan(regular, "Install").node_taints == ("nvidia.com/gpu=present:NoSchedule",)
    spot_plan = aks_plan.agent_pool_plan(spot, "Install")
    assert spot_plan.spot and spot_plan.node_taints == (
        "nvidia.com/gpu=present:NoSchedule",
        "kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
    )
    # the same taints in the Kubernetes spelling, which the GPU software's tolerations read
    assert [(t.key, t.value, t.effect) for t in spot.taints][1] == (
        "kubernetes.azure.com/scalesetpriority",
        "spot",
        "NoSchedule",
    )


def test_resource_group_defaults_to_the_cluster_name():
    assert aks_plan.resource_group_name(aks_config()) == "rg-c"


def test_kubeconfig_logs_in_with_the_azure_cli_instead_of_a_device_code():
    converted = yaml.safe_load(aks_plan.non_interactive_kubeconfig(fake_aks_kubeconfig("gpu", "eastus")))
    args = converted["users"][0]["user"]["exec"]["args"]
    assert args[args.index("--login") + 1] == "azurecli" and args.count("--login") == 1
    assert "devicecode" not in args and "--client-id" not in args
    assert args[args.index("--server-id") + 1] == "00000000-0000-0000-0000-00000000a0e5"
    assert converted["clusters"][0]["cluster"]["server"].startswith("https://gpu-")


def test_kubeconfig_conversion_handles_equals_form_and_leaves_other_users():
    document = {
        "users": [
            {
                "name": "aad",
                "user": {
                    "exec": {"command": "kubelogin", "args": ["get-token", "--login=devicecode", "--client-id=x"]}
                },
            },
            {"name": "other", "user": {"exec": {"command": "aws", "args": ["eks", "get-token"]}}},
        ]
    }
    converted = yaml.safe_load(aks_plan.non_interactive_kubeconfig(yaml.safe_dump(document)))
    assert converted["users"][0]["user"]["exec"]["args"] == ["get-token", "--login", "azurecli"]
    assert converted["users"][1]["user"]["exec"]["args"] == ["eks", "get-token"]


def test_docs_give_each_staging_pool_its_vm_size_and_gpus_at_max_scale():
    from tests.plans.test_eks import docs_rows

    config = load_stack_file(STACKS_DIR / "Pulumi.staging.yaml")
    rows = docs_rows("staging")
    assert set(rows) == {p.name for p in config.node_pools} | {"system"}
    plan = plan_stack(config)
    for p in plan.pools:
        assert p.shape is not None
        assert rows[p.name][1:6] == [
            p.instance_type,
            f"{p.gpus_per_node} × {p.gpu}",
            str(p.max_nodes),
            str(p.max_gpus),
            str(p.shape.vcpus * p.max_nodes),
        ], p.name
    assert rows["system"][1] == plan.cluster.system_vm_size


# ---------------------------------------------------------------------------------------------- issue 15: kubelogin


@pytest.mark.parametrize(
    "environ, mode, arm, source",
    [
        ({}, "azurecli", False, "default"),
        ({"ARM_CLIENT_ID": "id", "ARM_CLIENT_SECRET": "s", "ARM_TENANT_ID": "t"}, "spn", True, "ARM_CLIENT_SECRET"),
        ({"ARM_CLIENT_ID": "id", "ARM_CLIENT_CERTIFICATE_PATH": "/c.pfx"}, "spn", True, "ARM_CLIENT_CERTIFICATE_PATH"),
        ({"AZURE_CLIENT_ID": "id", "AZURE_CLIENT_SECRET": "s"}, "spn", False, "AZURE_CLIENT_SECRET"),
        (
            {"AZURE_CLIENT_ID": "id", "AZURE_TENANT_ID": "t", "AZURE_FEDERATED_TOKEN_FILE": "/t"},
            "workloadidentity",
            False,
            "AZURE_FEDERATED_TOKEN_FILE",
        ),
        ({"ARM_USE_MSI": "true"}, "msi", False, "ARM_USE_MSI"),
        (
            {"ARM_USE_OIDC": "true", "ARM_OIDC_TOKEN": "jwt"},
            "azurecli",
            False,
            "ARM_USE_OIDC",
        ),  # kubelogin reads token files only
    ],
)
def test_kubelogin_follows_how_pulumi_itself_is_signed_in(environ, mode, arm, source):
    plan = aks_plan.kubelogin_plan(None, environ)
    assert (plan.mode, plan.arm_env, plan.source) == (mode, arm, source)


def test_the_stack_can_name_the_kubelogin_mode():
    plan = aks_plan.kubelogin_plan(
        "spn", {"ARM_CLIENT_ID": "id", "ARM_CLIENT_SECRET": "s", "AZURE_FEDERATED_TOKEN_FILE": "/t"}
    )
    assert (plan.mode, plan.arm_env, plan.source) == ("spn", True, "cluster.aks.kubeloginMode")


AKS_ARGS = [
    "get-token",
    "--environment",
    "AzurePublicCloud",
    "--server-id",
    "S",
    "--client-id",
    "C",
    "--tenant-id",
    "T",
    "--login",
    "devicecode",
]


@pytest.mark.parametrize(
    "plan, expected",
    [
        (aks_plan.KubeloginPlan("azurecli", False, None, ""), ["--tenant-id", "T", "--login", "azurecli"]),
        (
            aks_plan.KubeloginPlan("spn", True, None, ""),
            ["--tenant-id", "T", "--login", "spn", "--use-azurerm-env-vars"],
        ),
        (
            aks_plan.KubeloginPlan("workloadidentity", False, None, ""),
            ["--tenant-id", "T", "--login", "workloadidentity"],
        ),
        (aks_plan.KubeloginPlan("msi", False, "uami", ""), ["--login", "msi", "--client-id", "uami"]),
    ],
)
def test_kubeconfig_args_per_login_mode_carry_no_secret_and_not_the_public_client(plan, expected):
    args = aks_plan.kubelogin_args(list(AKS_ARGS), plan)
    assert args == ["get-token", "--environment", "AzurePublicCloud", "--server-id", "S", *expected]
    assert "devicecode" not in args and "C" not in args


def test_role_assignment_principal_type_follows_the_login():
    config = load_stack_file(STACKS_DIR / "Pulumi.staging.yaml")
    assert plan_stack(config, environ={}).cluster.deployer_principal_type == "User"
    ci = plan_stack(config, environ={"ARM_CLIENT_ID": "id", "ARM_CLIENT_SECRET": "s"}).cluster
    assert (ci.kubelogin.mode, ci.deployer_principal_type) == ("spn", "ServicePrincipal")
