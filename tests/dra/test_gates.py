"""Feature gates per Kubernetes minor (kubernetes pkg/features/kube_features.go, 1.35 table and the later
table's 1.36 rows), `--feature-gates` parsing (component-base featuregate/feature_gate.go v0.35.6 Set,
unsafeSetFromMap), and what the API server drops when a gate is off (pkg/api/resourceclaimspec/util.go
DropDisabledFields, resourceslice strategy dropDisabledFields)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra import apiserver
from dra_gpu_platform.dra import gates as g
from dra_gpu_platform.dra.claims import parse_claim_spec


def test_defaults_of_1_34_and_1_35_pick_the_incubating_allocator():
    for version in ("1.34", "1.35"):
        gates = g.defaults(version)
        assert gates.admin_access and gates.prioritized_list and gates.enabled(g.DEVICE_STATUS)
        assert not (
            gates.device_taints or gates.partitionable_devices or gates.consumable_capacity or gates.binding_conditions
        )
        assert gates.allocator_variant() == "incubating"
    assert g.stage_at(g.DEVICE_TAINT_RULES, 34) is None and g.stage_at(g.DYNAMIC_RESOURCE_ALLOCATION, 35).locked


def test_1_36_turns_the_beta_gates_on_and_runs_the_incubating_allocator_of_v0_36():
    """structured/allocator.go NewAllocator at v0.36.2: incubating took over experimental's features (consumable
    capacity, binding conditions), so the 1.36 defaults pick incubating; at v0.35.6 the same features pick
    experimental."""
    gates = g.defaults("1.36")
    assert (
        gates.consumable_capacity and gates.binding_conditions and gates.device_taints and gates.partitionable_devices
    )
    assert not gates.device_taint_rules and gates.allocator_variant() == "incubating"
    assert g.parse("DRAConsumableCapacity=true", "1.35").allocator_variant() == "experimental"


def test_1_37_defaults_make_device_taint_rules_ga_and_the_extended_resource_locked():
    """kube-scheduler pkg/features/kube_features.go, the 1.37 rows."""
    gates = g.defaults("1.37")
    assert gates.device_taint_rules and gates.extended_resource and gates.allocator_variant() == "incubating"
    assert g.stage_at(g.EXTENDED_RESOURCE, 37).locked and not g.stage_at(g.DEVICE_TAINTS, 37).locked
    with pytest.raises(g.GateError, match="locked to true"):
        g.parse("DRAPrioritizedList=false", "1.37")
    assert not g.parse("DRAPrioritizedList=false", "1.36").prioritized_list  # GA but not locked in 1.36


def test_the_older_features_alone_run_the_stable_allocator_from_v0_36():
    """v0.36.2 stable SupportedFeatures = AdminAccess, PrioritizedList, PartitionableDevices, DeviceTaints."""
    gates = g.parse("DRAConsumableCapacity=false,DRADeviceBindingConditions=false", "1.36")
    assert gates.allocator_variant() == "stable"
    assert g.parse("DRAConsumableCapacity=false,DRADeviceBindingConditions=false", "1.35").allocator_variant() == (
        "incubating"
    )


def test_all_beta_gates_off_is_the_stable_allocator():
    assert g.parse("AllBeta=false", "1.35").allocator_variant() == "stable"


def test_the_flag_syntax_and_errors_follow_component_base():
    gates = g.parse(" DRADeviceTaints = true ,DRAPrioritizedList=False,", "1.35")
    assert (
        gates.device_taints
        and not gates.prioritized_list
        and gates.changed() == {"DRADeviceTaints": True, "DRAPrioritizedList": False}
    )
    with pytest.raises(g.GateError) as error:
        g.parse("DRADeviceTaints,DRAAdminAccess=maybe", "1.35")
    assert error.value.problems == [
        "missing bool value for DRADeviceTaints",
        "invalid value of DRAAdminAccess=maybe, err: strconv.ParseBool: parsing 'maybe': invalid syntax",
    ]
    with pytest.raises(g.GateError, match="feature is locked to true"):
        g.parse("DynamicResourceAllocation=false", "1.35")
    with pytest.raises(g.GateError, match="unrecognized feature gate: DRAAdminAcess"):
        g.parse("DRAAdminAcess=true", "1.35")
    with pytest.raises(g.GateError, match="does not exist in Kubernetes 1.34"):
        g.parse("DRADeviceTaintRules=true", "1.34")


def test_dependencies_are_checked_from_1_35_on():
    with pytest.raises(
        g.GateError,
        match=r"DRADeviceTaintRules is enabled, but depends on features that are disabled: \[DRADeviceTaints\]",
    ):
        g.parse("DRADeviceTaintRules=true", "1.35")
    assert g.parse("DRADeviceTaintRules=true,DRADeviceTaints=true", "1.35").device_taint_rules
    with pytest.raises(g.GateError, match="DRAResourceClaimDeviceStatus"):
        g.parse("DRADeviceBindingConditions=true,DRAResourceClaimDeviceStatus=false", "1.35")
    assert g.parse("DRADeviceBindingConditions=true,DRAResourceClaimDeviceStatus=false", "1.34").enabled(
        g.BINDING_CONDITIONS
    )


def test_the_stack_sets_gates_and_the_flag_overrides_them():
    gates = g.parse("DRADeviceTaints=false", "1.35", base={"DRAExtendedResource": True, "DRADeviceTaints": True})
    assert gates.extended_resource and not gates.device_taints


def test_device_taint_rules_reach_the_scheduler_with_their_own_gate_from_1_35():
    """1.35 scheduler: resourceslicetracker EnableDeviceTaintRules = DRADeviceTaintRules (1.34: DRADeviceTaints)."""
    assert g.parse("DRADeviceTaints=true", "1.34").device_taint_rules
    assert not g.parse("DRADeviceTaints=true", "1.35").device_taint_rules


# --- what the API server drops and what validation says then ---------------------------------------------------


def claim_devices():
    return {
        "requests": [
            {
                "name": "g",
                "exactly": {
                    "deviceClassName": "c",
                    "adminAccess": True,
                    "tolerations": [{"operator": "Exists"}],
                    "capacity": {"requests": {"memory": "1Gi"}},
                },
            },
            {"name": "h", "firstAvailable": [{"name": "a", "deviceClassName": "c"}]},
        ],
        "constraints": [{"requests": ["g"], "distinctAttribute": "a.b/c"}],
    }


def test_1_35_defaults_drop_tolerations_capacity_and_distinct_attribute():
    kept, dropped = apiserver.drop_claim_spec_fields(claim_devices(), "spec.devices", g.defaults("1.35"))
    assert sorted(dropped) == [
        ("spec.devices.constraints[0].distinctAttribute", g.CONSUMABLE_CAPACITY),
        ("spec.devices.requests[0].exactly.capacity", g.CONSUMABLE_CAPACITY),
        ("spec.devices.requests[0].exactly.tolerations", g.DEVICE_TAINTS),
    ]
    assert kept["requests"][0]["exactly"]["adminAccess"] is True and kept["requests"][1]["firstAvailable"]
    spec, problems = parse_claim_spec(kept, consumable_capacity=False)
    # validateDeviceConstraint: with DRAConsumableCapacity off the empty constraint wants matchAttribute
    assert spec is None and problems[0][0] == "spec.devices.constraints[0].matchAttribute"


def test_without_the_prioritized_list_a_first_available_request_is_left_empty_and_rejected():
    kept, dropped = apiserver.drop_claim_spec_fields(
        claim_devices(), "spec.devices", g.parse("DRAPrioritizedList=false", "1.35")
    )
    assert ("spec.devices.requests[1].firstAvailable", g.PRIORITIZED_LIST) in dropped
    assert any(p[2].startswith("exactly one of exactly or firstAvailable") for p in parse_claim_spec(kept)[1])


def test_a_slice_that_only_had_per_device_node_selection_becomes_invalid():
    slice_ = {
        "spec": {
            "driver": "d",
            "pool": {"name": "p", "generation": 1, "resourceSliceCount": 1},
            "perDeviceNodeSelection": True,
            "devices": [{"name": "x", "nodeName": "n", "taints": [{"key": "k"}]}],
        }
    }
    kept, dropped = apiserver.drop_slice_fields(slice_, g.defaults("1.35"))
    assert {path for path, _ in dropped} == {
        "spec.perDeviceNodeSelection",
        "spec.devices[0].nodeName",
        "spec.devices[0].taints",
    }
    assert "exactly one of `nodeName`" in apiserver.slice_problems(kept)[0][2]
    assert (
        apiserver.drop_slice_fields(slice_, g.parse("DRAPartitionableDevices=true,DRADeviceTaints=true", "1.35"))[1]
        == []
    )


def test_the_extended_resource_name_needs_its_gate():
    document = {"metadata": {"name": "k"}, "spec": {"extendedResourceName": "nvidia.com/gpu"}}
    assert apiserver.drop_device_class_fields(document, g.defaults("1.35"))[0]["spec"] == {}
    assert apiserver.drop_device_class_fields(document, g.defaults("1.36"))[1] == []
