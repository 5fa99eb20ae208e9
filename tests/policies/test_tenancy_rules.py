"""The tenancy rules on hand-built resources: the objects the platform plans pass, and each control taken away (or
weakened the way a hand-written program would) is caught with its message. The admission policies are judged by
running their CEL against the attacks."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.plans.admission_policy import DRA_ONLY_POLICY, WORKLOAD_POLICIES, tenancy_policies
from dra_gpu_platform.plans.namespaces import NamespacePlan, pod_security_labels
from dra_gpu_platform.plans.network_policy import monitoring_policies, tenant_policies
from dra_gpu_platform.plans.quota import PRIORITY_QUOTA
from dra_gpu_platform.policies.rules import tenancy as rules
from tests.policies import builders as b

NETWORK_POLICY = "kubernetes:networking.k8s.io/v1:NetworkPolicy"
EKS_ADDON = "aws:eks/addon:Addon"
GROUPS = ("dra-gpu-platform:deployers",)


def _plan(name: str, mode: str = "dra-only", level: str = "restricted", egress: str = "internet") -> NamespacePlan:
    labels = {"gpu-mode": mode, **pod_security_labels(level, 35)}
    hard = {
        "count/resourceclaims.resource.k8s.io": "4",
        "h100.deviceclass.resource.k8s.io/devices": "4",
        "gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "0",
        "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "0",
        "vfio.gpu.nvidia.com.deviceclass.resource.k8s.io/devices": "0",
        "requests.nvidia.com/gpu": "0",
    }
    return NamespacePlan(name, mode, labels, hard, network_policies=tenant_policies(egress))


def _namespace_resources(plan: NamespacePlan) -> list:
    found = []
    for document in plan.manifests():
        kind = document["kind"]
        type_ = {"Namespace": b.NAMESPACE, "ResourceQuota": b.QUOTA, "NetworkPolicy": NETWORK_POLICY}[kind]
        if kind == "NetworkPolicy":
            document["metadata"]["labels"] = {"app.kubernetes.io/part-of": "dra-gpu-platform"}
        found.append(b.resource(type_, document, f"{plan.name}-{kind}-{document['metadata']['name']}"))
    return found


ALL_POLICIES = (DRA_ONLY_POLICY, *WORKLOAD_POLICIES, *tenancy_policies(GROUPS))


def _guards(policies=ALL_POLICIES) -> list:
    found = []
    for policy in policies:
        found.append(b.resource(b.VAP, policy.policy_manifest(), policy.name))
        found.append(b.resource(b.VAP_BINDING, policy.binding_manifest(), f"{policy.name}-binding"))
    return found


def _classes() -> list:
    return [b.resource(b.DEVICE_CLASS, b.device_class("h100", "device.driver == 'gpu.nvidia.com'"), "h100")]


def _driver() -> list:
    props = b.helm_release(
        "dra-driver-nvidia-gpu",
        "0.4.1",
        None,
        name="dra-driver",
        values={"resources": {"computeDomains": {"enabled": False}}},
    )
    props["chart"] = "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"
    props["namespace"] = "dra-driver-nvidia-gpu"
    driver_ns = b.namespace("dra-driver-nvidia-gpu", None, {"pod-security.kubernetes.io/enforce": "privileged"})
    return [b.resource(b.HELM_RELEASE, props, "dra-driver"), b.resource(b.NAMESPACE, driver_ns, "driver-ns")]


def _stack(*plans: NamespacePlan, guards: list | None = None) -> list:
    resources = [*_classes(), *_driver(), *(guards if guards is not None else _guards())]
    for plan in plans or (_plan("research"), _plan("legacy", "legacy")):
        resources += _namespace_resources(plan)
    return resources


def _with_quota(hard: dict) -> NamespacePlan:
    plan = _plan("research")
    return NamespacePlan(plan.name, plan.migration, plan.labels, hard, network_policies=plan.network_policies)


def test_the_planned_objects_pass_every_tenancy_rule():
    for rule in (
        rules.TENANT_NAMESPACE_POD_SECURITY,
        rules.TENANT_QUOTA_CLOSED,
        rules.TENANT_GUARD_HOLDS,
        rules.TENANT_CONTROLS_GUARDED,
        rules.TENANT_NETWORK_ISOLATED,
    ):
        assert b.check_stack(rule, _stack()) == [], rule.name


# ---------------------------------------------------------------- tenant-namespace-pod-security


def test_a_privileged_or_unlabelled_or_old_tenant_namespace_is_caught():
    privileged = _plan("research", level="privileged")
    unlabelled = NamespacePlan("bare", "dra-only", {"gpu-mode": "dra-only"}, {})
    old = NamespacePlan("old", "legacy", {"gpu-mode": "legacy", **pod_security_labels("baseline", 35)}, {})
    old.labels["pod-security.kubernetes.io/enforce-version"] = "v1.30"
    silent = NamespacePlan(
        "silent", "dual", {"gpu-mode": "dual", "pod-security.kubernetes.io/enforce": "restricted"}, {}
    )
    reported = b.check_stack(rules.TENANT_NAMESPACE_POD_SECURITY, _stack(privileged, unlabelled, old, silent))
    messages = dict(zip(reported.urns, reported.messages, strict=True))
    assert "enforces Pod Security privileged" in messages[b.urn(b.NAMESPACE, "research-Namespace-research")]
    assert "(no label: the cluster default, privileged)" in messages[b.urn(b.NAMESPACE, "bare-Namespace-bare")]
    assert "pins pod-security.kubernetes.io/enforce-version v1.30" in messages[b.urn(b.NAMESPACE, "old-Namespace-old")]
    assert "has no pod-security.kubernetes.io/audit or" in messages[b.urn(b.NAMESPACE, "silent-Namespace-silent")]


def test_privileged_only_where_a_platform_release_runs():
    stray = b.resource(
        b.NAMESPACE, b.namespace("tools", None, {"pod-security.kubernetes.io/enforce": "privileged"}), "t"
    )
    [message] = b.check_stack(rules.TENANT_NAMESPACE_POD_SECURITY, [*_stack(), stray]).messages
    assert message.startswith("namespace tools enforces Pod Security privileged but no Helm release")


# ---------------------------------------------------------------- tenant-quota-closed


def test_a_quota_that_forgets_a_class_leaves_it_unlimited():
    plan = _with_quota({"count/resourceclaims.resource.k8s.io": "4", "h100.deviceclass.resource.k8s.io/devices": "4"})
    [message] = b.check_stack(rules.TENANT_QUOTA_CLOSED, _stack(plan)).messages
    # the driver chart's classes count too: the 0.4.1 chart creates gpu, mig and vfio classes
    assert message.startswith("namespace research has no quota for gpu.nvidia.com, mig.nvidia.com, vfio.gpu.nvidia.com")


def test_a_namespace_without_the_priority_quota_is_caught():
    plan = _plan("research")
    plan = NamespacePlan(plan.name, plan.migration, plan.labels, plan.quota, priority_quota=None)
    [message] = b.check_stack(rules.TENANT_QUOTA_CLOSED, _stack(plan)).messages
    assert "system-cluster-critical and system-node-critical at 0" in message
    # NotIn would match every pod without a priority class: only In closes the system classes
    wrong = copy.deepcopy(PRIORITY_QUOTA.spec())
    wrong["scopeSelector"]["matchExpressions"][0]["operator"] = "NotIn"
    resources = [*_stack(plan), b.resource(b.QUOTA, {**b.quota("research", {}), "spec": wrong}, "notin")]
    assert len(b.check_stack(rules.TENANT_QUOTA_CLOSED, resources)) == 1


# ---------------------------------------------------------------- tenant-guard-holds


def test_the_old_guard_with_its_exemption_and_literal_resource_is_caught():
    old = copy.deepcopy(DRA_ONLY_POLICY.policy_manifest())
    old["spec"]["matchConditions"] = [
        {
            "name": "not-system-node-critical",
            "expression": "!has(object.spec.priorityClassName) || object.spec.priorityClassName != 'system-node-critical'",
        }
    ]
    old["spec"]["matchConstraints"]["resourceRules"][0]["resources"] = ["pods"]
    guards = [b.resource(b.VAP, old, "old"), b.resource(b.VAP_BINDING, DRA_ONLY_POLICY.binding_manifest(), "bind")]
    [message] = b.check_stack(rules.TENANT_GUARD_HOLDS, _stack(_plan("research"), guards=guards)).messages
    assert "priorityClassName system-node-critical" in message  # the exemption a tenant sets
    assert "an ephemeral (kubectl debug) container" in message  # pods/ephemeralcontainers not matched
    assert "a Deployment whose pod template" in message and "a CronJob" in message  # no workload policies


def test_a_guard_bound_to_dra_only_namespaces_leaves_the_others_open():
    narrow = copy.deepcopy(DRA_ONLY_POLICY.binding_manifest())
    narrow["spec"]["matchResources"]["namespaceSelector"] = {"matchLabels": {"gpu-mode": "dra-only"}}
    guards = [b.resource(b.VAP, DRA_ONLY_POLICY.policy_manifest(), "g"), b.resource(b.VAP_BINDING, narrow, "bind")]
    reported = b.check_stack(rules.TENANT_GUARD_HOLDS, _stack(guards=guards))
    assert reported.urns[0] == b.urn(b.NAMESPACE, "legacy-Namespace-legacy")
    assert "a GPU-taint toleration without a claim" in reported.messages[0]


def test_a_guard_that_only_warns_is_no_guard():
    guards = _guards()
    for r in guards:
        if r.resource_type == b.VAP_BINDING:
            r.props["spec"]["validationActions"] = ["Audit"]
    assert len(b.check_stack(rules.TENANT_GUARD_HOLDS, _stack(guards=guards))) == 2


# ---------------------------------------------------------------- tenant-controls-guarded


def test_without_the_label_and_network_policy_guards_a_tenant_undoes_its_controls():
    guards = _guards((DRA_ONLY_POLICY, *WORKLOAD_POLICIES))
    reported = b.check_stack(rules.TENANT_CONTROLS_GUARDED, _stack(guards=guards))
    assert len(reported) == 2
    message = reported.messages[0]
    assert "set gpu-mode=" in message and "remove gpu-mode" in message
    assert "set pod-security.kubernetes.io/enforce=privileged" in message
    assert "delete the platform's NetworkPolicies" in message
    assert "create a NetworkPolicy that opens egress to every address" in message


def test_a_label_guard_bound_to_tenant_namespaces_lets_a_removal_escape():
    labels_policy, network_policy, _ = tenancy_policies(GROUPS)
    binding = copy.deepcopy(labels_policy.binding_manifest())
    binding["spec"]["matchResources"] = {
        "namespaceSelector": {"matchExpressions": [{"key": "gpu-mode", "operator": "Exists"}]}
    }
    guards = [
        *_guards((DRA_ONLY_POLICY, *WORKLOAD_POLICIES, network_policy)),
        b.resource(b.VAP, labels_policy.policy_manifest(), "labels"),
        b.resource(b.VAP_BINDING, binding, "labels-binding"),
    ]
    [message, _] = b.check_stack(rules.TENANT_CONTROLS_GUARDED, _stack(guards=guards)).messages
    assert "remove gpu-mode" in message and "set gpu-mode" not in message


# ---------------------------------------------------------------- tenant-network-isolated


def test_a_namespace_without_default_deny_or_dns_or_with_metadata_open_is_caught():
    bare = NamespacePlan("bare", "dra-only", _plan("x").labels, {}, network_policies=())
    no_dns = _plan("nodns", egress="namespace")
    no_dns = NamespacePlan(
        no_dns.name,
        "dra-only",
        no_dns.labels,
        {},
        network_policies=tuple(p for p in no_dns.network_policies if p.name != "gpu-allow-dns"),
    )
    reported = b.check_stack(rules.TENANT_NETWORK_ISOLATED, _stack(bare, no_dns))
    messages = dict(zip(reported.urns, reported.messages, strict=True))
    assert "no NetworkPolicy isolates every pod" in messages[b.urn(b.NAMESPACE, "bare-Namespace-bare")]
    assert "cluster DNS (UDP and TCP 53) is not allowed" in messages[b.urn(b.NAMESPACE, "nodns-Namespace-nodns")]
    wide_open = {
        "apiVersion": "networking.k8s.io/v1",
        "kind": "NetworkPolicy",
        "metadata": {"name": "egress", "namespace": "research"},
        "spec": {
            "podSelector": {},
            "policyTypes": ["Egress"],
            "egress": [{"to": [{"ipBlock": {"cidr": "169.254.0.0/16"}}]}],
        },
    }
    [message] = b.check_stack(
        rules.TENANT_NETWORK_ISOLATED, [*_stack(_plan("research")), b.resource(NETWORK_POLICY, wide_open, "e")]
    ).messages
    assert "admits the instance metadata address 169.254.169.254/32" in message


@pytest.mark.parametrize(
    "engine, found",
    [
        ({"addonName": "vpc-cni"}, "VPC CNI add-on does not enforce NetworkPolicies"),
        ({"addonName": "vpc-cni", "configurationValues": '{"enableNetworkPolicy": "true"}'}, None),
    ],
)
def test_the_eks_cni_must_enforce_the_policies(engine, found):
    resources = [
        *_stack(),
        b.resource(b.EKS_CLUSTER, b.eks_cluster(False), "eks"),
        b.resource(EKS_ADDON, engine, "cni"),
    ]
    messages = b.check_stack(rules.TENANT_NETWORK_ISOLATED, resources).messages
    assert (messages == []) if found is None else found in messages[0]


def test_an_aks_cluster_without_an_engine_and_an_open_monitoring_namespace_are_caught():
    aks = b.resource(b.AKS_CLUSTER, b.managed_cluster(network_policy="none"), "aks")
    kps = b.helm_release("kube-prometheus-stack", "81.4.3", "https://prometheus-community.github.io/helm-charts")
    kps["namespace"] = "monitoring"
    resources = [*_stack(), aks, b.resource(b.HELM_RELEASE, kps, "kps")]
    messages = b.check_stack(rules.TENANT_NETWORK_ISOLATED, resources).messages
    assert messages[0].startswith("the AKS cluster has no network policy engine (networkProfile.networkPolicy none)")
    assert messages[1].startswith("monitoring namespace monitoring (release kube-prometheus-stack) admits ingress")
    isolated = [
        b.resource(NETWORK_POLICY, p.manifest("monitoring"), p.name)
        for p in monitoring_policies("kube-prometheus-stack")
    ]
    assert len(b.check_stack(rules.TENANT_NETWORK_ISOLATED, [*resources, *isolated])) == 1
