"""AksCluster and its GPU agent pools as the program registers them under Pulumi mocks: identity and
Entra ID RBAC, the system pool, VM sizes, autoscaling, taints, labels, GPU driver and MIG profiles, Spot,
protect, timeouts, the kubeconfig, and the cluster's Kubernetes provider on every object."""

from __future__ import annotations

import copy

import pytest
import yaml

from dra_gpu_platform.config.models import NodePool
from dra_gpu_platform.plans.node_pools import pool_labels
from gpuplan.engine.outputs import clean
from tests.conftest import clean_inputs, load_committed, run_config
from tests.resources.alone import cluster_alone

CLUSTER = "azure-native:containerservice:ManagedCluster"
AGENT_POOL = "azure-native:containerservice:AgentPool"
GROUP = "azure-native:resources:ResourceGroup"
K8S_PROVIDER = "pulumi:providers:kubernetes"

# The operator installs the driver, a Spot pool, an H100 MIG pool, protect on, an existing resource group.
STACK = {
    "azure-native:location": "westeurope",
    "pulumi:disable-default-providers": ["kubernetes"],
    "cluster": {
        "platform": "aks",
        "name": "gpu-lab",
        "kubernetesVersion": "1.35",
        "protect": True,
        "aks": {
            "resourceGroup": "rg-shared",
            "existingResourceGroup": True,
            "adminGroupObjectIds": ["6f1e0c3a-2d4b-4c5e-8f70-9a1b2c3d4e5f"],
            "authorizedIpRanges": ["203.0.113.0/24"],
            "systemNodes": {"vmSize": "Standard_D8s_v5", "count": 3},
        },
    },
    "nodePools": [
        {
            "name": "h100-mig",
            "gpu": "H100",
            "maxNodes": 2,
            "mig": {"profile": "1g.10gb"},
            "labels": {"team": "research"},
        },
        {
            "name": "t4-spot",
            "gpu": "T4",
            "minNodes": 1,
            "maxNodes": 5,
            "desiredNodes": 2,
            "capacity": "spot",
            "instanceType": "Standard_NC64as_T4_v3",
        },  # DRA too: AKS images bring no device plugin of their own
    ],
    "gpuOperator": {"driver": "operator"},
    "deviceClasses": [{"name": "h100-1g", "gpu": "H100", "migProfile": "1g.10gb"}],
    "namespaces": [
        {"name": "research", "migration": "dra-only", "claimTemplates": [{"name": "slice", "deviceClass": "h100-1g"}]},
    ],
}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    return run_config(tmp_path_factory.mktemp("aks"), STACK, stack="lab")


@pytest.fixture(scope="module")
def staging(tmp_path_factory):
    return run_config(tmp_path_factory.mktemp("staging"), load_committed("staging"), stack="staging")


def registration(run, name: str):
    return next(r for r in run.resources if r.name == name)


def pools(run) -> dict[str, dict]:
    return {clean_inputs(r)["agentPoolName"]: clean_inputs(r) for r in run.of_type(AGENT_POOL)}


def test_cluster_uses_a_managed_identity_and_entra_id_rbac_without_local_accounts(run):
    cluster = clean_inputs(registration(run, "gpu-lab-aks-aks"))
    assert cluster["identity"] == {"type": "SystemAssigned"}
    assert cluster["aadProfile"] == {
        "managed": True,
        "enableAzureRBAC": True,
        "adminGroupObjectIDs": ["6f1e0c3a-2d4b-4c5e-8f70-9a1b2c3d4e5f"],
    }
    assert cluster["disableLocalAccounts"] is True and cluster["enableRBAC"] is True
    assert cluster["resourceName"] == "gpu-lab" and cluster["kubernetesVersion"] == "1.35"
    assert cluster["location"] == "westeurope"


def test_system_pool_is_inline_and_gpu_pools_are_user_agent_pools(run):
    cluster = clean_inputs(registration(run, "gpu-lab-aks-aks"))
    assert [(p["name"], p["mode"], p["vmSize"], p["count"]) for p in cluster["agentPoolProfiles"]] == [
        ("system", "System", "Standard_D8s_v5", 3)
    ]
    # edits to the system pool apply through the cluster (the GPU pools are AgentPools): only the network policy
    # engine is left as an existing cluster has it (moving to Cilium reimages nodes; docs/security.md)
    assert registration(run, "gpu-lab-aks-aks").options["ignoreChanges"] == [
        "networkProfile.networkDataplane",
        "networkProfile.networkPolicy",
    ]
    found = pools(run)
    assert set(found) == {"h100mig", "t4spot"}
    assert {p["mode"] for p in found.values()} == {"User"}
    assert {p["osSKU"] for p in found.values()} == {"Ubuntu"}
    assert {p["resourceName"] for p in found.values()} == {"gpu-lab"}


def test_existing_resource_group_is_not_created(run, staging):
    assert not run.of_type(GROUP)
    assert {p["resourceGroupName"] for p in pools(run).values()} == {"rg-shared"}
    created = {r.name: clean_inputs(r) for r in staging.of_type(GROUP)}
    assert created == {
        "gpu-staging-aks-resource-group": {
            "resourceGroupName": "rg-gpu-staging",
            "location": "eastus",
            "tags": {"dra-gpu-platform.io/cluster": "gpu-staging"},
        }
    }


def test_vm_sizes_come_from_the_pool_or_the_catalog(run, staging):
    assert pools(run)["h100mig"]["vmSize"] == "Standard_ND96isr_H100_v5"  # catalog default for H100
    assert pools(run)["t4spot"]["vmSize"] == "Standard_NC64as_T4_v3"
    assert {n: p["vmSize"] for n, p in pools(staging).items()} == {
        "a100mig": "Standard_NC24ads_A100_v4",
        "t4legacy": "Standard_NC4as_T4_v3",
    }


def test_autoscaling_range(run):
    spot = pools(run)["t4spot"]
    assert (spot["enableAutoScaling"], spot["minCount"], spot["maxCount"], spot["count"]) == (True, 1, 5, 2)
    assert registration(run, "gpu-lab-aks-pool-t4-spot-agent-pool").options["ignoreChanges"] == ["count"]


@pytest.mark.parametrize("pool, name", [("h100-mig", "h100mig"), ("t4-spot", "t4spot")])
def test_taints_and_labels_match_eks(run, pool, name):
    model = NodePool.model_validate(next(p for p in STACK["nodePools"] if p["name"] == pool))
    found = pools(run)[name]
    assert found["nodeLabels"] == pool_labels(model)
    assert found["nodeTaints"][0] == "nvidia.com/gpu=present:NoSchedule"


def test_gpu_driver_follows_who_owns_it(run, staging):
    assert {p["gpuProfile"]["driver"] for p in pools(run).values()} == {"None"}  # gpuOperator.driver: operator
    # staging has tenants: the operator installs driver and a toolkit that refuses NVIDIA_VISIBLE_DEVICES
    assert {p["gpuProfile"]["driver"] for p in pools(staging).values()} == {"None"}
    # without tenant namespaces, auto leaves the driver to AKS
    from dra_gpu_platform.config.loading import parse_config_map
    from dra_gpu_platform.plans.aks import gpu_driver
    from tests.conftest import qualify

    tenantless = {**load_committed("staging"), "gpuOperator": {"version": "v25.10.1"}, "namespaces": []}
    assert gpu_driver(parse_config_map(qualify(tenantless), stack="s", source="s.yaml")) == "Install"


def test_mig_pools_get_the_gpu_instance_profile(run, staging):
    assert pools(run)["h100mig"]["gpuInstanceProfile"] == "MIG1g"
    assert pools(staging)["a100mig"]["gpuInstanceProfile"] == "MIG3g"
    assert "gpuInstanceProfile" not in pools(staging)["t4legacy"]


def test_spot_pools_use_spot_priority(run):
    spot, regular = pools(run)["t4spot"], pools(run)["h100mig"]
    assert (spot["scaleSetPriority"], spot["scaleSetEvictionPolicy"]) == ("Spot", "Delete")
    assert spot["nodeTaints"] == [
        "nvidia.com/gpu=present:NoSchedule",
        "kubernetes.azure.com/scalesetpriority=spot:NoSchedule",
    ]
    assert "scaleSetPriority" not in regular


def test_protect_and_timeouts(run, staging):
    protected = {r.name for r in run.resources if r.protect and r.name.startswith("gpu-lab-aks")}
    assert protected == {
        "gpu-lab-aks-aks",
        "gpu-lab-aks-audit-workspace",  # losing it loses the audit trail
        "gpu-lab-aks-pool-h100-mig-agent-pool",
        "gpu-lab-aks-pool-t4-spot-agent-pool",
    }
    assert not any(r.protect for r in staging.resources)
    assert registration(run, "gpu-lab-aks-aks").options["customTimeouts"] == {
        "create": "30m",
        "update": "30m",
        "delete": "30m",
    }
    for pool in run.of_type(AGENT_POOL):
        assert pool.options["customTimeouts"] == {"create": "60m", "update": "60m", "delete": "60m"}


def test_protect_covers_a_created_resource_group():
    config = copy.deepcopy(load_committed("staging"))
    config["cluster"]["protect"] = True
    protected = {r.name for r in cluster_alone(config, "staging") if r.protect}
    assert protected == {
        "gpu-staging-aks-resource-group",
        "gpu-staging-aks-aks",
        "gpu-staging-aks-audit-workspace",
        "gpu-staging-aks-pool-a100-mig-agent-pool",
        "gpu-staging-aks-pool-t4-legacy-agent-pool",
    }


@pytest.mark.parametrize("fixture", ["run", "staging"])
def test_every_kubernetes_resource_uses_the_clusters_provider(request, fixture):
    program = request.getfixturevalue(fixture)
    providers = program.of_type(K8S_PROVIDER)
    assert len(providers) == 1 and "$dra-gpu-platform:cluster:AksCluster::" in providers[0].parent
    kubernetes = [r for r in program.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes and {r.provider for r in kubernetes} == {providers[0].urn}


def test_kubeconfig_is_a_secret_that_logs_in_with_the_azure_cli(run):
    provider = run.of_type(K8S_PROVIDER)[0]
    assert clean_inputs(provider)["kubeconfig"] == "[secret]"
    assert clean({"k": run.outputs["kubeconfig"]}) == {"k": "[secret]"}
    kubeconfig = yaml.safe_load(provider.inputs["kubeconfig"]["value"])
    assert kubeconfig["clusters"][0]["name"] == "gpu-lab"
    args = kubeconfig["users"][0]["user"]["exec"]["args"]
    assert args[args.index("--login") + 1] == "azurecli" and "devicecode" not in args
    assert registration(run, "gpu-lab-aks-aks").urn in provider.dependencies


def test_changing_one_pools_vm_size_or_gpu_changes_no_other_urn(staging, tmp_path):
    config = load_committed("staging")
    by_name = {p["name"]: p for p in config["nodePools"]}
    by_name["a100-mig"]["instanceType"] = "Standard_NC48ads_A100_v4"
    by_name["t4-legacy"]["gpu"] = "A100-80GB"
    del by_name["t4-legacy"]["instanceType"]
    changed = run_config(tmp_path, config, stack="staging")
    assert pools(changed)["t4legacy"]["vmSize"] == "Standard_NC24ads_A100_v4"
    assert pools(changed)["a100mig"]["vmSize"] == "Standard_NC48ads_A100_v4"
    assert [r.urn for r in changed.resources] == [r.urn for r in staging.resources]


# ---------------------------------------------------------------------------------------------- issue 15

ROLE_ASSIGNMENT = "azure-native:authorization:RoleAssignment"


@pytest.fixture(scope="module")
def locked():
    """Private API server, no autoscaler, the stack names the kubelogin mode: the cluster component alone."""
    config = copy.deepcopy(STACK)
    config["cluster"]["aks"].update(privateCluster=True, kubeloginMode="workloadidentity")
    del config["cluster"]["aks"]["authorizedIpRanges"], config["cluster"]["aks"]["adminGroupObjectIds"]
    config["autoscaler"] = {"enabled": False}
    return cluster_alone(config, "lab")


def test_the_deployers_group_administers_the_clusters_kubernetes_objects(staging):
    from gpuplan.engine.mock_outputs import FAKE_SUBSCRIPTION

    assignment = registration(staging, "gpu-staging-aks-deployer-admin")
    inputs = clean_inputs(assignment)
    assert inputs["roleDefinitionId"] == (
        f"/subscriptions/{FAKE_SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/b1ff04bb-8a4e-4dc4-8eb5-8693973ce19b"
    )
    # an Entra ID group (cluster.aks.adminGroupObjectIds[0]), not whoever happens to run `pulumi up`
    assert inputs["principalId"] == "00000000-0000-0000-0000-00000000ad01"
    assert inputs["principalType"] == "Group"
    assert inputs["scope"] == "gpu-staging-aks-aks-id"  # the cluster's resource id (the mock's id for it)
    assert registration(staging, "gpu-staging-aks-aks").urn in assignment.dependencies
    provider = staging.of_type(K8S_PROVIDER)[0]
    assert assignment.urn in provider.dependencies  # no Kubernetes object before the deployer may create it


def test_cilium_enforces_network_policies_and_the_api_servers_audit_log_goes_to_log_analytics(staging):
    network = clean_inputs(registration(staging, "gpu-staging-aks-aks"))["networkProfile"]
    assert (network["networkPlugin"], network["networkPluginMode"]) == ("azure", "overlay")
    assert (network["networkDataplane"], network["networkPolicy"]) == ("cilium", "cilium")
    workspace = clean_inputs(registration(staging, "gpu-staging-aks-audit-workspace"))
    assert workspace["sku"] == {"name": "PerGB2018"} and workspace["retentionInDays"] == 90
    setting = registration(staging, "gpu-staging-aks-audit-logs")
    inputs = clean_inputs(setting)
    assert inputs["resourceUri"] == "gpu-staging-aks-aks-id" and inputs["logAnalyticsDestinationType"] == "Dedicated"
    assert [(log["category"], log["enabled"]) for log in inputs["logs"]] == [
        ("kube-audit-admin", True),
        ("kube-apiserver", True),
        ("guard", True),
    ]
    assert setting.type == "azure-native:monitor:DiagnosticSetting"


def test_reader_and_namespace_writer_groups_get_their_roles_at_their_scope(tmp_path):
    from gpuplan.engine.mock_outputs import FAKE_SUBSCRIPTION

    config = copy.deepcopy(load_committed("staging"))
    config["cluster"]["aks"].update(
        viewerGroupObjectIds=["00000000-0000-0000-0000-0000000000e1"],
        namespaceEditors=[{"groupObjectId": "00000000-0000-0000-0000-0000000000e2", "namespaces": ["ml-research"]}],
        logAnalyticsWorkspaceId="/subscriptions/s/resourceGroups/rg-logs/providers/Microsoft.OperationalInsights/workspaces/central",
    )
    program = cluster_alone(config, "staging")
    roles = {r.name: clean_inputs(r) for r in program if r.type == "azure-native:authorization:RoleAssignment"}
    role = f"/subscriptions/{FAKE_SUBSCRIPTION}/providers/Microsoft.Authorization/roleDefinitions/"
    viewer = roles["gpu-staging-aks-viewer-00000000-0000-0000-0000-0000000000e1"]
    assert viewer["roleDefinitionId"] == role + "7f6c6a51-bcf8-42ba-9220-52d62157d7db"  # RBAC Reader: no Secrets
    assert viewer["scope"] == "gpu-staging-aks-aks-id" and viewer["principalType"] == "Group"
    editor = roles["gpu-staging-aks-editor-00000000-0000-0000-0000-0000000000e2-ml-research"]
    assert editor["roleDefinitionId"] == role + "a7ffa36f-339b-4b5c-8bdf-e2c188b2c0eb"  # RBAC Writer
    assert editor["scope"] == "gpu-staging-aks-aks-id/namespaces/ml-research"
    # an existing workspace: none created, the setting writes there
    assert not [r for r in program if r.type == "azure-native:operationalinsights:Workspace"]
    setting = next(r for r in program if r.type == "azure-native:monitor:DiagnosticSetting")
    assert clean_inputs(setting)["workspaceId"].endswith("/workspaces/central")


def test_api_server_ranges_and_the_managed_autoscaler_profile(staging, locked):
    cluster = clean_inputs(registration(staging, "gpu-staging-aks-aks"))
    assert cluster["apiServerAccessProfile"] == {"authorizedIPRanges": ["203.0.113.0/24"]}
    assert cluster["autoScalerProfile"] == {"expander": "least-waste", "maxNodeProvisionTime": "20m"}
    assert {p["enableAutoScaling"] for p in pools(staging).values()} == {True}
    assert pools(staging)["a100mig"]["minCount"] == 1  # a DRA pool keeps a node for the autoscaler to see
    private = clean_inputs(registration(locked, "gpu-lab-aks-aks"))
    assert private["apiServerAccessProfile"] == {"enablePrivateCluster": True} and "autoScalerProfile" not in private


def test_without_the_autoscaler_pools_have_a_fixed_size_pulumi_manages(locked):
    for pool in locked.of_type(AGENT_POOL):
        inputs = clean_inputs(pool)
        assert inputs["enableAutoScaling"] is False and "minCount" not in inputs and "maxCount" not in inputs
        assert "ignoreChanges" not in pool.options
    assert pools(locked)["h100mig"]["count"] == 0  # no autoscaler: minNodes stays 0


def test_the_stack_can_name_the_kubelogin_mode_and_the_role_assignment_follows(locked):
    provider = locked.of_type(K8S_PROVIDER)[0]
    args = yaml.safe_load(provider.inputs["kubeconfig"]["value"])["users"][0]["user"]["exec"]["args"]
    assert args[args.index("--login") + 1] == "workloadidentity" and "--client-id" not in args
    # without a deployers' group, the identity itself (and the platform says what that leaves open)
    inputs = clean_inputs(registration(locked, "gpu-lab-aks-deployer-admin"))
    assert inputs["principalType"] == "ServicePrincipal"
    assert inputs["principalId"] == "00000000-0000-0000-0000-0000000000b1"  # getClientConfig().objectId
    assert (
        "info",
        "kubeconfig signs in with kubelogin --login workloadidentity (cluster.aks.kubeloginMode)",
    ) in locked.logs


def test_tenant_objects_are_protected_and_namespaces_retained_in_a_protected_stack(run, staging):
    for type_ in (
        "kubernetes:core/v1:Namespace",
        "kubernetes:resource.k8s.io/v1:ResourceClaimTemplate",
        "kubernetes:helm.sh/v3:Release",
    ):
        assert run.of_type(type_) and all(r.protect for r in run.of_type(type_)), type_
    assert all(r.options.get("retainOnDelete") for r in run.of_type("kubernetes:core/v1:Namespace") if "-ns-" in r.name)
    # an unprotected stack (staging) can be torn down by `pulumi destroy` as before
    assert not any(r.protect or r.options.get("retainOnDelete") for r in staging.resources)
