"""Rules of `gpuOperator` and `draDriver`, and what the GPU software values cannot make safe."""

from __future__ import annotations

from packaging.version import Version

from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections.node_pools import NodePool
from dra_gpu_platform.facts import (
    chart_releases,
    driver_charts,
    driver_features,
    eks_amis,
    gpu_operator,
    kubernetes,
    versions,
)


def check(r: RuleContext) -> None:
    c = r.c
    dra_pools = c.dra_pools
    if c.gpu_operator_enabled:
        if c.gpu_operator.version not in chart_releases.GPU_OPERATOR_RELEASES and not c.gpu_operator.allow_unlisted:
            r.add(
                "gpuOperator.version",
                c.gpu_operator.version,
                "not a gpu-operator release this package lists (dra_gpu_platform/facts/chart_releases.py)",
                chart_releases.unlisted_fix("gpuOperator", list(chart_releases.GPU_OPERATOR_RELEASES)),
            )
        if dra_pools and Version(c.gpu_operator.version) < Version(versions.GPU_OPERATOR_MIN_FOR_DRA):
            r.add(
                "gpuOperator.version",
                c.gpu_operator.version,
                "DRA pools need GPU Operator v25.10.0 or newer (the first with CDI on by default)",
                f"use {versions.GPU_OPERATOR_DEFAULT} or newer",
            )
        if c.uses_example_driver:
            r.add(
                "gpuOperator.enabled",
                True,
                "the GPU Operator needs real NVIDIA GPUs; kind with gpuDriver: example has none",
                "set gpuOperator.enabled: false, or kind.gpuDriver: nvidia on a GPU host",
            )
        refused = c.profile.software.no_operator_driver
        if refused is not None and c.gpu_operator.driver == "operator":
            r.add("gpuOperator.driver", "operator", *refused)
    elif c.gpu_operator.driver == "operator":
        r.add(
            "gpuOperator.driver",
            "operator",
            "driver: operator needs gpuOperator.enabled",
            "enable the GPU Operator or use driver: host",
        )
    dra = c.dra_driver
    if dra_pools and not dra.enabled:
        # on kind with gpuDriver: example, draDriver.enabled installs the dra-example-driver
        r.add(
            "draDriver.enabled",
            False,
            f"pools {', '.join(p.name for p in dra_pools)} run gpuStack: dra and need the DRA driver",
            "set draDriver.enabled: true, or gpuStack: device-plugin on those pools",
        )
    if not c.uses_example_driver and dra.version not in driver_charts.DRA_DRIVER_RELEASES:
        listed = list(driver_charts.DRA_DRIVER_RELEASES)
        if not dra.allow_unlisted:
            why = driver_charts.NOT_LISTED.get(dra.version.removeprefix("v"))
            r.add(
                "draDriver.version",
                dra.version,
                "not an NVIDIA DRA driver chart release this package lists (dra_gpu_platform/facts/driver_charts.py)"
                + (f": {why}" if why else ""),
                chart_releases.unlisted_fix("draDriver", listed) + "; 0.4+ is the kubernetes-sigs chart",
            )
        elif driver_charts.dra_driver_release(dra.version) is None:
            # allowUnlisted assumes the facts of the newest listed release that is not newer; there is none
            r.add(
                "draDriver.version",
                dra.version,
                "older than every listed release of its chart (or not a version), so "
                "no listed release's chart facts apply to it",
                f"use one of {', '.join(listed)}",
            )
    release = driver_charts.dra_driver_release(dra.version)
    if (
        dra.enabled
        and not c.uses_example_driver
        and not c.uses_gpu_cluster
        and c.profile.kubernetes.managed
        and release is not None
        and release.resource_api == "v1beta1"
    ):
        r.add(
            "draDriver.version",
            dra.version,
            f"the {dra.version} chart writes its DeviceClasses as resource.k8s.io/v1beta1, which Kubernetes "
            f"{c.cluster.kubernetes_version} does not serve by default and {c.profile.title} cannot turn on "
            "(--runtime-config), so the release fails to install",
            f"use {driver_charts.DRA_DRIVER_DEFAULT} (or 25.8.0 and newer, which detect resource.k8s.io/v1)",
        )
    _feature_gate_names(r)
    if c.extended_resource_bridge_on:
        bridge = _bridge_value(c)
        if c.uses_gpu_cluster:
            r.add(
                "draDriver.extendedResourceBridge",
                bridge,
                "the GPUCluster's gpu.nvidia.com DeviceClass has no extendedResourceName (gpu-operator "
                f"{gpu_operator.GPU_CLUSTER_SOURCE.tag} manifests/state-dra-driver/0400_deviceclass-gpu.yaml), so "
                "nothing maps nvidia.com/gpu to DRA",
                "use gpuOperator.draManagement: chart (the DRA driver chart's class carries it), or turn the bridge off",
            )
        elif c.uses_example_driver:
            r.add(
                "draDriver.extendedResourceBridge",
                bridge,
                "the bridge maps nvidia.com/gpu to the NVIDIA DRA driver's gpu.nvidia.com class",
                "use kind.gpuDriver: nvidia, or turn the bridge off",
            )
        elif not c.dra_gate_available(kubernetes.DRA_EXTENDED_RESOURCE):
            r.add(
                "draDriver.extendedResourceBridge",
                bridge,
                f"the DRAExtendedResource feature gate is alpha (off) in Kubernetes {c.cluster.kubernetes_version}; "
                f"{c.platform} control planes cannot turn it on",
                "keep device-plugin pools for legacy namespaces, or use kind, or Kubernetes 1.36+ (DRAExtendedResource "
                "beta and on)",
            )
        elif (
            release := driver_charts.dra_driver_release(dra.version)
        ) is not None and not release.gpu_class_extended_resource:
            r.add(
                "draDriver.version",
                dra.version,
                "the gpu.nvidia.com class has extendedResourceName only from 25.12.0",
                "use 25.12.0 or 0.4.x",
            )
        else:
            _bridge_models(r)
    _dynamic_mig(r)


def _dynamic_mig(r: RuleContext) -> None:
    """DynamicMIG (driver gate, alpha): the kubelet plugin creates MIG devices per claim and publishes every GPU as
    partitionable devices (docs/references.md#nvidia-dra-dynamic-mig). It needs a driver that has the gate, a cluster
    with DRAPartitionableDevices, none of the gates the driver refuses beside it, and no static-MIG pool on the
    plugin's nodes: at start the plugin destroys every MIG device it did not create
    (docs/references.md#nvidia-dra-dynamic-mig-destroys-static-mig)."""
    c = r.c
    gates = c.dra_driver.feature_gates
    if not c.dynamic_mig or not c.dra_driver.enabled:
        return
    at = f"draDriver.featureGates.{driver_features.DYNAMIC_MIG}"
    if not driver_features.has_dynamic_mig(c.dra_driver.version):
        since = ", ".join(f"{v} ({lineage})" for lineage, v in driver_features.DYNAMIC_MIG_SINCE.items())
        r.add(at, True, f"the DRA driver {c.dra_driver.version} has no DynamicMIG gate (from {since})", "use 0.4.1")
    if not c.dra_gate_available(kubernetes.DRA_PARTITIONABLE_DEVICES):
        r.add(
            at,
            True,
            "dynamic MIG publishes partitionable devices (shared counters), which need the DRAPartitionableDevices "
            f"feature gate: alpha and off in Kubernetes {c.cluster.kubernetes_version}, and {c.platform} control "
            "planes cannot turn it on (the API server would drop the counters and hand out overlapping MIG devices)",
            'use kubernetesVersion "1.36" or newer (beta and on), or a kind stack, or static MIG (nodePools[].mig)',
        )
    static = [p.name for p in c.dra_pools if p.mig is not None]
    if static:
        r.add(
            "draDriver.featureGates",
            {driver_features.DYNAMIC_MIG: True},
            f"DRA pools {', '.join(static)} use static MIG (nodePools[].mig, applied by mig-manager), and with "
            "DynamicMIG the DRA kubelet plugin destroys at start every MIG device it did not create itself, on every "
            "DRA node (the driver's gates apply to all of them)",
            "remove mig from those pools (dynamic MIG creates the partitions per claim), or turn DynamicMIG off",
        )
    for gate in driver_features.DYNAMIC_MIG_EXCLUSIVE:
        needed_by = c.required_dra_feature_gates().get(gate, [])
        if gates.get(gate) is True or needed_by:
            why = f" (turned on for device classes {', '.join(needed_by)})" if needed_by else ""
            r.add(
                "draDriver.featureGates",
                {driver_features.DYNAMIC_MIG: True, gate: True},
                f"the DRA driver refuses to start with DynamicMIG and {gate} both on{why}",
                f"turn one of them off{' or drop the sharing settings of those classes' if needed_by else ''}",
            )


def check_placement(r: RuleContext) -> None:
    """What the GPU software values (dra_gpu_platform/plans/gpu_software.py) cannot make safe."""
    c = r.c
    _host_dra_driver_pools(r)
    _gpu_cluster(r)
    _one_gpu_stack_per_operator(r)
    if c.uses_example_driver or not c.dra_driver.enabled:
        return
    gates = c.dra_driver.feature_gates
    release = driver_charts.dra_driver_release(c.nvidia_dra_driver_version)
    if gates and release is not None and not release.feature_gates_value:
        r.add(
            "draDriver.featureGates",
            gates,
            f"the DRA driver chart {c.nvidia_dra_driver_version} has no featureGates value (from 25.8.0)",
            "remove draDriver.featureGates or use DRA driver 25.8.0 or newer",
        )
    for gate, classes in c.required_dra_feature_gates().items():
        if gates.get(gate) is False:
            r.add(
                f"draDriver.featureGates.{gate}",
                False,
                f"device classes {', '.join(classes)} need the {gate} driver feature gate",
                f"remove draDriver.featureGates.{gate} (it is turned on for you) or drop the sharing settings of those classes",
            )


def _one_gpu_stack_per_operator(r: RuleContext) -> None:
    """One GPU Operator cannot serve its own device plugin on some pools and DRA on others (gpu-operator v25.10.1,
    docs/gpu-software.md#one-nvidia-gpu-stack-per-operator): with devicePlugin on, the operator keeps the
    validator's plugin-validation init container on every GPU node, and on a DRA node it waits for nvidia.com/gpu
    capacity that never comes, so the validator crash-loops there and the ClusterPolicy never becomes ready. No
    value or node label turns the check off per node (docs/references.md#gpu-operator-validator-plugin-validation)."""
    c = r.c
    if not c.gpu_operator_enabled or not c.dra_pools or c.uses_gpu_cluster:
        return  # a GPUCluster serves no device-plugin pool at all (_gpu_cluster)
    dra = ", ".join(p.name for p in c.dra_pools)
    for i, pool in enumerate(c.node_pools):
        if pool not in c.operator_device_plugin_pools:
            continue
        bridge = _bridge_fix(c)
        image = c.profile.software.device_plugin_image
        if image is not None:
            fix = (
                f"{bridge}set amiType: {image} on this pool (that AMI brings its own device "
                "plugin, so the operator's stays off), set gpuStack: dra, or put the device-plugin pools in a stack "
                "of their own"
            )
        else:
            fix = f"{bridge}set gpuStack: dra on this pool, or put the device-plugin pools in a stack (cluster) of their own"
        r.add(
            f"nodePools[{i}].gpuStack",
            "device-plugin",
            f"the GPU Operator's device plugin would run here while pools {dra} run DRA: with devicePlugin on, the "
            "operator's validator waits for nvidia.com/gpu capacity on every GPU node, crash-loops on the DRA nodes "
            f"and the ClusterPolicy never becomes ready (gpu-operator {c.gpu_operator.version})",
            fix,
        )


def _feature_gate_names(r: RuleContext) -> None:
    """Gate names the pinned driver knows (pkg/featuregates/featuregates.go of its tag); an unknown gate stops the
    driver at start. An unlisted release (allowUnlisted, or the release a GPUCluster runs) may know newer gates:
    its names are not checked, like the rest of its values."""
    c = r.c
    if c.uses_example_driver:
        return
    version = c.nvidia_dra_driver_version
    release = driver_charts.DRA_DRIVER_RELEASES.get(version)
    if release is None or not release.feature_gates_value:
        return  # unlisted: unchecked; no featureGates value at all: check_placement says so
    for gate in c.dra_driver.feature_gates:
        if gate not in release.feature_gates:
            r.add(
                f"draDriver.featureGates.{gate}",
                c.dra_driver.feature_gates[gate],
                f"not a feature gate of the NVIDIA DRA driver {version}",
                f"use one of {', '.join(release.feature_gates)}",
            )


def _host_dra_driver_pools(r: RuleContext) -> None:
    """DRA pools on Bottlerocket NVIDIA AMIs run the host's NVIDIA DRA driver (docs/references.md#bottlerocket-nvidia-dra-driver):
    its user data turns the AMI's device plugin off and the host service on, and the chart's kubelet plugin stays
    off those nodes. The host service is the 25.8.1 driver with every gate at its default and no MIG manager."""
    c = r.c
    for i, pool in enumerate(c.node_pools):
        if not eks_amis.runs_host_dra_driver(pool.ami_type, pool.gpu_stack):
            continue
        at = f"nodePools[{i}]"
        minor = c.cluster.kubernetes_version
        if minor not in eks_amis.BOTTLEROCKET_DRA_KUBERNETES:
            r.add(
                f"{at}.amiType",
                pool.ami_type,
                f"Bottlerocket ships its host NVIDIA DRA driver for Kubernetes {', '.join(eks_amis.BOTTLEROCKET_DRA_KUBERNETES)} "
                f"only, not {minor}",
                f"use amiType {eks_amis.AL2023_NVIDIA} for this DRA pool",
            )
        if pool.mig is not None:
            r.add(
                f"{at}.mig",
                {"profile": pool.mig.profile},
                "on a Bottlerocket DRA pool nothing applies a MIG layout: Bottlerocket configures MIG only while its "
                "device plugin runs (off on DRA pools), and the GPU Operator's mig-manager is kept off Bottlerocket nodes",
                f"use amiType {eks_amis.AL2023_NVIDIA} for a MIG DRA pool, or remove mig",
            )
        for gate, classes in c.required_dra_feature_gates().items():
            served = [
                name for name in classes if (dc := c.device_class(name)) is not None and dc.gpu in (None, pool.gpu)
            ]
            if served:
                r.add(
                    f"{at}.amiType",
                    pool.ami_type,
                    f"device classes {', '.join(served)} can select this pool's GPUs and need the {gate} driver gate, "
                    f"which Bottlerocket's host DRA driver ({eks_amis.BOTTLEROCKET_DRA_DRIVER_VERSION}) runs without",
                    f"use amiType {eks_amis.AL2023_NVIDIA} for this pool, or give those classes a gpu other than {pool.gpu}",
                )


def _gpu_cluster(r: RuleContext) -> None:
    """gpuOperator.draManagement: gpucluster, refused where gpu-operator v26.7.0 refuses or cannot serve
    (docs/references.md#gpu-operator-gpucluster): one resource model per cluster, new clusters only, DRA only."""
    c = r.c
    if c.gpu_operator.dra_management != "gpucluster":
        return
    where = "gpuOperator.draManagement"
    if not c.gpu_operator_enabled:
        r.add(
            where,
            "gpucluster",
            "a GPUCluster is the GPU Operator's resource",
            "set gpuOperator.enabled: true, or use draManagement: chart",
        )
        return
    if Version(c.gpu_operator.version) < Version(gpu_operator.GPU_CLUSTER_MIN_VERSION):
        r.add(
            where,
            "gpucluster",
            f"GPU Operator {c.gpu_operator.version} has no GPUCluster (first in v{gpu_operator.GPU_CLUSTER_MIN_VERSION})",
            f"set gpuOperator.version: {gpu_operator.GPU_CLUSTER_SOURCE.tag}, or use draManagement: chart",
        )
    if not c.profile.creates_cluster:
        r.add(
            where,
            "gpucluster",
            "a GPUCluster is for new clusters only: NVIDIA supports no in-place move from a ClusterPolicy, and the "
            "operator refuses a GPUCluster while a ClusterPolicy exists",
            "use draManagement: chart on an existing cluster",
        )
    if c.device_plugin_pools:
        names = ", ".join(p.name for p in c.device_plugin_pools)
        r.add(
            where,
            "gpucluster",
            f"pools {names} run gpuStack: device-plugin, which needs a ClusterPolicy, and the operator runs a "
            "GPUCluster and a ClusterPolicy never together",
            "set gpuStack: dra on those pools, put them in a stack of their own, or use draManagement: chart",
        )
    if c.host_dra_pools:
        names = ", ".join(p.name for p in c.host_dra_pools)
        r.add(
            where,
            "gpucluster",
            f"pools {names} run Bottlerocket's host NVIDIA DRA driver, and the GPUCluster's kubelet plugin would "
            "publish the same GPUs there",
            f"use amiType {eks_amis.AL2023_NVIDIA} on those pools, or draManagement: chart",
        )
    if mig := [p.name for p in c.dra_pools if p.mig is not None]:
        r.add(
            where,
            "gpucluster",
            f"pools {', '.join(mig)} need a static MIG layout, and a GPUCluster deploys no MIG manager",
            "remove mig from those pools, or use draManagement: chart",
        )
    if c.gpu_operator.driver == "operator":
        r.add(
            where,
            "gpucluster",
            "with a GPUCluster the operator installs drivers only through NVIDIADriver resources, which this stack "
            "does not manage (the chart fails driver.enabled without driver.nvidiaDriverCRD.enabled)",
            "use gpuOperator.driver: auto or host (a host driver), or draManagement: chart",
        )
    if not c.dra_driver.enabled:
        r.add(
            "draDriver.enabled",
            False,
            "a GPUCluster always deploys the NVIDIA DRA driver",
            "set draDriver.enabled: true (or remove it), or use gpuOperator.draManagement: chart",
        )
    if "version" in c.dra_driver.model_fields_set or "allow_unlisted" in c.dra_driver.model_fields_set:
        r.add(
            "draDriver.version",
            c.dra_driver.version,
            f"with a GPUCluster the operator runs its own DRA driver ({c.nvidia_dra_driver_version} with gpu-operator "
            f"{c.gpu_operator.version}); draDriver.version and allowUnlisted choose the chart, which is not installed",
            "remove draDriver.version and draDriver.allowUnlisted, or use gpuOperator.draManagement: chart",
        )


def _bridge_value(c: StackSections) -> object:
    """draDriver.extendedResourceBridge as the stack wrote it."""
    models = c.bridge_models
    return True if models is None else {"gpus": list(models)}


def bridge_served_pools(c: StackSections) -> list[NodePool]:
    """DRA pools whose devices the driver's gpu.nvidia.com class matches: full GPUs (its selector takes
    type == 'gpu'; MIG slices are type 'mig'; docs/references.md#nvidia-dra-deviceclasses)."""
    return [p for p in c.dra_pools if p.mig is None]


def _bridge_models(r: RuleContext) -> None:
    """The bridge names the models it serves, and the cluster can keep it to them: up to 1.37 the class that serves
    nvidia.com/gpu is the driver chart's gpu.nvidia.com (it carries extendedResourceName whenever rendered for
    resource.k8s.io/v1, and a second class naming nvidia.com/gpu collides: docs/references.md#dra-extended-resource-one-class),
    which matches every full GPU and no pool, so every DRA pool of a model the bridge does not name is refused."""
    c = r.c
    models = c.bridge_models
    if models is None:
        return
    served = bridge_served_pools(c)
    offered = {p.gpu_name for p in served}
    for i, model in enumerate(models):
        if model not in offered:
            r.add(
                f"draDriver.extendedResourceBridge.gpus[{i}]",
                model,
                "no DRA pool of full GPUs has this model, so the bridge would serve nothing of it (MIG pools are not "
                "served: gpu.nvidia.com selects full GPUs)",
                f"name the model of a DRA pool: {', '.join(sorted(offered)) or '(no DRA pool of full GPUs)'}",
            )
    others = [p for p in served if p.gpu_name not in models]
    if others:
        names = ", ".join(f"{p.name} ({p.gpu_name})" for p in others)
        r.add(
            "draDriver.extendedResourceBridge.gpus",
            list(models),
            f"the bridge is served by the driver's gpu.nvidia.com class, which matches every full GPU and no pool, and "
            f"up to Kubernetes 1.37 no second class may map nvidia.com/gpu: nvidia.com/gpu pods of legacy and dual "
            f"namespaces would also get the GPUs of {names}",
            "name those models too (the bridge then serves them on purpose), move the other models' pools to a "
            "cluster of their own or to MIG, or keep the bridge off (legacy namespaces stay on device-plugin pools: "
            "their quotas hold gpu.nvidia.com at 0)",
        )


def _bridge_fix(c: StackSections) -> str:
    """Where the minor allows it, the extended-resource bridge is the first fix: DRA serves nvidia.com/gpu, so the
    legacy namespaces need no device-plugin pool at all."""
    if c.uses_example_driver or not c.dra_gate_available(kubernetes.DRA_EXTENDED_RESOURCE):
        return ""
    if not c.driver_class_has_extended_resource():
        return ""
    models = sorted({p.gpu_name for p in bridge_served_pools(c)})
    how = f"set draDriver.extendedResourceBridge: {{gpus: [{', '.join(models)}]}}"
    return (
        "remove this pool and let DRA serve nvidia.com/gpu through the extended-resource bridge "
        f"(legacy namespaces keep their pods; {how}), or "
    )
