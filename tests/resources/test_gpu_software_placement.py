"""Exactly one NVIDIA GPU stack on every pool, for every row of the GPU software decision table and every
committed stack, without helm: the DaemonSets the charts would render are modelled from our values (nodeSelector,
affinity, tolerations; the NVIDIA chart's default kubelet-plugin affinity where we set none) and placed by the same
engine `gpuplan render` uses on real renders (gpuplan/render/placement.py), GPU Operator operands from the facts
table. tests/gpuplan/test_render.py runs that engine on charts rendered by a real helm."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import driver_charts
from dra_gpu_platform.facts.node_labels import DEVICE_PLUGIN_DEPLOY_LABEL, GPU_PRESENT_LABEL
from dra_gpu_platform.plans import gpu_software as gsv
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.render import placement
from gpuplan.render.placement import DRA_PLUGIN, NFD_WORKER, DaemonSetFacts
from gpuplan.render.stack import pool_facts
from tests.conftest import REFERENCE_STACKS, STACKS_DIR
from tests.plans.test_gpu_software import TABLE, stack

CHART_DEFAULT_TERMS = tuple(
    ({"key": k, "operator": "In", "values": [v]},) for k, v in driver_charts.KUBELET_PLUGIN_DEFAULT_AFFINITY
)


def _terms(affinity: dict | None):
    terms = (
        ((affinity or {}).get("nodeAffinity") or {}).get("requiredDuringSchedulingIgnoredDuringExecution") or {}
    ).get("nodeSelectorTerms")
    return None if terms is None else tuple(tuple(t["matchExpressions"]) for t in terms)


def modelled_daemonsets(config: StackConfig) -> tuple[list[DaemonSetFacts], tuple[str, dict[str, Any]] | None]:
    """What the three charts render, from our values: the kubelet plugins, the NFD worker, the ClusterPolicy spec."""
    found: list[DaemonSetFacts] = []
    operator = None
    if (plan := plan_stack(config).software.gpu_operator) is not None:
        worker = plan.values["node-feature-discovery"]["worker"]
        found.append(
            DaemonSetFacts(
                plan.release,
                "nfd-worker",
                NFD_WORKER,
                worker.get("nodeSelector", {}),
                _terms(worker.get("affinity")),
                tuple(worker["tolerations"]),
                "chart",
            )
        )
        # the ClusterPolicy copies these switches (templates/clusterpolicy.yaml); migManager.config.default is the chart's
        mig_manager = {**plan.values.get("migManager", {}), "config": {"default": "all-disabled"}}
        spec = {**plan.values, "migManager": mig_manager}
        operator = (plan.release, spec)
    if (plan := plan_stack(config).software.dra_driver) is not None:
        kubelet = plan.values["kubeletPlugin"]
        terms = _terms(kubelet.get("affinity")) or CHART_DEFAULT_TERMS
        found.append(
            DaemonSetFacts(
                plan.release,
                "kubelet-plugin",
                DRA_PLUGIN,
                kubelet.get("nodeSelector", {}),
                terms,
                tuple(kubelet["tolerations"]),
                "chart",
            )
        )
    if (plan := gsv.example_driver_plan(config)) is not None:
        kubelet = plan.values["kubeletPlugin"]
        found.append(
            DaemonSetFacts(
                plan.release,
                "kubeletplugin",
                DRA_PLUGIN,
                kubelet["nodeSelector"],
                None,
                tuple(kubelet["tolerations"]),
                "chart",
            )
        )
    return found, operator


def placements(config: StackConfig, daemonsets=None, operator=None, pools=None):
    modelled, modelled_operator = modelled_daemonsets(config)
    daemonsets = modelled if daemonsets is None else daemonsets
    operator = modelled_operator if operator is None else operator
    # under a GPUCluster the chart renders its spec from these values (templates/gpucluster.yaml), no ClusterPolicy
    gpu_cluster = operator if config.uses_gpu_cluster else None
    operator = None if config.uses_gpu_cluster else operator
    # an existing cluster's pools as if their nodes were named (and so labelled): the table rows name none
    pools = pools or [pool_facts(replace(p, nodes=p.nodes or ("node-1",))) for p in plan_stack(config).pools]
    return {p.name: placement.place_pool(p, daemonsets, operator, gpu_cluster) for p in pools}


def expected_findings(config: StackConfig, name: str) -> list[str]:
    """What a correct stack still reports: kind's fake GPUs have no device plugin (the dev stack's legacy pool)."""
    pool = config.pool(name)
    if config.uses_example_driver and pool.gpu_stack == "device-plugin":
        return ["no GPU software reaches this pool: neither a DRA kubelet plugin nor a device plugin lands here"]
    if not config.gpu_operator_enabled and pool.gpu_stack == "device-plugin" and not pool.ami_type:
        return ["no GPU software reaches this pool: neither a DRA kubelet plugin nor a device plugin lands here"]
    return []


def check_stack(config: StackConfig) -> None:
    for name, placed in placements(config).items():
        assert placed.findings == expected_findings(config, name), (name, placed.findings)
        roles = placed.roles()
        if not placed.findings:
            assert (DRA_PLUGIN in roles) == (config.pool(name).gpu_stack == "dra"), name
    modelled, _ = modelled_daemonsets(config)
    cpu_node = {"kubernetes.io/os": "linux", "node-role.kubernetes.io/control-plane": ""}
    assert not [d.name for d in modelled if placement.lands(d, cpu_node, ())]  # nothing GPU on CPU nodes


def table_config(spec: dict) -> StackConfig:
    spec = dict(spec)
    return stack(spec.pop("platform"), spec.pop("pools"), **spec)


@pytest.mark.parametrize("spec", [row[1] for row in TABLE], ids=[row[0] for row in TABLE])
def test_one_gpu_stack_per_pool_in_the_decision_table(spec):
    check_stack(table_config(spec))


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("name", REFERENCE_STACKS)
def test_one_gpu_stack_per_pool_in_committed_stacks(name):
    config = load_stack_file(STACKS_DIR / f"Pulumi.{name}.yaml")
    check_stack(config)
    assert any(p.landed for p in placements(config).values())  # the stack installs something to check


def _row(name: str) -> StackConfig:
    return table_config(next(row[1] for row in TABLE if row[0] == name))


def test_the_validator_crash_loops_on_dra_pools_when_the_operator_runs_its_device_plugin():
    """The refused dual stack (config rule): forcing devicePlugin on shows why."""
    config = _row("eks-bottlerocket-plugin-pool-only")
    daemonsets, (release, spec) = modelled_daemonsets(config)
    placed = placements(config, daemonsets, (release, {**spec, "devicePlugin": {"enabled": True}}))["h100"]
    assert any("validator keeps plugin-validation" in f for f in placed.findings)


def test_a_kubelet_plugin_without_its_node_selector_lands_beside_the_bottlerocket_device_plugin():
    config = _row("eks-bottlerocket-plugin-pool-only")
    daemonsets, operator = modelled_daemonsets(config)
    loose = [
        DaemonSetFacts(d.release, d.name, d.role, {}, d.terms, d.tolerations, d.source) if d.role == DRA_PLUGIN else d
        for d in daemonsets
    ]
    placed = placements(config, loose, operator)["t4-br"]
    assert placed.findings[0].startswith("two NVIDIA GPU stacks on one node")


def test_the_chart_kubelet_plugin_stays_off_the_bottlerocket_dra_pool_whose_host_serves_it():
    placed = placements(_row("eks-bottlerocket-dra-pool"))
    host = placed["h100-br"]
    assert host.findings == [] and not [d for d in host.landed if d.role == DRA_PLUGIN]
    assert host.host_entries() == [(host.pool.host_dra_driver, DRA_PLUGIN)] and "host DRA driver" not in str(host.pool)
    assert [d.release for d in placed["h100"].landed if d.role == DRA_PLUGIN] == ["dra-driver-nvidia-gpu"]
    # a chart plugin that ignored its nodeSelector would be a second DRA driver there
    config = _row("eks-bottlerocket-dra-pool")
    daemonsets, operator = modelled_daemonsets(config)
    loose = [
        DaemonSetFacts(d.release, d.name, d.role, {}, d.terms, d.tolerations, d.source) if d.role == DRA_PLUGIN else d
        for d in daemonsets
    ]
    assert placements(config, loose, operator)["h100-br"].findings[0].startswith("two DRA drivers for the same GPUs")


def test_under_a_gpucluster_the_operator_places_its_own_dra_kubelet_plugin():
    config = _row("eks-gpucluster")
    (h100,) = placements(config).values()
    assert h100.findings == []
    assert {(d.name, d.role) for d in h100.landed if d.source != "chart"} == {
        ("nvidia-dra-driver-kubelet-plugin", DRA_PLUGIN),
        ("nvidia-dra-validator", "validator"),
        ("nvidia-dcgm-exporter-dra", "dcgm-exporter"),
    }
    assert h100.labels["nvidia.com/gpu.deploy.dra-driver"] == "true"
    assert DEVICE_PLUGIN_DEPLOY_LABEL not in h100.labels  # a ClusterPolicy-only deploy label, swept
    # a static gpu.deploy.dra-driver=false does not keep it off: before NFD has labelled a new node the operator strips
    # every deploy label (nodelabeling_controller.go:258-261), so only a non-empty value set *after* gpu.present
    # holds (:329-338). Why the config rules refuse Bottlerocket pools with a GPUCluster rather than label them.
    (pool,) = [pool_facts(p) for p in plan_stack(config).pools]
    held = replace(pool, labels={**pool.labels, "nvidia.com/gpu.deploy.dra-driver": "false"})
    (held_placed,) = placements(config, pools=[held]).values()
    assert [d.name for d in held_placed.landed if d.role == DRA_PLUGIN] == ["nvidia-dra-driver-kubelet-plugin"]


def test_from_v26_7_the_operator_strips_static_deploy_labels_until_nfd_has_run():
    # gpu-operator v26.7.0 nodelabeling_controller.go:258-261: the DRA pool's device-plugin=false guard is gone after
    # the first pass; with devicePlugin off cluster-wide (the config rule) nothing lands there either way
    config = _row("eks-al2023-dra-only")
    daemonsets, operator = modelled_daemonsets(config)
    (pool,) = [pool_facts(p) for p in plan_stack(config).pools]
    old = placement.place_pool(pool, daemonsets, operator, None, "v25.10.1")
    new = placement.place_pool(pool, daemonsets, operator, None, "v26.7.0")
    assert old.labels[DEVICE_PLUGIN_DEPLOY_LABEL] == "false" and new.labels[DEVICE_PLUGIN_DEPLOY_LABEL] == "true"
    assert old.findings == new.findings == []
    release, spec = operator
    forced = placement.place_pool(
        pool, daemonsets, (release, {**spec, "devicePlugin": {"enabled": True}}), None, "v26.7.0"
    )
    assert forced.findings[0].startswith("two NVIDIA GPU stacks on one node")


def test_untolerated_spot_taints_keep_the_kubelet_plugin_off():
    config = _row("aks-spot-pool")
    daemonsets, operator = modelled_daemonsets(config)
    assert DRA_PLUGIN in placements(config, daemonsets, operator)["a100"].roles()
    short = [
        DaemonSetFacts(d.release, d.name, d.role, d.node_selector, d.terms, d.tolerations[:1], d.source)
        for d in daemonsets
    ]
    assert "no GPU software reaches this pool" in placements(config, short, operator)["a100"].findings[0]


def test_dra_nodes_without_the_device_plugin_opt_out_get_the_operators_plugin():
    config = _row("eks-bottlerocket-plugin-pool-only")
    daemonsets, (release, spec) = modelled_daemonsets(config)
    pool = pool_facts(plan_stack(config).pool("h100"))
    bare = placement.PoolFacts(
        pool.name,
        pool.gpu_stack,
        {k: v for k, v in pool.labels.items() if k != DEVICE_PLUGIN_DEPLOY_LABEL},
        pool.taints,
        pool.mig_capable,
    )
    placed = placement.place_pool(bare, daemonsets, (release, {**spec, "devicePlugin": {"enabled": True}}))
    assert placed.findings[0].startswith("two NVIDIA GPU stacks on one node")


def test_a_static_gpu_present_label_and_nfd_pinned_to_it_deadlock_a_new_node():
    """The configuration issue 14 found: the operator resets gpu.present before NFD has run, NFD never comes."""
    config = _row("eks-al2023-dra-only")
    daemonsets, operator = modelled_daemonsets(config)
    pinned = [
        DaemonSetFacts(d.release, d.name, d.role, {GPU_PRESENT_LABEL: "true"}, None, d.tolerations, d.source)
        if d.role == NFD_WORKER
        else d
        for d in daemonsets
    ]
    pool = pool_facts(plan_stack(config).pool("h100"))
    static = placement.PoolFacts(
        pool.name, pool.gpu_stack, {**pool.labels, GPU_PRESENT_LABEL: "true"}, pool.taints, pool.mig_capable
    )
    placed = placement.place_pool(static, pinned, operator)
    assert placed.labels[GPU_PRESENT_LABEL] == "false"
    assert DEVICE_PLUGIN_DEPLOY_LABEL not in placed.labels  # the guard went with the reset
    assert any(f.startswith("no GPU software reaches this pool") for f in placed.findings)
    # our values: NFD selects the pool label, the operator sets gpu.present itself
    assert placements(config, daemonsets, operator)["h100"].labels[GPU_PRESENT_LABEL] == "true"


def test_the_kubelet_plugin_waits_for_the_mig_layout():
    config = _row("eks-mig-single")
    daemonsets, (release, spec) = modelled_daemonsets(config)
    assert DRA_PLUGIN in placements(config, daemonsets, (release, spec))["h100-mig"].roles()
    # without mig-manager the layout is never applied, and the plugin never starts on a half-made node
    placed = placements(config, daemonsets, (release, {**spec, "migManager": {"enabled": False}}))["h100-mig"]
    assert DRA_PLUGIN not in placed.roles()
    assert "nvidia.com/mig.config.state" not in placed.labels
