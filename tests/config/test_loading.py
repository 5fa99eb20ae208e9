"""The stack contract: defaults, field rules and every cross-field rule of stack-config.md."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.inputs.problems import InputError
from tests.conftest import KIND_BASE, REFERENCE_STACKS, STACKS_DIR, qualify

EKS_BASE = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "gpu-prod",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2},
        {
            "name": "t4",
            "gpu": "T4",
            "maxNodes": 2,
            "gpuStack": "device-plugin",
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
    ],
    "deviceClasses": [{"name": "h100", "gpu": "H100", "minMemory": "79Gi"}],
    "namespaces": [{"name": "a", "migration": "dual", "claimTemplates": [{"name": "t", "deviceClass": "h100"}]}],
}


def parse(config: dict) -> StackConfig:
    return parse_config_map(qualify(config), stack="test", source="Pulumi.test.yaml")


def problems(config: dict) -> dict[str, str]:
    """field path -> rule, for every problem of an invalid config."""
    with pytest.raises(InputError) as caught:
        parse(config)
    return {p.path: p.rule for p in caught.value.problems}


def mutate(base: dict, path: str, value) -> dict:
    config = copy.deepcopy(base)
    target = config
    parts = path.replace("]", "").replace("[", ".").split(".")
    for part in parts[:-1]:
        target = target[int(part)] if part.isdigit() else target.setdefault(part, {})
    last = parts[-1]
    if value is DELETE:
        del target[int(last) if last.isdigit() else last]
    elif last.isdigit():
        target[int(last)] = value
    else:
        target[last] = value
    return config


DELETE = object()


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_committed_stacks_are_valid(stack):
    config = load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml")
    assert config.stack == stack


def test_defaults_follow_the_contract():
    config = parse(
        {
            "cluster": {"platform": "existing", "name": "c", "kubernetesVersion": "1.34"},
            "kubeconfig": "apiVersion: v1",
            "nodePools": [{"name": "p", "gpu": "L4", "maxNodes": 1}],
        }
    )
    pool = config.node_pools[0]
    assert (pool.min_nodes, pool.capacity, pool.gpu_stack) == (0, "on-demand", "dra")
    assert config.gpu_operator_enabled and config.dra_driver.enabled
    assert config.monitoring.enabled is False and config.cluster.protect is False
    kind = parse(KIND_BASE)
    assert kind.gpu_operator_enabled is False  # off by default on kind
    assert parse({**KIND_BASE, "namespaces": [{"name": "x"}]}).namespaces[0].migration == "dra-only"


def test_unquoted_kubernetes_version_is_accepted_when_unambiguous():
    assert parse(mutate(KIND_BASE, "cluster.kubernetesVersion", 1.35)).cluster.kubernetes_version == "1.35"


@pytest.mark.parametrize(
    "path, value, expected_path, rule_fragment",
    [
        ("cluster.kubernetesVersion", "1.33", "cluster.kubernetesVersion", "GA from Kubernetes 1.34"),
        ("cluster.kubernetesVersion", "1.99", "cluster.kubernetesVersion", "renders and validates for"),
        ("cluster.name", "GPU_dev", "cluster.name", "DNS label"),
        ("cluster.platform", "gke", "cluster.platform", "must be one of"),
        ("cluster.extra", 1, "cluster.extra", "unknown key"),
        ("nodePools[0].name", "Bad Name", "nodePools[0].name", "DNS label"),
        ("nodePools[0].gpu", "V100", "nodePools[0].gpu", "must be one of"),
        ("nodePools[0].maxNodes", 0, "nodePools[0].maxNodes", "must be a number from 1 to 1000"),
        ("nodePools[0].maxNodes", "two", "nodePools[0].maxNodes", "whole number"),
        ("nodePools[0].maxNodes", DELETE, "nodePools[0].maxNodes", "required"),
        ("nodePools[0].gpuStack", "both", "nodePools[0].gpuStack", "must be one of"),
        ("deviceClasses[0].minMemory", "80 GiB", "deviceClasses[0].minMemory", "not a Kubernetes quantity"),
        (
            "deviceClasses[0].minComputeCapability",
            "eight",
            "deviceClasses[0].minComputeCapability",
            "compute capability",
        ),
        ("namespaces[0].migration", "hybrid", "namespaces[0].migration", "must be one of"),
        (
            "namespaces[0].claimTemplates[0].sameAttribute",
            "gpu.nvidia.com/nvlink-domain",
            "namespaces[0].claimTemplates[0].sameAttribute",
            "C identifier",
        ),
        (
            "namespaces[0].claimTemplates[0].count",
            0,
            "namespaces[0].claimTemplates[0].count",
            "must be a number from 1 to 32",
        ),
        ("monitoring.claimPendingMinutes", 0, "monitoring.claimPendingMinutes", "must be a number from 1 to 1440"),
    ],
)
def test_field_rules_name_path_and_rule(path, value, expected_path, rule_fragment):
    found = problems(mutate(KIND_BASE, path, value))
    assert expected_path in found, found
    assert rule_fragment in found[expected_path]


def test_unknown_top_level_key_is_reported():
    found = problems({**KIND_BASE, "nodepools": []})
    assert found["nodepools"] == "unknown config key"


def test_unknown_nested_key_lists_the_allowed_keys():
    with pytest.raises(InputError) as caught:
        parse(mutate(KIND_BASE, "nodePools[0].maxnodes", 3))
    problem = next(p for p in caught.value.problems if p.path == "nodePools[0].maxnodes")
    assert "maxNodes" in problem.fix and problem.value == 3


def test_every_problem_is_reported_at_once_with_value_and_fix():
    config = mutate(KIND_BASE, "nodePools[1].maxNodes", "x")
    config = mutate(config, "deviceClasses[0].minMemory", "lots")
    config = mutate(config, "namespaces[0].claimTemplates[0].deviceClass", "missing-class")
    with pytest.raises(InputError) as caught:
        parse(config)
    by_path = {p.path: p for p in caught.value.problems}
    assert {
        "nodePools[1].maxNodes",
        "deviceClasses[0].minMemory",
        "namespaces[0].claimTemplates[0].deviceClass",
    } <= set(by_path)
    assert by_path["namespaces[0].claimTemplates[0].deviceClass"].value == "missing-class"
    rendered = caught.value.render()
    assert "Pulumi.test.yaml: nodePools[1] (plugin-pool).maxNodes = 'x'" in rendered and "fix:" in rendered


def test_every_bad_label_is_named_at_its_own_key_whatever_the_others_hold():
    # A value of the wrong type once hid every key rule of the mapping, and a bad key was named at `labels` only.
    labels = {"": "x", "bad key": "y", "team": 5, "tier": "-not-a-value-", "ok": "fine"}
    with pytest.raises(InputError) as caught:
        parse(mutate(KIND_BASE, "nodePools[0].labels", labels))
    assert {(p.path, p.value, p.rule.split(" is ")[0]) for p in caught.value.problems} == {
        ('nodePools[0].labels[""]', "", "label key ''"),
        ('nodePools[0].labels["bad key"]', "bad key", "label key 'bad key'"),
        ("nodePools[0].labels.team", 5, "must be a string"),
        ("nodePools[0].labels.tier", "-not-a-value-", "label value '-not-a-value-'"),
    }
    rendered = caught.value.render()
    assert "nodePools[0] (dra-pool).labels[\"\"] = ''" in rendered and "labels.ok" not in rendered


# --- cross-field rules of "Meaning that code must enforce" -------------------------------------------------


def test_legacy_namespace_needs_a_device_plugin_pool():
    config = mutate(KIND_BASE, "nodePools", [KIND_BASE["nodePools"][0]])
    assert "need a device-plugin pool" in problems(config)["namespaces[1].migration"]


def test_extended_resource_bridge_replaces_the_device_plugin_pool_on_kind():
    config = mutate(KIND_BASE, "nodePools", [KIND_BASE["nodePools"][0]])
    config = mutate(config, "cluster.kind.gpuDriver", "nvidia")
    config["draDriver"] = {"extendedResourceBridge": True}
    assert parse(config).dra_driver.extended_resource_bridge


def test_dual_and_dra_only_namespaces_need_a_dra_pool():
    config = mutate(KIND_BASE, "nodePools", [KIND_BASE["nodePools"][1]])
    found = problems(config)
    assert "gpuStack: dra" in found["namespaces[0].migration"]
    assert "need a node pool with gpuStack: dra" in found["deviceClasses"]


def test_device_classes_and_dra_namespaces_need_the_dra_driver():
    config = copy.deepcopy(EKS_BASE)
    config["draDriver"] = {"enabled": False}
    found = problems(config)
    assert "need the DRA driver" in found["draDriver.enabled"]
    assert "needs the DRA driver" in found["namespaces[0].migration"]


def test_legacy_namespace_allows_no_claim_templates():
    config = mutate(KIND_BASE, "namespaces[1].claimTemplates", [{"name": "t", "deviceClass": "big"}])
    assert "claim templates are not allowed" in problems(config)["namespaces[1].claimTemplates"]


def test_claim_template_class_must_exist_or_come_from_the_driver_chart():
    ok = mutate(
        EKS_BASE,
        "namespaces[0].claimTemplates",
        [{"name": "a", "deviceClass": "gpu.nvidia.com"}, {"name": "b", "deviceClass": "mig.nvidia.com"}],
    )
    assert parse(ok)
    found = problems(mutate(EKS_BASE, "namespaces[0].claimTemplates[0].deviceClass", "h200"))
    assert "no such device class" in found["namespaces[0].claimTemplates[0].deviceClass"]
    # on kind with the example driver the chart's class is gpu.example.com, not the NVIDIA ones
    with pytest.raises(InputError) as caught:
        parse(mutate(KIND_BASE, "namespaces[0].claimTemplates[0].deviceClass", "gpu.nvidia.com"))
    (problem,) = [p for p in caught.value.problems if p.path == "namespaces[0].claimTemplates[0].deviceClass"]
    assert "gpu.example.com" in problem.fix and "gpu.nvidia.com" not in problem.fix


def test_first_available_classes_and_names_are_checked():
    template = {
        "name": "inf",
        "firstAvailable": [{"deviceClass": "h100"}, {"deviceClass": "h100", "count": 2}, {"deviceClass": "nope"}],
    }
    found = problems(mutate(EKS_BASE, "namespaces[0].claimTemplates", [template]))
    assert "same subrequest name" in found["namespaces[0].claimTemplates[0].firstAvailable"]
    assert "no such device class" in found["namespaces[0].claimTemplates[0].firstAvailable[2].deviceClass"]


def test_claim_template_needs_exactly_one_request_shape():
    both = {"name": "t", "deviceClass": "h100", "firstAvailable": [{"deviceClass": "h100"}]}
    neither = {"name": "u"}
    found = problems(mutate(EKS_BASE, "namespaces[0].claimTemplates", [both, neither]))
    assert "exactly one of deviceClass or firstAvailable" in found["namespaces[0].claimTemplates[0]"]
    assert "exactly one of deviceClass or firstAvailable" in found["namespaces[0].claimTemplates[1]"]


def test_all_mode_takes_no_count():
    found = problems(
        mutate(
            EKS_BASE,
            "namespaces[0].claimTemplates[0]",
            {"name": "t", "deviceClass": "h100", "allocationMode": "All", "count": 2},
        )
    )
    assert "count is not allowed" in found["namespaces[0].claimTemplates[0].count"]


def test_admin_access_template_needs_the_namespace_label():
    found = problems(mutate(EKS_BASE, "namespaces[0].claimTemplates[0].adminAccess", True))
    assert "admin-access" in found["namespaces[0].claimTemplates[0].adminAccess"]
    config = mutate(EKS_BASE, "namespaces[0].claimTemplates[0].adminAccess", True)
    assert parse(mutate(config, "namespaces[0].adminAccess", True))


def test_mig_profiles_are_checked_against_the_catalog():
    found = problems(mutate(EKS_BASE, "nodePools[0].mig", {"profile": "3g.71gb"}))
    assert "not a MIG profile of H100" in found["nodePools[0].mig.profile"]
    found = problems(mutate(EKS_BASE, "nodePools[1].mig", {"profile": "1g.5gb"}))
    assert "T4 does not support MIG" in found["nodePools[1].mig"]
    found = problems(mutate(EKS_BASE, "deviceClasses[0]", {"name": "m", "gpu": "A100-40GB", "migProfile": "3g.40gb"}))
    assert "not a MIG profile of A100-40GB" in found["deviceClasses[0].migProfile"]
    ok = mutate(EKS_BASE, "nodePools[0].mig", {"profile": "3g.40gb"})
    assert parse(ok).node_pools[0].mig.profile == "3g.40gb"


def test_min_memory_above_what_nvml_publishes_can_never_match():
    found = problems(mutate(EKS_BASE, "deviceClasses[0].minMemory", "80Gi"))
    assert "81559Mi" in found["deviceClasses[0].minMemory"]
    assert parse(mutate(EKS_BASE, "deviceClasses[0].minMemory", "80G"))  # 80e9 bytes < 81559Mi


def test_instance_types_are_checked_against_the_catalog():
    found = problems(mutate(EKS_BASE, "nodePools[0].instanceType", "g4dn.xlarge"))
    assert "carries T4, not H100" in found["nodePools[0].instanceType"]
    found = problems(mutate(EKS_BASE, "nodePools[0].instanceType", "p9.huge"))
    assert "unknown EKS instance type" in found["nodePools[0].instanceType"]


def test_names_must_be_unique():
    config = mutate(EKS_BASE, "nodePools[1].name", "h100")
    assert "unique" in problems(config)["nodePools[1].name"]


def test_capacity_block_needs_reservation_and_zone():
    found = problems(mutate(EKS_BASE, "nodePools[0].capacity", "capacity-block"))
    assert "reservation id" in found["nodePools[0].capacityReservationId"]
    assert "one zone" in found["nodePools[0].availabilityZone"]


def test_only_the_block_of_the_platform_is_allowed():
    found = problems(mutate(EKS_BASE, "cluster.kind", {"gpuDriver": "example"}))
    assert "only the block matching platform" in found["cluster.kind"]


def test_existing_clusters_need_a_kubeconfig_secret():
    found = problems({"cluster": {"platform": "existing", "name": "c", "kubernetesVersion": "1.35"}})
    assert "kubeconfig" in found


def test_device_taints_only_where_alpha_gates_can_be_enabled():
    taint = {"name": "t", "driver": "gpu.nvidia.com", "pool": "node-1", "device": "gpu-0", "key": "degraded"}
    found = problems({**EKS_BASE, "maintenance": {"deviceTaints": [taint]}})
    assert "alpha" in found["maintenance.deviceTaints"]
    assert parse({**KIND_BASE, "maintenance": {"deviceTaints": [taint]}}).maintenance.device_taints[0].name == "t"


def test_dra_only_namespace_cannot_have_a_legacy_gpu_quota():
    found = problems(mutate(KIND_BASE, "namespaces[0].quota.legacyGpus", 2))
    assert "deny nvidia.com/gpu" in found["namespaces[0].quota.legacyGpus"]


def test_quota_device_keys_must_be_classes():
    found = problems(mutate(KIND_BASE, "namespaces[0].quota.devices", {"nvidia-h100-80gb": 4}))
    assert "no such device class" in found["namespaces[0].quota.devices.nvidia-h100-80gb"]


def test_rollback_is_a_plain_config_change():
    """dra-only → dual → legacy: each step is a valid config (the rollback path of the contract)."""
    config = copy.deepcopy(KIND_BASE)
    config["namespaces"][0]["migration"] = "dual"
    assert parse(config).namespaces[0].migration == "dual"
    config["namespaces"][0]["migration"] = "legacy"
    config["namespaces"][0]["claimTemplates"] = []
    config["namespaces"][0]["quota"] = {"legacyGpus": 2}
    assert parse(config).namespaces[0].migration == "legacy"


def test_pool_labels_cannot_use_platform_managed_domains():
    found = problems(mutate(KIND_BASE, "nodePools[0].labels", {"nvidia.com/gpu.deploy.device-plugin": "true"}))
    assert "managed by the platform" in found["nodePools[0].labels.nvidia.com/gpu.deploy.device-plugin"]
