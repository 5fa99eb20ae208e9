"""DRA objects as their components register them (Pulumi mocks) from the stack's plan, without the whole
program: exact DeviceClass CEL, claim template shapes, quota keys, the dra-only admission policy (evaluated with a
real CEL engine), and no invented fields in them or in the GPU software's values."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.plans.stack import StackPlan, plan_stack
from tests.conftest import clean_inputs, qualify
from tests.resources.alone import provider, register

NVIDIA_STACK = {
    "cluster": {"platform": "existing", "name": "gpu-lab", "kubernetesVersion": "1.35", "existing": {"context": "lab"}},
    "kubeconfig": {"secure": "v1:offline"},
    "nodePools": [
        {"name": "h100", "gpu": "H100", "maxNodes": 2, "instanceType": "p5.48xlarge"},
        {
            "name": "a100-mig",
            "gpu": "A100-80GB",
            "maxNodes": 1,
            "instanceType": "p4de.24xlarge",
            "mig": {"profile": "3g.40gb"},
        },
        {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin", "instanceType": "g4dn.xlarge"},
    ],
    # the cluster's own GPU software serves the device-plugin pool: one GPU Operator would serve only one stack
    "gpuOperator": {"enabled": False},
    "deviceClasses": [
        {"name": "h100", "gpu": "H100", "minMemory": "79Gi"},
        {"name": "a100-3g", "gpu": "A100-80GB", "migProfile": "3g.40gb"},
        {"name": "ampere-or-newer", "minComputeCapability": "8.0"},
        {"name": "t4-shared", "gpu": "T4", "sharing": {"strategy": "TimeSlicing", "interval": "Long"}},
    ],
    "namespaces": [
        {
            "name": "research",
            "migration": "dra-only",
            "quota": {"claims": 10, "devices": {"h100": 16, "a100-3g": 4}, "legacyGpus": 0},
            "claimTemplates": [
                {
                    "name": "training-gpus",
                    "deviceClass": "h100",
                    "count": 2,
                    "sameAttribute": "resource.kubernetes.io/pcieRoot",
                },
                {
                    "name": "inference",
                    "firstAvailable": [{"deviceClass": "a100-3g"}, {"deviceClass": "ampere-or-newer", "count": 2}],
                },
                {"name": "whole-node", "deviceClass": "h100", "allocationMode": "All"},
            ],
        },
        {  # admin access only where no tenant workload runs: the platform admins' namespace
            "name": "gpu-admin",
            "adminAccess": True,
            "quota": {"devices": {"gpu.nvidia.com": 32}},
            "claimTemplates": [
                {"name": "monitor", "deviceClass": "gpu.nvidia.com", "allocationMode": "All", "adminAccess": True},
            ],
        },
        {
            "name": "migrating",
            "migration": "dual",
            "quota": {"devices": {"mig.nvidia.com": 7}, "legacyGpus": 4},
            "claimTemplates": [
                {
                    "name": "one-mig",
                    "deviceClass": "mig.nvidia.com",
                    "selectors": ["device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"],
                }
            ],
        },
        {"name": "legacy", "migration": "legacy", "quota": {"legacyGpus": 8}},
    ],
}


def kubernetes_side(plan: StackPlan):
    """The stack's Kubernetes objects, each component from its part of the plan, on one provider."""
    from dra_gpu_platform.resources.dra.device_classes import DeviceClasses, DeviceClassesArgs
    from dra_gpu_platform.resources.software.dra_driver import DraDriver
    from dra_gpu_platform.resources.software.helm_release import ReleaseArgs
    from dra_gpu_platform.resources.tenancy.dra_only_guard import DraOnlyGuard, DraOnlyGuardArgs
    from dra_gpu_platform.resources.tenancy.tenant_namespace import TenantNamespace, TenantNamespaceArgs

    def build():
        k8s = provider()
        DeviceClasses("lab-device-classes", DeviceClassesArgs(plan.device_classes, k8s))
        DraOnlyGuard("lab-dra-only-guard", DraOnlyGuardArgs(plan.admission_policy, k8s))
        for namespace in plan.namespaces:
            TenantNamespace(f"lab-ns-{namespace.name}", TenantNamespaceArgs(namespace, k8s))
        assert plan.software.gpu_operator is None and plan.software.dra_driver is not None
        DraDriver("lab-dra-driver", ReleaseArgs(plan.software.dra_driver, k8s))

    return register(build)


@pytest.fixture(scope="module")
def run():
    config = parse_config_map(qualify(NVIDIA_STACK), stack="lab", source="Pulumi.lab.yaml")
    return SimpleNamespace(resources=kubernetes_side(plan_stack(config)))


def objects(run, kind: str) -> dict[str, dict]:
    found = {}
    for resource in run.resources:
        inputs = clean_inputs(resource)
        if inputs.get("kind") == kind:
            meta = inputs["metadata"]
            found[f"{meta['namespace']}/{meta['name']}" if meta.get("namespace") else meta["name"]] = inputs
    return found


N = "device.attributes['gpu.nvidia.com']"


def test_device_classes_carry_the_exact_cel(run):
    classes = objects(run, "DeviceClass")
    expressions = {name: [s["cel"]["expression"] for s in c["spec"]["selectors"]] for name, c in classes.items()}
    assert expressions == {
        "h100": [
            f"device.driver == 'gpu.nvidia.com' && {N}.type == 'gpu' && {N}.productName.matches('^NVIDIA H100( 80GB HBM3| PCIe)$') && "
            "device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('79Gi')) >= 0"
        ],
        "a100-3g": [
            f"device.driver == 'gpu.nvidia.com' && {N}.type == 'mig' && {N}.productName.matches('^NVIDIA A100(-SXM4-80GB| 80GB PCIe)$') && "
            f"{N}.profile == '3g.40gb'"
        ],
        "ampere-or-newer": [
            f"device.driver == 'gpu.nvidia.com' && {N}.type == 'gpu' && {N}.cudaComputeCapability.compareTo(semver('8.0.0')) >= 0"
        ],
        "t4-shared": [
            f"device.driver == 'gpu.nvidia.com' && {N}.type == 'gpu' && {N}.productName.matches('^Tesla T4$')"
        ],
    }
    assert classes["t4-shared"]["spec"]["config"] == [
        {
            "opaque": {
                "driver": "gpu.nvidia.com",
                "parameters": {
                    "apiVersion": "resource.nvidia.com/v1beta1",
                    "kind": "GpuConfig",
                    "sharing": {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}},
                },
            }
        }
    ]
    assert all(c["apiVersion"] == "resource.k8s.io/v1" for c in classes.values())


def test_claim_templates_have_v1_shapes(run):
    templates = objects(run, "ResourceClaimTemplate")
    devices = {name: t["spec"]["spec"]["devices"] for name, t in templates.items()}
    assert devices["research/training-gpus"] == {
        "requests": [
            {"name": "gpu", "exactly": {"deviceClassName": "h100", "allocationMode": "ExactCount", "count": 2}}
        ],
        "constraints": [{"requests": ["gpu"], "matchAttribute": "resource.kubernetes.io/pcieRoot"}],
    }
    assert devices["research/inference"] == {
        "requests": [
            {
                "name": "gpu",
                "firstAvailable": [
                    {"name": "a100-3g", "deviceClassName": "a100-3g", "allocationMode": "ExactCount", "count": 1},
                    {
                        "name": "ampere-or-newer",
                        "deviceClassName": "ampere-or-newer",
                        "allocationMode": "ExactCount",
                        "count": 2,
                    },
                ],
            }
        ]
    }
    assert devices["research/whole-node"]["requests"][0]["exactly"] == {
        "deviceClassName": "h100",
        "allocationMode": "All",
    }
    assert devices["gpu-admin/monitor"]["requests"][0]["exactly"]["adminAccess"] is True
    assert devices["migrating/one-mig"]["requests"][0]["exactly"]["selectors"] == [
        {"cel": {"expression": "device.attributes['gpu.nvidia.com'].profile == '3g.40gb'"}}
    ]
    # counts are integers in the manifests, not the 2.0 protobuf hands back
    assert isinstance(devices["research/training-gpus"]["requests"][0]["exactly"]["count"], int)


def test_quotas_close_every_class_of_the_cluster(run):
    quotas = {name: q["spec"] for name, q in objects(run, "ResourceQuota").items()}
    classes = (
        "a100-3g",
        "ampere-or-newer",
        "gpu.nvidia.com",
        "h100",
        "mig.nvidia.com",
        "t4-shared",
        "vfio.gpu.nvidia.com",
    )
    closed = {f"{c}.deviceclass.resource.k8s.io/devices": "0" for c in classes}
    assert quotas["research/gpu-quota"]["hard"] == {
        **closed,
        "count/resourceclaims.resource.k8s.io": "10",
        "a100-3g.deviceclass.resource.k8s.io/devices": "4",
        "h100.deviceclass.resource.k8s.io/devices": "16",
        "requests.nvidia.com/gpu": "0",
    }
    assert quotas["migrating/gpu-quota"]["hard"] == {
        **closed,
        "mig.nvidia.com.deviceclass.resource.k8s.io/devices": "7",
        "count/resourceclaims.resource.k8s.io": "7",  # as many claims as the granted devices back
        "requests.nvidia.com/gpu": "4",
    }
    # a legacy namespace makes no DRA claims at all: every class and the claim count at 0
    assert quotas["legacy/gpu-quota"]["hard"] == {
        **closed,
        "count/resourceclaims.resource.k8s.io": "0",
        "requests.nvidia.com/gpu": "8",
    }
    for namespace in ("research", "migrating", "legacy"):
        assert quotas[f"{namespace}/gpu-system-priority"] == {
            "hard": {"pods": "0"},
            "scopeSelector": {
                "matchExpressions": [
                    {
                        "operator": "In",
                        "scopeName": "PriorityClass",
                        "values": ["system-cluster-critical", "system-node-critical"],
                    }
                ]
            },
        }


def test_namespaces_are_labelled_with_their_migration_state(run):
    tenants = {ns["name"] for ns in NVIDIA_STACK["namespaces"]}  # the GPU software has namespaces of its own
    labels = {name: ns["metadata"]["labels"] for name, ns in objects(run, "Namespace").items() if name in tenants}
    assert {name: mode["gpu-mode"] for name, mode in labels.items()} == {
        "research": "dra-only",
        "gpu-admin": "dra-only",
        "migrating": "dual",
        "legacy": "legacy",
    }
    assert labels["gpu-admin"]["resource.kubernetes.io/admin-access"] == "true"
    assert "resource.kubernetes.io/admin-access" not in labels["research"]
    assert "resource.kubernetes.io/admin-access" not in labels["migrating"]


def test_the_gpu_guard_is_bound_to_every_tenant_namespace_and_covers_ephemeral_containers(run):
    binding = objects(run, "ValidatingAdmissionPolicyBinding")["gpu-dra-only"]
    assert binding["spec"]["policyName"] == "gpu-dra-only"
    assert binding["spec"]["matchResources"]["namespaceSelector"] == {
        "matchExpressions": [{"key": "gpu-mode", "operator": "Exists"}]
    }
    assert binding["spec"]["validationActions"] == ["Deny", "Audit"]
    policy = objects(run, "ValidatingAdmissionPolicy")["gpu-dra-only"]
    assert policy["spec"]["matchConstraints"]["resourceRules"] == [
        {
            "apiGroups": [""],
            "apiVersions": ["v1"],
            "operations": ["CREATE", "UPDATE"],
            "resources": ["pods", "pods/ephemeralcontainers"],
        }
    ]
    # no exemption a tenant can set, and an error denies
    assert "matchConditions" not in policy["spec"] and policy["spec"]["failurePolicy"] == "Fail"
    # the registered objects are the plan's, field for field (the plan is what `gpuplan fit` evaluates)
    from dra_gpu_platform.plans.admission_policy import DRA_ONLY_POLICY

    assert policy["spec"] == DRA_ONLY_POLICY.policy_manifest()["spec"]


def _pod(containers, init=None, priority=None, **spec):
    spec = {"containers": containers, **spec}
    if init is not None:
        spec["initContainers"] = init
    if priority:
        spec["priorityClassName"] = priority
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "research"}, "spec": spec}


GPU = {"nvidia.com/gpu": "1"}
CLAIM = {"resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "training-gpus"}]}
TOLERATE_GPU = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]


@pytest.mark.parametrize(
    "pod, allowed",
    [
        (_pod([{"name": "train", "resources": {"claims": [{"name": "gpu"}]}}], **CLAIM), True),
        (_pod([{"name": "cpu", "resources": {"requests": {"cpu": "1"}}}]), True),
        (_pod([{"name": "plain"}]), True),
        (_pod([{"name": "train", "resources": {"limits": GPU}}]), False),
        (_pod([{"name": "app"}], init=[{"name": "warmup", "resources": {"requests": GPU}}]), False),
        (_pod([{"name": "slice", "resources": {"limits": {"nvidia.com/mig-1g.10gb": "1"}}}]), False),
        (_pod([{"name": "shared", "resources": {"limits": {"nvidia.com/gpu.shared": "1"}}}]), False),
        # the exemption a tenant could set is gone: a system priority is refused outright
        (_pod([{"name": "node-agent", "resources": {"limits": GPU}}], priority="system-node-critical"), False),
        (_pod([{"name": "agent"}], priority="system-cluster-critical"), False),
        (_pod([{"name": "all", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "all"}]}], **CLAIM), False),
        (_pod([{"name": "void", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "void"}]}]), True),
        (
            _pod(
                [{"name": "a"}],
                ephemeralContainers=[{"name": "dbg", "env": [{"name": "NVIDIA_VISIBLE_DEVICES", "value": "0"}]}],
            ),
            False,
        ),
        (_pod([{"name": "sneak"}], tolerations=TOLERATE_GPU), False),
        (_pod([{"name": "sneak"}], tolerations=[{"operator": "Exists"}]), False),
        (
            _pod([{"name": "train", "resources": {"claims": [{"name": "gpu"}]}}], tolerations=TOLERATE_GPU, **CLAIM),
            True,
        ),
        (_pod([{"name": "pinned"}], nodeName="gpu-node-1"), False),
    ],
    ids=[
        "dra-claim",
        "cpu-only",
        "no-resources",
        "limits-gpu",
        "init-requests-gpu",
        "mig-slice",
        "time-sliced",
        "system-node-critical",
        "system-cluster-critical",
        "visible-devices-env",
        "void-env",
        "ephemeral-env",
        "gpu-toleration-without-claim",
        "tolerate-everything",
        "gpu-toleration-with-claim",
        "node-name",
    ],
)
def test_gpu_guard_cel_allows_and_denies_pods(run, pod, allowed):
    from dra_gpu_platform.plans.admission_policy import AdmissionRequest, denials

    policy = objects(run, "ValidatingAdmissionPolicy")["gpu-dra-only"]
    namespace = {"metadata": {"name": "research", "labels": {"gpu-mode": "dra-only"}}}
    found = denials(policy["spec"], AdmissionRequest(pod, namespace))
    assert (found == []) is allowed, found
    assert not any(message.startswith("policy error") for message in found)
    if any(
        "nvidia.com/" in str(c.get("resources"))
        for c in pod["spec"]["containers"] + pod["spec"].get("initContainers", [])
    ):
        name = (pod["spec"].get("initContainers") or pod["spec"]["containers"])[0]["name"]
        assert found[0].startswith("namespace research is gpu-mode=dra-only: container(s) ")
        assert name in found[0] and "spec.resourceClaims" in found[0]


def test_legacy_namespaces_keep_nvidia_gpu_and_lose_the_rest(run):
    from dra_gpu_platform.plans.admission_policy import AdmissionRequest, denials

    spec = objects(run, "ValidatingAdmissionPolicy")["gpu-dra-only"]["spec"]
    legacy = {"metadata": {"name": "legacy", "labels": {"gpu-mode": "legacy"}}}
    gpu_pod = _pod([{"name": "train", "resources": {"limits": GPU}}], tolerations=TOLERATE_GPU)
    assert denials(spec, AdmissionRequest(gpu_pod, legacy)) == []
    # zero GPUs is no GPU: the toleration would put an unallocated container on a GPU node
    zero = _pod([{"name": "train", "resources": {"limits": {"nvidia.com/gpu": "0"}}}], tolerations=TOLERATE_GPU)
    assert "tolerates the GPU taint" in denials(spec, AdmissionRequest(zero, legacy))[0]
    # a running pod keeps its nodeName through updates; only creating a pod with one is refused
    bound = _pod([{"name": "train", "resources": {"limits": GPU}}], nodeName="gpu-node-1")
    assert denials(spec, AdmissionRequest(bound, legacy, operation="UPDATE")) == []
    assert "skips the scheduler" in denials(spec, AdmissionRequest(bound, legacy))[0]


INVENTED_KEYS = {"alternatives", "priority", "operator"}  # request/constraint fields articles invent
INVENTED = [
    "GpuClaimParameters",
    "NVIDIA_VISIBLE_DEVICES",
    "DevicePlugins",
    "nvlink-domain",
    "parametersRef",
    "coexistWithDevicePlugin",
    "enableDRA",
    "enableDevicePlugin",
]


def _keys(node, path=()):
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), key
            yield from _keys(value, (*path, key))
    elif isinstance(node, list):
        for value in node:
            yield from _keys(value, path)


def test_no_object_uses_an_invented_field(run):
    for resource in run.resources:
        inputs = clean_inputs(resource)
        text = json.dumps(inputs)
        for word in INVENTED:
            # the GPU guard names the NVIDIA runtime's variable to deny it in pods; no DRA object carries it
            if word == "NVIDIA_VISIBLE_DEVICES" and inputs.get("kind") == "ValidatingAdmissionPolicy":
                continue
            assert word not in text, (resource.urn, word)
        for path, key in _keys(inputs):
            if "requests" in path or "constraints" in path:
                assert key not in INVENTED_KEYS, (resource.urn, path)
            if "constraints" in path:
                assert key in ("constraints", "requests", "matchAttribute", "distinctAttribute"), (resource.urn, path)
            assert not key.endswith(".resource.k8s.io/count"), (resource.urn, key)


def test_every_kubernetes_resource_uses_the_explicit_provider(run):
    (provider,) = [r for r in run.resources if r.type == "pulumi:providers:kubernetes"]
    kubernetes = [r for r in run.resources if r.custom and r.type.startswith("kubernetes:")]
    assert kubernetes and all(r.provider == provider.urn for r in kubernetes)
