"""Cloud pool mistakes are config errors: `gpuplan preview --config` exits 2 and names the field path,
the value, the rule and a fix, for every mistake at once."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.facts import versions
from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from tests.conftest import KIND_BASE, qualify, write_stack

EKS = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "gpu-test",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "availabilityZone": "us-east-1a"},
        # Bottlerocket: its own device plugin lets the GPU Operator serve the DRA pool (one stack per operator)
        {
            "name": "t4",
            "gpu": "T4",
            "maxNodes": 2,
            "gpuStack": "device-plugin",
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
    ],
}
AKS = {
    "azure-native:location": "eastus",
    "cluster": {
        "platform": "aks",
        "name": "gpu-test",
        "kubernetesVersion": "1.35",
        "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
    },
    "nodePools": [
        {"name": "a100", "gpu": "A100-80GB", "maxNodes": 2, "mig": {"profile": "3g.40gb"}},
        {"name": "t4", "gpu": "T4", "maxNodes": 2},
    ],
}


def with_pool(base: dict, index: int, **changes) -> dict:
    config = copy.deepcopy(base)
    config["nodePools"][index].update(changes)
    return config


def errors(tmp_path, config: dict) -> dict[str, dict]:
    result = CliRunner().invoke(
        app,
        ["preview", "--config", str(write_stack(tmp_path, config)), "--format", "json", "--out", str(tmp_path / "out")],
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    found = {e["path"]: e for e in json.loads(result.output)["errors"]}
    assert all(e["file"].endswith("Pulumi.test.yaml") and e["rule"] and e["fix"] for e in found.values())
    return found


CASES = {
    "capacity block without reservation": (
        with_pool(EKS, 0, capacity="capacity-block"),
        "nodePools[0].capacityReservationId",
        "reservation id",
        "capacityReservationId: cr-",
    ),
    "capacity block on AKS": (
        with_pool(AKS, 1, capacity="capacity-block"),
        "nodePools[1].capacity",
        "do not exist on AKS",
        "spot",
    ),
    "EC2 type carrying another GPU": (
        with_pool(EKS, 1, instanceType="p5.48xlarge"),
        "nodePools[1].instanceType",
        "carries H100, not T4",
        "g4dn.xlarge",
    ),
    "Azure size carrying another GPU": (
        with_pool(AKS, 1, instanceType="Standard_NC24ads_A100_v4"),
        "nodePools[1].instanceType",
        "carries A100-80GB, not T4",
        "Standard_NC4as_T4_v3",
    ),
    "no Azure size for the GPU": (
        with_pool(AKS, 1, gpu="L4"),
        "nodePools[1].gpu",
        "no AKS VM size in the catalog carries L4",
        "T4",
    ),
    "unknown Azure size": (
        with_pool(AKS, 1, instanceType="Standard_NC6s_v3"),
        "nodePools[1].instanceType",
        "unknown AKS VM size",
        "Standard_NC4as_T4_v3",
    ),
    "zone outside the region": (
        with_pool(EKS, 0, availabilityZone="us-west-2a"),
        "nodePools[0].availabilityZone",
        "not a zone of the stack's region us-east-1",
        "us-east-1a",
    ),
    "AKS pool name starting with a digit": (
        with_pool(AKS, 1, name="4-legacy"),
        "nodePools[1].name",
        "must start with a letter",
        "rename",
    ),
    "AKS MIG profile it cannot express": (
        with_pool(AKS, 0, mig={"profile": "1g.20gb"}),
        "nodePools[0].mig.profile",
        "slice count",
        "1g.10gb",
    ),
    "existing resource group without a name": (
        {**AKS, "cluster": {**AKS["cluster"], "aks": {"existingResourceGroup": True}}},
        "cluster.aks.resourceGroup",
        "needs the group's name",
        "resourceGroup",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_cloud_mistake_is_a_config_error(tmp_path, case):
    config, path, rule, fix = CASES[case]
    found = errors(tmp_path, config)
    assert path in found, found
    assert rule in found[path]["rule"] and fix in found[path]["fix"], found[path]


def test_colliding_aks_pool_names_are_reported_with_a_fix(tmp_path):
    config = copy.deepcopy(AKS)
    config["nodePools"] = [
        {"name": "a100-training-1", "gpu": "A100-80GB", "maxNodes": 1},
        {"name": "a100-training-2", "gpu": "A100-80GB", "maxNodes": 1},
    ]
    found = errors(tmp_path, config)
    assert set(found) == {"nodePools[1].name"}
    assert (
        "a100training" in found["nodePools[1].name"]["rule"]
        and "rename one of them" in found["nodePools[1].name"]["fix"]
    )


def test_every_mistake_is_reported_at_once(tmp_path):
    config = with_pool(EKS, 0, capacity="capacity-block", availabilityZone="eu-west-1a")
    config = with_pool(config, 1, instanceType="p4d.24xlarge")
    assert {"nodePools[0].capacityReservationId", "nodePools[0].availabilityZone", "nodePools[1].instanceType"} <= set(
        errors(tmp_path, config)
    )


def test_al2_is_not_an_ami_type(tmp_path):
    found = errors(tmp_path, with_pool(EKS, 1, amiType="AL2_x86_64_GPU"))
    assert "AL2023_x86_64_NVIDIA" in found["nodePools[1].amiType"]["fix"]


@pytest.mark.parametrize("base", [EKS, AKS], ids=["eks", "aks"])
def test_the_valid_bases_preview(tmp_path, base):
    result = CliRunner().invoke(
        app, ["preview", "--config", str(write_stack(tmp_path, base)), "--out", str(tmp_path / "out")]
    )
    assert result.exit_code == 0, result.output


# ---------------------------------------------------------------------------------------------- issue 15: access,
# autoscaler and the pool sizes it implies (gpuplan preview exits 2 with the field path, rule and fix)


def _eks(**eks) -> dict:
    config = copy.deepcopy(EKS)
    config["cluster"]["eks"] = eks
    return config


def _section(base: dict, **sections) -> dict:
    return {**copy.deepcopy(base), **sections}


def _aks(**aks) -> dict:
    config = copy.deepcopy(AKS)
    config["cluster"]["aks"] = aks
    return config


KIND = {
    **copy.deepcopy(KIND_BASE),
    "nodePools": [{"name": "dra-pool", "gpu": "H100", "maxNodes": 2}],
    "deviceClasses": [],
    "namespaces": [],
}
EXISTING = {
    "kubeconfig": "apiVersion: v1",
    "cluster": {"platform": "existing", "name": "gpu-test", "kubernetesVersion": "1.35"},
}

SUBNETS = ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]
ROLE = "arn:aws:iam::123456789012:role/ml-team"
GROUP = "00000000-0000-0000-0000-0000000000e1"

ACCESS_AND_SCALING_CASES = {
    "private-only endpoint on a created VPC": (
        _eks(endpointPublicAccess=False),
        "cluster.eks.endpointPublicAccess",
        "cannot be reached",
        "publicAccessCidrs",
    ),
    "private access from anywhere": (
        _eks(subnetIds=["subnet-0a1b2c3d4e5f60718"], privateAccessCidrs=["0.0.0.0/0"]),
        "cluster.eks.privateAccessCidrs[0]",
        "must not admit every address",
        "VPN",
    ),
    "private access CIDR that is not one": (
        _eks(subnetIds=["subnet-0a1b2c3d4e5f60718"], privateAccessCidrs=["10.40.0.0/33"]),
        "cluster.eks.privateAccessCidrs[0]",
        "not an IPv4 CIDR",
        "10.40.0.0/16",
    ),
    "autoscaled EKS dra pool at zero nodes": (
        with_pool(EKS, 0, minNodes=0),
        "nodePools[0].minNodes",
        "cannot see DRA devices",
        "device-plugin",
    ),
    "autoscaled EKS spot dra pool at zero nodes": (
        with_pool(EKS, 0, minNodes=0, capacity="spot"),
        "nodePools[0].minNodes",
        "no nodes",
        "minNodes: 1",
    ),
    "autoscaled AKS dra pool at zero nodes": (
        with_pool(AKS, 0, minNodes=0),
        "nodePools[0].minNodes",
        "cannot see DRA devices",
        "device-plugin",
    ),
    "autoscaler on kind": (
        _section(KIND, autoscaler={"enabled": True}),
        "autoscaler.enabled",
        "eks and aks only",
        "remove autoscaler.enabled",
    ),
    "autoscaler on an existing cluster": (
        _section(EXISTING, autoscaler={"enabled": True}),
        "autoscaler.enabled",
        "eks and aks only",
        "remove autoscaler.enabled",
    ),
    "autoscaler of another minor": (
        _section(EKS, autoscaler={"version": "1.34.5"}),
        "autoscaler.version",
        "Kubernetes minor (1.35)",
        "1.35.2",
    ),
    "autoscaler image never released": (
        _section(EKS, autoscaler={"version": "1.35.9"}),
        "autoscaler.version",
        "no cluster-autoscaler 1.35.9",
        "1.35.0, 1.35.1, 1.35.2",
    ),
    "autoscaler version on AKS": (
        _section(AKS, autoscaler={"version": "1.35.2"}),
        "autoscaler.version",
        "AKS runs its own",
        "remove autoscaler.version",
    ),
    "Capacity Block pool with a minimum": (
        with_pool(
            EKS,
            0,
            capacity="capacity-block",
            capacityReservationId="cr-0123456789abcdef0",
            availabilityZone="us-east-1a",
            minNodes=2,
        ),
        "nodePools[0].minNodes",
        "sized by its block",
        "capacityBlockStart",
    ),
    "Capacity Block start without its end": (
        with_pool(
            EKS,
            0,
            capacity="capacity-block",
            capacityReservationId="cr-0123456789abcdef0",
            availabilityZone="us-east-1a",
            capacityBlockStart="2031-01-05T11:30:00Z",
        ),
        "nodePools[0].capacityBlockEnd",
        "needs both",
        "EndDate",
    ),
    "Capacity Block ending before it starts": (
        with_pool(
            EKS,
            0,
            capacity="capacity-block",
            capacityReservationId="cr-0123456789abcdef0",
            availabilityZone="us-east-1a",
            capacityBlockStart="2031-01-05T11:30:00Z",
            capacityBlockEnd="2031-01-05T11:00:00Z",
        ),
        "nodePools[0].capacityBlockEnd",
        "must end after it starts",
        "StartDate",
    ),
    "block times on an on-demand pool": (
        with_pool(EKS, 1, capacityBlockStart="2031-01-05T11:30:00Z"),
        "nodePools[1].capacityBlockStart",
        "capacity-block pools",
        "remove",
    ),
    "authorized range that is not a CIDR": (
        _aks(authorizedIpRanges=["203.0.113.0/24", "office"]),
        "cluster.aks.authorizedIpRanges[1]",
        "not an IPv4 CIDR",
        "203.0.113.0/24",
    ),
    "authorized ranges on a private cluster": (
        _aks(authorizedIpRanges=["203.0.113.0/24"], privateCluster=True),
        "cluster.aks.authorizedIpRanges",
        "public API server",
        "privateCluster: false",
    ),
    "unknown kubelogin mode": (
        _aks(kubeloginMode="devicecode"),
        "cluster.aks.kubeloginMode",
        "must be one of",
        "azurecli",
    ),
    # internet-wide allow-lists are refused on both clouds, whatever their spelling
    "two halves of the internet on EKS": (
        _eks(subnetIds=SUBNETS, endpointPublicAccess=True, publicAccessCidrs=["0.0.0.0/1", "128.0.0.0/1"]),
        "cluster.eks.publicAccessCidrs[1]",
        "the API endpoint must not be open to the internet: 128.0.0.0/1 spans more than any one organisation",
        "keep the endpoint private",
    ),
    "every public /8 on EKS": (
        _eks(subnetIds=SUBNETS, endpointPublicAccess=True, publicAccessCidrs=[f"{i}.0.0.0/8" for i in range(1, 224)]),
        "cluster.eks.publicAccessCidrs",
        "public IPv4 addresses (about 220.7 /8s, 100.0% of the internet), more than one organisation's allocation",
        "office, VPN or CI egress networks",
    ),
    "an AKS API server open to everyone": (
        _aks(),
        "cluster.aks.authorizedIpRanges",
        "neither private nor limited to authorized IP ranges is open to the whole internet",
        "or set cluster.aks.privateCluster: true",
    ),
    "an AKS allow-list of the whole internet": (
        _aks(authorizedIpRanges=["0.0.0.0/0"]),
        "cluster.aks.authorizedIpRanges[0]",
        "the API server must not be open to the internet",
        "privateCluster: true",
    ),
    # access tiers: one EKS access entry per principal, namespace editors only in tenant namespaces
    "a role in two EKS tiers": (
        _eks(subnetIds=SUBNETS, adminRoleArns=[ROLE], viewerRoleArns=[ROLE]),
        "cluster.eks.viewerRoleArns[0]",
        "one EKS access entry only, and this one is already in cluster.eks.adminRoleArns[0]",
        "one tier",
    ),
    "an editor of the GPU software's namespace": (
        _eks(subnetIds=SUBNETS, namespaceEditors=[{"roleArn": ROLE, "namespaces": ["gpu-operator"]}]),
        "cluster.eks.namespaceEditors[0].namespaces[0]",
        "tenant namespaces of this stack only, and gpu-operator can never be one: the platform installs the GPU "
        "Operator",
        "remove the entry",
    ),
    "an AKS viewer group that is an admin group": (
        _aks(authorizedIpRanges=["203.0.113.0/24"], adminGroupObjectIds=[GROUP], viewerGroupObjectIds=[GROUP]),
        "cluster.aks.viewerGroupObjectIds[0]",
        "cluster admin group already",
        "remove it here",
    ),
    "a Pod Security label set by hand": (
        _section(EKS, namespaces=[{"name": "ml", "labels": {"pod-security.kubernetes.io/enforce": "privileged"}}]),
        "namespaces[0].labels.pod-security.kubernetes.io/enforce",
        "set by the platform",
        "namespaces[].podSecurity",
    ),
}


@pytest.mark.parametrize("case", sorted(ACCESS_AND_SCALING_CASES))
def test_access_and_scaling_mistake_is_a_config_error(tmp_path, case):
    config, path, rule, fix = ACCESS_AND_SCALING_CASES[case]
    found = errors(tmp_path, config)
    assert path in found, found
    assert rule in found[path]["rule"] and fix in found[path]["fix"], found[path]


@pytest.mark.parametrize(
    "pool, min_nodes",
    [
        ({"name": "h100", "gpu": "H100", "maxNodes": 2}, 1),  # dra on demand: one node by default
        ({"name": "h100", "gpu": "H100", "maxNodes": 2, "capacity": "spot"}, 1),
        ({"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"}, 0),  # scales from zero
        (
            {
                "name": "b",
                "gpu": "H100",
                "maxNodes": 2,
                "capacity": "capacity-block",
                "capacityReservationId": "cr-0123456789abcdef0",
                "availabilityZone": "us-east-1a",
            },
            0,
        ),  # sized by its block
    ],
)
def test_default_min_nodes_follow_what_the_autoscaler_can_grow(pool, min_nodes):
    config = {**copy.deepcopy(EKS), "nodePools": [pool]}
    assert parse_config_map(qualify(config), stack="t", source="t.yaml").node_pools[0].min_nodes == min_nodes
    off = {**config, "autoscaler": {"enabled": False}}
    assert parse_config_map(qualify(off), stack="t", source="t.yaml").node_pools[0].min_nodes == 0


def test_explicit_zero_is_fine_without_the_autoscaler_and_on_kind():
    config = with_pool({**copy.deepcopy(EKS), "autoscaler": {"enabled": False}}, 0, minNodes=0)
    assert parse_config_map(qualify(config), stack="t", source="t.yaml").autoscaler_enabled is False
    kind = parse_config_map(qualify(with_pool(KIND, 0, minNodes=0)), stack="t", source="t.yaml")
    assert kind.autoscaler_enabled is False and kind.node_pools[0].min_nodes == 0


def test_kind_node_image_pinned_by_digest_is_checked_by_its_tag():
    image = versions.KIND_NODE_IMAGES["1.35"]
    ok = {**copy.deepcopy(KIND), "cluster": {**KIND["cluster"], "kind": {"nodeImage": image}}}
    assert parse_config_map(qualify(ok), stack="t", source="t.yaml").cluster.kind.node_image == image
    wrong = copy.deepcopy(ok)
    wrong["cluster"]["kubernetesVersion"] = "1.36"
    with pytest.raises(InputError) as caught:
        parse_config_map(qualify(wrong), stack="t", source="t.yaml")
    assert [p.path for p in caught.value.problems] == ["cluster.kind.nodeImage"]
