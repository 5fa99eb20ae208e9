"""`gpuplan render` for one stack: preview it (program offline, manifests validated), render every Helm release it
declares with a real helm, validate the rendered objects the same way, write them with a kustomization, and place
every DaemonSet on every node pool."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from dra_gpu_platform.facts import auto_mode, eks_amis, karpenter, node_allocatable, provisioners
from dra_gpu_platform.facts import efa as efa_facts
from dra_gpu_platform.facts.node_labels import EFA_LABEL, SYSTEM_ROLE_LABEL
from dra_gpu_platform.plans.gpu_software import (
    BOTTLEROCKET_OPERAND_LABELS,
    DRA_DRIVER_RELEASE,
    EXAMPLE_DRIVER_RELEASE,
    GPU_OPERATOR_RELEASE,
)
from dra_gpu_platform.plans.node_pools import PoolPlan
from dra_gpu_platform.plans.provisioning.node_pools import capacity_types
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.checks.crd_validate import cluster_scoped_kinds, crd_schemas, validate_custom_resource
from gpuplan.checks.kube_validate import ManifestError, validate_document
from gpuplan.engine.outputs import helm_values
from gpuplan.engine.sources import StackSource
from gpuplan.preview.stack import preview_stack
from gpuplan.render import charts, files, helm, values_check
from gpuplan.render.placement import (
    DRA_PLUGIN,
    NFD_WORKER,
    DaemonSetFacts,
    PoolFacts,
    PoolPlacement,
    daemonset_facts,
    lands,
    place_pool,
)

# Set from the cloud provider on EKS and AKS nodes (well-known label); charts such as the EFA device plugin select on it.
INSTANCE_TYPE_LABEL = node_allocatable.INSTANCE_TYPE_LABEL


def kubelet_labels(pool: PoolPlan) -> dict[str, str]:
    """The well-known labels the kubelet sets on every node: its OS and its CPU architecture (arm64 on Grace)."""
    return {node_allocatable.OS_LABEL: "linux", node_allocatable.ARCH_LABEL: pool.node_arch}


def node_labels(pool: PoolPlan) -> dict[str, str]:
    """Every label a node of the pool carries when it has joined: the pool's labels (the EFA marker on EKS EFA
    pools), the kubelet's well-known labels, on clouds the instance type, and on a NodePool's nodes what Karpenter
    adds (its NodePool, the capacity type; EKS Auto Mode's compute type)."""
    labels = {**pool.labels, **kubelet_labels(pool)}
    if pool.profile.node_pools.bought and pool.instance_type:
        labels[INSTANCE_TYPE_LABEL] = pool.instance_type
    if pool.node_pool:
        labels[karpenter.NODEPOOL_LABEL] = pool.name
        labels[karpenter.CAPACITY_TYPE_LABEL] = capacity_types(pool)[0]
        if pool.provisioner == provisioners.AUTO_MODE:
            labels[auto_mode.COMPUTE_TYPE_LABEL] = "auto"
    return labels


DRA_RELEASES = (DRA_DRIVER_RELEASE, EXAMPLE_DRIVER_RELEASE)
# Where charts pulled online are kept, under --out: `--charts <out>/charts` renders from them offline next time.
PULLED_CHARTS = "charts"
# Always served from 1.34 (resource.k8s.io/v1 GA); the ServiceMonitor API where monitoring expects Prometheus Operator.
# Charts ask both for the group/version and for one kind in it (gpu-operator v26.7.0 templates/validations.yaml:25-30
# checks resource.k8s.io/v1/DeviceClass before it renders a GPUCluster).
RESOURCE_API = "resource.k8s.io/v1"
RESOURCE_API_KINDS = (f"{RESOURCE_API}/DeviceClass",)
MONITORING_API = "monitoring.coreos.com/v1"
BOTTLEROCKET_DEVICE_PLUGIN = (
    "host: the Bottlerocket NVIDIA AMI's own device plugin (docs/references.md#eks-nvidia-ami-contents)"
)
AUTO_MODE_DEVICE_PLUGIN = f"host: {auto_mode.HOST_SOFTWARE} (docs/references.md#eks-auto-mode)"
BOTTLEROCKET_DRA_DRIVER = (
    f"host: Bottlerocket's NVIDIA DRA driver, {eks_amis.BOTTLEROCKET_DRA_SERVICE} "
    "(docs/references.md#bottlerocket-nvidia-dra-driver)"
)


@dataclass
class ReleaseResult:
    rendered: helm.Rendered
    hooks: list[str] = field(default_factory=list)
    unread: list[str] | None = None  # values keys no template reads (--check-values), None: not checked


@dataclass
class RenderReport:
    stack: str
    plan: StackPlan
    releases: list[ReleaseResult]
    placements: list[PoolPlacement]
    preview_errors: list[ManifestError]
    render_errors: list[ManifestError]
    unvalidated: list[str]  # "<release>/<file>: apiVersion kind" with no schema and no CRD in the render
    kustomization: Path | None
    findings: list[str]


def pool_facts(pool: PoolPlan) -> PoolFacts:
    # An existing cluster's pool whose nodes the stack does not name carries none of its labels until someone runs
    # the kubectl commands preview prints (dra_gpu_platform/plans/node_pools.unmapped_pool_warning).
    unlabelled = pool.profile.node_pools.existing_nodes and not pool.nodes
    model = pool.model
    return PoolFacts(
        name=pool.name,
        gpu_stack=pool.gpu_stack,
        labels=kubelet_labels(pool) if unlabelled else node_labels(pool),
        taints=() if unlabelled else pool.taints,
        unlabelled="its nodes are not listed in nodePools[].nodes: until the kubectl label/taint commands preview prints "
        "are applied, they carry none of the pool's labels"
        if unlabelled
        else None,
        mig_capable=model is not None and model.supports_mig and pool.profile.software.mig_manager,
        nfd_rule_labels=dict(BOTTLEROCKET_OPERAND_LABELS) if eks_amis.is_bottlerocket(pool.ami_type) else {},
        host_device_plugin=AUTO_MODE_DEVICE_PLUGIN
        if pool.provisioner == provisioners.AUTO_MODE
        else BOTTLEROCKET_DEVICE_PLUGIN
        if pool.ships_device_plugin
        else None,
        provisioner=provisioners.NAMES[pool.provisioner] + " NodePool" if pool.node_pool else None,
        host_dra_driver=BOTTLEROCKET_DRA_DRIVER if pool.host_dra_driver else None,
    )


def chart_daemonsets(release: str, documents: list[dict[str, Any]]) -> list[DaemonSetFacts]:
    found = []
    for doc in documents:
        if doc.get("kind") != "DaemonSet" or files.is_hook(doc):
            continue
        labels = (doc.get("metadata") or {}).get("labels") or {}
        if release in DRA_RELEASES:
            role = DRA_PLUGIN
        elif labels.get("app.kubernetes.io/name") == "node-feature-discovery" and labels.get("role") == "worker":
            role = NFD_WORKER  # the NFD subchart's worker (templates/worker.yaml labels)
        else:
            role = "other"
        found.append(daemonset_facts(release, doc, role))
    return found


def release_specs(run) -> list[helm.ReleaseSpec]:
    return [
        helm.ReleaseSpec(name, r["chart"], r["version"], r["repository"], r["namespace"], r["values"])
        for name, r in sorted(helm_values(run).items())
    ]


def api_versions(plan: StackPlan) -> list[str]:
    return [RESOURCE_API, *RESOURCE_API_KINDS] + ([MONITORING_API] if plan.monitoring is not None else [])


def render_stack(
    source: StackSource, out: Path, helm_binary: str, charts_dir: Path | None, check_values: bool = False
) -> RenderReport:
    plan = source.plan()  # before anything is written: a user's program that builds no GpuPlatform has none
    preview = preview_stack(source, out)
    run, manifests, checked, preview_errors = preview.run, preview.manifests, preview.checked, preview.errors
    kube_version = f"{plan.kubernetes_version}.0"
    results: list[ReleaseResult] = []
    findings: list[str] = []
    specs = release_specs(run)
    with tempfile.TemporaryDirectory(prefix="gpuplan-charts-") as work:
        # every chart had first: one that cannot be had is invalid input naming its `helm pull`, before any render
        chart_set = charts.ChartSet(helm_binary, Path(work), charts_dir, out / PULLED_CHARTS)
        sources = {s.name: chart_set.add(s.name, s.chart, s.chart_name, s.version, s.repository) for s in specs}
        chart_set.check()
        for spec in specs:
            source = sources[spec.name]
            assert source is not None  # check() raised otherwise
            rendered = helm.render(
                helm_binary,
                spec,
                out / "helm-values",
                kube_version=kube_version,
                api_versions=api_versions(plan),
                chart=source,
            )
            result = ReleaseResult(rendered)
            results.append(result)
            if rendered.error:
                findings.append(
                    f"helm template of {spec.name} ({spec.chart_name} {spec.version}) failed: {rendered.error}"
                )
            elif check_values:
                result.unread = values_check.unread_keys(
                    helm_binary,
                    rendered,
                    out / "helm-values",
                    kube_version=kube_version,
                    api_versions=api_versions(plan),
                )
                findings += [
                    f"{spec.name}: values key {key} is read by no template of {spec.chart_name} {spec.version}"
                    for key in result.unread
                ]
            if (mismatch := helm.version_mismatch(rendered)) is not None:
                findings.append(mismatch)
    rendered_docs = {r.rendered.release.name: r.rendered.documents for r in results}
    everything = [d for docs in rendered_docs.values() for d in docs]
    cluster_scoped = cluster_scoped_kinds(everything)
    kustomization = None
    render_errors: list[ManifestError] = []
    unvalidated: list[str] = []
    if not any(r.rendered.error for r in results):
        namespaces = {r.rendered.release.name: r.rendered.release.namespace for r in results}
        listed, hooks = files.write_rendered(out / "rendered", rendered_docs, manifests, cluster_scoped, namespaces)
        for result in results:
            result.hooks = sorted(str(h) for h in hooks if h.parent.parent.name == result.rendered.release.name)
        kustomization = out / "rendered" / "kustomization.yaml"
        render_errors, unvalidated = _validate(listed, out / "rendered", everything, checked)
        findings += [f"{e.render()}" for e in render_errors]
    versions = {r.rendered.release.name: r.rendered.release.version for r in results}
    placements = place_pools(plan.pools, rendered_docs, versions.get(GPU_OPERATOR_RELEASE))
    for placement in placements:
        findings += [f"pool {placement.pool.name}: {f}" for f in placement.findings]
    findings += efa_findings(placements)
    findings += controller_findings(rendered_docs)
    findings += [e.render() for e in preview_errors]
    return RenderReport(
        run.stack, plan, results, placements, preview_errors, render_errors, unvalidated, kustomization, findings
    )


def efa_findings(placements: list[PoolPlacement]) -> list[str]:
    """An EFA pool (EFA interfaces attached) that the EFA device plugin does not reach: its EFA stays unusable."""
    return [
        f"pool {p.pool.name}: its EFA interfaces stay unusable: no DaemonSet of the {efa_facts.RELEASE} release lands "
        "there, so no pod can request vpc.amazonaws.com/efa"
        for p in placements
        if p.pool.labels.get(EFA_LABEL) == "true" and not any(d.release == efa_facts.RELEASE for d in p.landed)
    ]


SYSTEM_NODE_LABELS = {SYSTEM_ROLE_LABEL: "system", node_allocatable.OS_LABEL: "linux"}


def controller_findings(rendered_docs: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The Karpenter controller must run on the system nodes (a managed node group): its Deployment's selectors and
    affinity must match them, since nodes it launches itself are excluded (chart values.yaml:93-102)."""
    found = []
    for doc in rendered_docs.get(karpenter.RELEASE, []):
        if doc.get("kind") != "Deployment":
            continue
        facts = daemonset_facts(karpenter.RELEASE, doc, "controller")
        if not lands(facts, SYSTEM_NODE_LABELS, ()):
            found.append(
                f"the {karpenter.RELEASE} release's Deployment {facts.name} lands on no system node: nothing would "
                "run the controller that launches GPU nodes"
            )
    return found


def place_pools(
    pools: tuple[PoolPlan, ...], rendered_docs: dict[str, list[dict[str, Any]]], operator_version: str | None = None
) -> list[PoolPlacement]:
    daemonsets = [d for release, docs in sorted(rendered_docs.items()) for d in chart_daemonsets(release, docs)]
    operator = gpu_cluster = None
    for doc in rendered_docs.get(GPU_OPERATOR_RELEASE, []):
        if doc.get("kind") == "ClusterPolicy":
            operator = (GPU_OPERATOR_RELEASE, doc.get("spec") or {})
        elif doc.get("kind") == "GPUCluster":
            gpu_cluster = (GPU_OPERATOR_RELEASE, doc.get("spec") or {})
    return [place_pool(pool_facts(pool), daemonsets, operator, gpu_cluster, operator_version) for pool in pools]


def _validate(paths: list[Path], root: Path, everything: list[dict[str, Any]], versions: tuple[str, ...]):
    schemas = crd_schemas(everything)
    errors: list[ManifestError] = []
    unvalidated: list[str] = []
    for path in paths:
        doc = yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
        name = str(path.relative_to(root))
        key = (doc.get("apiVersion", ""), doc.get("kind", ""))
        if path.parent.name == "stack":
            # preview validated the stack's own manifests, except the provisioner's custom resources (NodePools, node
            # classes): those against the CRDs of the chart that installs them, where this render carries them
            if doc.get("apiVersion") in provisioners.CUSTOM_RESOURCE_APIS:
                if key in schemas:
                    errors += validate_custom_resource(doc, schemas[key], name)
                else:
                    unvalidated.append(f"{name}: {key[0]} {key[1]}")
            continue
        if key in schemas:
            errors += validate_custom_resource(doc, schemas[key], name)
            continue
        first = validate_document(doc, versions[0], name)
        if first and first[0].message.startswith("no schema for"):
            unvalidated.append(f"{name}: {key[0]} {key[1]}")
            continue
        errors += first
        for version in versions[1:]:
            errors += validate_document(doc, version, name)
    return errors, unvalidated
