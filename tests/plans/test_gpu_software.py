"""The GPU software decision table: platform × driver ownership × pool modes × MIG × monitoring (and the DRA
chart generation) → the Helm values of the GPU Operator and the DRA driver. One row per case, as data."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import driver_charts
from dra_gpu_platform.plans import gpu_software as gsv
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import qualify

ABSENT = object()  # the key must not be set (the chart default applies)

H100_DRA = {"name": "h100", "gpu": "H100", "maxNodes": 2}
H100_MIG = {"name": "h100-mig", "gpu": "H100", "maxNodes": 2, "mig": {"profile": "3g.40gb"}}
A100_MIG_1G = {"name": "a100-mig", "gpu": "A100-80GB", "maxNodes": 1, "mig": {"profile": "1g.10gb"}}
T4_PLUGIN = {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"}
T4_PLUGIN_BR = {**T4_PLUGIN, "name": "t4-br", "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}
H100_DRA_BR = {**H100_DRA, "name": "h100-br", "amiType": "BOTTLEROCKET_x86_64_NVIDIA"}
AKS_A100 = {"name": "a100", "gpu": "A100-80GB", "maxNodes": 2}
GB200_DRA = {"name": "gb200", "gpu": "GB200", "maxNodes": 2}
GB200_BLOCK = {  # on EKS p6e-gb200 is sold only as Capacity Blocks
    **GB200_DRA,
    "capacity": "capacity-block",
    "capacityReservationId": "cr-0123456789abcdef0",
    "availabilityZone": "us-east-1a",
}
AKS_T4 = {"name": "t4", "gpu": "T4", "maxNodes": 2, "gpuStack": "device-plugin"}
SHARED_CLASS = {"name": "shared", "gpu": "H100", "sharing": {"strategy": "TimeSlicing", "interval": "Long"}}
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}
SPOT_TOLERATION = {
    "key": "kubernetes.azure.com/scalesetpriority",
    "operator": "Equal",
    "value": "spot",
    "effect": "NoSchedule",
}
MPS_CLASS = {"name": "mps", "gpu": "H100", "sharing": {"strategy": "MPS", "defaultActiveThreadPercentage": 50}}

CLUSTERS = {
    "eks": (
        {
            "platform": "eks",
            "name": "c",
            "kubernetesVersion": "1.35",
            "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
        },
        {"aws:region": "us-east-1"},
    ),
    "aks": (
        {
            "platform": "aks",
            "name": "c",
            "kubernetesVersion": "1.35",
            "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
        },
        {"azure-native:location": "eastus"},
    ),
    "existing": ({"platform": "existing", "name": "c", "kubernetesVersion": "1.35"}, {"kubeconfig": "apiVersion: v1"}),
    "kind-nvidia": (
        {"platform": "kind", "name": "c", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "nvidia"}},
        {},
    ),
    "kind-example": (
        {"platform": "kind", "name": "c", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "example"}},
        {},
    ),
}


def stack(platform: str, pools: list[dict], **sections: Any) -> StackConfig:
    cluster, extra = CLUSTERS[platform]
    config = {"cluster": copy.deepcopy(cluster), "nodePools": copy.deepcopy(pools), **extra, **sections}
    return parse_config_map(qualify(config), stack="table", source="Pulumi.table.yaml")


# id, stack, expected GPU Operator values (None: not installed), expected DRA driver values (None: not installed)
TABLE: list[tuple[str, dict, dict | None, dict | None]] = [
    (
        "eks-al2023-dra-only",
        {"platform": "eks", "pools": [H100_DRA]},
        {
            "driver.enabled": False,
            "toolkit.enabled": False,
            "devicePlugin.enabled": False,
            "cdi.enabled": True,
            "mig.strategy": "none",
            "migManager.enabled": False,
            "dcgmExporter.enabled": False,
            "dcgmExporter.serviceMonitor.enabled": False,
            "dcgmExporter.serviceMonitor.honorLabels": ABSENT,
            "operator": ABSENT,
            "driver.manager": ABSENT,
            "node-feature-discovery.master": ABSENT,
            "node-feature-discovery.worker.config": ABSENT,
        },
        {
            "nvidiaDriverRoot": "/",
            "gpuResourcesEnabledOverride": True,
            "resourceApiVersion": "resource.k8s.io/v1",
            "resources.computeDomains.enabled": False,
            "featureGates": ABSENT,
            # the controller renders only with ComputeDomains (templates/controller.yaml:15): no dead affinity
            "controller": ABSENT,
            "kubeletPlugin.affinity": ABSENT,
            "kubeletPlugin.nodeSelector": {"nvidia.com/dra-kubelet-plugin": "true"},
        },
    ),
    (
        "eks-bottlerocket-plugin-pool-only",
        {"platform": "eks", "pools": [H100_DRA, T4_PLUGIN_BR]},
        {
            "devicePlugin.enabled": False,
            "node-feature-discovery.master.config.extraLabelNs": ["nvidia.com"],
            "node-feature-discovery.worker.config.sources.custom.0.labels": {
                "nvidia.com/gpu.deploy.device-plugin": "false",
                "nvidia.com/gpu.deploy.driver": "false",
                "nvidia.com/gpu.deploy.container-toolkit": "false",
                "nvidia.com/gpu.deploy.mig-manager": "false",
            },
        },
        {"nvidiaDriverRoot": "/"},
    ),
    (
        # the host runs the DRA driver: the chart keeps its nodeSelector (which these nodes do not match) and the
        # operator's Bottlerocket opt-outs cover the DRA pool too
        "eks-bottlerocket-dra-pool",
        {"platform": "eks", "pools": [H100_DRA, H100_DRA_BR, T4_PLUGIN_BR]},
        {
            "devicePlugin.enabled": False,
            "node-feature-discovery.master.config.extraLabelNs": ["nvidia.com"],
            "clusterPolicy": ABSENT,
            "gpuCluster": ABSENT,
        },
        {"kubeletPlugin.nodeSelector": {"nvidia.com/dra-kubelet-plugin": "true"}},
    ),
    (
        # gpuOperator.draManagement: gpucluster: the operator deploys the DRA driver, no DRA release; only keys the
        # GPUCluster path reads (gpu-operator v26.7.0 templates/gpucluster.yaml, validations.yaml)
        "eks-gpucluster",
        {
            "platform": "eks",
            "pools": [H100_DRA],
            "gpuOperator": {"version": "v26.7.0", "draManagement": "gpucluster"},
            "deviceClasses": [SHARED_CLASS],
            "monitoring": {"enabled": True},
        },
        {
            "clusterPolicy.deployCR": False,
            "gpuCluster.deployCR": True,
            "driver.enabled": False,
            "draDriver.computeDomains.enabled": False,
            "draDriver.featureGates": {"TimeSlicingSettings": True},
            "dcgmExporter.enabled": True,
            "dcgmExporter.serviceMonitor.honorLabels": True,
            "dcgmExporter.env": ABSENT,  # the operator's dcgm-exporter-dra maps DRA pods by itself
            "devicePlugin": ABSENT,
            "toolkit": ABSENT,
            "cdi": ABSENT,
            "mig": ABSENT,
            "migManager": ABSENT,
            "daemonsets.tolerations": [GPU_TOLERATION],
        },
        None,
    ),
    (
        "eks-bottlerocket-beside-al2023-plugin-pools",
        {"platform": "eks", "pools": [T4_PLUGIN, T4_PLUGIN_BR]},
        {"devicePlugin.enabled": True, "node-feature-discovery.master.config.extraLabelNs": ["nvidia.com"]},
        {"nvidiaDriverRoot": "/"},
    ),
    (
        "eks-mig-single",
        {"platform": "eks", "pools": [H100_MIG]},
        {
            "mig.strategy": "single",
            "migManager.enabled": True,
            "migManager.env": [{"name": "WITH_REBOOT", "value": "true"}],
        },
        # the kubelet plugin scans GPUs once: it starts after mig-manager applied the layout
        {
            "nvidiaDriverRoot": "/",
            "kubeletPlugin.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms": [
                {
                    "matchExpressions": [
                        {"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]},
                        {"key": "nvidia.com/mig.config", "operator": "DoesNotExist"},
                    ]
                },
                {
                    "matchExpressions": [
                        {"key": "feature.node.kubernetes.io/pci-10de.present", "operator": "In", "values": ["true"]},
                        {"key": "nvidia.com/mig.config.state", "operator": "In", "values": ["success"]},
                    ]
                },
            ],
        },
    ),
    (
        "eks-mig-beside-full-gpus",
        {"platform": "eks", "pools": [H100_MIG, H100_DRA]},
        {"mig.strategy": "mixed", "migManager.enabled": True, "devicePlugin.enabled": False},
        {},
    ),
    ("eks-mig-two-profiles", {"platform": "eks", "pools": [H100_MIG, A100_MIG_1G]}, {"mig.strategy": "mixed"}, {}),
    (
        "eks-monitoring",
        {"platform": "eks", "pools": [H100_DRA], "monitoring": {"enabled": True}},
        {
            "dcgmExporter.enabled": True,
            "dcgmExporter.serviceMonitor.enabled": True,
            "dcgmExporter.serviceMonitor.honorLabels": True,
        },
        {},
    ),
    (
        "eks-operator-disabled",
        {"platform": "eks", "pools": [H100_DRA], "gpuOperator": {"enabled": False}},
        None,
        {"nvidiaDriverRoot": "/"},
    ),
    (
        "aks-default-pools",
        {"platform": "aks", "pools": [AKS_A100, {**AKS_T4, "gpuStack": "dra"}]},
        {
            "driver.enabled": False,
            "toolkit.enabled": False,
            "operator.runtimeClass": "nvidia-container-runtime",
            "devicePlugin.enabled": False,
        },
        {"nvidiaDriverRoot": "/", "controller": ABSENT},
    ),
    (
        "aks-device-plugin-pools-only",
        {"platform": "aks", "pools": [AKS_T4]},
        {"devicePlugin.enabled": True, "mig.strategy": "none"},
        {},
    ),
    (
        "aks-calver-compute-domains",
        {"platform": "aks", "pools": [GB200_DRA], "draDriver": {"version": "25.12.0", "computeDomains": True}},
        {},
        {
            "controller.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchExpressions": [{"key": "kubernetes.io/os", "operator": "In", "values": ["linux"]}]}
                ]
            }
        },
    ),
    (
        "aks-spot-pool",
        {"platform": "aks", "pools": [{**AKS_A100, "capacity": "spot"}, {**AKS_T4, "gpuStack": "dra"}]},
        {
            "daemonsets.tolerations": [GPU_TOLERATION, SPOT_TOLERATION],
            "node-feature-discovery.worker.tolerations": [GPU_TOLERATION, SPOT_TOLERATION],
        },
        {"kubeletPlugin.tolerations": [GPU_TOLERATION, SPOT_TOLERATION]},
    ),
    (
        "aks-driver-none-pools-operator-driver-with-dra",
        {"platform": "aks", "pools": [AKS_A100], "gpuOperator": {"driver": "operator"}},
        {
            "driver.enabled": True,
            "toolkit.enabled": True,
            "operator": ABSENT,
            "driver.manager.env": [
                {"name": "NODE_LABEL_FOR_GPU_POD_EVICTION", "value": "nvidia.com/dra-kubelet-plugin"}
            ],
        },
        {"nvidiaDriverRoot": "/run/nvidia/driver"},
    ),
    (
        "aks-operator-driver-plugin-pools-only",
        {"platform": "aks", "pools": [AKS_T4], "gpuOperator": {"driver": "operator"}},
        {"driver.enabled": True, "driver.manager": ABSENT, "devicePlugin.enabled": True},
        {"nvidiaDriverRoot": "/run/nvidia/driver"},
    ),
    (
        "existing-host-driver",
        {"platform": "existing", "pools": [H100_DRA, {**T4_PLUGIN, "gpuStack": "dra"}]},
        {"driver.enabled": False, "toolkit.enabled": False, "operator": ABSENT, "devicePlugin.enabled": False},
        {"nvidiaDriverRoot": "/", "controller": ABSENT},
    ),
    (
        "existing-operator-driver",
        {"platform": "existing", "pools": [H100_MIG], "gpuOperator": {"driver": "operator"}},
        {
            "driver.enabled": True,
            "toolkit.enabled": True,
            "migManager.env": ABSENT,
            "mig.strategy": "single",
            "driver.manager.env": [
                {"name": "NODE_LABEL_FOR_GPU_POD_EVICTION", "value": "nvidia.com/dra-kubelet-plugin"}
            ],
        },
        {"nvidiaDriverRoot": "/run/nvidia/driver", "controller": ABSENT},
    ),
    (
        "kind-nvidia-operator-off-by-default",
        {"platform": "kind-nvidia", "pools": [H100_DRA]},
        # no NFD in the stack: the chart's NFD-label affinity would keep the plugin off every node
        None,
        {
            "nvidiaDriverRoot": "/",
            "controller": ABSENT,
            "kubeletPlugin.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [{"matchExpressions": [{"key": "dra-gpu-platform.io/gpu", "operator": "Exists"}]}]
            },
        },
    ),
    (
        "kind-nvidia-operator-on",
        {"platform": "kind-nvidia", "pools": [H100_MIG, H100_DRA], "gpuOperator": {"enabled": True}},
        {
            "driver.enabled": False,
            "toolkit.enabled": False,
            "migManager.enabled": False,
            "mig.strategy": "mixed",
            "devicePlugin.enabled": False,
            "node-feature-discovery.worker.nodeSelector": ABSENT,
        },
        # no mig-manager on kind (the host's MIG): nothing to wait for
        {"nvidiaDriverRoot": "/", "kubeletPlugin.affinity": ABSENT},
    ),
    (
        "kind-nvidia-device-plugin-pools",
        {"platform": "kind-nvidia", "pools": [T4_PLUGIN], "gpuOperator": {"enabled": True}},
        {"devicePlugin.enabled": True},
        {},
    ),
    ("kind-example-driver", {"platform": "kind-example", "pools": [H100_DRA, T4_PLUGIN]}, None, None),
    (
        "dra-25.12-ngc-chart-with-time-slicing",
        {"platform": "eks", "pools": [H100_DRA], "draDriver": {"version": "25.12.0"}, "deviceClasses": [SHARED_CLASS]},
        {},
        {"resourceApiVersion": "resource.k8s.io/v1", "featureGates": {"TimeSlicingSettings": True}},
    ),
    (
        "dra-25.8-no-resource-api-version",
        {"platform": "eks", "pools": [H100_DRA], "draDriver": {"version": "25.8.1"}, "deviceClasses": [SHARED_CLASS]},
        {},
        {"resourceApiVersion": ABSENT, "featureGates": {"TimeSlicingSettings": True}},
    ),
    # 25.3.x writes v1beta1 DeviceClasses, refused on EKS/AKS (tests/config/test_chart_versions.py): an existing cluster
    (
        "dra-25.3-neither-gates-nor-api-version",
        {
            "platform": "existing",
            "pools": [H100_DRA],
            "draDriver": {"version": "25.3.2"},
            "deviceClasses": [SHARED_CLASS],
        },
        {},
        {"resourceApiVersion": ABSENT, "featureGates": ABSENT},
    ),
    (
        "dra-gates-merge-with-user-gates",
        {
            "platform": "existing",
            "pools": [H100_DRA],
            "deviceClasses": [MPS_CLASS, SHARED_CLASS],
            "draDriver": {"featureGates": {"NVMLDeviceHealthCheck": True}},
        },
        {},
        {"featureGates": {"MPSSupport": True, "NVMLDeviceHealthCheck": True, "TimeSlicingSettings": True}},
    ),
    (
        "dra-compute-domains",
        # a multi-node NVLink pool turns ComputeDomains on by default
        {"platform": "eks", "pools": [GB200_BLOCK, H100_DRA]},
        # 0.4 charts only prefer control-plane nodes for the controller (values.yaml:227-242): no override
        {},
        {"resources.computeDomains.enabled": True, "controller": ABSENT},
    ),
]


def lookup(values: dict, path: str) -> Any:
    node: Any = values
    for part in path.split("."):
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, dict) and part in node:
            node = node[part]
        else:
            return ABSENT
    return node


@pytest.mark.parametrize("case, spec, operator, dra", TABLE, ids=[row[0] for row in TABLE])
def test_decision_table(case, spec, operator, dra):
    spec = dict(spec)
    config = stack(spec.pop("platform"), spec.pop("pools"), **spec)
    operator_plan, dra_plan = plan_stack(config).software.gpu_operator, plan_stack(config).software.dra_driver
    assert (operator_plan is None) == (operator is None)
    assert (dra_plan is None) == (dra is None)
    for path, expected in (operator or {}).items():
        assert lookup(operator_plan.values, path) == expected, f"{case}: gpu-operator {path}"
    for path, expected in (dra or {}).items():
        assert lookup(dra_plan.values, path) == expected, f"{case}: DRA driver {path}"


def test_every_operator_row_keeps_nothing_on_cpu_nodes_and_tolerates_the_gpu_taint():
    for case, spec, operator, _ in TABLE:
        if operator is None:
            continue
        spec = dict(spec)
        values = plan_stack(stack(spec.pop("platform"), spec.pop("pools"), **spec)).software.gpu_operator.values
        assert values["daemonsets"]["tolerations"][0] == GPU_TOLERATION, case
        worker = values["node-feature-discovery"]["worker"]
        # on our pool label, never on nvidia.com/gpu.present, which the operator resets before NFD has run
        assert "nodeSelector" not in worker, case
        assert worker["affinity"] == {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [
                        {"matchExpressions": [{"key": "dra-gpu-platform.io/gpu", "operator": "Exists"}]}
                    ]
                }
            }
        }, case
        assert worker["tolerations"] == values["daemonsets"]["tolerations"], case
        # CDI is the ClusterPolicy's switch; a GPUCluster reads no cdi value (its DRA driver always uses CDI)
        assert values.get("cdi", {"enabled": True}) == {"enabled": True} and ("cdi" in values) != (
            "gpuCluster" in values
        )


def test_release_plans_pin_charts_repositories_namespaces_and_timeouts():
    eks = stack("eks", [H100_DRA])
    operator, dra = plan_stack(eks).software.gpu_operator, plan_stack(eks).software.dra_driver
    assert (
        operator.release,
        operator.chart,
        operator.version,
        operator.repository,
        operator.namespace,
        operator.timeout_s,
    ) == ("gpu-operator", "gpu-operator", "v26.7.0", "https://helm.ngc.nvidia.com/nvidia", "gpu-operator", 900)
    # OCI charts are addressed by their full reference, without a repository
    assert (dra.release, dra.chart, dra.version, dra.repository, dra.namespace, dra.timeout_s) == (
        "dra-driver-nvidia-gpu",
        "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu",
        "0.4.1",
        None,
        "dra-driver-nvidia-gpu",
        600,
    )
    calver = plan_stack(stack("eks", [H100_DRA], draDriver={"version": "25.12.0"})).software.dra_driver
    assert (calver.chart, calver.repository, calver.namespace) == (
        "nvidia-dra-driver-gpu",
        "https://helm.ngc.nvidia.com/nvidia",
        "dra-driver-nvidia-gpu",
    )
    building = plan_stack(stack("aks", [AKS_A100], gpuOperator={"driver": "operator"})).software.gpu_operator
    assert building.timeout_s == 1800  # the driver container compiles the kernel module


def test_example_driver_plan_on_kind():
    plan = gsv.example_driver_plan(stack("kind-example", [H100_DRA, T4_PLUGIN]))
    assert (plan.release, plan.chart, plan.version, plan.repository, plan.namespace) == (
        "dra-example-driver",
        "oci://registry.k8s.io/dra-example-driver/charts/dra-example-driver",
        "0.2.1",
        None,
        "dra-example-driver",
    )
    assert plan.values == {
        "kubeletPlugin": {
            "nodeSelector": {"nvidia.com/dra-kubelet-plugin": "true"},
            "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
        }
    }
    pinned = stack("kind-example", [H100_DRA])
    assert gsv.example_driver_plan(pinned).version == pinned.cluster.settings().example_driver_version
    assert gsv.example_driver_plan(stack("kind-nvidia", [H100_DRA])) is None
    assert gsv.example_driver_plan(stack("eks", [H100_DRA])) is None


@pytest.mark.parametrize(
    "spec, waits",
    [
        ({"platform": "aks", "pools": [AKS_A100], "gpuOperator": {"driver": "operator"}}, True),
        ({"platform": "existing", "pools": [H100_DRA], "gpuOperator": {"driver": "operator"}}, True),
        ({"platform": "aks", "pools": [AKS_A100]}, False),  # host driver: both releases install in parallel
        ({"platform": "eks", "pools": [H100_DRA]}, False),
        ({"platform": "kind-nvidia", "pools": [H100_DRA], "gpuOperator": {"enabled": True}}, False),
    ],
    ids=["aks-operator-driver", "existing-operator-driver", "aks-host", "eks-host", "kind-host"],
)
def test_dra_driver_waits_for_the_operator_only_when_it_installs_the_driver(spec, waits):
    spec = dict(spec)
    assert gsv.dra_driver_waits_for_operator(stack(spec.pop("platform"), spec.pop("pools"), **spec)) is waits


@pytest.mark.parametrize(
    "version, gates, api",
    [
        ("25.3.0", False, False),
        ("25.3.2", False, False),
        ("25.8.0", True, False),
        ("25.8.1", True, False),
        ("25.12.0", True, True),
        ("0.4.0", True, True),
        ("0.4.1", True, True),
    ],
)
def test_chart_value_availability_by_driver_version(version, gates, api):
    release = driver_charts.dra_driver_release(version)
    assert release.feature_gates_value is gates
    assert release.resource_api_version_value is api
    # existing: 25.3.x (v1beta1 DeviceClasses) is refused on EKS/AKS
    values = plan_stack(
        stack("existing", [H100_DRA], draDriver={"version": version}, deviceClasses=[MPS_CLASS])
    ).software.dra_driver.values
    assert ("featureGates" in values) is gates and ("resourceApiVersion" in values) is api
