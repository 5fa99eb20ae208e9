"""Invalid GPU software combinations are config errors: `gpuplan preview` exits 2 and names the field, the
value, the rule and the fix, with no traceback."""

from __future__ import annotations

import copy
import json

import pytest
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from tests.conftest import KIND_BASE, qualify, write_stack

EXISTING = {
    "cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"},
    "kubeconfig": {"secure": "v1:offline"},
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2},
        {"name": "t4", "gpu": "T4", "maxNodes": 1, "gpuStack": "device-plugin"},
    ],
    "gpuOperator": {"enabled": False},  # the cluster's own GPU software serves the device-plugin pool
    "deviceClasses": [{"name": "shared", "gpu": "H100", "sharing": {"strategy": "TimeSlicing", "interval": "Long"}}],
    "namespaces": [{"name": "team", "migration": "dual", "claimTemplates": [{"name": "one", "deviceClass": "shared"}]}],
}
EKS = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "prod",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 2}],
}


def with_(base: dict, **sections) -> dict:
    config = copy.deepcopy(base)
    config.update(copy.deepcopy(sections))
    return config


def preview_problems(tmp_path, config: dict) -> dict[str, dict]:
    result = CliRunner().invoke(
        app,
        ["preview", "--config", str(write_stack(tmp_path, config)), "--out", str(tmp_path / "out"), "--format", "json"],
    )
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    document = json.loads(result.output)
    return {p["path"]: p for p in document["errors"]}


@pytest.mark.parametrize(
    "config, path, value, rule",
    [
        (
            with_(EXISTING, draDriver={"enabled": False}),
            "draDriver.enabled",
            False,
            "run gpuStack: dra and need the DRA driver",
        ),
        (
            with_(KIND_BASE, draDriver={"enabled": False}),
            "draDriver.enabled",
            False,
            "run gpuStack: dra and need the DRA driver",
        ),
        (
            with_(EXISTING, draDriver={"version": "0.9.9"}),
            "draDriver.version",
            "0.9.9",
            "not an NVIDIA DRA driver chart release this package lists",
        ),
        (
            with_(EXISTING, draDriver={"version": "26.1.0"}),
            "draDriver.version",
            "26.1.0",
            "not an NVIDIA DRA driver chart release this package lists",
        ),
        (
            with_(EXISTING, gpuOperator={"version": "v25.3.4"}, nodePools=EXISTING["nodePools"][:1]),
            "gpuOperator.version",
            "v25.3.4",
            "GPU Operator v25.10.0 or newer",
        ),
    ],
    ids=[
        "dra-pools-driver-off",
        "kind-dra-pools-driver-off",
        "dra-version-unknown",
        "dra-version-future",
        "operator-too-old",
    ],
)
def test_preview_exits_2_on_invalid_gpu_software(tmp_path, config, path, value, rule):
    problems = preview_problems(tmp_path, config)
    assert path in problems, sorted(problems)
    assert problems[path]["value"] == value
    assert rule in problems[path]["rule"]
    assert problems[path]["fix"] and problems[path]["file"].endswith("Pulumi.test.yaml")


def test_an_old_operator_is_fine_without_dra_pools(tmp_path):
    config = with_(
        EXISTING,
        gpuOperator={"enabled": True, "version": "v25.3.4"},
        draDriver={"enabled": False},
        deviceClasses=[],
        namespaces=[{"name": "team", "migration": "legacy"}],
    )
    config["nodePools"] = [EXISTING["nodePools"][1]]
    result = CliRunner().invoke(
        app, ["preview", "--config", str(write_stack(tmp_path, config)), "--out", str(tmp_path / "o")]
    )
    assert result.exit_code == 0, result.output


def problems(config: dict) -> dict[str, str]:
    with pytest.raises(InputError) as caught:
        parse_config_map(qualify(config), stack="test", source="Pulumi.test.yaml")
    return {p.path: p.rule for p in caught.value.problems}


def parse(config: dict):
    return parse_config_map(qualify(config), stack="test", source="Pulumi.test.yaml")


def test_a_bottlerocket_pool_can_be_a_dra_pool_served_by_the_host_driver():
    config = copy.deepcopy(EKS)
    config["nodePools"][0]["amiType"] = "BOTTLEROCKET_x86_64_NVIDIA"
    assert [p.name for p in parse(config).host_dra_pools] == ["h100"]
    config["nodePools"][0]["gpuStack"] = "device-plugin"
    assert parse(config).host_dra_pools == []


def test_what_the_bottlerocket_host_dra_driver_cannot_do_is_refused():
    # nothing applies a MIG layout there; its 25.8.1 driver runs without the sharing gates
    config = copy.deepcopy(EKS)
    config["nodePools"] = [
        {
            "name": "h100",
            "gpu": "H100",
            "maxNodes": 2,
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
            "mig": {"profile": "3g.40gb"},
        },
        {"name": "l4", "gpu": "L4", "maxNodes": 2, "amiType": "BOTTLEROCKET_x86_64_NVIDIA"},
    ]
    config["deviceClasses"] = [
        {"name": "any-shared", "sharing": {"strategy": "MPS"}},
        {"name": "h100-shared", "gpu": "H100", "sharing": {"strategy": "TimeSlicing"}},
    ]
    found = problems(config)
    assert "Bottlerocket configures MIG only while its device plugin runs" in found["nodePools[0].mig"]
    assert "need the TimeSlicingSettings driver gate" in found["nodePools[0].amiType"]
    assert (
        "device classes any-shared can select this pool's GPUs and need the MPSSupport" in found["nodePools[1].amiType"]
    )
    # a sharing class of another GPU does not reach the Bottlerocket pool
    config["nodePools"] = config["nodePools"][1:]
    config["deviceClasses"] = [{"name": "h100-shared", "gpu": "H100", "sharing": {"strategy": "TimeSlicing"}}]
    assert parse(config).host_dra_pools


GPU_CLUSTER = with_(EKS, gpuOperator={"version": "v26.7.0", "draManagement": "gpucluster"})


def test_gpucluster_is_an_opt_in_of_gpu_operator_v26_7():
    config = parse(GPU_CLUSTER)
    assert config.uses_gpu_cluster and config.nvidia_dra_driver_version == "0.5.0"
    assert config.driver_device_classes() == ("gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com")
    assert parse(EKS).gpu_operator.dra_management == "chart" and not parse(EKS).uses_gpu_cluster


@pytest.mark.parametrize(
    "change, path, words",
    [
        (
            {"gpuOperator": {"version": "v25.10.1", "draManagement": "gpucluster"}},
            "gpuOperator.draManagement",
            "has no GPUCluster",
        ),
        (
            {"gpuOperator": {"enabled": False, "draManagement": "gpucluster"}},
            "gpuOperator.draManagement",
            "the GPU Operator's resource",
        ),
        ({"draDriver": {"version": "0.4.1"}}, "draDriver.version", "the operator runs its own DRA driver (0.5.0"),
        (
            {"draDriver": {"extendedResourceBridge": True}},
            "draDriver.extendedResourceBridge",
            "no extendedResourceName",
        ),
        ({"monitoring": {"enabled": True, "dcgmDraPodMapping": False}}, "monitoring.dcgmDraPodMapping", "on by itself"),
        (
            {"nodePools": [{"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"}]},
            "gpuOperator.draManagement",
            "a GPUCluster and a ClusterPolicy never together",
        ),
        (
            {"nodePools": [{"name": "h", "gpu": "H100", "maxNodes": 2, "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}]},
            "gpuOperator.draManagement",
            "run Bottlerocket's host NVIDIA DRA driver",
        ),
        (
            {"nodePools": [{"name": "h", "gpu": "H100", "maxNodes": 2, "mig": {"profile": "3g.40gb"}}]},
            "gpuOperator.draManagement",
            "deploys no MIG manager",
        ),
    ],
    ids=[
        "old-operator",
        "no-operator",
        "chart-version",
        "bridge",
        "dcgm-mapping",
        "device-plugin",
        "bottlerocket",
        "mig",
    ],
)
def test_gpucluster_is_refused_where_upstream_refuses_it(change, path, words):
    config = copy.deepcopy(GPU_CLUSTER)
    for key, value in change.items():
        config[key] = {**config[key], **value} if isinstance(value, dict) and key in config else value
    assert words in problems(config)[path]


def test_gpucluster_is_for_new_clusters_only():
    config = with_(EXISTING, gpuOperator={"enabled": True, "version": "v26.7.0", "draManagement": "gpucluster"})
    config["nodePools"] = config["nodePools"][:1]
    config["deviceClasses"] = []
    config["namespaces"] = []
    assert "new clusters only" in problems(config)["gpuOperator.draManagement"]


def test_the_operator_cannot_install_a_driver_on_kind():
    config = copy.deepcopy(KIND_BASE)
    config["cluster"]["kind"]["gpuDriver"] = "nvidia"
    config["gpuOperator"] = {"enabled": True, "driver": "operator"}
    assert "share the host's kernel" in problems(config)["gpuOperator.driver"]


def test_a_gate_a_class_needs_cannot_be_turned_off():
    found = problems(with_(EXISTING, draDriver={"featureGates": {"TimeSlicingSettings": False}}))
    assert "device classes shared need the TimeSlicingSettings" in found["draDriver.featureGates.TimeSlicingSettings"]


def test_feature_gates_need_a_chart_that_has_them():
    found = problems(with_(EXISTING, draDriver={"version": "25.3.2", "featureGates": {"MPSSupport": True}}))
    assert "has no featureGates value" in found["draDriver.featureGates"]
    assert "draDriver.featureGates.MPSSupport" not in found  # said once


def test_feature_gates_are_those_of_the_pinned_release():
    # DeviceMetadata arrived in 0.4.0 (pkg/featuregates/featuregates.go at each tag)
    found = problems(with_(EXISTING, draDriver={"version": "25.12.0", "featureGates": {"DeviceMetadata": True}}))
    assert "not a feature gate of the NVIDIA DRA driver 25.12.0" in found["draDriver.featureGates.DeviceMetadata"]
    parse(with_(EXISTING, draDriver={"featureGates": {"DeviceMetadata": True}}))  # 0.4.1
    found = problems(with_(EXISTING, draDriver={"featureGates": {"ConsumableShares": True}}))
    assert "not a feature gate of the NVIDIA DRA driver 0.4.1" in found["draDriver.featureGates.ConsumableShares"]


def test_dra_driver_0_5_0_is_unlisted_and_says_why():
    found = problems(with_(EXISTING, draDriver={"version": "0.5.0"}))
    assert "its v0.5.0 tag could not be read" in found["draDriver.version"]
    # with allowUnlisted it takes 0.4.1's chart facts and its new alpha gates pass unchecked
    config = parse(
        with_(
            EXISTING, draDriver={"version": "0.5.0", "allowUnlisted": True, "featureGates": {"ConsumableShares": True}}
        )
    )
    assert config.nvidia_dra_driver_version == "0.5.0"


# The migration runbook of docs/gpu-software.md, phase by phase, on EKS (a dual-stack cluster needs device-plugin pools
# that bring their own plugin: docs/gpu-software.md#one-nvidia-gpu-stack-per-operator).
EKS_RUNBOOK = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "prod",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
}
T4_PLUGIN = {"name": "t4-legacy", "gpu": "T4", "maxNodes": 6, "gpuStack": "device-plugin"}
T4_BOTTLEROCKET = {
    "name": "t4-br",
    "gpu": "T4",
    "maxNodes": 6,
    "gpuStack": "device-plugin",
    "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
}
H100_DRA = {"name": "h100", "gpu": "H100", "maxNodes": 4, "gpuStack": "dra"}
T4_DRA = {"name": "t4-dra", "gpu": "T4", "maxNodes": 6, "gpuStack": "dra"}
CLASSES = [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}]
TEMPLATES = [{"name": "one-gpu", "deviceClass": "h100"}]
LEGACY = [{"name": "ml-research", "migration": "legacy", "quota": {"legacyGpus": 8}}]
DUAL = [
    {
        "name": "ml-research",
        "migration": "dual",
        "quota": {"legacyGpus": 8, "devices": {"h100": 8}},
        "claimTemplates": TEMPLATES,
    }
]
PHASES = {
    "0-legacy": {"nodePools": [T4_PLUGIN], "draDriver": {"enabled": False}, "namespaces": LEGACY},
    "0b-own-device-plugin": {"nodePools": [T4_BOTTLEROCKET], "draDriver": {"enabled": False}, "namespaces": LEGACY},
    "1-dual-stack": {"nodePools": [T4_BOTTLEROCKET, H100_DRA], "deviceClasses": CLASSES, "namespaces": DUAL},
    "2-dra-only": {
        "nodePools": [T4_BOTTLEROCKET, H100_DRA],
        "deviceClasses": CLASSES,
        "namespaces": [
            {
                "name": "ml-research",
                "migration": "dra-only",
                "quota": {"legacyGpus": 0, "devices": {"h100": 8}},
                "claimTemplates": TEMPLATES,
            }
        ],
    },
    "3-no-device-plugin-pool": {
        "nodePools": [H100_DRA, T4_DRA],
        "deviceClasses": CLASSES,
        "namespaces": [
            {
                "name": "ml-research",
                "migration": "dra-only",
                "quota": {"devices": {"h100": 8}},
                "claimTemplates": TEMPLATES,
            }
        ],
    },
}


def phase(name: str, **changes) -> dict:
    config = {**copy.deepcopy(EKS_RUNBOOK), **copy.deepcopy(PHASES[name])}
    config.update(changes)
    return config


@pytest.mark.parametrize(
    "name, device_plugin, dra_driver",
    [
        ("0-legacy", True, False),
        ("0b-own-device-plugin", False, False),
        ("1-dual-stack", False, True),
        ("2-dra-only", False, True),
        ("3-no-device-plugin-pool", False, True),
    ],
)
def test_runbook_phases_are_valid_and_switch_the_plugins(name, device_plugin, dra_driver):
    from dra_gpu_platform.plans.stack import plan_stack

    config = parse_config_map(qualify(phase(name)), stack="test", source="Pulumi.test.yaml")
    assert plan_stack(config).software.gpu_operator.values["devicePlugin"]["enabled"] is device_plugin
    assert (plan_stack(config).software.dra_driver is not None) is dra_driver


def test_runbook_phase_1_needs_device_plugin_pools_with_their_own_plugin():
    found = problems(phase("1-dual-stack", nodePools=[T4_PLUGIN, H100_DRA]))
    assert "validator waits for nvidia.com/gpu capacity" in found["nodePools[0].gpuStack"]


def test_runbook_phase_3_waits_for_the_last_dual_namespace():
    early = phase("3-no-device-plugin-pool", namespaces=DUAL)
    assert "need a device-plugin pool" in problems(early)["namespaces[0].migration"]


def test_runbook_rollback_of_a_namespace_is_a_config_change():
    back = phase("2-dra-only", namespaces=DUAL)
    assert parse_config_map(qualify(back), stack="test", source="Pulumi.test.yaml").namespaces[0].migration == "dual"
