"""`gpuplan fit` on the seeds' DRA features, end to end (stack file, claim files, cluster dumps): pods sharing one
ResourceClaim, a sharing class used through a template, legacy nvidia.com/gpu pods served by the bridge, the driver's
health taints against tolerations, consumable capacity and binding conditions in dumps that carry them, dynamic
MIG's shared counters."""

from __future__ import annotations

import json

import pytest
import yaml

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.fit.report import failing
from gpuplan.fit.report import fit_report as _fit_report
from tests.conftest import ROOT
from tests.gpuplan.restricted_pods import restricted

SEEDS = ROOT / "tests" / "seed_stacks"
D = "gpu.nvidia.com"


def fit(stack: str, documents: list[dict], tmp_path, *, dump: dict | None = None, version: str | None = None):
    claims = tmp_path / "claims.yaml"
    claims.write_text(yaml.safe_dump_all(documents), encoding="utf-8")
    inventory = None
    if dump is not None:
        inventory = tmp_path / "cluster.json"
        inventory.write_text(json.dumps(dump), encoding="utf-8")
    config = load_stack_file(SEEDS / f"Pulumi.{stack}.yaml")
    return _fit_report(plan_stack(config), stack, [claims], inventory, None, version)


def pods(report) -> dict[str, dict]:
    return {f"{p['namespace']}/{p['name']}": p for p in report["pods"]}


def claims(report) -> dict[str, dict]:
    return {f"{c['namespace']}/{c['name']}": c for c in report["claims"]}


def deployment(namespace: str, name: str, replicas: int, *, claim=None, template=None, gpus: int = 0) -> dict:
    container: dict = {"name": "c", "image": "busybox"}
    spec: dict = {"containers": [container]}
    if claim or template:
        ref = {"name": "gpu", **({"resourceClaimName": claim} if claim else {"resourceClaimTemplateName": template})}
        spec["resourceClaims"] = [ref]
        container["resources"] = {"claims": [{"name": "gpu"}]}
    if gpus:
        container["resources"] = {"limits": {"nvidia.com/gpu": gpus}}
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"namespace": namespace, "name": name},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": restricted(spec)},
        },
    }


def claim_doc(kind: str, namespace: str, name: str, exactly: dict) -> dict:
    devices = {"requests": [{"name": "gpu", "exactly": {"allocationMode": "ExactCount", **exactly}}]}
    spec = {"spec": {"devices": devices}} if kind == "ResourceClaimTemplate" else {"devices": devices}
    return {"apiVersion": "resource.k8s.io/v1", "kind": kind, "metadata": {"namespace": namespace, "name": name},
            "spec": spec}  # fmt: skip


# --- sharing one GPU ------------------------------------------------------------------------------------------


def test_pods_naming_one_shared_claim_share_its_one_device(tmp_path):
    report = fit("eks-136-bridge", [deployment("ml-research", "infer", 3, claim="shared-l4")], tmp_path)
    pod = pods(report)["ml-research/infer"]
    assert pod["placed"] == 3
    devices = {d for i in pod["instances"] for c in i["claims"] for d in c["devices"]}
    assert len(devices) == 1 and devices.pop().startswith(f"{D}/l4-")
    assert claims(report)["ml-research/shared-l4"]["usedBy"] == ["Deployment ml-research/infer"]
    assert not any("sharing class" in n for n in report["notes"])


def test_a_sharing_class_through_a_template_gives_each_pod_its_own_device_and_says_so(tmp_path):
    template = claim_doc("ResourceClaimTemplate", "ml-research", "per-pod-l4", {"deviceClassName": "l4-shared"})
    report = fit("eks-136-bridge", [template, deployment("ml-research", "infer", 2, template="per-pod-l4")], tmp_path)
    pod = pods(report)["ml-research/infer"]
    first, second = pod["instances"]
    assert first["outcome"] == "allocated" and len(first["claims"][0]["devices"]) == 1
    # The stack's shared claim shared-l4 already holds one of the two l4-shared devices the quota grants: the second
    # pod's own claim is refused at create, as the API server counts every claim of the namespace.
    assert "used: l4-shared.deviceclass.resource.k8s.io/devices=2" in second["reasons"][0]
    assert pod["placed"] == 1 and pod["admitted"] == 2
    (note,) = [n for n in report["notes"] if "sharing class" in n]
    assert "ml-research/per-pod-l4" in note and "l4-shared (TimeSlicing)" in note and "sharedClaims" in note


# --- the extended-resource bridge -----------------------------------------------------------------------------


def test_legacy_pods_keep_nvidia_gpu_served_by_dra_from_1_36(tmp_path):
    legacy = [deployment("ml-legacy", "old-trainer", 2, gpus=1)]
    report = fit("eks-136-bridge", legacy, tmp_path)
    pod = pods(report)["ml-legacy/old-trainer"]
    assert pod["outcome"] == "allocated" and pod["placed"] == 2
    assert all(d.startswith(f"{D}/") for i in pod["instances"] for c in i["claims"] for d in c["devices"])
    below = fit("eks-136-bridge", legacy, tmp_path, version="1.35")
    row = claims(below)["ml-legacy/old-trainer-extended-resources"]
    # at 1.35 the API server drops the class's extendedResourceName (DRAExtendedResource off): nothing serves it
    assert not row["satisfiable"] and "stays Pending" in row["reasons"][0]


# --- dumps carrying what the NVIDIA driver publishes, or what other drivers do ---------------------------------


def node(name: str) -> dict:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"dra-gpu-platform.io/pool": "h100"}},
    }


def h100(name: str, **extra) -> dict:
    return {
        "name": name,
        "attributes": {
            "type": {"string": "gpu"},
            "productName": {"string": "NVIDIA H100 80GB HBM3"},
            "brand": {"string": "Nvidia"},
        },
        "capacity": {"memory": {"value": "81559Mi"}},
        **extra,
    }


def dump(*devices: dict, host: str = "h100-0") -> dict:
    slice_ = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{host}-{D}"},
        "spec": {"driver": D, "nodeName": host, "pool": {"name": host, "generation": 1, "resourceSliceCount": 1},
                 "devices": list(devices)},
    }  # fmt: skip
    return {"apiVersion": "v1", "kind": "List", "items": [node(host), slice_]}


XID = {"key": "gpu.nvidia.com/xid", "value": "79", "effect": "NoSchedule"}


def test_a_device_the_driver_tainted_unhealthy_goes_only_to_a_claim_that_tolerates_it(tmp_path):
    report = fit("eks-136-bridge", [], tmp_path, dump=dump(h100("gpu-0", taints=[XID]), h100("gpu-1")))
    rows = claims(report)
    assert rows["ml-research/tolerant"]["maxConcurrent"] == 2
    assert rows["ml-research/strict"]["maxConcurrent"] == 1
    lost = dump(h100("gpu-0", taints=[{"key": "gpu.nvidia.com/gpu-lost", "effect": "NoSchedule"}]))
    rows = claims(fit("eks-136-bridge", [], tmp_path, dump=lost))
    assert not rows["ml-research/tolerant"]["satisfiable"]  # it tolerates xid only
    informational = dump(h100("gpu-0", taints=[{"key": "gpu.nvidia.com/unmonitored", "effect": "None"}]))
    assert claims(fit("eks-136-bridge", [], tmp_path, dump=informational))["ml-research/strict"]["satisfiable"]


def test_consumable_capacity_shares_a_device_until_its_capacity_is_given_out(tmp_path):
    policy = {"default": "0", "validRange": {"min": "0", "max": "81559Mi", "step": "1Mi"}}
    shared = h100(
        "gpu-0", allowMultipleAllocations=True, capacity={"memory": {"value": "81559Mi", "requestPolicy": policy}}
    )
    template = claim_doc(
        "ResourceClaimTemplate",
        "ml-research",
        "thirty-gi",
        {"deviceClassName": D, "capacity": {"requests": {"memory": "30Gi"}}},
    )
    report = fit("eks-136-bridge", [template, deployment("ml-research", "share", 3, template="thirty-gi")], tmp_path,
                 dump=dump(shared))  # fmt: skip
    assert claims(report)["ml-research/thirty-gi"]["maxConcurrent"] == 2  # 2 x 30Gi of 79.6Gi
    pod = pods(report)["ml-research/share"]
    assert pod["placed"] == 2 and {c["devices"][0] for i in pod["instances"][:2] for c in i["claims"]} == {
        f"{D}/h100-0/gpu-0"
    }


def test_a_pod_on_a_device_with_binding_conditions_is_placed_then_waits_for_them(tmp_path):
    attached = h100("gpu-0", bindingConditions=["attached"], bindingFailureConditions=["attach-failed"])
    report = fit("eks-136-bridge", [deployment("ml-research", "job", 1, template="strict")], tmp_path,
                 dump=dump(attached))  # fmt: skip
    pod = pods(report)["ml-research/job"]
    assert pod["outcome"] == "allocated"
    (wait,) = pod["waits"]
    assert wait["bindingConditions"] == ["attached"] and wait["bindingFailureConditions"] == ["attach-failed"]
    assert any("held in PreBind until the driver sets attached True" in n for n in report["notes"])
    off = fit("eks-136-bridge", [deployment("ml-research", "job", 1, template="strict")], tmp_path,
              dump=dump(attached), version="1.35")  # fmt: skip
    assert pods(off)["ml-research/job"]["outcome"] == "unschedulable"  # without the gates such devices are skipped


# --- dynamic MIG ----------------------------------------------------------------------------------------------


def test_dynamic_mig_partitions_share_their_gpus_counters(tmp_path):
    report = fit(
        "eks-136-dynamic-mig",
        [deployment("ml-inference", "halves", 3, template="half-gpu"), deployment("ml-inference", "whole", 2,
                                                                                  template="whole-gpu")],
        tmp_path,
    )  # fmt: skip
    assert pods(report)["ml-inference/halves"]["placed"] == 3
    # two 3g on one GPU, one on the other: no GPU is whole any more
    whole = pods(report)["ml-inference/whole"]
    assert whole["placed"] == 0 and whole["outcome"] == "unschedulable"
    assert not failing({"claims": [], "pods": [pods(report)["ml-inference/halves"]]})


@pytest.mark.parametrize("stack", ["eks-136-bridge", "aks-136-migrating", "eks-136-dynamic-mig", "kind-137"])
def test_every_seed_stack_fits_on_its_own_inventory(stack, tmp_path):
    report = fit(stack, [], tmp_path)
    assert not failing(report), [c for c in report["claims"] if not c["satisfiable"]]


def test_a_shared_claim_the_cluster_already_holds_is_the_dumps(tmp_path):
    held = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"namespace": "ml-research", "name": "shared-l4"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {"deviceClassName": "l4-shared"}}]}},
        "status": {"allocation": {"devices": {"results": [
            {"request": "gpu", "driver": D, "pool": "h100-0", "device": "gpu-0"}]}}},
    }  # fmt: skip
    inventory = dump(h100("gpu-0"))
    inventory["items"].append(held)
    report = fit("eks-136-bridge", [deployment("ml-research", "infer", 2, claim="shared-l4")], tmp_path, dump=inventory)
    (row,) = [c for c in report["claims"] if c["name"] == "shared-l4"]
    assert row["source"].endswith("cluster.json") and row["outcome"] == "allocated"
    pod = pods(report)["ml-research/infer"]
    assert pod["placed"] == 2
    assert {d for i in pod["instances"] for c in i["claims"] for d in c["devices"]} == {f"{D}/h100-0/gpu-0"}
