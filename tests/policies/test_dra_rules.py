"""DRA rules on hand-built resources: selectors, class existence, quota keys, namespace quotas."""

from __future__ import annotations

import pytest

from dra_gpu_platform.policies.rules import dra as rules
from tests.policies import builders as b

GOOD = "device.driver == 'gpu.nvidia.com' && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0"
ATTRIBUTE_MEMORY = "device.attributes['gpu.nvidia.com'].memory.compareTo(quantity('20Gi')) >= 0"

# ---------------------------------------------------------------- deviceclass-selector-valid


def test_valid_selectors_pass_on_classes_and_claims():
    assert b.check(rules.DEVICECLASS_SELECTOR_VALID, b.DEVICE_CLASS, b.device_class("big", GOOD)) == []
    template = b.claim_template(
        "team-a",
        "t",
        "big",
        selectors=["device.attributes['gpu.nvidia.com'].cudaComputeCapability.compareTo(semver('8.0.0')) >= 0"],
    )
    assert b.check(rules.DEVICECLASS_SELECTOR_VALID, b.CLAIM_TEMPLATE, template) == []


def test_memory_read_through_attributes_is_the_classic_bug():
    [message] = b.check(
        rules.DEVICECLASS_SELECTOR_VALID, b.DEVICE_CLASS, b.device_class("big", GOOD, ATTRIBUTE_MEMORY)
    ).messages
    assert message.startswith(
        "DeviceClass big spec.selectors[1].cel.expression: reads 'memory' through device.attributes"
    )
    assert "use device.capacity['gpu.nvidia.com'].memory" in message


@pytest.mark.parametrize(
    "expression, problem",
    [
        ("device.driver", "must evaluate to bool, not string"),
        ("device.driver ==", "invalid CEL expression"),
        ("device.capacity['gpu.nvidia.com'].memory >= quantity('1Gi')", "found no matching overload"),
    ],
)
def test_selectors_that_do_not_compile_or_return_bool(expression, problem):
    [message] = b.check(rules.DEVICECLASS_SELECTOR_VALID, b.DEVICE_CLASS, b.device_class("c", expression)).messages
    assert message.startswith("DeviceClass c spec.selectors[0].cel.expression: ")
    assert problem in message


def test_selector_over_the_length_limit():
    long = "device.driver == 'gpu.nvidia.com' && " + " && ".join(["true"] * 2100)
    messages = b.check(rules.DEVICECLASS_SELECTOR_VALID, b.DEVICE_CLASS, b.device_class("c", long)).messages
    assert any("selector is too long" in m and "at most 10240" in m for m in messages)


def test_claim_template_selector_paths_point_at_the_request():
    template = b.claim_template("ns", "t", "big", selectors=[ATTRIBUTE_MEMORY])
    [message] = b.check(rules.DEVICECLASS_SELECTOR_VALID, b.CLAIM_TEMPLATE, template).messages
    assert message.startswith(
        "ResourceClaimTemplate t spec.spec.devices.requests[0].exactly.selectors[0].cel.expression: "
    )


def test_extra_capacity_names_from_config():
    expression = "device.attributes['example.com'].bandwidth > 1"
    assert b.check(rules.DEVICECLASS_SELECTOR_VALID, b.DEVICE_CLASS, b.device_class("c", expression)) == []
    [message] = b.check(
        rules.DEVICECLASS_SELECTOR_VALID,
        b.DEVICE_CLASS,
        b.device_class("c", expression),
        config={"extraCapacityNames": ["bandwidth"]},
    ).messages
    assert "reads 'bandwidth' through device.attributes" in message


# ---------------------------------------------------------------- claim-template-class-exists (stack)


def _template(name, *classes, first=False):
    props = (
        b.claim_template("team-a", name, first_available=list(classes))
        if first
        else b.claim_template("team-a", name, classes[0])
    )
    return b.resource(b.CLAIM_TEMPLATE, props, name)


def test_classes_declared_or_created_by_the_driver_chart_pass():
    resources = [
        b.resource(b.DEVICE_CLASS, b.device_class("h100", GOOD), "h100"),
        b.resource(
            b.HELM_RELEASE,
            b.helm_release("dra-driver-nvidia-gpu", "0.4.1", "oci://registry.k8s.io/dra-driver-nvidia/charts"),
            "dra",
        ),
        _template("a", "h100"),
        _template("b", "gpu.nvidia.com", "mig.nvidia.com", "vfio.gpu.nvidia.com", first=True),
    ]
    assert b.check_stack(rules.CLAIM_TEMPLATE_CLASS_EXISTS, resources) == []


def test_unknown_class_is_reported_on_the_template():
    resources = [
        b.resource(b.DEVICE_CLASS, b.device_class("h100", GOOD), "h100"),
        _template("a", "h100", "h200", first=True),
    ]
    [(message, urn)] = b.check_stack(rules.CLAIM_TEMPLATE_CLASS_EXISTS, resources)
    assert message == (
        "ResourceClaimTemplate team-a/a spec.spec.devices.requests[0].firstAvailable[1] names DeviceClass "
        "'h200', which is neither declared in this stack nor created by a driver chart in it (known: h100); "
        "claims from it stay Pending forever."
    )
    assert urn == b.urn(b.CLAIM_TEMPLATE, "a")


def test_chart_classes_follow_its_values_and_version():
    # compute domains off; 25.8.1 has no vfio class yet
    release = b.helm_release(
        "nvidia-dra-driver-gpu",
        "25.8.1",
        "https://helm.ngc.nvidia.com/nvidia",
        {"resources": {"computeDomains": {"enabled": False}}},
    )
    resources = [
        b.resource(b.HELM_RELEASE, release, "dra"),
        _template("a", "vfio.gpu.nvidia.com"),
        _template("b", "compute-domain-daemon.nvidia.com"),
        _template("c", "mig.nvidia.com"),
    ]
    reported = {u for _, u in b.check_stack(rules.CLAIM_TEMPLATE_CLASS_EXISTS, resources)}
    assert reported == {b.urn(b.CLAIM_TEMPLATE, "a"), b.urn(b.CLAIM_TEMPLATE, "b")}


def test_example_driver_and_external_classes():
    example = b.resource(
        b.HELM_RELEASE,
        b.helm_release("dra-example-driver", "0.2.1", "oci://registry.k8s.io/dra-example-driver/charts"),
        "ex",
    )
    assert b.check_stack(rules.CLAIM_TEMPLATE_CLASS_EXISTS, [example, _template("a", "gpu.example.com")]) == []
    assert len(b.check_stack(rules.CLAIM_TEMPLATE_CLASS_EXISTS, [_template("a", "gpu.example.com")])) == 1
    assert (
        b.check_stack(
            rules.CLAIM_TEMPLATE_CLASS_EXISTS, [_template("a", "site-gpu")], {"externalDeviceClasses": ["site-gpu"]}
        )
        == []
    )


# ---------------------------------------------------------------- dra-quota-keys-valid


def test_real_dra_quota_keys_pass():
    hard = {
        "count/resourceclaims.resource.k8s.io": "10",
        "count/resourceclaimtemplates.resource.k8s.io": "5",
        "h100.deviceclass.resource.k8s.io/devices": "8",
        "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "14",
        "requests.deviceclass.resource.kubernetes.io/h100": "4",
        "requests.nvidia.com/gpu": "2",
        "pods": "100",
    }
    assert b.check(rules.DRA_QUOTA_KEYS_VALID, b.QUOTA, b.quota("team-a", hard)) == []


def test_invented_count_key_gets_the_real_devices_key():
    [message] = b.check(
        rules.DRA_QUOTA_KEYS_VALID, b.QUOTA, b.quota("team-a", {"nvidia-h100-80gb.resource.k8s.io/count": "8"})
    ).messages
    assert message == (
        "ResourceQuota team-a/gpu-quota key 'nvidia-h100-80gb.resource.k8s.io/count' is not a DRA quota key: "
        "the API server accepts it but no quota evaluator counts it, so the namespace is not limited; use "
        "'nvidia-h100-80gb.deviceclass.resource.k8s.io/devices'."
    )


@pytest.mark.parametrize(
    "key, suggestion",
    [
        ("resourceclaims", "count/resourceclaims.resource.k8s.io"),
        ("count/resourceclaimtemplates", "count/resourceclaimtemplates.resource.k8s.io"),
        ("h100.deviceclass.resource.k8s.io/count", "h100.deviceclass.resource.k8s.io/devices"),
        ("count/h100.deviceclass.resource.k8s.io", "h100.deviceclass.resource.k8s.io/devices"),
        ("gpu.nvidia.com.resource.k8s.io/devices", "gpu.nvidia.com.deviceclass.resource.k8s.io/devices"),
    ],
)
def test_near_miss_keys_get_suggestions(key, suggestion):
    [message] = b.check(rules.DRA_QUOTA_KEYS_VALID, b.QUOTA, b.quota("ns", {key: "1"})).messages
    assert message.endswith(f"use {suggestion!r}.")


def test_unrecognisable_dra_key_lists_the_valid_forms():
    [message] = b.check(rules.DRA_QUOTA_KEYS_VALID, b.QUOTA, b.quota("ns", {"resource.k8s.io/gpus": "1"})).messages
    assert message.endswith(
        "use 'count/resourceclaims.resource.k8s.io' or '<deviceclass>.deviceclass.resource.k8s.io/devices'."
    )


# ---------------------------------------------------------------- gpu-namespace-has-quota (stack)


def test_namespace_with_a_quota_for_every_class_passes():
    resources = [
        b.resource(b.NAMESPACE, b.namespace("team-a"), "ns"),
        b.resource(
            b.QUOTA,
            b.quota(
                "team-a",
                {
                    "h100.deviceclass.resource.k8s.io/devices": "8",
                    "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "7",
                },
            ),
            "q",
        ),
        _template("a", "h100"),
        _template("b", "mig.nvidia.com", "h100", first=True),
    ]
    assert b.check_stack(rules.GPU_NAMESPACE_HAS_QUOTA, resources) == []


def test_namespace_without_quota_is_reported_on_the_namespace():
    resources = [b.resource(b.NAMESPACE, b.namespace("team-a"), "ns"), _template("a", "h100"), _template("b", "h200")]
    [(message, urn)] = b.check_stack(rules.GPU_NAMESPACE_HAS_QUOTA, resources)
    assert message == (
        "namespace team-a has claim templates (a, b) using h100, h200 but no ResourceQuota: one team can "
        "claim every device of those classes. Add h100.deviceclass.resource.k8s.io/devices, "
        "h200.deviceclass.resource.k8s.io/devices."
    )
    assert urn == b.urn(b.NAMESPACE, "ns")


def test_quota_missing_a_class_is_reported_on_the_quota():
    resources = [
        b.resource(
            b.QUOTA,
            b.quota(
                "team-a", {"count/resourceclaims.resource.k8s.io": "4", "h100.deviceclass.resource.k8s.io/devices": "8"}
            ),
            "q",
        ),
        _template("a", "h100", "h100-3g", first=True),
    ]
    [(message, urn)] = b.check_stack(rules.GPU_NAMESPACE_HAS_QUOTA, resources)
    assert message == (
        "namespace team-a claims h100-3g (templates: a) but its quota has no "
        "h100-3g.deviceclass.resource.k8s.io/devices: those devices are unlimited there."
    )
    assert urn == b.urn(b.QUOTA, "q")
