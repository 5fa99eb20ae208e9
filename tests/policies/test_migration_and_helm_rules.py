"""Migration stack rules and helm-release-pinned on hand-built resources."""

from __future__ import annotations

import pytest

from dra_gpu_platform.policies.rules import helm as helm_rules
from dra_gpu_platform.policies.rules import migration as rules
from tests.policies import builders as b

NGC = "https://helm.ngc.nvidia.com/nvidia"
DRA_OCI = "oci://registry.k8s.io/dra-driver-nvidia/charts"
DRA_SELECTOR = {"nvidia.com/dra-kubelet-plugin": "true"}


def _ns(name, mode):
    return b.resource(b.NAMESPACE, b.namespace(name, mode), f"ns-{name}")


def _guard():
    return [b.resource(b.VAP, b.guard_policy(), "guard"), b.resource(b.VAP_BINDING, b.guard_binding(), "guard-binding")]


# ---------------------------------------------------------------- dra-only-namespace-guarded


def test_dra_only_namespace_under_the_bound_guard_passes():
    assert b.check_stack(rules.DRA_ONLY_NAMESPACE_GUARDED, [_ns("team-a", "dra-only"), *_guard()]) == []


def test_dra_only_namespace_without_a_guard():
    [(message, urn)] = b.check_stack(
        rules.DRA_ONLY_NAMESPACE_GUARDED, [_ns("team-a", "dra-only"), _ns("old", "legacy")]
    )
    assert message == (
        "namespace team-a is gpu-mode=dra-only but no ValidatingAdmissionPolicy in the stack denies "
        "nvidia.com/gpu for pods; pods requesting nvidia.com/gpu would be admitted there and stay Pending "
        "(no device plugin serves them)."
    )
    assert urn == b.urn(b.NAMESPACE, "ns-team-a")


def test_guard_without_binding_audit_only_or_selecting_elsewhere():
    policy = b.resource(b.VAP, b.guard_policy(), "guard")
    unbound = b.check_stack(rules.DRA_ONLY_NAMESPACE_GUARDED, [_ns("a", "dra-only"), policy]).messages
    assert "but no ValidatingAdmissionPolicyBinding binds the guard policy (gpu-dra-only)" in unbound[0]
    audit = b.resource(b.VAP_BINDING, b.guard_binding(actions=["Audit"]), "binding")
    elsewhere = b.resource(b.VAP_BINDING, b.guard_binding(selector={"matchLabels": {"gpu-mode": "strict"}}), "binding2")
    for binding in (audit, elsewhere):
        [message] = b.check_stack(rules.DRA_ONLY_NAMESPACE_GUARDED, [_ns("a", "dra-only"), policy, binding]).messages
        assert "but no binding of the guard policy with validationActions Deny selects this namespace" in message


def test_binding_selectors_with_expressions_and_the_name_label():
    policy = b.resource(b.VAP, b.guard_policy(), "guard")
    by_expression = b.guard_binding(
        selector={"matchExpressions": [{"key": "gpu-mode", "operator": "In", "values": ["dra-only", "x"]}]}
    )
    by_name = b.guard_binding(selector={"matchLabels": {"kubernetes.io/metadata.name": "a"}})
    for binding in (by_expression, by_name):
        assert (
            b.check_stack(
                rules.DRA_ONLY_NAMESPACE_GUARDED,
                [_ns("a", "dra-only"), policy, b.resource(b.VAP_BINDING, binding, "bind")],
            )
            == []
        )


def test_a_policy_that_does_not_deny_nvidia_gpu_is_no_guard():
    other = b.guard_policy("other")
    other["spec"]["validations"] = [{"expression": "object.metadata.name != 'x'"}]
    other["spec"]["variables"] = []
    resources = [
        _ns("a", "dra-only"),
        b.resource(b.VAP, other, "other"),
        b.resource(b.VAP_BINDING, b.guard_binding("other"), "bind"),
    ]
    assert (
        "no ValidatingAdmissionPolicy in the stack denies"
        in b.check_stack(rules.DRA_ONLY_NAMESPACE_GUARDED, resources).messages[0]
    )


@pytest.mark.parametrize("where", ["limits", "requests"])
def test_workload_requesting_nvidia_gpu_in_a_dra_only_namespace(where):
    gpu = b.resource(
        b.DEPLOYMENT,
        b.deployment("team-a", "trainer", {where: {"nvidia.com/gpu": "1"}}, init=where == "requests"),
        "trainer",
    )
    fine = b.resource(
        b.DEPLOYMENT, b.deployment("old", "legacy-job", {"limits": {"nvidia.com/gpu": "1"}}), "legacy-job"
    )
    [(message, urn)] = b.check_stack(
        rules.DRA_ONLY_NAMESPACE_GUARDED, [_ns("team-a", "dra-only"), _ns("old", "legacy"), *_guard(), gpu, fine]
    )
    assert message.startswith(
        "Deployment team-a/trainer: container(s) main request nvidia.com/gpu in a dra-only namespace"
    )
    assert urn == b.urn(b.DEPLOYMENT, "trainer")


# ---------------------------------------------------------------- device-plugin-retirement-safe


def _eks_pool(name, stack, **kw):
    return b.resource(b.EKS_NODE_GROUP, b.node_group(labels=b.labels_for(name, stack=stack), name=name, **kw), name)


def test_legacy_namespace_with_a_device_plugin_pool_passes():
    resources = [_ns("old", "legacy"), _ns("mid", "dual"), _eks_pool("dra", "dra"), _eks_pool("t4", "device-plugin")]
    assert b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, resources) == []


def test_legacy_and_dual_namespaces_after_the_last_device_plugin_pool_is_gone():
    resources = [_ns("old", "legacy"), _ns("mid", "dual"), _ns("new", "dra-only"), _eks_pool("dra", "dra")]
    reported = b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, resources)
    assert reported.urns == [b.urn(b.NAMESPACE, "ns-mid"), b.urn(b.NAMESPACE, "ns-old")]
    assert reported.messages[1] == (
        "namespace old is gpu-mode=legacy but no GPU node can run the device plugin (pools: dra); "
        "its nvidia.com/gpu pods would stay Pending."
    )


def test_operator_with_device_plugin_off_leaves_no_capable_node():
    operator = b.resource(
        b.HELM_RELEASE, b.helm_release("gpu-operator", "v25.10.1", NGC, {"devicePlugin": {"enabled": False}}), "op"
    )
    resources = [_ns("old", "legacy"), _eks_pool("t4", "device-plugin"), operator]
    assert len(b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, resources)) == 1


def test_bottlerocket_nvidia_ships_the_device_plugin():
    resources = [_ns("old", "legacy"), _eks_pool("br", "dra", ami="BOTTLEROCKET_x86_64_NVIDIA")]
    assert b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, resources) == []


def test_extended_resource_bridge_serves_nvidia_gpu_through_dra():
    bridged = b.resource(
        b.DEVICE_CLASS, b.device_class("gpu", "device.driver == 'gpu.nvidia.com'", extended="nvidia.com/gpu"), "gpu"
    )
    assert (
        b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, [_ns("old", "legacy"), _eks_pool("dra", "dra"), bridged])
        == []
    )
    chart = b.resource(b.HELM_RELEASE, b.helm_release("dra-driver-nvidia-gpu", "0.4.1", DRA_OCI), "dra-chart")
    cluster_135 = b.resource(b.EKS_CLUSTER, b.eks_cluster(version="1.35"), "eks")
    cluster_136 = b.resource(b.EKS_CLUSTER, b.eks_cluster(version="1.36"), "eks")
    base = [_ns("old", "legacy"), _eks_pool("dra", "dra"), chart]
    assert len(b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, [*base, cluster_135])) == 1  # gate off in 1.35
    assert b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, [*base, cluster_136]) == []


def test_no_declared_gpu_nodes_means_nothing_to_judge():
    assert b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, [_ns("old", "legacy")]) == []


# ---------------------------------------------------------------- dra-driver-not-beside-device-plugin


def _releases(dra_selector=DRA_SELECTOR, plugin=True):
    dra = b.helm_release("dra-driver-nvidia-gpu", "0.4.1", DRA_OCI, {"kubeletPlugin": {"nodeSelector": dra_selector}})
    operator = b.helm_release("gpu-operator", "v25.10.1", NGC, {"devicePlugin": {"enabled": plugin}})
    return [b.resource(b.HELM_RELEASE, dra, "dra"), b.resource(b.HELM_RELEASE, operator, "operator")]


def test_pinned_dra_plugin_and_labelled_pools_pass():
    resources = [*_releases(), _eks_pool("h100", "dra"), _eks_pool("t4", "device-plugin")]
    assert b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, resources) == []


def test_unpinned_dra_plugin_lands_on_the_device_plugin_pool():
    resources = [*_releases(dra_selector={}), _eks_pool("h100", "dra"), _eks_pool("t4", "device-plugin")]
    [(message, urn)] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, resources)
    assert message == (
        "node pool t4: the NVIDIA DRA kubelet plugin of dra-driver-nvidia-gpu (kubeletPlugin.nodeSelector {} (every GPU "
        "node)) runs there and GPU Operator release gpu-operator runs the device plugin on GPU nodes without "
        "nvidia.com/gpu.deploy.device-plugin=false (the pool has true). The two cannot share a node: both would hand out "
        "the same GPUs."
    )
    assert urn == b.urn(b.EKS_NODE_GROUP, "t4")


def test_dra_pool_without_the_operand_label_off():
    labels = {"nvidia.com/dra-kubelet-plugin": "true", "nvidia.com/gpu.present": "true"}
    pool = b.resource(b.EKS_NODE_GROUP, b.node_group(labels=labels, name="h100"), "h100")
    [message] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(), pool]).messages
    assert "(the pool has no such label)" in message
    assert b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(plugin=False), pool]) == []


def test_bottlerocket_dra_pool_and_standalone_device_plugin_chart():
    pool = _eks_pool("h100", "dra", ami="BOTTLEROCKET_x86_64_NVIDIA")
    [message] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(plugin=False), pool]).messages
    assert "its AMI BOTTLEROCKET_x86_64_NVIDIA ships the device plugin" in message
    plugin = b.helm_release(
        "nvidia-device-plugin",
        "0.18.2",
        "https://nvidia.github.io/k8s-device-plugin",
        {"nodeSelector": {"nvidia.com/gpu.present": "true"}},
    )
    resources = [*_releases(plugin=False), _eks_pool("h100", "dra"), b.resource(b.HELM_RELEASE, plugin, "dp")]
    [message] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, resources).messages
    assert (
        "device plugin release nvidia-device-plugin selects it (nodeSelector {nvidia.com/gpu.present: true})" in message
    )


def _bottlerocket_dra_pool(name: str, user_data: str | None, labels: dict | None = None):
    """A Bottlerocket NVIDIA DRA node group whose launch template carries `user_data` (base64)."""
    template_props = {**b.launch_template(), **({"userData": user_data} if user_data else {})}
    template = b.resource(b.LAUNCH_TEMPLATE, template_props, f"{name}-lt")
    config = b.NodePoolConfig(name=name, gpu="H100", maxNodes=1, amiType="BOTTLEROCKET_x86_64_NVIDIA")
    props = b.node_group(
        labels=labels if labels is not None else b.pool_labels(config), name=name, ami="BOTTLEROCKET_x86_64_NVIDIA"
    )
    return [template, b.resource(b.EKS_NODE_GROUP, props, name, dependencies=[template])]


def test_a_bottlerocket_dra_pool_runs_the_host_dra_driver_only_with_its_user_data():
    from dra_gpu_platform.plans import node_hardening

    def bottlerocket_dra_user_data() -> str:
        return node_hardening.encoded(node_hardening.bottlerocket_user_data(host_dra_driver=True))

    def raid0_user_data() -> str:  # an AL2023 document: not Bottlerocket settings
        return node_hardening.encoded(node_hardening.al2023_user_data([{"instance": {}}]))

    host = _bottlerocket_dra_pool("h100", bottlerocket_dra_user_data())
    # the stack's own pool: no chart plugin label, device plugin off, the host driver serves it
    assert b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(plugin=False), *host]) == []
    # no device plugin anywhere: a legacy namespace has nowhere to run
    assert len(b.check_stack(rules.DEVICE_PLUGIN_RETIREMENT_SAFE, [_ns("old", "legacy"), *host])) == 1
    # the chart's plugin selected there too: two DRA drivers
    labelled = _bottlerocket_dra_pool("h100", bottlerocket_dra_user_data(), b.labels_for("h100"))
    [message] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(plugin=False), *labelled]).messages
    assert "runs the NVIDIA DRA driver on the host (user data), a second driver" in message
    # other user data (or none) leaves Bottlerocket's device plugin on
    for user_data in (raid0_user_data(), None):
        plugin_on = _bottlerocket_dra_pool("h100", user_data, b.labels_for("h100"))
        [message] = b.check_stack(
            rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(plugin=False), *plugin_on]
        ).messages
        assert "ships the device plugin" in message


def test_a_gpucluster_puts_its_dra_kubelet_plugin_on_every_gpu_pool():
    operator = b.helm_release("gpu-operator", "v26.7.0", NGC, {"gpuCluster": {"deployCR": True}})
    gpu_cluster = b.resource(b.HELM_RELEASE, operator, "operator")
    assert b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [gpu_cluster, _eks_pool("h100", "dra")]) == []
    bottlerocket = _eks_pool("t4", "device-plugin", ami="BOTTLEROCKET_x86_64_NVIDIA")
    [message] = b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [gpu_cluster, bottlerocket]).messages
    assert "operator (its GPUCluster: every GPU node) runs there and its AMI" in message


def test_kind_workers_are_pools_for_placement():
    command = b.resource(
        b.COMMAND, b.kind_command([b.labels_for("dra"), b.labels_for("t4", stack="device-plugin")]), "kind"
    )
    assert b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(), command]) == []
    assert len(b.check_stack(rules.DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN, [*_releases(dra_selector={}), command])) == 1


# ---------------------------------------------------------------- helm-release-pinned


@pytest.mark.parametrize(
    "chart, version, repo",
    [
        ("gpu-operator", "v25.10.1", NGC),
        ("dra-driver-nvidia-gpu", "0.4.1", DRA_OCI + "/"),
        ("oci://registry.k8s.io/dra-example-driver/charts/dra-example-driver", "0.2.1", None),
    ],
)
def test_pinned_releases_from_allowed_repositories_pass(chart, version, repo):
    assert b.check(helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, b.helm_release(chart, version, repo)) == []


@pytest.mark.parametrize(
    "version, problem",
    [
        (None, "sets no chart version, so every deploy may install a newer chart."),
        ("^25.10.0", "version '^25.10.0' is not an exact release (a range or tag floats)."),
        ("latest", "version 'latest' is not an exact release"),
    ],
)
def test_floating_versions_are_reported(version, problem):
    [message] = b.check(
        helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, b.helm_release("gpu-operator", version, NGC)
    ).messages
    assert message.startswith(f"Helm release gpu-operator (chart gpu-operator) {problem}")


def test_repositories_outside_the_allowed_list():
    props = b.helm_release("gpu-operator", "v25.10.1", "https://charts.example.com/nvidia")
    [message] = b.check(helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, props).messages
    assert message.startswith(
        "Helm release gpu-operator (chart gpu-operator) comes from https://charts.example.com/nvidia, "
        "which is not an allowed repository ("
    )
    assert (
        b.check(
            helm_rules.HELM_RELEASE_PINNED,
            b.HELM_RELEASE,
            props,
            config={"allowedRepositories": ["https://charts.example.com/nvidia"]},
        )
        == []
    )
    [alias] = b.check(
        helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, b.helm_release("nvidia/gpu-operator", "v25.10.1", None)
    ).messages
    assert "names no repository (a local `helm repo add` alias" in alias


def test_local_chart_paths_need_explicit_permission():
    props = b.helm_release("./charts/site", "1.0.0", None)
    [message] = b.check(helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, props).messages
    assert "installs a chart from a local path" in message
    assert b.check(helm_rules.HELM_RELEASE_PINNED, b.HELM_RELEASE, props, config={"allowLocalCharts": True}) == []
