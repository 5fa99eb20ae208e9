"""The upgrade planner (dra_gpu_platform/plans/upgrade.py): order, hops, disruption, blockers; no program runs."""

from __future__ import annotations

import copy
from datetime import date
from pathlib import Path

import pytest
import yaml

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts import gpu_software_support as support
from dra_gpu_platform.facts import kubernetes
from dra_gpu_platform.plans.upgrade import UpgradeInputError, plan_upgrade, software_notes
from dra_gpu_platform.plans.upgrade_steps import STEP_KINDS
from tests.config.test_provisioner_rules import AKS, EKS, pools, stack

STACKS = Path(__file__).resolve().parents[2] / "stacks"
TODAY = date(2026, 12, 7)


def config_of(stack: str, **sections):
    values = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())["config"]
    values = copy.deepcopy(values)
    for key, value in sections.items():
        if value is None:
            values.pop(f"dra-gpu-platform:{key}", None)
        else:
            values[f"dra-gpu-platform:{key}"] = value
    return parse_config_map(values, stack=stack, source=f"Pulumi.{stack}.yaml")


def with_cluster(stack: str, **changes):
    values = yaml.safe_load((STACKS / f"Pulumi.{stack}.yaml").read_text())["config"]
    cluster = {**values["dra-gpu-platform:cluster"], **changes}
    return cluster


def kinds(plan):
    return [s.kind for s in plan.steps]


def test_control_plane_first_then_nodes_add_ons_and_gpu_software():
    plan = plan_upgrade(config_of("prod"), "1.36", today=TODAY)
    order = kinds(plan)
    assert order.index("control-plane") < order.index("nodes") < order.index("add-ons") < order.index("gpu-software")
    assert set(order) <= set(STEP_KINDS)
    assert plan.before.as_json() == {"kubernetes": "1.35", "gpuOperator": "v25.10.1", "draDriver": "0.4.1"}
    assert plan.after.as_json() == {"kubernetes": "1.36", "gpuOperator": "v26.7.0", "draDriver": "0.4.1"}


def test_the_operator_goes_through_each_major_each_hop_supported_where_it_lands():
    plan = plan_upgrade(config_of("prod"), "1.36", today=TODAY)
    hops = [s.edits[0].value for s in plan.stages if s.edits[0].path == ("gpuOperator", "version")]
    assert hops == ["v26.3.3", "v26.7.0"]
    for stage in plan.stages:
        if stage.edits[0].path != ("gpuOperator", "version"):
            continue
        minor = plan.stage_edits(stage.number)[("cluster", "kubernetesVersion")]
        assert support.operator_supports(stage.edits[0].value, kubernetes.minor_number(minor))
    skip = [b for b in plan.blockers if "skips a major" in b.why]
    assert len(skip) == 1 and "v25.10.1 → v26.3.3 → v26.7.0" in skip[0].fix


def test_a_gpu_software_step_that_reloads_an_operator_driver_drains_dra_pools():
    """An existing cluster whose operator installs the driver: every hop reloads it, the driver manager before v0.12.0
    does not evict pods holding DRA claims, so the step drains and says how."""
    config = config_of(
        "prod",
        cluster={"platform": "existing", "name": "onprem", "kubernetesVersion": "1.35", "existing": {"context": "a"}},
        nodePools=[{"name": "h100", "gpu": "H100", "maxNodes": 2, "nodes": ["n1", "n2"]}],
        gpuOperator={"version": "v25.10.1", "driver": "operator"},
        namespaces=None,
        deviceClasses=None,
        kubeconfig={"secure": "v1:offline-placeholder"},
    )
    plan = plan_upgrade(config, "1.36", today=TODAY)
    hops = [s for s in plan.steps if s.kind == "gpu-software"]
    assert [s.disruption for s in hops] == ["drain", "drain"]
    assert "kubectl drain" in " ".join(hops[0].how) and "does not evict pods holding DRA claims" in hops[0].what
    assert "does not evict pods holding DRA claims" not in hops[1].what  # v26.7.0 ships driver manager v0.12.0
    owner = [s for s in plan.steps if s.kind == "nodes"]
    assert owner[0].disruption == "drain" and owner[0].stage is None


def test_capacity_block_pools_are_replaced_the_others_roll():
    plan = plan_upgrade(config_of("prod"), "1.36", today=TODAY)
    nodes = {s.pools: s.disruption for s in plan.steps if s.kind == "nodes"}
    assert nodes[("h100-train",)] == "replace"
    assert nodes[("system", "h100-infer", "t4-legacy")] == "rolling"


def test_two_minors_go_one_at_a_time_and_an_unoffered_minor_blocks():
    plan = plan_upgrade(config_of("prod"), "1.37", today=TODAY)
    minors = [s.edits[0].value for s in plan.stages if s.edits[0].path == ("cluster", "kubernetesVersion")]
    assert minors == ["1.36", "1.37"]
    # v26.3.3 is not supported on 1.37: it lands after 1.36, v26.7.0 after 1.37
    titles = [s.title for s in plan.stages]
    assert titles == ["Kubernetes 1.36", "GPU Operator v26.3.3", "Kubernetes 1.37", "GPU Operator v26.7.0"]
    assert any(b.what == "Kubernetes 1.37 on EKS" and "--to 1.36" in b.fix for b in plan.blockers)


def test_an_offer_is_judged_on_the_day_given():
    before = plan_upgrade(config_of("staging"), "1.36", today=date(2026, 5, 1))
    after = plan_upgrade(config_of("staging"), "1.36", today=TODAY)
    assert any(b.what == "Kubernetes 1.36 on AKS" for b in before.blockers)
    assert not any(b.what == "Kubernetes 1.36 on AKS" for b in after.blockers)


def test_a_device_taint_rule_crossing_to_1_37_migrates_its_api():
    plan = plan_upgrade(config_of("dev"), "1.37", today=TODAY)
    migrations = [s for s in plan.steps if s.kind == "api-migration"]
    assert [m.stage for m in migrations] == [1, 2]
    assert "to resource.k8s.io/v1beta2" in migrations[0].what
    assert "resource.k8s.io/v1beta2 to resource.k8s.io/v1," in migrations[1].what
    assert all(s.disruption == "replace" for s in plan.steps if s.kind in ("control-plane", "nodes"))
    assert [e.text for e in plan.stages[0].edits] == ["cluster.kubernetesVersion", "cluster.kind.nodeImage"]


@pytest.mark.parametrize("today", [date(2026, 12, 1), date(2027, 1, 15)])
def test_1_38_is_a_blocker_naming_its_date_whatever_the_day(today):
    plan = plan_upgrade(config_of("dev"), "1.38", today=today)
    announced = [b for b in plan.blockers if b.what == "Kubernetes 1.38"]
    assert len(announced) == 1 and "2026-12-16" in announced[0].why
    assert "resource.k8s.io/v1beta1 is no longer served" in announced[0].why
    assert not any(s.kind == "stack-file" and "1.38" in s.what for s in plan.steps)
    assert any("DynamicResourceAllocation" in n for n in plan.notes)


def test_an_api_removed_while_used_blocks():
    """A 25.3 DRA driver chart writes resource.k8s.io/v1beta1 DeviceClasses, which 1.38 no longer serves."""
    cluster = with_cluster("dev", kind={"gpuDriver": "nvidia"})
    config = config_of("dev", cluster=cluster, draDriver={"version": "25.3.2"}, deviceClasses=None, namespaces=None)
    plan = plan_upgrade(config, "1.38", today=TODAY)
    used = [b for b in plan.blockers if b.what == "resource.k8s.io/v1beta1 on Kubernetes 1.38"]
    assert used and any("25.3.2" in b.why for b in used)


def test_a_release_that_does_not_support_the_target_blocks():
    plan = plan_upgrade(config_of("prod"), "1.36", gpu_operator_target="v26.3.1", today=TODAY)
    assert any(b.what == "GPU Operator v26.3.1 on Kubernetes 1.36" for b in plan.blockers)


def test_a_supported_release_is_kept_and_no_blocker_remains():
    config = config_of("staging", gpuOperator={"enabled": True, "version": "v26.7.0", "driver": "auto"})
    plan = plan_upgrade(config, "1.36", today=TODAY)
    assert plan.after.gpu_operator == "v26.7.0" and not any(s.kind == "gpu-software" for s in plan.steps)
    assert plan.blockers == ()


@pytest.mark.parametrize(
    "to, operator, flag",
    [("1.33", None, "--to"), ("1.34", None, "--to"), ("1.40", None, "--to"), ("1.36", "v25.10.0", "--gpu-operator")],
)
def test_targets_it_cannot_plan_for_are_invalid_input(to, operator, flag):
    with pytest.raises(UpgradeInputError) as caught:
        plan_upgrade(config_of("prod"), to, gpu_operator_target=operator, today=TODAY)
    assert caught.value.flag == flag and caught.value.fix


def test_end_of_support_operator_gets_a_note_with_the_exact_command():
    assert software_notes(config_of("prod")) == [
        "GPU Operator v25.10.1: its major 25.10 is end of support in NVIDIA's life cycle "
        f"({support.LIFECYCLE_SOURCE}). Plan the upgrade with "
        "`gpuplan upgrade --stack prod --to 1.35 --gpu-operator v26.7.0`"
    ]
    assert software_notes(config_of("prod", gpuOperator={"version": "v26.7.0"})) == []


def test_nodepool_provisioners_replace_their_nodes_and_karpenter_must_support_the_minor():
    """Karpenter's, Auto Mode's and NAP's nodes follow the control plane by replacement (no node group update, no
    Capacity Block scaled to 0); no cluster-autoscaler image is asked for; a Karpenter release too old blocks."""
    plugin = pools({"gpuStack": "device-plugin"})
    old = StackConfig.model_validate(
        stack(EKS, autoscaler={"provisioner": "karpenter", "version": "1.14.1"}, nodePools=plugin)
    )
    plan = plan_upgrade(old, "1.37", today=TODAY)
    nodes = {s.pools: (s.disruption, s.what) for s in plan.steps if s.kind == "nodes"}
    assert nodes[("a10g", "t4")][0] == "drain" and "Karpenter sees its nodes drift" in nodes[("a10g", "t4")][1]
    assert nodes[("system",)][0] == "rolling"  # the system node group stays managed
    whats = [b.what for b in plan.blockers]
    assert "Karpenter 1.14.1 on Kubernetes 1.37" in whats and not any("cluster-autoscaler" in w for w in whats)
    (blocker,) = [b for b in plan.blockers if b.what.startswith("Karpenter")]
    assert "autoscaler.version: 1.15.0" in blocker.fix
    current = StackConfig.model_validate(EKS)  # Karpenter 1.15.0 supports 1.37
    assert not any(b.what.startswith("Karpenter") for b in plan_upgrade(current, "1.37", today=TODAY).blockers)
    nap = plan_upgrade(
        StackConfig.model_validate(stack(AKS, cluster={**AKS["cluster"], "kubernetesVersion": "1.35"})),
        "1.36",
        today=TODAY,
    )
    steps = {s.pools: s.what for s in nap.steps if s.kind == "nodes"}
    assert "node auto-provisioning moves its nodes" in steps[("t4",)] and ("system",) in steps
