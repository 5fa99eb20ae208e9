"""The fleet people run (issue 24): an EKS 1.35 stack with A10G (g5), B200 (p6-b200, a Capacity Block) and GB200
(p6e-gb200: Capacity Blocks only, arm64 AMI, ComputeDomains on) pools, and an AKS 1.36 stack with A10 (NVadsA10 v5)
and GB200 (ND GB200 v6) pools (tests/fleet_stacks). For each, every command a user runs before `pulumi up` is clean:
`gpuplan preview` (exit 0, every manifest strict-valid for the stack's minor and the next), `gpuplan fit` (exit 0,
every claim template placed on the right pool's GPUs), `gpuplan policy` (no violation) and `gpuplan render`'s
placement with a real helm (one NVIDIA GPU stack per pool). Each command runs once per stack (module fixtures)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import compute_domains, kubernetes
from dra_gpu_platform.plans.stack import plan_stack
from dra_gpu_platform.policies.rules.cloud import GPU_BUDGET
from dra_gpu_platform.policies.rules.cost import GPU_ALWAYS_ON_COST
from gpuplan.app import app
from gpuplan.checks.kube_validate import validate_document, versions_for
from gpuplan.engine.sources import StackFileSource
from gpuplan.policy.runner import evaluate, read_policy_config, reconcile
from tests.conftest import ROOT, SHARED
from tests.gpuplan import probe_charts

FLEET = ROOT / "tests" / "fleet_stacks"
STACKS = sorted(p.name.removeprefix("Pulumi.").removesuffix(".yaml") for p in FLEET.glob("Pulumi.*.yaml"))
# One NVL72 domain is 72 GPUs, over the pack's default gpu-budget of 64: the fleet's owners set their budget here.
POLICY_CONFIG = FLEET / "policy-config.json"
# The real gpu-operator and DRA driver charts at their release tags, where ../shared holds them (never committed).
REAL_CHARTS = SHARED / "charts"

# pool -> (NVML product name, GPUs per node, nodes at max scale, kubernetes.io/arch, EKS AMI / AKS VM size)
POOLS: dict[str, dict[str, tuple[str, int, int, str, str]]] = {
    "eks-135-fleet": {
        "a10g": ("NVIDIA A10G", 4, 4, "amd64", "AL2023_x86_64_NVIDIA"),
        "b200": ("NVIDIA B200", 8, 2, "amd64", "AL2023_x86_64_NVIDIA"),
        "gb200": ("NVIDIA GB200", 4, 18, "arm64", "AL2023_ARM_64_NVIDIA"),
    },
    "aks-136-fleet": {
        "a10": ("NVIDIA A10", 1, 6, "amd64", "Standard_NV36ads_A10_v5"),
        "gb200": ("NVIDIA GB200", 4, 18, "arm64", "Standard_ND128isr_NDR_GB200_v6"),
    },
}
# EKS purchase option per pool (the node group's capacityType)
EKS_CAPACITY = {"a10g": "ON_DEMAND", "b200": "CAPACITY_BLOCK", "gb200": "CAPACITY_BLOCK"}
# claim template -> (pool, devices, how many at once: whole-node claims once per node)
CLAIMS: dict[str, dict[str, tuple[str, int, int]]] = {
    "eks-135-fleet": {
        "ml-inference/one-a10g": ("a10g", 1, 16),
        "ml-inference/shared-a10g": ("a10g", 1, 16),
        "ml-inference/a10g-node": ("a10g", 4, 4),
        "ml-training/b200-node": ("b200", 8, 2),
        "ml-training/b200-pair": ("b200", 2, 8),
        "ml-nvl72/gb200-node": ("gb200", 4, 18),
    },
    "aks-136-fleet": {
        "ml-inference/one-a10": ("a10", 1, 6),
        "ml-nvl72/gb200-node": ("gb200", 4, 18),
    },
}


def stack_file(stack: str) -> Path:
    return FLEET / f"Pulumi.{stack}.yaml"


def invoke(*args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(app, [*args, "--format", "json"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, json.loads(result.output)


def test_the_fleet_stacks_are_the_two_of_the_issue():
    assert STACKS == ["aks-136-fleet", "eks-135-fleet"]


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
    return invoke("fit", "--config", str(stack_file(stack)), "--out", str(tmp_path_factory.mktemp(f"fit-{stack}")))


@pytest.fixture(scope="module")
def render(stack, helm_path, tmp_path_factory) -> tuple[int, dict[str, Any], Path, bool]:
    """The real GPU charts where ../shared/charts holds them, else the probe charts; the EKS add-ons (EFA device
    plugin, cluster autoscaler) as probes either way."""
    charts = tmp_path_factory.mktemp(f"charts-{stack}")
    real = (REAL_CHARTS / "gpu-operator-v25.10.1").is_dir() and (REAL_CHARTS / "dra-driver-nvidia-gpu-0.4.1").is_dir()
    if real:
        for name in ("gpu-operator-v25.10.1", "dra-driver-nvidia-gpu-0.4.1"):
            (charts / name).symlink_to(REAL_CHARTS / name, target_is_directory=True)
    else:
        probe_charts.write_charts(charts, operator_version="v25.10.1")  # the fleet stacks pin it
    probe_charts.write_eks_addon_charts(charts)
    out = tmp_path_factory.mktemp(f"render-{stack}")
    command = ["render", "--config", str(stack_file(stack)), "--out", str(out), "--helm", helm_path]
    code, document = invoke(*command, "--charts", str(charts))
    return code, document, out / "rendered", real


# ------------------------------------------------------------------------------------------------------ preview


def test_preview_exits_0_with_every_manifest_strict_valid_for_the_minor_and_the_next(stack, preview):
    code, document, _ = preview
    assert code == 0, document
    config = load_stack_file(stack_file(stack))
    minor = config.cluster.kubernetes_version
    assert document["validation"] == {"errors": [], "kubernetesVersions": list(versions_for(minor, config.platform))}
    # the minor it moves to next, even where the service does not offer it yet (AKS 1.37): the schemas are shipped
    following = f"1.{kubernetes.minor_number(minor) + 1}.0"
    errors = []
    for manifest in document["manifests"]:
        errors += validate_document(yaml.safe_load(Path(manifest).read_text(encoding="utf-8")), following, manifest)
    assert [e.render() for e in errors] == []
    assert len(document["manifests"]) > 20


def test_preview_capacity_counts_each_pools_gpus(stack, preview):
    _, document, _ = preview
    pools = {p["pool"]: p for p in document["capacity"]["pools"]}
    assert {name: (p["gpusPerNode"], p["maxNodes"], p["maxGpus"]) for name, p in pools.items()} == {
        name: (per_node, nodes, per_node * nodes) for name, (_, per_node, nodes, _, _) in POOLS[stack].items()
    }
    assert document["capacity"]["totals"]["maxGpus"] == sum(p["maxGpus"] for p in pools.values())


def _inputs(out: Path, type_suffix: str) -> dict[str, dict[str, Any]]:
    plan = json.loads((out / "plan.json").read_text(encoding="utf-8"))
    return {r["name"]: r["inputs"] for r in plan["resources"] if r["type"].endswith(type_suffix)}


def test_each_pool_is_bought_and_booted_as_its_cloud_sells_it(stack, preview):
    _, _, out = preview
    if stack.startswith("eks"):
        groups = _inputs(out, ":NodeGroup")
        for pool, (_, _, nodes, _, ami) in POOLS[stack].items():
            group = groups[f"gpu-fleet-eks-pool-{pool}-nodes"]
            assert (group["amiType"], group["capacityType"]) == (ami, EKS_CAPACITY[pool]), pool
            assert group["scalingConfig"]["maxSize"] == nodes
    else:
        agent_pools = {i["agentPoolName"]: i for i in _inputs(out, ":AgentPool").values()}
        for pool, (_, _, nodes, _, vm_size) in POOLS[stack].items():
            assert (agent_pools[pool]["vmSize"], agent_pools[pool]["maxCount"]) == (vm_size, nodes), pool


def test_the_gb200_pool_turns_compute_domains_on_and_its_namespace_may_use_channels(stack, preview):
    _, _, out = preview
    dra = next(v for name, v in _inputs(out, ":Release").items() if name.endswith("dra-driver-release"))
    assert dra["values"]["resources"]["computeDomains"] == {"enabled": True}
    plan = plan_stack(load_stack_file(stack_file(stack)))
    assert {"compute-domain-daemon.nvidia.com", compute_domains.CHANNEL_CLASS} <= set(plan.driver_device_classes)
    # the namespace's closed quota admits one IMEX channel claim per node of the NVL72 domain
    quota = yaml.safe_load((out / "manifests" / "08-resourcequota-ml-nvl72.gpu-quota.yaml").read_text(encoding="utf-8"))
    assert quota["spec"]["hard"][f"{compute_domains.CHANNEL_CLASS}.deviceclass.resource.k8s.io/devices"] == "18"
    assert quota["spec"]["hard"]["count/resourceclaims.resource.k8s.io"] == "36"  # a GPU and a channel claim per pod


# ---------------------------------------------------------------------------------------------------------- fit


def _devices(stack: str) -> dict[str, dict[str, Any]]:
    """Every device of the simulated inventory fit places claims on, by its id in fit's report (driver/pool/device)."""
    inventory = plan_stack(load_stack_file(stack_file(stack))).inventory()
    return {
        f"{s['spec']['driver']}/{s['spec']['pool']['name']}/{d['name']}": {
            "node": s["spec"]["nodeName"],
            **{name: next(iter(value.values())) for name, value in d["attributes"].items()},
        }
        for s in inventory.slices
        for d in s["spec"]["devices"]
    }


def test_fit_exits_0_with_every_claim_template_on_its_pools_gpus(stack, fit):
    code, report = fit
    assert code == 0, [c for c in report["claims"] if not c["satisfiable"]]
    devices = _devices(stack)
    found = {}
    for claim in report["claims"]:
        (allocation,) = claim["allocations"]  # one request, one node
        placed = [devices[d] for d in allocation["devices"]]
        product, _, _, _, _ = POOLS[stack][allocation["pool"]]
        assert {d["productName"] for d in placed} == {product}, claim["name"]
        assert {d["type"] for d in placed} == {"gpu"}, claim["name"]  # whole GPUs: no pool is split into MIG
        assert {d["node"] for d in placed} == {allocation["node"]}
        found[f"{claim['namespace']}/{claim['name']}"] = (allocation["pool"], len(placed), claim["maxConcurrent"])
    assert found == CLAIMS[stack]


def test_fit_simulates_each_pools_nodes_with_their_gpus(stack):
    per_node: dict[str, dict[str, int]] = {}
    products: dict[str, set[str]] = {}
    for device in _devices(stack).values():
        pool = device["node"].rsplit("-", 1)[0]
        per_node.setdefault(pool, {}).setdefault(device["node"], 0)
        per_node[pool][device["node"]] += 1
        products.setdefault(pool, set()).add(device["productName"])
    assert {pool: (products[pool], sorted(set(nodes.values())), len(nodes)) for pool, nodes in per_node.items()} == {
        pool: ({product}, [gpus], nodes) for pool, (product, gpus, nodes, _, _) in POOLS[stack].items()
    }


# ------------------------------------------------------------------------------------------------------- policy


def test_the_policy_pack_passes_at_the_fleets_levels(stack):
    run = StackFileSource(stack, stack_file(stack)).run()
    report = evaluate(run, reconcile(read_policy_config(POLICY_CONFIG), str(POLICY_CONFIG)))
    assert [f"{v.policy}: {v.urn}: {v.message}" for v in report.mandatory] == []
    assert [f"{v.policy}: {v.message}" for v in report.violations] == []
    # the config sets the budget and the always-on spend only (every other policy at its default level); at the
    # default budget, one NVL72 domain alone (72 GPUs) is over it, and on AKS the GB200 node a DRA pool keeps under
    # the cluster autoscaler ($108.16/h in eastus) is over the default maxAlwaysOnPerHour ($100)
    assert set(read_policy_config(POLICY_CONFIG)) == {"gpu-budget", "gpu-always-on-cost"}
    budget = evaluate(run, reconcile({}, "(defaults)"), policies=[GPU_BUDGET, GPU_ALWAYS_ON_COST])
    expected = ["gpu-budget", "gpu-always-on-cost"] if stack.startswith("aks") else ["gpu-budget"]
    assert [v.policy for v in budget.violations] == expected and budget.mandatory == []


# ------------------------------------------------------------------------------------------------------- render


def test_render_places_one_nvidia_gpu_stack_on_every_pool(stack, render):
    code, document, _, _ = render
    assert code == 0, document["findings"]
    assert document["findings"] == [] and document["validation"]["errors"] == []
    placement = {p["pool"]: p for p in document["placement"]}
    assert set(placement) == set(POOLS[stack])
    for pool, (_, _, _, arch, _) in POOLS[stack].items():
        roles = [d["role"] for d in placement[pool]["daemonSets"]]
        assert roles.count("dra-kubelet-plugin") == 1 and "device-plugin" not in roles, (pool, roles)
        assert placement[pool]["labels"]["kubernetes.io/arch"] == arch  # Grace nodes are arm64
        assert placement[pool]["findings"] == []
    efa = {p for p, v in placement.items() if any(d["release"] == "aws-efa-k8s-device-plugin" for d in v["daemonSets"])}
    assert efa == ({"b200"} if stack.startswith("eks") else set())  # p6-b200: 8 EFA interfaces


def test_render_installs_what_a_compute_domain_needs(render):
    _, _, rendered, real = render
    dra = rendered / "dra-driver-nvidia-gpu"
    assert (dra / "10-deployment-dra-driver-nvidia-gpu.dra-driver-nvidia-gpu-controller.yaml").is_file()
    if real:  # the chart at its tag: the ComputeDomain CRD, the channel class and the kubelet plugin's CD container
        assert (dra / "01-customresourcedefinition-computedomains.resource.nvidia.com.yaml").is_file()
        assert (dra / f"06-deviceclass-{compute_domains.CHANNEL_CLASS}.yaml").is_file()
        plugin = yaml.safe_load(
            (dra / "10-daemonset-dra-driver-nvidia-gpu.dra-driver-nvidia-gpu-kubelet-plugin.yaml").read_text()
        )
        containers = [c["name"] for c in plugin["spec"]["template"]["spec"]["containers"]]
        assert containers == ["compute-domains", "gpus"]


def test_the_gb200_pool_bought_on_demand_is_exit_2_at_its_path(tmp_path):
    """AWS sells p6e-gb200 only through Capacity Blocks: the same pool on demand is refused before anything runs."""
    document = yaml.safe_load(stack_file("eks-135-fleet").read_text(encoding="utf-8"))
    pools = document["config"]["dra-gpu-platform:nodePools"]
    index = next(i for i, p in enumerate(pools) if p["name"] == "gb200")
    for key in ("capacity", "capacityReservationId", "availabilityZone"):
        del pools[index][key]
    pools[index]["minNodes"] = 1
    path = tmp_path / "Pulumi.gb200-on-demand.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    result = CliRunner().invoke(app, ["preview", "--config", str(path), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert f"nodePools[{index}] (gb200).capacity = 'on-demand'" in result.output
    assert "only through EC2 Capacity Blocks" in result.output
