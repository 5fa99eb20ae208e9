"""claims-satisfiable on hand-built resources: the inventory comes from the stack's own pools and driver
charts, and each template is allocated with Kubernetes' rules."""

from __future__ import annotations

from dra_gpu_platform.policies.rules import fit as fit_rules
from tests.policies import builders as b

RULE = fit_rules.CLAIMS_SATISFIABLE
H100_CLASS = b.device_class(
    "h100",
    "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].productName.matches('^NVIDIA H100')",
)
NVIDIA_DRIVER = b.helm_release("dra-driver-nvidia-gpu", "0.4.1", None, name="nvidia-dra-driver-gpu")


def h100_pool(name: str = "h100", instance: str | None = "p5.48xlarge", **kw):
    return b.resource(b.EKS_NODE_GROUP, b.node_group(instance, labels=b.labels_for(name), name=name, **kw), name)


def template(count: int, device_class: str = "h100", **kw):
    props = b.claim_template("team", f"gpus-{count}", device_class, **kw)
    props["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = float(count)  # protobuf numbers are floats
    return b.resource(b.CLAIM_TEMPLATE, props, f"gpus-{count}")


def stack(*extra):
    return [
        b.resource(b.HELM_RELEASE, NVIDIA_DRIVER, "dra-driver"),
        b.resource(b.DEVICE_CLASS, H100_CLASS, "h100"),
        *extra,
    ]


def test_templates_that_fit_on_one_node_pass():
    assert b.check_stack(RULE, stack(h100_pool(), template(8))).messages == []


def test_more_devices_than_one_node_has_is_a_violation_with_the_reason():
    [message] = b.check_stack(RULE, stack(h100_pool(), template(9))).messages
    assert message.startswith("ResourceClaimTemplate team/gpus-9 cannot be allocated on any node pool")
    assert "needs 9 devices of DeviceClass h100 on one node, a node of this pool has 8 that match" in message


def test_capacity_block_pools_take_the_instance_type_from_the_launch_template():
    template_lt = b.resource(b.LAUNCH_TEMPLATE, b.launch_template(instance="p5.48xlarge"), "h100-lt")
    pool = b.resource(
        b.EKS_NODE_GROUP,
        b.node_group(None, labels=b.labels_for("h100"), name="h100"),
        "h100",
        property_dependencies={"launchTemplate": [template_lt]},
    )
    assert b.check_stack(RULE, stack(template_lt, pool, template(8))).messages == []


def test_device_plugin_pools_publish_no_dra_devices():
    plugin = b.resource(
        b.EKS_NODE_GROUP,
        b.node_group("p5.48xlarge", labels=b.labels_for("legacy", stack="device-plugin"), name="legacy"),
        "legacy",
    )
    [message] = b.check_stack(RULE, stack(plugin, template(1))).messages
    assert "no DRA devices" in message


def test_memory_read_through_attributes_is_an_allocation_error_not_unsatisfiable():
    bad = b.device_class("bad", "device.attributes['gpu.nvidia.com'].memory.compareTo(quantity('40Gi')) >= 0")
    resources = stack(h100_pool(), b.resource(b.DEVICE_CLASS, bad, "bad"), template(1, "bad"))
    [message] = b.check_stack(RULE, resources).messages
    assert "allocation aborts with an error" in message and "memory" in message


def test_driver_chart_classes_are_known():
    assert b.check_stack(RULE, stack(h100_pool(), template(2, "gpu.nvidia.com"))).messages == []


def test_kind_workers_with_the_example_driver_publish_eight_devices_each():
    command = b.resource(b.COMMAND, b.kind_command([b.labels_for("dra"), b.labels_for("dra")]), "kind")
    example = b.resource(b.HELM_RELEASE, b.helm_release("dra-example-driver", "0.2.1", None), "example")
    resources = [command, example, template(8, "gpu.example.com")]
    assert b.check_stack(RULE, resources).messages == []
    [message] = b.check_stack(RULE, [command, example, template(9, "gpu.example.com")]).messages
    assert "has 8 that match" in message


def test_stacks_without_node_pools_are_not_judged():
    # an existing cluster: its devices are not declared in the program, so nothing can be simulated
    assert b.check_stack(RULE, stack(template(64))).messages == []


def test_a_gpucluster_deploys_the_dra_driver_and_its_classes():
    # gpu-operator v26.7.0 with gpuCluster.deployCR: no DRA driver release, the operator's driver publishes the devices
    operator = b.helm_release(
        "gpu-operator",
        "v26.7.0",
        "https://helm.ngc.nvidia.com/nvidia",
        {"gpuCluster": {"deployCR": True}, "clusterPolicy": {"deployCR": False}},
    )
    resources = [b.resource(b.HELM_RELEASE, operator, "gpu-operator"), h100_pool(), template(2, "gpu.nvidia.com")]
    assert b.check_stack(RULE, resources).messages == []
    # the same operator with its ClusterPolicy deploys no DRA driver
    operator["values"] = {}
    resources = [b.resource(b.HELM_RELEASE, operator, "gpu-operator"), h100_pool(), template(2, "gpu.nvidia.com")]
    [message] = b.check_stack(RULE, resources).messages
    assert "device class gpu.nvidia.com does not exist" in message
