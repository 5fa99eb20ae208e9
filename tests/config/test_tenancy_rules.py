"""The tenancy escapes a careless stack file opens are config errors (`gpuplan preview --config` exits 2 with the
path, the value, the rule and a fix): a system or platform namespace as a tenant, deployer and admin groups that hold
every tenant, admin access beside tenant workloads, AKS GPU pools whose toolkit cannot be hardened, and public API
allow-lists judged by the addresses they expose (docs/security.md)."""

from __future__ import annotations

import copy
import ipaddress

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.facts import ip_ranges
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.plans.tenancy_notes import host_toolkit_notes
from tests.config.test_cloud_rules import AKS, EKS, ROLE, SUBNETS, errors
from tests.conftest import KIND_BASE, qualify

EXISTING = {
    "cluster": {
        "platform": "existing",
        "name": "onprem",
        "kubernetesVersion": "1.35",
        "existing": {"deployerGroups": ["platform-deployers"]},
    },
    "kubeconfig": {"secure": "v1:offline-placeholder"},
    "nodePools": [{"name": "h100", "gpu": "H100", "gpusPerNode": 8, "maxNodes": 2}],
    "namespaces": [{"name": "ml", "quota": {"devices": {"gpu.nvidia.com": 8}}}],
}


def parse(values: dict):
    return parse_config_map(values, stack="test", source="Pulumi.test.yaml")


def stack(base: dict, **changes) -> dict:
    config = copy.deepcopy(base)
    config.update(copy.deepcopy(changes))
    return config


def tenant(name: str, **fields) -> dict:
    return {"name": name, "quota": {"devices": {"gpu.nvidia.com": 1}}, **fields}


# --- reserved namespaces -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [
        (
            "kube-system",
            "the platform installs the cluster autoscaler, Karpenter, the EFA device plugin, cluster DNS there",
        ),
        ("gpu-operator", "the platform installs the GPU Operator and its operands there"),
        ("dra-driver-nvidia-gpu", "the platform installs the NVIDIA DRA driver there"),
        ("default", "Kubernetes system namespace"),
        ("kube-public", "Kubernetes system namespace"),
        ("kube-anything", "Kubernetes system namespace"),
    ],
)
def test_a_tenant_namespace_is_never_a_system_or_platform_namespace(tmp_path, name, why):
    config = stack(EKS, namespaces=[tenant("ml-research"), tenant(name)])
    found = errors(tmp_path, config)
    problem = found["namespaces[1].name"]
    assert problem["value"] == name and why in problem["rule"]
    assert "namespaces" not in problem["fix"].replace("the platform's namespaces", "")  # never "add it to namespaces"


def test_the_monitoring_namespace_is_reserved_where_monitoring_runs(tmp_path):
    config = stack(EKS, namespaces=[tenant("obs")], monitoring={"enabled": True, "namespace": "obs"})
    assert "monitoring.namespace" in errors(tmp_path, config)["namespaces[0].name"]["rule"]
    parse(qualify(stack(EKS, namespaces=[tenant("obs")])))  # monitoring off: a name like any


def test_an_editor_of_a_platform_namespace_is_refused_and_never_told_to_make_it_a_tenant(tmp_path):
    editors = [{"roleArn": ROLE, "namespaces": ["ml-research", "kube-system", "gpu-operator"]}]
    config = stack(EKS, namespaces=[tenant("ml-research")])
    config["cluster"]["eks"] = {"subnetIds": SUBNETS, "namespaceEditors": editors}
    found = errors(tmp_path, config)
    for j, name in ((1, "kube-system"), (2, "gpu-operator")):
        problem = found[f"cluster.eks.namespaceEditors[0].namespaces[{j}]"]
        assert f"{name} can never be one" in problem["rule"]
        assert problem["fix"] == "use one of ml-research"
    assert "cluster.eks.namespaceEditors[0].namespaces[0]" not in found


# --- deployer and admin groups --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "group",
    [
        "system:authenticated",
        "system:unauthenticated",
        "system:serviceaccounts",
        "system:serviceaccounts:ml",
        "system:nodes",
    ],
)
def test_a_deployer_group_that_holds_every_tenant_is_refused(tmp_path, group):
    config = stack(EXISTING)
    config["cluster"]["existing"]["deployerGroups"] = ["platform-deployers", group]
    problem = errors(tmp_path, config)["cluster.existing.deployerGroups[1]"]
    assert problem["value"] == group and "every tenant passes the guards" in problem["rule"]
    assert "kubectl auth whoami" in problem["fix"]


@pytest.mark.parametrize("group", ["system:masters", "kubeadm:cluster-admins", "platform-deployers"])
def test_deployer_groups_of_the_deployer_alone_pass(group):
    config = stack(EXISTING)
    config["cluster"]["existing"]["deployerGroups"] = [group]
    assert parse(qualify(config)).cluster.settings().deployer_groups == [group]


def test_an_aks_admin_group_that_holds_every_tenant_is_refused(tmp_path):
    config = stack(AKS)
    config["cluster"]["aks"]["adminGroupObjectIds"] = ["system:authenticated"]
    problem = errors(tmp_path, config)["cluster.aks.adminGroupObjectIds[0]"]
    assert "holds every tenant" in problem["rule"] and "Entra ID group" in problem["fix"]


# --- admin access only where no tenant workload runs --------------------------------------------------------


ADMIN_TEMPLATE = {"name": "inspect", "deviceClass": "gpu.nvidia.com", "adminAccess": True}


@pytest.mark.parametrize(
    ("namespace", "editors", "words"),
    [
        (tenant("ml", adminAccess=True), [], "quota.devices gpu.nvidia.com (no adminAccess claim"),
        (
            {"name": "ml", "adminAccess": True, "quota": {"devices": {"gpu.nvidia.com": 2}},
             "claimTemplates": [ADMIN_TEMPLATE, {"name": "train", "deviceClass": "gpu.nvidia.com"}]},
            [],
            "claimTemplates train (not adminAccess)",
        ),
        (
            {"name": "ml", "adminAccess": True, "migration": "dual",
             "quota": {"devices": {"gpu.nvidia.com": 1}, "legacyGpus": 1}, "claimTemplates": [ADMIN_TEMPLATE]},
            [],
            "quota.legacyGpus 1",
        ),
        (
            {"name": "ml", "adminAccess": True, "quota": {"devices": {"gpu.nvidia.com": 1}},
             "claimTemplates": [ADMIN_TEMPLATE]},
            ["ml"],
            "edited by cluster.eks.namespaceEditors[0]",
        ),
    ],
)  # fmt: skip
def test_admin_access_is_refused_on_a_namespace_with_tenant_workloads(tmp_path, namespace, editors, words):
    config = stack(EKS, namespaces=[namespace])
    config["cluster"]["eks"] = {"subnetIds": SUBNETS}
    if editors:
        config["cluster"]["eks"]["namespaceEditors"] = [{"roleArn": ROLE, "namespaces": editors}]
    problem = errors(tmp_path, config)["namespaces[0].adminAccess"]
    assert words in problem["rule"] and "a namespace of their own" in problem["fix"]


def test_admin_access_on_a_namespace_of_admin_claims_only_passes():
    namespace = {
        "name": "gpu-admin",
        "adminAccess": True,
        "quota": {"devices": {"gpu.nvidia.com": 8}},
        "claimTemplates": [ADMIN_TEMPLATE],
    }
    config = parse(qualify(stack(EKS, namespaces=[namespace])))
    assert config.namespaces[0].admin_access


# --- AKS: the toolkit AKS installs cannot be hardened -------------------------------------------------------


def test_aks_gpu_pools_with_the_aks_toolkit_and_tenants_are_valid_with_a_note(tmp_path):
    """AKS's own toolkit has no setting for the variable, and the guard already refuses the containers that could use
    it: a valid stack (as the contract's AKS stacks are), whose preview names the node layer it lacks and its fix."""
    config = stack(AKS, namespaces=[tenant("ml")])
    config["cluster"]["aks"]["adminGroupObjectIds"] = ["00000000-0000-0000-0000-0000000000a1"]
    [note] = host_toolkit_notes(parse(qualify(config)))
    assert note.startswith("AKS GPU pools run AKS's own NVIDIA driver and container toolkit")
    assert "set gpuOperator.driver: operator" in note
    config["gpuOperator"] = {"driver": "operator"}
    assert host_toolkit_notes(parse(qualify(config))) == ()
    assert host_toolkit_notes(parse(qualify(stack(AKS)))) == ()  # no tenant namespaces: nothing to isolate


# --- Service types -----------------------------------------------------------------------------------------


def test_service_types_are_the_types_beyond_cluster_ip(tmp_path):
    config = parse(qualify(stack(EKS, namespaces=[tenant("ml", serviceTypes=["LoadBalancer"])])))
    assert config.namespaces[0].service_types == ["LoadBalancer"]
    found = errors(tmp_path, stack(EKS, namespaces=[tenant("ml", serviceTypes=["ExternalIPs"])]))
    assert "namespaces[0].serviceTypes[0]" in found


# --- public API allow-lists: what they expose, in addresses -------------------------------------------------


def _public(cidrs: list[str]) -> dict:
    config = stack(EKS)
    config["cluster"]["eks"] = {"subnetIds": SUBNETS, "endpointPublicAccess": True, "publicAccessCidrs": cidrs}
    return config


def _refused(config: dict) -> bool:
    try:
        parse(qualify(config))
    except InputError as error:
        return any(p.path.startswith("cluster.eks.publicAccessCidrs") for p in error.problems)
    return False


SIXTEENS = [str(n) for n in ipaddress.ip_network("11.0.0.0/8").subnets(new_prefix=16)]


@pytest.mark.parametrize(
    ("cidrs", "refused"),
    [
        (["11.0.0.0/8"], False),  # one allocation unit exactly
        (["11.0.0.0/8", "12.0.0.1/32"], True),  # one address more
        (SIXTEENS, False),  # 256 /16s: 2^24 addresses
        ([*SIXTEENS, "12.0.0.0/16"], True),
        (["10.0.0.0/8", "11.0.0.0/8", "192.168.0.0/16"], False),  # private ranges expose nothing
        ([f"{n}.0.0.0/8" for n in range(11, 102)], True),  # 91 /8s: 41% of IPv4, under the old 50% line
        (["203.0.113.0/24", "198.51.100.7/32", "100.64.0.0/10"], False),
    ],
)
def test_public_access_cidrs_are_refused_beyond_one_allocation_unit(cidrs, refused):
    assert _refused(_public(cidrs)) is refused


def test_the_unit_is_one_iana_allocation_and_ipv6_is_judged_alike():
    assert ip_ranges.MAX_EXPOSED == {4: 2**24, 6: 2**116}
    assert not ip_ranges.coverage(["2400::/12"]).internet_wide
    assert ip_ranges.coverage(["2400::/12", "2a00::/128"]).internet_wide
    assert not ip_ranges.coverage(["fd00::/16", "2400::/12"]).internet_wide  # unique-local addresses are not public
    message = ip_ranges.coverage([f"{n}.0.0.0/8" for n in range(11, 102)]).describe()
    assert "1,522,532,352 public IPv4 addresses" in message and "90.8 /8s" in message  # 100.64.0.0/10 is not public


def test_kind_stacks_keep_their_tenants():
    """kind's tenants are ordinary names: the reserved list does not reach the dev stack's."""
    config = parse(qualify(copy.deepcopy(KIND_BASE)))
    assert all(not ns.name.startswith("kube-") for ns in config.namespaces)
