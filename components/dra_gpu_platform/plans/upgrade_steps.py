"""An upgrade's steps: what a step, a stage of the stack file and a blocker are, and the steps one Kubernetes minor
brings on each platform (control plane, node pools, add-ons, API migrations). dra_gpu_platform/plans/upgrade.py
walks the minors and adds the GPU software. Pure: no Pulumi imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from dra_gpu_platform.config.cluster import KindSettings
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import autoscaler, karpenter, kubernetes, platforms, provisioners, versions
from dra_gpu_platform.facts.node_labels import POOL_LABEL
from dra_gpu_platform.plans.maintenance import taint_rule_api
from dra_gpu_platform.plans.node_pools import PoolPlan

StepKind = Literal["control-plane", "nodes", "add-ons", "gpu-software", "api-migration", "stack-file"]
Disruption = Literal["none", "rolling", "drain", "replace"]
STEP_KINDS: tuple[StepKind, ...] = ("control-plane", "nodes", "add-ons", "gpu-software", "api-migration", "stack-file")
DISRUPTIONS: tuple[Disruption, ...] = ("none", "rolling", "drain", "replace")
SYSTEM_POOL = "system"  # the EKS system node group / AKS system agent pool in `pools`

_EKS_NODE_UPDATE = "https://docs.aws.amazon.com/eks/latest/userguide/managed-node-update-behavior.html"
_AKS_NODE_UPGRADE = "https://learn.microsoft.com/en-us/azure/aks/upgrade-aks-node-pools-rolling"


@dataclass(frozen=True)
class Edit:
    """One value of the stack file: `path` under the section `dra-gpu-platform:<path[0]>`."""

    path: tuple[str, ...]
    value: str

    @property
    def text(self) -> str:
        return ".".join(self.path)


@dataclass(frozen=True)
class Stage:
    """One change of the stack file and the `pulumi up` that applies it."""

    number: int  # 1-based; stage 0 is the stack as it is
    edits: tuple[Edit, ...]
    title: str


@dataclass(frozen=True)
class Step:
    kind: StepKind
    what: str
    pools: tuple[str, ...]
    disruption: Disruption
    stage: int | None  # the stage whose `pulumi up` does it; None: outside Pulumi (the cluster's owner, a command)
    how: tuple[str, ...] = ()  # commands and checks for the runbook


@dataclass(frozen=True)
class Blocker:
    what: str
    why: str
    fix: str

    def as_json(self) -> dict[str, str]:
        return {"what": self.what, "why": self.why, "fix": self.fix}


@dataclass
class PlanBuilder:
    """The plan as it is built: stages in order, steps in order, blockers and notes."""

    config: StackConfig
    pools: tuple[PoolPlan, ...]
    stages: list[Stage] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    blockers: list[Blocker] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def stage(self, title: str, *edits: Edit) -> int:
        self.stages.append(Stage(len(self.stages) + 1, tuple(edits), title))
        return len(self.stages)

    def step(
        self, kind: StepKind, what: str, pools: tuple[str, ...], disruption: Disruption, stage: int | None, *how: str
    ) -> None:
        self.steps.append(Step(kind, what, pools, disruption, stage, tuple(how)))


def minor_steps(b: PlanBuilder, minor: str, today: date) -> None:
    config = b.config
    profile = config.profile
    edits = [Edit(("cluster", "kubernetesVersion"), minor)]
    settings = config.cluster.settings()
    if isinstance(settings, KindSettings) and settings.node_image:
        edits.append(Edit(("cluster", "kind", "nodeImage"), versions.KIND_NODE_IMAGES[minor]))
    # the cluster autoscaler's image follows the minor; NodePool provisioners are no cluster-autoscaler
    runs_ca = config.autoscaler_enabled and not config.node_pool_provisioner
    ca = autoscaler.RELEASES[minor][-1] if minor in autoscaler.RELEASES else None
    if runs_ca and "version" in config.autoscaler.model_fields_set and ca:
        edits.append(Edit(("autoscaler", "version"), ca))
    _karpenter_blocker(b, minor)
    if runs_ca and ca is None:
        b.blockers.append(
            Blocker(
                f"cluster-autoscaler on Kubernetes {minor}",
                f"no cluster-autoscaler image for {minor} yet: {autoscaler.NO_IMAGE_YET.get(minor, 'none released')}",
                f"stop at the newest minor with an image ({max(autoscaler.RELEASES)}), or set autoscaler.enabled: false "
                "and size the pools yourself",
            )
        )
    stage = b.stage(f"Kubernetes {minor}", *edits)
    previous = f"1.{kubernetes.minor_number(minor) - 1}"
    service = profile.kubernetes.service  # None: every minor this package knows (kind, existing)
    offer = kubernetes.availability(service, minor, today) if service is not None else None
    if service is not None and offer is not None and not offer.offered:
        planned = offer.offer.planned if offer.offer is not None and offer.offer.planned else "no announcement found"
        newest = kubernetes.newest_offered(service, today)
        b.blockers.append(
            Blocker(
                f"Kubernetes {minor} on {profile.title}",
                f"{profile.title} does not offer {minor} (checked {kubernetes.CHECKED.isoformat()}: {planned})",
                f"stop at {newest} (--to {newest}) until {profile.title} offers {minor}",
            )
        )
    upgraded_ca = ca if runs_ca else None
    _PLATFORM_STEPS[profile.name](b, _Minor(minor, previous, stage, tuple(edits), upgraded_ca))
    _api_migrations(b, previous, minor, stage)


def _karpenter_blocker(b: PlanBuilder, minor: str) -> None:
    """The Karpenter release the stack pins must support the minor (dra_gpu_platform/facts/karpenter.py
    MIN_FOR_KUBERNETES); its chart is the stack's, so the stack file moves it first."""
    config = b.config
    if not (config.node_pool_provisioner and config.provisioner == provisioners.KARPENTER):
        return
    version = config.autoscaler.version or karpenter.DEFAULT_VERSION
    if karpenter.supports_kubernetes(version, minor):
        return
    needed = karpenter.MIN_FOR_KUBERNETES[minor]
    fitting = sorted(v for v in karpenter.RELEASES if karpenter.supports_kubernetes(v, minor))
    b.blockers.append(
        Blocker(
            f"Karpenter {version} on Kubernetes {minor}",
            f"Karpenter supports Kubernetes {minor} from {needed} (docs/references.md#karpenter-releases)",
            f"set autoscaler.version: {fitting[-1]} in a `pulumi up` of its own first"
            if fitting
            else f"stop at the newest minor Karpenter {version} supports; no known release supports {minor}",
        )
    )


@dataclass(frozen=True)
class _Minor:
    """One minor of the walk: its stage and the stack-file edits that make it."""

    version: str
    previous: str
    stage: int
    edits: tuple[Edit, ...]
    autoscaler: str | None  # the cluster-autoscaler release the stack moves to, where it installs one

    @property
    def newest_patch(self) -> str:
        return kubernetes.NEWEST_PATCH.get(self.version, self.version)


def _managed_minor(
    b: PlanBuilder,
    m: _Minor,
    control_plane: str,
    nodes: Callable[[PlanBuilder, str, int], None],
    add_ons: str,
    add_ons_disruption: Disruption,
) -> None:
    """A managed service's minor: it upgrades the control plane in place once the stack file names the minor, then
    the node pools roll, then its add-ons follow."""
    edits = ", ".join(f"{e.text}: {e.value!r}" for e in m.edits)
    b.step("control-plane", control_plane, (), "none", m.stage, f"set {edits} in the stack file")
    nodes(b, m.version, m.stage)
    b.step("add-ons", add_ons, (), add_ons_disruption, m.stage)


def _eks_minor(b: PlanBuilder, m: _Minor) -> None:
    _managed_minor(
        b,
        m,
        f"EKS updates the control plane {m.previous} → {m.version} (one minor at a time; the newest patch of the "
        f"minor, {m.newest_patch} as of {kubernetes.CHECKED.isoformat()}, is EKS's to pick)",
        _eks_nodes,
        f"EKS add-ons (vpc-cni, coredns, kube-proxy, eks-pod-identity-agent, aws-ebs-csi-driver) move to their "
        f"{m.version} versions"
        + (f"; cluster-autoscaler {m.autoscaler}, the image of {m.version}" if m.autoscaler else ""),
        "rolling",
    )


def _aks_minor(b: PlanBuilder, m: _Minor) -> None:
    _managed_minor(
        b,
        m,
        f"AKS upgrades the control plane {m.previous} → {m.version} (no skipping minors outside LTS; newest patch "
        f"{m.newest_patch} as of {kubernetes.CHECKED.isoformat()})",
        _aks_nodes,
        f"AKS moves its managed components (CoreDNS, konnectivity, CSI drivers, the cluster autoscaler profile) "
        f"to {m.version} with the control plane",
        "none",
    )


def _kind_minor(b: PlanBuilder, m: _Minor) -> None:
    image = versions.KIND_NODE_IMAGES[m.version]
    gpu_pools = tuple(p.name for p in b.pools)
    b.step(
        "control-plane",
        f"kind has no in-place upgrade (kubernetes-sigs/kind#1972): the cluster is deleted and created again "
        f"with {image}",
        gpu_pools,
        "replace",
        m.stage,
        "`gpuplan diff` refuses the kind cluster's replacement: accept it with --allow-replace, "
        "or `pulumi destroy` and `pulumi up`",
    )
    b.step(
        "nodes",
        f"every kind worker is created again from {image}: running pods and claims are gone",
        gpu_pools,
        "replace",
        m.stage,
    )


def _existing_minor(b: PlanBuilder, m: _Minor) -> None:
    b.step(
        "control-plane",
        f"the cluster's owner upgrades the control plane {m.previous} → {m.version} (one minor at a time); then set "
        f"cluster.kubernetesVersion: {m.version!r}, so the stack renders for what the cluster runs",
        (),
        "none",
        m.stage,
    )
    b.step(
        "nodes",
        f"the cluster's owner upgrades the kubelet of each GPU node to {m.version}: cordon and drain it first "
        f"(`kubectl drain -l {POOL_LABEL}=<pool> --ignore-daemonsets --delete-emptydir-data`), one node at a "
        "time; the DRA kubelet plugin is a DaemonSet, which drain leaves, so claims are unprepared cleanly",
        tuple(p.name for p in b.pools),
        "drain",
        None,
    )


# How a minor reaches each platform's control plane and nodes, by the profile's name (dra_gpu_platform/facts/
# platforms.py), as plans/stack.py picks a cluster planner: the managed services upgrade in place, kind is created
# again, an existing cluster's owner upgrades it.
_PLATFORM_STEPS: Mapping[str, Callable[[PlanBuilder, _Minor], None]] = {
    "eks": _eks_minor,
    "aks": _aks_minor,
    "kind": _kind_minor,
    "existing": _existing_minor,
}
assert tuple(_PLATFORM_STEPS) == platforms.PLATFORMS  # every platform of the stack file walks its minors


def _node_pool_nodes(b: PlanBuilder, minor: str, stage: int) -> tuple[PoolPlan, ...]:
    """The GPU pools that are NodePools of Karpenter, EKS Auto Mode or AKS node auto-provisioning: their nodes follow
    the control plane by replacement, not a node group or agent pool update. Returns the other pools."""
    node_pools = [p for p in b.pools if p.node_pool]
    if node_pools:
        provisioner = node_pools[0].provisioner
        b.step(
            "nodes",
            f"{_NODE_POOL_UPGRADE[provisioner]}: each node of the NodePools is replaced by one of {minor}, within "
            "the NodePools' disruption budgets (one node at a time), its pods evicted",
            tuple(p.name for p in node_pools),
            "drain",
            stage,
            *(
                (
                    f"the EC2NodeClasses' pinned AMI aliases must have a release for {minor} (`aws ssm get-parameters-by-path` "
                    "as nodeclasses.md shows); otherwise move them to one that has",
                )
                if provisioner == provisioners.KARPENTER
                else ()
            ),
        )
    return tuple(p for p in b.pools if not p.node_pool)


# How each NodePool provisioner's nodes follow a new control-plane minor.
_NODE_POOL_UPGRADE = {
    # the alias resolves the AMI of the cluster's minor (release-v1.14.1 website/content/en/v1.14/concepts/
    # nodeclasses.md:784-806, K8S_VERSION in the SSM path), so a new minor drifts every node (concepts/disruption.md:155-159)
    provisioners.KARPENTER: "Karpenter sees its nodes drift: the EC2NodeClasses' AMI aliases resolve to the new "
    "minor's AMIs",
    # awsdocs/amazon-eks-user-guide 4d52b4d latest/ug/automode/auto-upgrade.adoc:10,16
    provisioners.AUTO_MODE: "EKS Auto Mode replaces its nodes after the control plane upgrade, observing "
    "PodDisruptionBudgets",
    # MicrosoftDocs/azure-aks-docs fb060abe articles/aks/node-auto-provisioning.md:63
    provisioners.NODE_AUTO_PROVISIONING: "node auto-provisioning moves its nodes to the control plane's version",
}


def _eks_nodes(b: PlanBuilder, minor: str, stage: int) -> None:
    pools = _node_pool_nodes(b, minor, stage)
    rolling = [SYSTEM_POOL, *(p.name for p in pools if p.capacity != "capacity-block")]
    blocks = [p for p in pools if p.capacity == "capacity-block"]
    # the system node group's AMI is not a GPU one; with every GPU pool a NodePool only it is listed
    amis = sorted({p.ami_type or "AL2023_x86_64_NVIDIA" for p in pools}) or ["the system node group's AMI type"]
    b.step(
        "nodes",
        f"each managed node group moves to {minor} with the newest AMI release of {minor} ({', '.join(amis)}; the node "
        "groups pin no releaseVersion): EKS launches a new node before it terminates an old one (update strategy "
        "DEFAULT, maxUnavailable 1), drains each old node within 15 minutes and respects PodDisruptionBudgets "
        f"({_EKS_NODE_UPDATE}); a GPU pool short of quota or capacity for the extra node can use update strategy "
        "MINIMAL (terminate first)",
        tuple(rolling),
        "rolling",
        stage,
    )
    for pool in blocks:
        b.step(
            "nodes",
            f"Capacity Block pool {pool.name}: EKS updates a Capacity Block node group only at desired size 0, so "
            f"every node of it goes: scale it to 0, let the update run, scale it back (reservation "
            f"{pool.capacity_reservation_id})",
            (pool.name,),
            "replace",
            stage,
            f"before `pulumi up`: drain the pool (`kubectl drain -l {POOL_LABEL}={pool.name} --ignore-daemonsets "
            "--delete-emptydir-data`) and set its desired size to 0",
        )


def _aks_nodes(b: PlanBuilder, minor: str, stage: int) -> None:
    pools = _node_pool_nodes(b, minor, stage)
    sizes = sorted({p.instance_type for p in pools if p.instance_type})
    b.step(
        "nodes",
        f"AKS upgrades each agent pool to {minor} by surge: one extra VM per pool at a time (maxSurge 1, so GPU "
        f"quota for one more {', '.join(sizes) or 'GPU VM'}), cordon, drain (30-minute timeout), reimage "
        f"({_AKS_NODE_UPGRADE}); a GPU pool without quota to spare can use maxSurge 0 with maxUnavailable 1",
        (SYSTEM_POOL, *(p.name for p in pools)),
        "rolling",
        stage,
    )


def _api_migrations(b: PlanBuilder, previous: str, minor: str, stage: int) -> None:
    taints = b.config.maintenance.device_taints
    if not taints:
        return
    old, new = taint_rule_api(previous), taint_rule_api(minor)
    if old == new:
        return
    b.step(
        "api-migration",
        f"DeviceTaintRules {', '.join(t.name for t in taints)} move from {old} to {new}, the version "
        f"Kubernetes {minor} serves{' by default' if kubernetes.MINORS[minor].device_taint_rule_default else ''}: "
        "a new apiVersion is a new resource type for Pulumi, so each rule is deleted and created again (its taint "
        "is off for that moment)",
        (),
        "none",
        stage,
    )
