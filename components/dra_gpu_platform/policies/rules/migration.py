"""Stack rules on the device plugin → DRA migration: dra-only namespaces are guarded, legacy namespaces keep
a node that can run the device plugin, and no pool runs both NVIDIA plugins. Facts:
docs/references.md#nvidia-dra-gpu-resources-override, docs/references.md#gpu-operator-not-beside-dra,
docs/references.md#eks-nvidia-ami-contents, docs/references.md#gpu-operator-with-dra,
docs/references.md#vap-dra-only."""

from __future__ import annotations

from typing import Any

from pulumi_policy import Severity, StackValidationArgs

from dra_gpu_platform.dra.node_selectors import label_selector_matches, labels_match
from dra_gpu_platform.facts.node_labels import DEVICE_PLUGIN_DEPLOY_LABEL, GPU_PRESENT_LABEL, NFD_NVIDIA_PCI_LABEL
from dra_gpu_platform.plans.admission_policy import AdmissionRequest, denials
from dra_gpu_platform.plans.migration import GPU_MODE_LABEL
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.policies.rules import common as c
from dra_gpu_platform.recorded import objects
from dra_gpu_platform.recorded import pools as recorded
from dra_gpu_platform.recorded.admission import namespace_object

LEGACY_RESOURCE = "nvidia.com/gpu"

# ---------------------------------------------------------------------------------------------------
# dra-only-namespace-guarded


def _covers_pod_creation(policy_props: Any) -> bool:
    for rule in c.as_list(c.dig(policy_props, "spec", "matchConstraints", "resourceRules")):
        resources = {str(r) for r in c.as_list(c.dig(rule, "resources"))}
        operations = {str(o) for o in c.as_list(c.dig(rule, "operations"))}
        if resources & {"pods", "*"} and operations & {"CREATE", "*"}:
            return True
    return False


# What a guard must refuse: a pod asking the device plugin's resource in a dra-only namespace.
_LEGACY_POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"name": "probe", "namespace": "probe"},
    "spec": {"containers": [{"name": "probe", "image": "cuda", "resources": {"limits": {LEGACY_RESOURCE: "1"}}}]},
}


def _denies_legacy_gpus(policy_props: Any) -> bool:
    """The policy validates pod creation and its CEL, run as the API server runs it, denies a pod requesting
    nvidia.com/gpu in a dra-only namespace."""
    if not _covers_pod_creation(policy_props):
        return False
    spec = c.plain(c.dig(policy_props, "spec", default={}))
    probe = namespace_object("probe", {GPU_MODE_LABEL: "dra-only"})
    return bool(denials(spec, AdmissionRequest(_LEGACY_POD, probe)))


def _validate_guarded(args: StackValidationArgs, report_violation) -> None:
    namespaces = objects.stack_namespaces(args.resources)
    dra_only = [ns for ns in namespaces.values() if ns.gpu_mode == "dra-only"]
    guards = {
        c.metadata_name(r.props) or r.name: r.props
        for r in args.resources
        if c.VAP_RE.match(r.resource_type) and _denies_legacy_gpus(r.props)
    }
    bindings = [r.props for r in args.resources if c.VAP_BINDING_RE.match(r.resource_type)]
    for ns in sorted(dra_only, key=lambda n: n.name):
        problem = _guard_problem(ns, guards, bindings)
        if problem:
            report_violation(
                f"namespace {ns.name} is {GPU_MODE_LABEL}=dra-only but {problem}; pods requesting {LEGACY_RESOURCE} "
                f"would be admitted there and stay Pending (no device plugin serves them).",
                ns.urn,
            )
    for workload in objects.stack_workloads(args.resources):
        ns = namespaces.get(workload.namespace)
        if ns is None or ns.gpu_mode != "dra-only":
            continue
        containers = workload.legacy_gpu_containers(LEGACY_RESOURCE)
        if containers:
            report_violation(
                f"{workload.kind} {workload.namespace}/{workload.name}: container(s) {', '.join(containers)} request "
                f"{LEGACY_RESOURCE} in a dra-only namespace; the admission policy rejects its pods. Request GPUs "
                f"through spec.resourceClaims (a ResourceClaimTemplate) instead.",
                workload.urn,
            )


def _guard_problem(ns: objects.NamespaceInfo, guards: dict[str, Any], bindings: list[Any]) -> str | None:
    if not guards:
        return f"no ValidatingAdmissionPolicy in the stack denies {LEGACY_RESOURCE} for pods"
    seen_binding = False
    for binding in bindings:
        guard = guards.get(c.dig(binding, "spec", "policyName"))
        if guard is None:
            continue
        seen_binding = True
        actions = {str(a) for a in c.as_list(c.dig(binding, "spec", "validationActions"))}
        if "Deny" not in actions:
            continue
        # an absent namespaceSelector is the API's default {}: every namespace
        if label_selector_matches(
            c.as_dict(c.dig(binding, "spec", "matchResources", "namespaceSelector")), ns.labels
        ) and label_selector_matches(
            c.as_dict(c.dig(guard, "spec", "matchConstraints", "namespaceSelector")), ns.labels
        ):
            return None
    if not seen_binding:
        return f"no ValidatingAdmissionPolicyBinding binds the guard policy ({', '.join(sorted(guards))})"
    return "no binding of the guard policy with validationActions Deny selects this namespace"


DRA_ONLY_NAMESPACE_GUARDED = c.stack_policy(
    "dra-only-namespace-guarded",
    description=f"Namespaces labelled {GPU_MODE_LABEL}=dra-only are covered by a bound ValidatingAdmissionPolicy "
    f"that denies {LEGACY_RESOURCE}, and no workload in them requests {LEGACY_RESOURCE}.",
    validate=_validate_guarded,
    severity=Severity.HIGH,
    remediation_steps=(
        "dra-gpu-platform installs the guard (ValidatingAdmissionPolicy gpu-dra-only with a Deny binding on "
        f"namespaceSelector {GPU_MODE_LABEL}=dra-only); keep it. Move workloads that still request "
        f"{LEGACY_RESOURCE} to spec.resourceClaims, or move the namespace back to `migration: dual`."
    ),
)

# ---------------------------------------------------------------------------------------------------
# device-plugin-retirement-safe


def _operators(releases: list[objects.HelmRelease]) -> list[objects.HelmRelease]:
    return [r for r in releases if r.chart in objects.GPU_OPERATOR_CHARTS]


def _extended_resource_bridge(resources: list[Any], releases: list[objects.HelmRelease]) -> bool:
    """Pods asking for nvidia.com/gpu are served by DRA (KEP-5004) when a DeviceClass carries that
    extendedResourceName and the DRAExtendedResource gate is on (docs/references.md#dra-api-extended-resource-name,
    docs/references.md#nvidia-dra-resource-api-version)."""
    for r in resources:
        if (
            c.DEVICE_CLASS_RE.match(r.resource_type)
            and c.dig(r.props, "spec", "extendedResourceName") == LEGACY_RESOURCE
        ):
            return True
    chart_class = any(
        r.chart in objects.NVIDIA_DRA_CHARTS
        and r.dra_driver_release is not None
        and r.dra_driver_release.gpu_class_extended_resource
        for r in releases
    )
    return chart_class and _extended_resource_gate_on(resources)


def _extended_resource_gate_on(resources: list[Any]) -> bool:
    for r in resources:
        if r.resource_type == c.COMMAND:
            config = recorded.kind_config(r.props)
            if config and (config.get("featureGates") or {}).get("DRAExtendedResource") is True:
                return True
        version = None
        if r.resource_type == c.EKS_CLUSTER:
            version = c.dig(r.props, "version")
        elif c.AKS_CLUSTER_RE.match(r.resource_type):
            version = c.dig(r.props, "kubernetesVersion")
        if isinstance(version, str) and _minor(version) >= 36:  # on by default from 1.36
            return True
    return False


def _minor(version: str) -> int:
    parts = version.lstrip("v").split(".")
    return int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else 0


def plugin_capable_pools(pools: list[PoolPlan], releases: list[objects.HelmRelease]) -> list[PoolPlan]:
    """GPU pools where the device plugin can run: the AMI ships it, or nothing keeps it off (the per-node
    operand label, or a GPU Operator with devicePlugin.enabled=false)."""
    operators = _operators(releases)
    operator_plugin_off = bool(operators) and all(
        r.value("devicePlugin", "enabled", default=True) is False for r in operators
    )
    return [p for p in pools if p.ships_device_plugin or (not _device_plugin_label_off(p) and not operator_plugin_off)]


def _device_plugin_label_off(pool: PoolPlan) -> bool:
    return pool.labels.get(DEVICE_PLUGIN_DEPLOY_LABEL) == "false"


def _validate_retirement(args: StackValidationArgs, report_violation) -> None:
    namespaces = objects.stack_namespaces(args.resources)
    legacy = [ns for ns in namespaces.values() if ns.gpu_mode in ("legacy", "dual")]
    # An existing cluster's program names only some of its nodes: it cannot say that no node runs the plugin.
    pools = [p for _, p in recorded.stack_pools(args.resources) if p.profile.creates_cluster]
    if not legacy or not pools:
        return  # no GPU nodes declared here (e.g. an existing cluster): nothing to judge
    releases = objects.stack_releases(args.resources)
    if plugin_capable_pools(pools, releases) or _extended_resource_bridge(args.resources, releases):
        return
    pool_names = c.short(sorted(p.name for p in pools))
    for ns in sorted(legacy, key=lambda n: n.name):
        report_violation(
            f"namespace {ns.name} is {GPU_MODE_LABEL}={ns.gpu_mode} but no GPU node can run the device plugin "
            f"(pools: {pool_names}); its {LEGACY_RESOURCE} pods would stay Pending.",
            ns.urn,
        )


DEVICE_PLUGIN_RETIREMENT_SAFE = c.stack_policy(
    "device-plugin-retirement-safe",
    description=f"No namespace is {GPU_MODE_LABEL}=legacy or dual when no GPU node can run the NVIDIA device plugin "
    "(unless DRA serves nvidia.com/gpu through the extended-resource bridge).",
    validate=_validate_retirement,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "Move the namespaces to `migration: dra-only` before removing the last `gpuStack: device-plugin` pool, or "
        "keep (or add back) such a pool. Rolling back is the same change in reverse."
    ),
)

# ---------------------------------------------------------------------------------------------------
# dra-driver-not-beside-device-plugin


def _describe(selector: dict[str, str]) -> str:
    return (
        "{" + ", ".join(f"{k}: {v}" for k, v in sorted(selector.items())) + "}" if selector else "{} (every GPU node)"
    )


def _validate_not_beside(args: StackValidationArgs, report_violation) -> None:
    releases = objects.stack_releases(args.resources)
    dra_releases = [
        r
        for r in releases
        if r.chart in objects.NVIDIA_DRA_CHARTS and r.value("resources", "gpus", "enabled", default=True) is not False
    ]
    # A GPUCluster's DRA kubelet plugin goes to every GPU node (docs/references.md#gpu-operator-gpucluster): an empty
    # selector stands for it, and its operator runs no ClusterPolicy device plugin.
    gpu_clusters = [r for r in releases if r.renders_gpu_cluster]
    if not dra_releases and not gpu_clusters:
        return
    operators_on = [
        r
        for r in _operators(releases)
        if r.value("devicePlugin", "enabled", default=True) is not False and not r.renders_gpu_cluster
    ]
    standalone = [r for r in releases if r.chart in objects.DEVICE_PLUGIN_CHARTS]
    # With a GPU Operator, every GPU node gets NFD's PCI label and the operator's gpu.present at run time
    # (docs/references.md#gpu-operator-node-labelling): a selector on either reaches the pool.
    runtime = {GPU_PRESENT_LABEL: "true", NFD_NVIDIA_PCI_LABEL: "true"} if _operators(releases) else {}
    for urn, pool in recorded.stack_pools(args.resources):
        dra_here = [
            r for r in dra_releases if labels_match(c.string_map(r.value("kubeletPlugin", "nodeSelector")), pool.labels)
        ] + gpu_clusters
        if not dra_here:
            continue
        reasons = []
        if pool.ships_device_plugin:
            reasons.append(f"its AMI {pool.ami_type} ships the device plugin")
        if pool.host_dra_driver:
            reasons.append(
                f"its AMI {pool.ami_type} runs the NVIDIA DRA driver on the host (user data), a second driver"
            )
        if not _device_plugin_label_off(pool):
            reasons += [
                f"GPU Operator release {r.name} runs the device plugin on GPU nodes without "
                f"{DEVICE_PLUGIN_DEPLOY_LABEL}=false (the pool has {pool.labels.get(DEVICE_PLUGIN_DEPLOY_LABEL, 'no such label')})"
                for r in operators_on
            ]
        reasons += [
            f"device plugin release {r.name} selects it (nodeSelector {_describe(c.string_map(r.value('nodeSelector')))})"
            for r in standalone
            if labels_match(c.string_map(r.value("nodeSelector")), {**runtime, **pool.labels})
        ]
        if reasons:
            dra = ", ".join(
                f"{r.name} (its GPUCluster: every GPU node)"
                if r.renders_gpu_cluster
                else f"{r.name} (kubeletPlugin.nodeSelector {_describe(c.string_map(r.value('kubeletPlugin', 'nodeSelector')))})"
                for r in dra_here
            )
            report_violation(
                f"node pool {pool.name}: the NVIDIA DRA kubelet plugin of {dra} runs there and {'; '.join(reasons)}. "
                f"The two cannot share a node: both would hand out the same GPUs.",
                urn,
            )


DRA_DRIVER_NOT_BESIDE_DEVICE_PLUGIN = c.stack_policy(
    "dra-driver-not-beside-device-plugin",
    description="The NVIDIA DRA kubelet plugin's node selection (kubeletPlugin.nodeSelector) and the device "
    f"plugin's (GPU Operator devicePlugin with the {DEVICE_PLUGIN_DEPLOY_LABEL} node label, device plugin charts, "
    "Bottlerocket NVIDIA AMIs) never both match one node pool.",
    validate=_validate_not_beside,
    severity=Severity.CRITICAL,
    remediation_steps=(
        "Pin the DRA kubelet plugin to DRA pools (`kubeletPlugin.nodeSelector: {nvidia.com/dra-kubelet-plugin: "
        f'"true"}}`) and label those pools {DEVICE_PLUGIN_DEPLOY_LABEL}=false, or turn the operator\'s device plugin '
        "off. In dra-gpu-platform this follows from `nodePools[].gpuStack`; do not override the labels."
    ),
)
