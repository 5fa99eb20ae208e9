"""Which DaemonSets land on which node pool, from rendered charts plus what the GPU Operator does at run time.

A pool is modelled as one node joining a running cluster: its labels and taints from the stack, then the label
changes of the components that act on a node by themselves, in the order they act:
1. the GPU Operator's labelling pass (gpu-operator v25.10.1 controllers/state_manager.go:480-582), which runs
   before NFD has labelled a new node: it resets a static nvidia.com/gpu.present=true and deletes the
   gpu.deploy.* labels on a node without NFD's PCI labels (:518-528);
2. NFD's worker, where it lands: feature.node.kubernetes.io/pci-10de.present=true (plus the stack's NFD rules);
3. the operator again: gpu.present=true, each missing gpu.deploy.* label "true" (:510-517, :374-391);
4. mig-manager, where it lands and runs: nvidia.com/mig.config.state=success (mig-parted v0.13.1 reconfigure.go:235);
repeated until nothing changes. A DaemonSet lands where its nodeSelector and required node affinity match the
final labels and its tolerations cover the taints (the DaemonSet controller removes pods from nodes that stop
matching, so the final labels decide). Operator operands come from dra_gpu_platform/facts/gpu_operator.py, enabled by
the rendered ClusterPolicy. Where the chart renders a GPUCluster instead (gpu-operator v26.7.0), the operator's
GPUCluster labelling and its DRA operands (its own DRA kubelet plugin among them) take the ClusterPolicy's place.
Software a node image runs itself (Bottlerocket's device plugin or host DRA driver) is part of the pool's facts.
Pure: no helm, no files.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.node_selectors import required_node_affinity_matches
from dra_gpu_platform.dra.tolerations import TaintLike, Toleration, untolerated
from dra_gpu_platform.facts import gpu_operator as operator_facts
from dra_gpu_platform.facts.node_labels import (
    DEPLOY_LABEL_PREFIX,
    GPU_PRESENT_LABEL,
    MIG_CONFIG_LABEL,
    MIG_CONFIG_STATE_LABEL,
    MIG_CONFIG_STATE_SUCCESS,
    NFD_NVIDIA_PCI_LABEL,
)

DRA_PLUGIN = "dra-kubelet-plugin"
DEVICE_PLUGIN = "device-plugin"
NFD_WORKER = "nfd-worker"
MIG_ALL_DISABLED = "all-disabled"  # migManager.config.default in the chart (values.yaml:386), applied at :540-546


@dataclass(frozen=True)
class PoolFacts:
    """What a node of a pool looks like when it registers, and what the hardware under it is."""

    name: str
    gpu_stack: str  # "dra" | "device-plugin"
    labels: dict[str, str]
    taints: tuple[TaintLike, ...]
    mig_capable: bool  # GFD publishes nvidia.com/mig.capable=true; the operator then adds gpu.deploy.mig-manager
    nfd_rule_labels: dict[str, str] = field(default_factory=dict)  # labels the stack's NFD rules add on this pool
    host_device_plugin: str | None = None  # the image's own device plugin (Bottlerocket NVIDIA), if any
    host_dra_driver: str | None = None  # the image's own DRA kubelet plugin (Bottlerocket NVIDIA DRA pools), if any
    unlabelled: str | None = None  # why the nodes carry none of the pool's labels yet (an existing cluster's pool)
    provisioner: str | None = None  # what launches the nodes when not a node group or agent pool (a NodePool's)


@dataclass(frozen=True)
class DaemonSetFacts:
    """A DaemonSet of a rendered chart (release/name) or of the operator, with what places it."""

    release: str
    name: str
    role: str  # DRA_PLUGIN, DEVICE_PLUGIN, NFD_WORKER, an operator operand role, or "other"
    node_selector: dict[str, str]
    terms: tuple[tuple[dict[str, Any], ...], ...] | None  # required node affinity terms (None: no requirement)
    tolerations: tuple[dict[str, Any], ...]
    source: str  # "chart" or the operator facts' file:lines
    waits_for: str | None = None  # a validator status file its init container waits for


@dataclass
class PoolPlacement:
    pool: PoolFacts
    labels: dict[str, str]
    landed: list[DaemonSetFacts]
    findings: list[str]

    def host_entries(self) -> list[tuple[str, str]]:
        """(what, role) of the GPU software the node image runs itself, not a DaemonSet of any release."""
        entries = [(self.pool.host_device_plugin, DEVICE_PLUGIN)] if self.pool.host_device_plugin else []
        return entries + ([(self.pool.host_dra_driver, DRA_PLUGIN)] if self.pool.host_dra_driver else [])

    def roles(self) -> set[str]:
        host = {DEVICE_PLUGIN} if self.pool.host_device_plugin else set()
        return {d.role for d in self.landed} | host | ({DRA_PLUGIN} if self.pool.host_dra_driver else set())


# ---------------------------------------------------------------------------------------------------
# Where a DaemonSet's pod may run: its nodeSelector and required node affinity match the node's labels, and its
# tolerations cover the node's NoSchedule/NoExecute taints (PreferNoSchedule does not keep a pod off). The
# matching itself is dra_gpu_platform/dra/node_selectors.py and tolerations.py.


def affinity_selector(terms: tuple[tuple[dict[str, Any], ...], ...] | None) -> dict[str, Any] | None:
    """The required node affinity (a NodeSelector) of the terms, None when there is none."""
    if terms is None:
        return None
    return {"nodeSelectorTerms": [{"matchExpressions": list(term)} for term in terms]}


def lands(ds: DaemonSetFacts, labels: Mapping[str, str], taints: Iterable[TaintLike]) -> bool:
    if not required_node_affinity_matches(ds.node_selector, affinity_selector(ds.terms), labels):
        return False
    return not untolerated([Toleration.of(t) for t in ds.tolerations], taints)


# ---------------------------------------------------------------------------------------------------
# From rendered manifests


def daemonset_facts(release: str, doc: dict[str, Any], role: str) -> DaemonSetFacts:
    spec = ((doc.get("spec") or {}).get("template") or {}).get("spec") or {}
    required = ((spec.get("affinity") or {}).get("nodeAffinity") or {}).get(
        "requiredDuringSchedulingIgnoredDuringExecution"
    ) or {}
    terms = required.get("nodeSelectorTerms")
    return DaemonSetFacts(
        release=release,
        name=(doc.get("metadata") or {}).get("name", ""),
        role=role,
        node_selector=dict(spec.get("nodeSelector") or {}),
        terms=None if terms is None else tuple(tuple(t.get("matchExpressions") or ()) for t in terms),
        tolerations=tuple(spec.get("tolerations") or ()),
        source="chart",
    )


def _spec_switch(spec: dict[str, Any], path: str, default: bool) -> bool:
    node: Any = spec
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return bool(node) if node is not None else default


def operator_operands(release: str, cluster_policy_spec: dict[str, Any]) -> list[DaemonSetFacts]:
    """The operand DaemonSets the operator creates for this ClusterPolicy spec (facts/gpu_operator.py)."""
    tolerations = tuple(
        (cluster_policy_spec.get("daemonsets") or {}).get("tolerations") or operator_facts.ASSET_TOLERATIONS
    )
    operands = []
    for operand in operator_facts.OPERANDS:
        if operand.enabled_by and not _spec_switch(cluster_policy_spec, operand.enabled_by, operand.enabled_default):
            continue
        operands.append(
            DaemonSetFacts(
                release=release,
                name=operand.daemonset,
                role=operand.role,
                node_selector={operand.deploy_label: "true"},
                terms=None,
                tolerations=tolerations,
                source=f"{operator_facts.SOURCE.repo}@{operator_facts.SOURCE.tag} {operand.source}",
                waits_for=operand.waits_for,
            )
        )
    return operands


def gpu_cluster_operands(release: str, gpu_cluster_spec: dict[str, Any]) -> list[DaemonSetFacts]:
    """The operand DaemonSets the operator renders for this GPUCluster spec (gpu-operator v26.7.0 manifests/,
    facts/gpu_operator.py GPU_CLUSTER_OPERANDS). Their tolerations are `daemonsets.tolerations` only."""
    tolerations = tuple((gpu_cluster_spec.get("daemonsets") or {}).get("tolerations") or ())
    operands = []
    for operand in operator_facts.GPU_CLUSTER_OPERANDS:
        if operand.enabled_by and not _spec_switch(gpu_cluster_spec, operand.enabled_by, True):
            continue
        terms = tuple(
            tuple({"key": key, "operator": "In", "values": [value]} for key, value in term) for term in operand.affinity
        )
        operands.append(
            DaemonSetFacts(
                release=release,
                name=operand.daemonset,
                role=operand.role,
                node_selector={f"{DEPLOY_LABEL_PREFIX}{operand.deploy}": "true"},
                terms=terms or None,
                tolerations=tolerations,
                source=f"{operator_facts.GPU_CLUSTER_SOURCE.repo}@{operator_facts.GPU_CLUSTER_SOURCE.tag} {operand.source}",
            )
        )
    return operands


# ---------------------------------------------------------------------------------------------------
# The label passes


def _strip_deploy_labels(labels: dict[str, str]) -> None:
    for operand in (
        *operator_facts.STATE_LABEL_OPERANDS,
        operator_facts.MIG_MANAGER_OPERAND,
        *operator_facts.GPU_CLUSTER_STATE_LABEL_OPERANDS,
    ):
        labels.pop(f"{DEPLOY_LABEL_PREFIX}{operand}", None)


def _operator_pass(
    labels: dict[str, str], pool: PoolFacts, spec: dict[str, Any], strips_without_gpu_present: bool = False
) -> None:
    """labelGPUNodes for one node (state_manager.go:510-547), container workloads. `strips_without_gpu_present`:
    from v26.7.0 a node without gpu.present=true loses every deploy label (facts/gpu_operator.py)."""
    has_nfd_gpu = any(labels.get(k) == "true" for k in operator_facts.NFD_GPU_LABELS)
    common = labels.get(GPU_PRESENT_LABEL) == "true"
    if not common and has_nfd_gpu:
        labels[GPU_PRESENT_LABEL] = "true"
    elif common and not has_nfd_gpu:
        labels[GPU_PRESENT_LABEL] = "false"
        _strip_deploy_labels(labels)
    if labels.get(GPU_PRESENT_LABEL) != "true":
        if strips_without_gpu_present:
            _strip_deploy_labels(labels)
        return
    for operand in operator_facts.STATE_LABEL_OPERANDS:
        labels.setdefault(f"{DEPLOY_LABEL_PREFIX}{operand}", "true")
    if pool.mig_capable:
        labels.setdefault(f"{DEPLOY_LABEL_PREFIX}{operator_facts.MIG_MANAGER_OPERAND}", "true")
        mig_manager = spec.get("migManager") or {}
        default = (mig_manager.get("config") or {}).get("default")
        if mig_manager.get("enabled", True) and default == MIG_ALL_DISABLED:
            labels.setdefault(MIG_CONFIG_LABEL, MIG_ALL_DISABLED)


def _gpu_cluster_pass(labels: dict[str, str]) -> None:
    """The node-labelling pass under a GPUCluster (gpu-operator v26.7.0 controllers/nodelabeling_controller.go:239-268,
    329-338): gpu.present follows NFD's PCI labels as under a ClusterPolicy; on a GPU node the DRA operands' deploy
    labels are set where missing or empty (a value already there is kept), and the ClusterPolicy-only ones swept."""
    has_nfd_gpu = any(labels.get(k) == "true" for k in operator_facts.NFD_GPU_LABELS)
    common = labels.get(GPU_PRESENT_LABEL) == "true"
    if not common and has_nfd_gpu:
        labels[GPU_PRESENT_LABEL] = "true"
    elif common and not has_nfd_gpu:
        labels[GPU_PRESENT_LABEL] = "false"
    if labels.get(GPU_PRESENT_LABEL) != "true":
        _strip_deploy_labels(labels)
        return
    shared = set(operator_facts.GPU_CLUSTER_STATE_LABEL_OPERANDS)
    for operand in (*operator_facts.STATE_LABEL_OPERANDS, operator_facts.MIG_MANAGER_OPERAND):
        if operand not in shared:
            labels.pop(f"{DEPLOY_LABEL_PREFIX}{operand}", None)
    for operand in operator_facts.GPU_CLUSTER_STATE_LABEL_OPERANDS:
        if not labels.get(f"{DEPLOY_LABEL_PREFIX}{operand}"):
            labels[f"{DEPLOY_LABEL_PREFIX}{operand}"] = "true"


def place_pool(
    pool: PoolFacts,
    chart_daemonsets: list[DaemonSetFacts],
    operator: tuple[str, dict[str, Any]] | None,
    gpu_cluster: tuple[str, dict[str, Any]] | None = None,
    operator_version: str | None = None,
) -> PoolPlacement:
    """`operator`: (release, ClusterPolicy spec) when the chart renders a ClusterPolicy; `gpu_cluster`: (release,
    GPUCluster spec) when it renders a GPUCluster instead (never both: the chart refuses it); `operator_version`:
    the gpu-operator chart's version, where its labelling differs (None: as at v25.10.1)."""
    if gpu_cluster is not None:
        return _place_under_gpu_cluster(pool, chart_daemonsets, gpu_cluster)
    labels = dict(pool.labels)
    spec = operator[1] if operator else {}
    operands = operator_operands(operator[0], spec) if operator else []
    strips = operator_facts.strips_deploy_labels_without_gpu_present(operator_version)
    if operator:
        _operator_pass(labels, pool, spec, strips)  # the node registers while the operator already runs
    for _ in range(10):  # labels only grow after the first pass; a handful of rounds settles every case
        before = dict(labels)
        if any(d.role == NFD_WORKER and lands(d, labels, pool.taints) for d in chart_daemonsets):
            labels.setdefault(NFD_NVIDIA_PCI_LABEL, "true")
            for key, value in pool.nfd_rule_labels.items():
                labels.setdefault(key, value)
        if operator:
            _operator_pass(labels, pool, spec, strips)
        running = _running(operands, labels, pool)
        if MIG_CONFIG_LABEL in labels and any(d.role == "mig-manager" for d in running):
            labels[MIG_CONFIG_STATE_LABEL] = MIG_CONFIG_STATE_SUCCESS
        if labels == before:
            break
    landed = [d for d in chart_daemonsets if lands(d, labels, pool.taints)]
    landed += [d for d in operands if lands(d, labels, pool.taints)]
    placement = PoolPlacement(pool, labels, landed, [])
    placement.findings = _findings(placement, spec if operator else None)
    return placement


def _place_under_gpu_cluster(
    pool: PoolFacts, chart_daemonsets: list[DaemonSetFacts], gpu_cluster: tuple[str, dict[str, Any]]
) -> PoolPlacement:
    labels = dict(pool.labels)
    operands = gpu_cluster_operands(*gpu_cluster)
    _gpu_cluster_pass(labels)
    for _ in range(10):
        before = dict(labels)
        if any(d.role == NFD_WORKER and lands(d, labels, pool.taints) for d in chart_daemonsets):
            labels.setdefault(NFD_NVIDIA_PCI_LABEL, "true")
            for key, value in pool.nfd_rule_labels.items():
                labels.setdefault(key, value)
        _gpu_cluster_pass(labels)
        if labels == before:
            break
    landed = [d for d in (*chart_daemonsets, *operands) if lands(d, labels, pool.taints)]
    placement = PoolPlacement(pool, labels, landed, [])
    placement.findings = _findings(placement, None)
    return placement


def _running(operands: list[DaemonSetFacts], labels: dict[str, str], pool: PoolFacts) -> list[DaemonSetFacts]:
    """Operands that land and get past their init container: the validator writes toolkit-ready (its
    toolkit-validation runs before plugin-validation, assets/state-operator-validation/0500_daemonset.yaml:101-167)."""
    landed = [d for d in operands if lands(d, labels, pool.taints)]
    validator = any(d.role == "validator" for d in landed)
    return [d for d in landed if d.waits_for is None or validator]


def _findings(p: PoolPlacement, spec: dict[str, Any] | None) -> list[str]:
    findings: list[str] = []
    roles = p.roles()
    dra, plugin = DRA_PLUGIN in roles, DEVICE_PLUGIN in roles
    names = {
        role: [f"{d.release}/{d.name}" for d in p.landed if d.role == role] for role in (DRA_PLUGIN, DEVICE_PLUGIN)
    }
    if p.pool.host_device_plugin:
        names[DEVICE_PLUGIN].append(p.pool.host_device_plugin)
    if p.pool.host_dra_driver and names[DRA_PLUGIN]:
        findings.append(
            f"two DRA drivers for the same GPUs: the host's ({p.pool.host_dra_driver}) and "
            f"{', '.join(names[DRA_PLUGIN])}"
        )
    if p.pool.host_dra_driver:
        names[DRA_PLUGIN].append(p.pool.host_dra_driver)
    if dra and plugin:
        findings.append(
            f"two NVIDIA GPU stacks on one node: the DRA kubelet plugin ({', '.join(names[DRA_PLUGIN])}) and "
            f"a device plugin ({', '.join(names[DEVICE_PLUGIN])})"
        )
    elif not dra and not plugin:
        findings.append(
            "no GPU software reaches this pool: neither a DRA kubelet plugin nor a device plugin lands here"
            + (f" ({p.pool.unlabelled})" if p.pool.unlabelled else "")
        )
    elif dra and p.pool.gpu_stack != "dra":
        findings.append(
            f"gpuStack is {p.pool.gpu_stack} but the DRA kubelet plugin lands here ({', '.join(names[DRA_PLUGIN])})"
        )
    elif plugin and p.pool.gpu_stack != "device-plugin":
        findings.append(
            f"gpuStack is {p.pool.gpu_stack} but a device plugin runs here ({', '.join(names[DEVICE_PLUGIN])})"
        )
    landed_roles = {d.role for d in p.landed}
    if (
        spec is not None
        and "validator" in landed_roles
        and operator_facts.validator_checks_device_plugin(_spec_switch(spec, "devicePlugin.enabled", True))
        and not plugin
    ):
        findings.append(
            "the GPU Operator's validator keeps plugin-validation (devicePlugin is on) and waits for nvidia.com/gpu "
            "capacity this pool never advertises: it crash-loops and the ClusterPolicy never becomes ready "
            f"({operator_facts.SOURCE_LINES['plugin-validation waits for nvidia.com/gpu']})"
        )
    for d in p.landed:
        if d.waits_for and "validator" not in landed_roles:
            findings.append(
                f"{d.release}/{d.name} waits for the validator's {d.waits_for}, but the validator does not run here: "
                "it stays in Init"
            )
    if p.labels.get(GPU_PRESENT_LABEL) == "false":
        findings.append(
            f"the GPU Operator reset {GPU_PRESENT_LABEL} to false on this pool ({operator_facts.SOURCE_LINES['label reset']})"
        )
    return findings
