"""Rules of `gpuOperator` and `draDriver`, and what the GPU software values cannot make safe."""

from __future__ import annotations

from packaging.version import Version

from dra_gpu_platform.config.rules._context import RuleContext
from dra_gpu_platform.config.sections import StackSections
from dra_gpu_platform.facts import chart_releases, driver_charts, driver_features, eks_amis, kubernetes, versions


def check(r: RuleContext) -> None:
    c = r.c
    dra_pools = c.dra_pools
    if c.gpu_operator_enabled:
        if c.gpu_operator.version not in chart_releases.GPU_OPERATOR_RELEASES and not c.gpu_operator.allow_unlisted:
            r.add(
                "gpuOperator.version",
                c.gpu_operator.version,
                "not a gpu-operator release this package lists (components/facts/chart_releases.py)",
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
        if c.platform == "eks" and c.gpu_operator.driver == "operator":
            r.add(
                "gpuOperator.driver",
                "operator",
                "the GPU Operator has no driver containers for the EKS NVIDIA AMIs (AL2023/Bottlerocket ship the driver)",
                "use driver: auto or host",
            )
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
            r.add(
                "draDriver.version",
                dra.version,
                "not an NVIDIA DRA driver chart release this package lists (components/facts/driver_charts.py)",
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
        and c.platform in ("eks", "aks")
        and release is not None
        and release.resource_api == "v1beta1"
    ):
        r.add(
            "draDriver.version",
            dra.version,
            f"the {dra.version} chart writes its DeviceClasses as resource.k8s.io/v1beta1, which Kubernetes "
            f"{c.cluster.kubernetes_version} does not serve by default and {c.platform.upper()} cannot turn on "
            "(--runtime-config), so the release fails to install",
            f"use {driver_charts.DRA_DRIVER_DEFAULT} (or 25.8.0 and newer, which detect resource.k8s.io/v1)",
        )
    for gate in dra.feature_gates:
        if gate not in driver_charts.FEATURE_GATES:
            r.add(
                f"draDriver.featureGates.{gate}",
                dra.feature_gates[gate],
                "unknown NVIDIA DRA driver feature gate",
                f"use one of {', '.join(driver_charts.FEATURE_GATES)}",
            )
    if dra.extended_resource_bridge:
        if c.uses_example_driver:
            r.add(
                "draDriver.extendedResourceBridge",
                True,
                "the bridge maps nvidia.com/gpu to the NVIDIA DRA driver's gpu.nvidia.com class",
                "use kind.gpuDriver: nvidia, or turn the bridge off",
            )
        elif not c.dra_gate_available(kubernetes.DRA_EXTENDED_RESOURCE):
            r.add(
                "draDriver.extendedResourceBridge",
                True,
                f"the DRAExtendedResource feature gate is alpha (off) in Kubernetes {c.cluster.kubernetes_version}; "
                f"{c.platform} control planes cannot turn it on",
                "keep device-plugin pools for legacy namespaces, or use kind, or Kubernetes 1.36+ (where the bridge is on "
                "by default)",
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
    """What the GPU software values (components/plans/gpu_software.py) cannot make safe."""
    c = r.c
    for i, pool in enumerate(c.node_pools):
        if eks_amis.ships_device_plugin(pool.ami_type) and pool.gpu_stack == "dra":
            r.add(
                f"nodePools[{i}].gpuStack",
                "dra",
                "the Bottlerocket NVIDIA AMI runs its own NVIDIA device plugin, which cannot share a node with the DRA kubelet plugin",
                "use amiType AL2023_x86_64_NVIDIA for DRA pools, or gpuStack: device-plugin on this Bottlerocket pool",
            )
    _one_gpu_stack_per_operator(r)
    if c.platform == "kind" and c.gpu_operator_enabled and c.gpu_operator.driver == "operator":
        r.add(
            "gpuOperator.driver",
            "operator",
            "kind nodes share the host's kernel and driver; the operator cannot install a driver there",
            "use driver: auto or host (nvkind style: the host has the driver and toolkit)",
        )
    if c.uses_example_driver or not c.dra_driver.enabled:
        return
    gates = c.dra_driver.feature_gates
    release = driver_charts.dra_driver_release(c.dra_driver.version)
    if gates and release is not None and not release.feature_gates_value:
        r.add(
            "draDriver.featureGates",
            gates,
            f"the DRA driver chart {c.dra_driver.version} has no featureGates value (from 25.8.0)",
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
    if not c.gpu_operator_enabled or not c.dra_pools:
        return
    dra = ", ".join(p.name for p in c.dra_pools)
    for i, pool in enumerate(c.node_pools):
        if pool not in c.operator_device_plugin_pools:
            continue
        bridge = _bridge_fix(c)
        if c.platform == "eks":
            fix = (
                f"{bridge}set amiType: {eks_amis.BOTTLEROCKET_NVIDIA} on this pool (that AMI brings its own device "
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


def _bridge_fix(c: StackSections) -> str:
    """Where the minor allows it, the extended-resource bridge is the first fix: DRA serves nvidia.com/gpu, so the
    legacy namespaces need no device-plugin pool at all."""
    if c.uses_example_driver or not c.dra_gate_available(kubernetes.DRA_EXTENDED_RESOURCE):
        return ""
    if not c.driver_class_has_extended_resource():
        return ""
    how = "it is on by default from 1.36" if c.cluster.minor >= 36 else "set draDriver.extendedResourceBridge: true"
    return (
        "remove this pool and let DRA serve nvidia.com/gpu through the extended-resource bridge "
        f"(legacy namespaces keep their pods; {how}), or "
    )
