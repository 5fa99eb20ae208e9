"""fit's `provisioning`: what the stack's provisioner does for each workload the pools at minNodes cannot hold, in
file order, the nodes it launches staying for the workloads that follow: the cluster autoscaler grows the node group
whose template holds the pods (a dra pool only from a running node), Karpenter takes the first NodePool by name from
the end that holds the pods in its own model, and says `never` where that NodePool's nodes cannot run them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import ROOT, STACKS_DIR
from tests.gpuplan.restricted_pods import restricted

KARPENTER = ROOT / "tests" / "provisioner_stacks" / "Pulumi.eks-136-karpenter.yaml"


def deployment(namespace: str, name: str, replicas: int, spec: dict[str, Any]) -> dict[str, Any]:
    # restricted's security context: the tenant namespaces enforce it, and Pod Security is not what these test
    pod = restricted({"tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}], **spec})
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": pod},
        },
    }


def gpus(count: int) -> dict[str, Any]:
    return {
        "containers": [
            {"name": "app", "image": "registry.example/app:1", "resources": {"limits": {"nvidia.com/gpu": count}}}
        ]
    }


def claims(template: str, **extra: Any) -> dict[str, Any]:
    return {
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template}],
        "containers": [{"name": "app", "image": "registry.example/app:1", "resources": {"claims": [{"name": "gpu"}]}}],
        **extra,
    }


def fit(tmp_path: Path, stack: Path, *documents: dict[str, Any]) -> tuple[int, dict[str, dict[str, Any]]]:
    claims_file = tmp_path / "workloads.yaml"
    claims_file.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    result = CliRunner().invoke(
        app,
        [
            "fit",
            "--config",
            str(stack),
            "--claims",
            str(claims_file),
            "--out",
            str(tmp_path / "out"),
            "--format",
            "json",
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    report = json.loads(result.output)
    return result.exit_code, {f"{p['namespace']}/{p['name']}": p["provisioning"] for p in report["pods"]}


def test_the_cluster_autoscaler_grows_the_device_plugin_pool_from_zero_and_prices_it(tmp_path):
    _, found = fit(tmp_path, STACKS_DIR / "Pulumi.prod.yaml", deployment("ml-legacy", "legacy", 3, gpus(1)))
    answer = found["ml-legacy/legacy"]
    assert (answer["provisioner"], answer["verdict"], answer["pool"], answer["instanceType"], answer["nodes"]) == (
        "cluster-autoscaler",
        "scale-up",
        "t4-legacy",
        "g4dn.xlarge",
        3,
    )
    assert answer["perHour"] == 1.578  # 3 x $0.526 (us-east-1, 2026-07-06)


def test_a_dra_pool_grows_from_its_running_node_and_later_workloads_see_the_new_nodes(tmp_path):
    # h100-infer runs one p5.4xlarge (2 x 3g.40gb) at minNodes: three slices need a second node, whose other slice
    # holds the next workload's pod
    pinned = {"nodeSelector": {"dra-gpu-platform.io/pool": "h100-infer"}}
    first = deployment("ml-migrating", "slices", 3, claims("one-slice", **pinned))
    second = deployment("ml-migrating", "more", 1, claims("one-slice", **pinned))
    third = deployment("ml-migrating", "over-quota", 1, claims("one-slice", **pinned))
    _, found = fit(tmp_path, STACKS_DIR / "Pulumi.prod.yaml", first, second, third)
    assert {k: (v["verdict"], v["pool"], v["nodes"]) for k, v in found.items()} == {
        "ml-migrating/slices": ("scale-up", "h100-infer", 1),
        "ml-migrating/more": ("placed", "h100-infer", 0),
        "ml-migrating/over-quota": ("never", None, 0),  # the namespace's quota holds 4 claims: no node helps
    }
    assert found["ml-migrating/slices"]["perHour"] == 6.88 and found["ml-migrating/more"]["perHour"] == 0
    assert (
        "no scale-up helps" in found["ml-migrating/over-quota"]["why"]
        and "quota" in found["ml-migrating/over-quota"]["why"]
    )


def test_karpenter_launches_from_zero_the_cheapest_type_that_holds_the_pods(tmp_path):
    _, found = fit(tmp_path, KARPENTER, deployment("ml-inference", "whole-node", 1, claims("a10g-node")))
    answer = found["ml-inference/whole-node"]
    assert (answer["verdict"], answer["pool"], answer["instanceType"], answer["nodes"], answer["perHour"]) == (
        "scale-up",
        "a10g",
        "g5.12xlarge",
        1,
        5.672,
    )


def test_karpenter_would_launch_the_wrong_pool_for_a_claim_without_a_gpu_stack_selector(tmp_path):
    """A claim for any NVIDIA GPU: Karpenter's DRA metadata makes the T4 device-plugin NodePool (first by name from the
    end) hold it, its nodes run no DRA driver: never, with the nodeSelector that fixes it."""
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "sandbox"}}
    any_gpu = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "any-nvidia"},
        "spec": {"selectors": [{"cel": {"expression": "device.driver == 'gpu.nvidia.com'"}}]},
    }
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "one", "namespace": "sandbox"},
        "spec": {"spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "any-nvidia"}}]}}},
    }
    unpinned = deployment("sandbox", "any", 1, claims("one"))
    _, found = fit(tmp_path, KARPENTER, namespace, any_gpu, template, unpinned)
    answer = found["sandbox/any"]
    assert (answer["verdict"], answer["pool"], answer["nodes"], answer["perHour"]) == ("never", "t4", 0, None)
    assert "dra-gpu-platform.io/gpu-stack: dra" in answer["why"]
    pinned = deployment("sandbox", "any", 1, claims("one", nodeSelector={"dra-gpu-platform.io/gpu-stack": "dra"}))
    _, found = fit(tmp_path, KARPENTER, namespace, any_gpu, template, pinned)
    assert found["sandbox/any"]["verdict"] == "scale-up" and found["sandbox/any"]["pool"] in ("a10g", "h100")


def test_without_an_autoscaler_the_pools_are_the_nodes_that_exist(tmp_path, kind_base):
    from tests.conftest import write_stack

    stack = write_stack(tmp_path, kind_base)
    _, found = fit(tmp_path, stack, deployment("team-b", "too-many", 4, gpus(1)))
    answer = found["team-b/too-many"]
    assert (answer["provisioner"], answer["verdict"]) == ("none", "never")
    assert "no autoscaler" in answer["why"]
