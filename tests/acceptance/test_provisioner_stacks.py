"""GPU capacity that follows demand (issue 34): an EKS 1.36 stack with Karpenter 1.15.0 (an A10G DRA pool from zero, an
H100 Capacity Block pool, a T4 device-plugin pool), an EKS 1.36 stack on EKS Auto Mode (device-plugin pools) and an
AKS 1.36 stack with node auto-provisioning (tests/provisioner_stacks). For each: `gpuplan preview` (exit 0, the GPU pools
are NodePools and no node group), `gpuplan policy` (no violation), `gpuplan fit` on workloads it has not seen (which
pool scales up, with which instance type, how many nodes, at what cost) and `gpuplan render` (the Karpenter chart with
the stack's values, the NodePools against its CRDs where ../shared holds the real chart, placement per NodePool).
Each command runs once per stack (module fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import karpenter
from gpuplan.app import app
from gpuplan.engine.sources import StackFileSource
from gpuplan.policy.runner import evaluate, reconcile
from tests.conftest import ROOT, SHARED
from tests.gpuplan import probe_charts

STACKS_DIR = ROOT / "tests" / "provisioner_stacks"
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in STACKS_DIR.glob("Pulumi.*.yaml"))
REAL_CHARTS = SHARED / "charts"

# stack -> pool -> (NodePool node class kind, instance types, maxNodes)
POOLS: dict[str, dict[str, tuple[str, list[str], int]]] = {
    "eks-136-karpenter": {
        "a10g": ("EC2NodeClass", ["g5.12xlarge", "g5.24xlarge"], 6),
        "h100": ("EC2NodeClass", ["p5.48xlarge"], 2),
        "t4": ("EC2NodeClass", ["g4dn.xlarge"], 4),
    },
    "eks-136-auto-mode": {
        "l4": ("NodeClass", ["g6.xlarge", "g6.2xlarge"], 8),
        "l40s": ("NodeClass", ["g6e.12xlarge"], 3),
    },
    "aks-136-nap": {
        "a100": ("AKSNodeClass", ["Standard_NC24ads_A100_v4"], 2),
        "t4": ("AKSNodeClass", ["Standard_NC4as_T4_v3", "Standard_NC8as_T4_v3"], 6),
    },
}
# stack -> workload -> (verdict, pool, instance type, nodes, per hour)
PROVISIONING: dict[str, dict[str, tuple[str, str | None, str | None, int, float | None]]] = {
    "eks-136-karpenter": {
        # 2 pods x 4 A10G: two g5.12xlarge (cheaper than g5.24xlarge), from zero, at $5.672/h each
        "ml-inference/llm": ("scale-up", "a10g", "g5.12xlarge", 2, 11.344),
        # the Capacity Block: prepaid, no hourly figure
        "ml-training/train": ("scale-up", "h100", "p5.48xlarge", 1, None),
        "ml-legacy/old-app": ("scale-up", "t4", "g4dn.xlarge", 3, 1.578),
    },
    "eks-136-auto-mode": {
        "inference/small": ("scale-up", "l4", "g6.xlarge", 3, None),  # spot: no price
        "inference/big": ("scale-up", "l40s", "g6e.12xlarge", 1, 10.49264),
    },
    "aks-136-nap": {"inference/t4-app": ("scale-up", "t4", "Standard_NC4as_T4_v3", 2, 1.052)},
}


def stack_file(stack: str) -> Path:
    return STACKS_DIR / f"Pulumi.{stack}.yaml"


def invoke(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.output)


def test_the_provisioner_stacks_are_the_three_of_the_issue():
    assert sorted(POOLS) == STACKS


@pytest.fixture(scope="module", params=STACKS)
def stack(request) -> str:
    return request.param


@pytest.fixture(scope="module")
def preview(stack, tmp_path_factory) -> tuple[int, dict[str, Any], Path]:
    out = tmp_path_factory.mktemp(f"preview-{stack}")
    code, document = invoke("preview", "--config", str(stack_file(stack)), "--out", str(out))
    return code, document, out


@pytest.fixture(scope="module")
def fit(stack, tmp_path_factory) -> tuple[int, dict[str, Any]]:
    workloads = STACKS_DIR / f"workloads-{stack}.yaml"
    out = tmp_path_factory.mktemp(f"fit-{stack}")
    return invoke("fit", "--config", str(stack_file(stack)), "--claims", str(workloads), "--out", str(out))


def _real_karpenter(stack: str) -> Path | None:
    version = (load_stack_file(stack_file(stack)).autoscaler.version or karpenter.DEFAULT_VERSION).lstrip("v")
    folder = REAL_CHARTS / f"karpenter-{version}"
    return folder if stack.endswith("karpenter") and folder.is_dir() else None


@pytest.fixture(scope="module")
def render(stack, helm_path, tmp_path_factory) -> tuple[int, dict[str, Any], bool]:
    """Probe GPU charts; the real Karpenter chart where ../shared/charts holds it (its CRDs validate the NodePools),
    else a probe of its controller Deployment."""
    charts = tmp_path_factory.mktemp(f"charts-{stack}")
    config = load_stack_file(stack_file(stack))
    probe_charts.write_charts(charts, config.gpu_operator.version)  # the release the stack pins or gets by default
    probe_charts.write_eks_addon_charts(charts)
    real = _real_karpenter(stack)
    version = (config.autoscaler.version or karpenter.DEFAULT_VERSION).lstrip("v")
    if real is not None:
        (charts / real.name).symlink_to(real, target_is_directory=True)
    else:
        probe_charts.write_karpenter_chart(charts, version)
    out = tmp_path_factory.mktemp(f"render-{stack}")
    code, document = invoke(
        "render", "--config", str(stack_file(stack)), "--out", str(out), "--helm", helm_path, "--charts", str(charts)
    )
    return code, document, real is not None


# ------------------------------------------------------------------------------------------------------ preview


def _inputs(out: Path, type_suffix: str) -> dict[str, dict[str, Any]]:
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    return {r["name"]: r["inputs"] for r in plan["resources"] if r["type"].endswith(type_suffix)}


def test_preview_exits_0_with_the_gpu_pools_as_nodepools_and_no_node_group(stack, preview):
    code, document, out = preview
    assert code == 0, document
    assert document["validation"]["errors"] == []
    manifests = {Path(m).name: yaml.safe_load(Path(m).read_text(encoding="utf-8")) for m in document["manifests"]}
    node_pools = {d["metadata"]["name"]: d for d in manifests.values() if d["kind"] == "NodePool"}
    assert sorted(node_pools) == sorted(POOLS[stack])
    for name, (node_class, types, nodes) in POOLS[stack].items():
        spec = node_pools[name]["spec"]
        assert spec["template"]["spec"]["nodeClassRef"]["kind"] == node_class
        instance_types = next(r["values"] for r in spec["template"]["spec"]["requirements"] if r["operator"] == "In")
        assert instance_types == types and spec["limits"] == {"nodes": str(nodes)}
        assert {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"} in spec["template"]["spec"][
            "taints"
        ]
    gpu_groups = [n for n in _inputs(out, ":NodeGroup") if "system" not in n]
    assert gpu_groups == [] and _inputs(out, ":AgentPool") == {}


def test_preview_capacity_starts_every_pool_at_zero_and_prices_it(stack, preview):
    _, document, _ = preview
    pools = {p["pool"]: p for p in document["capacity"]["pools"]}
    assert {name: (p["minNodes"], p["maxNodes"]) for name, p in pools.items()} == {
        name: (0, nodes) for name, (_, _, nodes) in POOLS[stack].items()
    }
    assert document["capacity"]["totals"]["alwaysOnPerHour"] == 0
    for pool in pools.values():
        if pool["price"] is not None:
            assert pool["price"]["asOf"] and "karpenter-provider" in pool["price"]["source"]


@pytest.mark.parametrize("stack", ["eks-136-karpenter"], indirect=True)
def test_karpenter_comes_with_its_iam_interruption_queue_and_node_access(preview, stack):
    _, _, out = preview
    releases = {i["name"]: i for i in _inputs(out, ":Release").values()}
    values = releases["karpenter"]["values"]
    assert releases["karpenter"]["chart"] == "oci://public.ecr.aws/karpenter/karpenter"
    assert releases["karpenter"]["version"] == "1.15.0"
    assert values["settings"]["awsFeatureGates"] == {"draNVIDIAGPU": True}
    (queue,) = _inputs(out, ":Queue").values()
    assert queue["messageRetentionSeconds"] == 300 and queue["sqsManagedSseEnabled"] is True
    assert len(_inputs(out, ":EventRule")) == 5 and len(_inputs(out, ":EventTarget")) == 5
    entries = [i for i in _inputs(out, ":AccessEntry").values() if i.get("type") == "EC2_LINUX"]
    assert len(entries) == 1
    (association,) = [i for i in _inputs(out, ":PodIdentityAssociation").values() if i["serviceAccount"] == "karpenter"]
    assert association["namespace"] == "kube-system"


@pytest.mark.parametrize("stack", ["eks-136-auto-mode"], indirect=True)
def test_auto_mode_turns_on_its_three_capabilities_and_installs_no_gpu_chart(preview, stack):
    _, _, out = preview
    (cluster,) = _inputs(out, "eks/cluster:Cluster").values()
    assert cluster["computeConfig"]["enabled"] is True and cluster["bootstrapSelfManagedAddons"] is False
    assert cluster["storageConfig"]["blockStorage"]["enabled"] is True
    assert cluster["kubernetesNetworkConfig"]["elasticLoadBalancing"]["enabled"] is True
    assert {i["name"] for i in _inputs(out, ":Release").values()} == set()  # no GPU Operator, DRA driver or EFA plugin
    assert [i["type"] for i in _inputs(out, ":AccessEntry").values() if i.get("type") == "EC2"] == ["EC2"]


# ------------------------------------------------------------------------------------------------------ policy


def test_the_policy_pack_passes(stack):
    report = evaluate(StackFileSource(stack, stack_file(stack)).run(), reconcile({}, "(defaults)"))
    assert [f"{v.policy}: {v.message}" for v in report.violations] == []


# ---------------------------------------------------------------------------------------------------------- fit


def test_fit_says_which_pool_scales_up_with_which_type_how_many_nodes_and_what_it_costs(stack, fit):
    code, report = fit
    assert code == 0, [p["reasons"] for p in report["pods"]]
    found = {
        f"{p['namespace']}/{p['name']}": (
            p["provisioning"]["verdict"],
            p["provisioning"]["pool"],
            p["provisioning"]["instanceType"],
            p["provisioning"]["nodes"],
            p["provisioning"]["perHour"],
        )
        for p in report["pods"]
    }
    assert found == PROVISIONING[stack]
    assert {p["provisioning"]["provisioner"] for p in report["pods"]} == {
        load_stack_file(stack_file(stack)).provisioner
    }


# ------------------------------------------------------------------------------------------------------- render


def test_render_places_the_gpu_software_on_every_nodepool(stack, render):
    code, document, real = render
    assert code == 0, document["findings"]
    assert document["findings"] == [] and document["validation"]["errors"] == []
    placement = {p["pool"]: p for p in document["placement"]}
    assert set(placement) == set(POOLS[stack])
    for pool in placement.values():
        assert pool["provisioner"].endswith("NodePool")
        assert pool["labels"]["karpenter.sh/nodepool"] == pool["pool"]
        roles = [d["role"] for d in pool["daemonSets"]]
        expected = "dra-kubelet-plugin" if pool["gpuStack"] == "dra" else "device-plugin"
        assert (
            roles.count(expected) == 1
            and ("device-plugin" if expected != "device-plugin" else "dra-kubelet-plugin") not in roles
        )
    if stack.endswith("auto-mode"):  # Auto Mode's device plugin is its node runtime's, not a DaemonSet
        assert all(d["source"] == "host" for p in placement.values() for d in p["daemonSets"])
    if stack.endswith("karpenter"):
        unvalidated = document["validation"]["unvalidated"]
        stack_objects = [u for u in unvalidated if u.startswith("stack/")]
        # with the real chart its CRDs validate the NodePools and EC2NodeClasses; a probe carries none
        assert (stack_objects == []) == real


def test_a_dra_pool_under_karpenter_1_14_is_exit_2_at_its_path(tmp_path):
    document = yaml.safe_load(stack_file("eks-136-karpenter").read_text(encoding="utf-8"))
    document["config"]["dra-gpu-platform:autoscaler"]["version"] = "1.14.1"
    path = tmp_path / "Pulumi.karpenter-1-14.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    result = CliRunner().invoke(app, ["preview", "--config", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "nodePools[0] (a10g).gpuStack = 'dra'" in result.output
    assert f"autoscaler.version: {karpenter.DRA_VERSION}" in result.output
