"""The tenancy plans: quotas that close (per minor, with the extended-resource bridge), Pod Security labels, the
NetworkPolicies, and the guards' CEL (dra_gpu_platform/plans/admission_policy.py, the one place it lives) evaluated as the
API server evaluates it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.plans import admission_policy as ap
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import qualify

DEPLOYERS = ("dra-gpu-platform:deployers",)


def _eks(minor: str = "1.35", bridge: bool = False, namespaces=None, **cluster):
    config = {
        "aws:region": "us-east-1",
        "cluster": {
            "platform": "eks",
            "name": "gpu",
            "kubernetesVersion": minor,
            "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"], **cluster},
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
        "draDriver": {"extendedResourceBridge": bridge},
        "deviceClasses": [{"name": "h100", "gpu": "H100"}],
        "namespaces": namespaces
        or [
            {"name": "research", "quota": {"devices": {"h100": 8, "gpu.nvidia.com": 2}}},
            {"name": "legacy", "migration": "legacy", "quota": {"legacyGpus": 4}},
            {"name": "empty", "podSecurity": "baseline", "egress": "namespace"},
        ],
    }
    return plan_stack(parse_config_map(qualify(config), stack="t", source="t.yaml"))


def _ns(plan, name):
    return next(n for n in plan.namespaces if n.name == name)


CLASSES = ("gpu.nvidia.com", "h100", "mig.nvidia.com", "vfio.gpu.nvidia.com")


def test_every_class_of_the_cluster_is_in_every_quota_at_0_unless_granted():
    plan = _eks()
    research, legacy, empty = (_ns(plan, n).quota for n in ("research", "legacy", "empty"))
    for hard in (research, legacy, empty):
        assert {k for k in hard if k.endswith(".deviceclass.resource.k8s.io/devices")} == {
            f"{c}.deviceclass.resource.k8s.io/devices" for c in CLASSES
        }
    assert research["h100.deviceclass.resource.k8s.io/devices"] == "8"
    assert research["mig.nvidia.com.deviceclass.resource.k8s.io/devices"] == "0"
    assert research["count/resourceclaims.resource.k8s.io"] == "10"  # as many claims as granted devices
    # a legacy namespace makes no claims; a namespace with no quota block is closed altogether
    assert legacy["count/resourceclaims.resource.k8s.io"] == "0" and legacy["requests.nvidia.com/gpu"] == "4"
    assert set(empty.values()) == {"0"}
    # 1.35 without DRAExtendedResource: the implicit keys are not counted, so none is written
    assert not any(k.startswith("requests.deviceclass.resource.kubernetes.io/") for k in research)


def test_from_1_36_the_implicit_and_extended_keys_follow_the_grants_and_the_bridge_admits_legacy_pods():
    plan = _eks("1.36", bridge=True)
    research, legacy = _ns(plan, "research").quota, _ns(plan, "legacy").quota
    for cls in CLASSES:  # every claim of a class is charged its implicit key too: same value as the class key
        assert (
            research[f"requests.deviceclass.resource.kubernetes.io/{cls}"]
            == research[f"{cls}.deviceclass.resource.k8s.io/devices"]
        )
    # gpu.nvidia.com carries extendedResourceName nvidia.com/gpu: its claims are charged requests.nvidia.com/gpu
    assert research["requests.nvidia.com/gpu"] == "2"
    # the bridge: a legacy namespace's nvidia.com/gpu pods on DRA nodes get gpu.nvidia.com claims from the scheduler
    assert legacy["gpu.nvidia.com.deviceclass.resource.k8s.io/devices"] == "4"
    assert legacy["requests.deviceclass.resource.kubernetes.io/gpu.nvidia.com"] == "4"
    assert legacy["count/resourceclaims.resource.k8s.io"] == "4"
    assert legacy["h100.deviceclass.resource.k8s.io/devices"] == "0" and legacy["requests.nvidia.com/gpu"] == "4"


@settings(max_examples=25, deadline=None)
@given(
    grants=st.dictionaries(st.sampled_from(CLASSES), st.integers(0, 16), max_size=4),
    claims=st.one_of(st.none(), st.integers(0, 20)),
    legacy=st.integers(0, 8),
    mode=st.sampled_from(["legacy", "dual", "dra-only"]),
)
def test_a_quota_never_grants_more_than_the_stack_says(grants, claims, legacy, mode):
    quota = {"legacyGpus": 0 if mode == "dra-only" else legacy}
    if mode != "legacy":
        quota["devices"] = grants
    if claims is not None:
        quota["claims"] = claims
    hard = _ns(_eks(namespaces=[{"name": "ns", "migration": mode, "quota": quota}]), "ns").quota
    for cls in CLASSES:
        assert int(hard[f"{cls}.deviceclass.resource.k8s.io/devices"]) == quota.get("devices", {}).get(cls, 0)
    expected_claims = claims if claims is not None else sum(quota.get("devices", {}).values())
    assert int(hard["count/resourceclaims.resource.k8s.io"]) == expected_claims
    assert int(hard["requests.nvidia.com/gpu"]) == quota["legacyGpus"]


def test_pod_security_labels_and_network_policies():
    plan = _eks()
    research, empty = _ns(plan, "research"), _ns(plan, "empty")
    assert {k: v for k, v in research.labels.items() if k.startswith("pod-security")} == {
        "pod-security.kubernetes.io/enforce": "restricted",
        "pod-security.kubernetes.io/enforce-version": "v1.35",
        "pod-security.kubernetes.io/audit": "restricted",
        "pod-security.kubernetes.io/audit-version": "latest",
        "pod-security.kubernetes.io/warn": "restricted",
        "pod-security.kubernetes.io/warn-version": "latest",
    }
    assert empty.labels["pod-security.kubernetes.io/enforce"] == "baseline"
    assert [p.name for p in research.network_policies] == [
        "gpu-allow-dns",
        "gpu-allow-internet",
        "gpu-allow-same-namespace",
        "gpu-default-deny",
    ]
    internet = next(p for p in research.network_policies if p.name == "gpu-allow-internet").spec()
    assert internet["egress"] == [{"to": [{"ipBlock": {"cidr": "0.0.0.0/0", "except": ["169.254.169.254/32"]}}]}]
    assert "gpu-allow-internet" not in [p.name for p in empty.network_policies]  # egress: namespace
    dns = next(p for p in research.network_policies if p.name == "gpu-allow-dns").spec()
    assert dns["egress"][0]["ports"] == [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]


def test_the_guards_know_the_deployer_of_each_platform():
    assert _eks().deployer_groups == DEPLOYERS
    assert [p.name for p in _eks().tenancy_policies] == [
        "gpu-namespace-labels",
        "gpu-tenant-network-policies",
        "gpu-tenant-services",
    ]


# ---------------------------------------------------------------- the guards' CEL


def _ns_object(labels):
    return {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team", "labels": labels}}


LABELS = ap.namespace_labels_policy(DEPLOYERS).policy_manifest()["spec"]
TENANT = {"gpu-mode": "dra-only", "pod-security.kubernetes.io/enforce": "restricted"}


@pytest.mark.parametrize(
    "old, new, groups, denied",
    [
        (TENANT, {**TENANT, "gpu-mode": "legacy"}, (), True),
        (TENANT, {"pod-security.kubernetes.io/enforce": "restricted"}, (), True),  # removing gpu-mode does not escape
        (TENANT, {**TENANT, "pod-security.kubernetes.io/enforce": "privileged"}, ("system:authenticated",), True),
        (TENANT, {**TENANT, "team": "a"}, (), False),  # other labels stay the tenant's admins'
        (TENANT, {**TENANT, "gpu-mode": "legacy"}, DEPLOYERS, False),
        ({"team": "a"}, {"team": "b"}, (), False),  # not a tenant namespace: not this guard's business
        (None, TENANT, (), True),  # creating a tenant namespace is the deployer's
        (None, TENANT, DEPLOYERS, False),
    ],
)
def test_only_the_deployer_changes_tenant_namespace_labels(old, new, groups, denied):
    operation = "CREATE" if old is None else "UPDATE"
    request = ap.AdmissionRequest(
        _ns_object(new), None, operation=operation, old_object=_ns_object(old) if old else None, groups=groups
    )
    found = ap.denials(LABELS, request)
    assert bool(found) is denied, found
    assert not any(f.startswith("policy error") for f in found)


NETWORK = ap.network_policies_policy(DEPLOYERS).policy_manifest()["spec"]
PLATFORM = {
    "metadata": {"name": "gpu-default-deny", "labels": {"app.kubernetes.io/part-of": "dra-gpu-platform"}},
    "spec": {},
}


@pytest.mark.parametrize(
    "operation, obj, old, groups, denied",
    [
        ("DELETE", None, PLATFORM, (), True),
        ("UPDATE", {**PLATFORM, "spec": {"podSelector": {}, "egress": [{}]}}, PLATFORM, (), True),
        ("DELETE", None, PLATFORM, DEPLOYERS, False),
        ("CREATE", {"metadata": {"name": "web"}, "spec": {"egress": [{"to": [{"podSelector": {}}]}]}}, None, (), False),
        (
            "CREATE",
            {"metadata": {"name": "imds"}, "spec": {"egress": [{"to": [{"ipBlock": {"cidr": "169.254.169.254/32"}}]}]}},
            None,
            (),
            True,
        ),
        ("CREATE", {"metadata": {"name": "all"}, "spec": {"egress": [{}]}}, None, (), True),
        (
            "CREATE",
            {"metadata": {"name": "fake", "labels": PLATFORM["metadata"]["labels"]}, "spec": {}},
            None,
            (),
            True,
        ),
    ],
)
def test_tenants_keep_their_hands_off_the_platforms_network_policies(operation, obj, old, groups, denied):
    namespace = _ns_object(TENANT)
    request = ap.AdmissionRequest(obj, namespace, operation=operation, old_object=old, groups=groups)
    found = ap.denials(NETWORK, request)
    assert bool(found) is denied, found
    assert not any(f.startswith("policy error") for f in found)


def test_a_namespace_being_deleted_loses_its_network_policies():
    # the namespace controller (not the deployer) deletes what is left in a namespace being deleted
    terminating = {
        **_ns_object(TENANT),
        "metadata": {**_ns_object(TENANT)["metadata"], "deletionTimestamp": "2030-01-01T00:00:00Z"},
    }
    request = ap.AdmissionRequest(
        None, terminating, operation="DELETE", old_object=PLATFORM, groups=("system:serviceaccounts",)
    )
    assert ap.denials(NETWORK, request) == []


def test_the_workload_guards_read_the_pod_template():
    env = [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]
    template = {"spec": {"containers": [{"name": "main", "env": env}]}}
    deployment = {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": template}}
    cronjob = {"kind": "CronJob", "metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": {"template": template}}}}
    namespace = _ns_object(TENANT)
    workloads, cronjobs = (p.policy_manifest()["spec"] for p in ap.WORKLOAD_POLICIES)
    assert "set NVIDIA_VISIBLE_DEVICES" in ap.denials(workloads, ap.AdmissionRequest(deployment, namespace))[0]
    assert "set NVIDIA_VISIBLE_DEVICES" in ap.denials(cronjobs, ap.AdmissionRequest(cronjob, namespace))[0]
    fine = {
        "kind": "Deployment",
        "metadata": {"name": "d"},
        "spec": {"template": {"spec": {"containers": [{"name": "m"}]}}},
    }
    assert ap.denials(workloads, ap.AdmissionRequest(fine, namespace)) == []
