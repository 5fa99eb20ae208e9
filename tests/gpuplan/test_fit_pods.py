"""`gpuplan fit` per pod and workload, with feature gates and whole cluster dumps (the dev stack: kind, two
workers with 8 fake GPUs each, gpu-7 of worker2 tainted by the stack's DeviceTaintRule)."""

from __future__ import annotations

import dataclasses
import json

import pytest
import yaml
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.app import app
from gpuplan.fit.report import fit_report
from tests.conftest import ROOT, UPSTREAM_SPECS, shared_path
from tests.gpuplan.restricted_pods import restricted
from tests.gpuplan.test_fit import tolerant

DEV = ROOT / "stacks" / "Pulumi.dev.yaml"
EX = "gpu.example.com"


@pytest.fixture(scope="module")
def dev():
    return plan_stack(load_stack_file(DEV))


@pytest.fixture(scope="module")
def unquoted(dev):
    """The dev stack without its ResourceQuotas: what the devices alone allow."""
    return dataclasses.replace(dev, namespaces=tuple(dataclasses.replace(ns, quota={}) for ns in dev.namespaces))


def write(tmp_path, name, *documents):
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(list(documents)), encoding="utf-8")
    return path


GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def pod(name, *templates, namespace="ml-research", claims=(), **spec):
    """A pod with the GPU toleration the dev stack's nodes need at 1.35 (spec may replace it)."""
    refs = [{"name": f"t{i}", "resourceClaimTemplateName": t} for i, t in enumerate(templates)]
    refs += [{"name": f"c{i}", "resourceClaimName": c} for i, c in enumerate(claims)]
    # the container uses every claim: one that lists none gets no GPU, and the guard refuses it
    container = {"name": "c", "image": "busybox", "resources": {"claims": [{"name": r["name"]} for r in refs]}}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": restricted(
            {
                "containers": [container],
                "resourceClaims": refs,
                "tolerations": [GPU_TOLERATION],
                **spec,
            }
        ),
    }


def deployment(name, replicas, *templates, kind="Deployment", api="apps/v1"):
    template = pod(name, *templates)
    spec = {
        "replicas": replicas,
        "selector": {"matchLabels": {"app": name}},
        "template": {"metadata": {"labels": {"app": name}}, "spec": template["spec"]},
    }
    return {"apiVersion": api, "kind": kind, "metadata": {"name": name, "namespace": "ml-research"}, "spec": spec}


def rows(report):
    return {f"{c['namespace']}/{c['name']}": c for c in report["claims"]}


def pods(report):
    return {f"{p['namespace']}/{p['name']}": p for p in report["pods"]}


def test_replicas_take_devices_one_pod_after_the_other(unquoted, tmp_path):
    """15 usable GPUs hold 7 pods of two-gpus; the eighth waits, and the template row says so."""
    report = fit_report(unquoted, "dev", [write(tmp_path, "d.yaml", deployment("train", 8, "two-gpus"))])
    train = pods(report)["ml-research/train"]
    assert (train["outcome"], train["placed"], train["replicas"]) == ("unschedulable", 7, 8)
    nodes = [i["node"] for i in train["instances"]]
    assert nodes == ["gpu-dev-worker"] * 4 + ["gpu-dev-worker2"] * 3 + [None]
    devices = [d for i in train["instances"] for c in i["claims"] for d in c["devices"]]
    assert len(devices) == len(set(devices)) == 14 and f"{EX}/gpu-dev-worker2/gpu-7" not in devices
    template = rows(report)["ml-research/two-gpus"]
    assert not template["satisfiable"] and template["outcome"] == "unschedulable"
    assert template["usedBy"] == ["Deployment ml-research/train"] and "7 of 8 pod(s) placed" in template["reasons"][-1]
    assert template["maxConcurrent"] == 7  # the template alone, before the pods took devices


def test_claims_of_one_pod_land_on_one_node(unquoted, tmp_path):
    """Six one-GPU pods fill worker (8 GPUs) to 2 free; a pod with two-gpus and one-gpu-ish claims (3 GPUs) must
    then go to worker2 although each claim alone would still fit on worker."""
    small = [pod(f"s{i}", "inference") for i in range(6)]
    both = pod("both", "two-gpus", "inference")
    report = fit_report(unquoted, "dev", [write(tmp_path, "p.yaml", *small, both)])
    placed = pods(report)
    assert all(placed[f"ml-research/s{i}"]["instances"][0]["node"] == "gpu-dev-worker" for i in range(6))
    [instance] = placed["ml-research/both"]["instances"]
    assert instance["outcome"] == "allocated" and instance["node"] == "gpu-dev-worker2"
    assert [c["name"] for c in instance["claims"]] == ["t0", "t1"]
    assert instance["claims"][1]["subrequests"] == {"gpu": "big-gpu"}


def test_statefulsets_jobs_and_daemonsets_make_their_pods(unquoted, tmp_path):
    job = deployment("batch", None, "two-gpus", kind="Job", api="batch/v1")
    job["spec"] = {
        "parallelism": 2,
        "template": {"spec": {**job["spec"]["template"]["spec"], "restartPolicy": "Never"}},
    }
    daemon = deployment("agent", None, "inference", kind="DaemonSet")
    del daemon["spec"]["replicas"]
    daemon["spec"]["template"]["spec"]["nodeSelector"] = {"dra-gpu-platform.io/gpu-stack": "dra"}
    report = fit_report(
        unquoted, "dev", [write(tmp_path, "w.yaml", daemon, deployment("db", 2, "two-gpus", kind="StatefulSet"), job)]
    )
    placed = pods(report)
    assert [i["name"] for i in placed["ml-research/db"]["instances"]] == ["db-0", "db-1"]
    assert placed["ml-research/batch"]["replicas"] == 2 and placed["ml-research/batch"]["outcome"] == "allocated"
    agent = placed["ml-research/agent"]
    assert [(i["name"], i["node"]) for i in agent["instances"]] == [
        ("agent-gpu-dev-worker", "gpu-dev-worker"),
        ("agent-gpu-dev-worker2", "gpu-dev-worker2"),
    ]


def test_the_shared_claim_example_puts_both_pods_on_the_claims_node(dev, tmp_path):
    example = shared_path(UPSTREAM_SPECS) / "example-driver-basic-shared-claim-across-pods.yaml"
    report = fit_report(dev, "dev", tolerant([example], tmp_path))
    placed = pods(report)
    nodes = {p["instances"][0]["node"] for p in placed.values()}
    devices = {d for p in placed.values() for c in p["instances"][0]["claims"] for d in c["devices"]}
    assert len(placed) == 2 and nodes == {"gpu-dev-worker"} and devices == {f"{EX}/gpu-dev-worker/gpu-0"}


def test_a_pod_waits_for_a_missing_template_and_a_class(dev, tmp_path):
    missing_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": "nope", "namespace": "ml-research"},
        "spec": {"spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": "absent"}}]}}},
    }
    report = fit_report(dev, "dev", [write(tmp_path, "m.yaml", missing_class, pod("a", "nope"), pod("b", "typo"))])
    placed = pods(report)
    assert placed["ml-research/a"]["outcome"] == "unschedulable"
    assert "device class absent does not exist" in placed["ml-research/a"]["reasons"][0]
    assert (
        rows(report)["ml-research/nope"]["outcome"] == "unschedulable"
        and rows(report)["ml-research/nope"]["errors"] == []
    )
    assert "ResourceClaimTemplate ml-research/typo does not exist" in placed["ml-research/b"]["reasons"][0]


# --- feature gates and the API server ------------------------------------------------------------------------


def test_without_the_prioritized_list_the_first_available_template_is_rejected(dev):
    report = fit_report(dev, "dev", feature_gate_flag="DRAPrioritizedList=false")
    inference = rows(report)["ml-research/inference"]
    assert inference["outcome"] == "rejected" and not inference["satisfiable"]
    assert (
        "spec.spec.devices.requests[0].firstAvailable dropped by the API server" in inference["apiServer"]["dropped"][0]
    )
    assert "exactly one of exactly or firstAvailable" in inference["reasons"][0]
    assert report["featureGates"]["changed"] == {
        "DRADeviceTaintRules": True,
        "DRADeviceTaints": True,
        "DRAPrioritizedList": False,
    }


def test_distinct_attribute_is_dropped_then_rejected_at_1_35_defaults(dev, tmp_path):
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "apart", "namespace": "ml-research"},
        "spec": {
            "devices": {
                "requests": [{"name": "g", "exactly": {"deviceClassName": EX, "count": 2}}],
                "constraints": [{"requests": ["g"], "distinctAttribute": f"{EX}/index"}],
            }
        },
    }
    path = write(tmp_path, "c.yaml", claim)
    rejected = rows(fit_report(dev, "dev", [path]))["ml-research/apart"]
    assert (
        rejected["outcome"] == "rejected" and "constraints[0].matchAttribute: Required value" in rejected["reasons"][0]
    )
    accepted = rows(fit_report(dev, "dev", [path], feature_gate_flag="DRAConsumableCapacity=true"))["ml-research/apart"]
    assert accepted["satisfiable"] and accepted["apiServer"] == {"dropped": [], "rejected": []}


def test_device_taint_rules_need_their_own_gate_in_1_35(dev):
    """The dev stack turns DRADeviceTaints and DRADeviceTaintRules on (kind); with the rules gate off the
    tainted gpu-7 counts again."""
    with_rules = rows(fit_report(dev, "dev"))["ml-migrating/one-gpu"]
    without = rows(fit_report(dev, "dev", feature_gate_flag="DRADeviceTaintRules=false"))["ml-migrating/one-gpu"]
    assert (with_rules["maxConcurrent"], without["maxConcurrent"]) == (15, 16)


def test_bad_feature_gates_are_invalid_input(tmp_path):
    result = CliRunner().invoke(
        app,
        [
            "fit",
            "--stack",
            "dev",
            "--format",
            "json",
            "--out",
            str(tmp_path),
            "--feature-gates",
            "DRADeviceTaints=false,DRAFoo=true",
        ],
    )
    assert result.exit_code == 2, result.output
    problems = json.loads(result.output)["errors"]
    assert [p["rule"] for p in problems] == ["unrecognized feature gate: DRAFoo"]
    dependent = CliRunner().invoke(
        app,
        [
            "fit",
            "--stack",
            "dev",
            "--format",
            "json",
            "--out",
            str(tmp_path),
            "--feature-gates",
            "DRADeviceTaints=false",
        ],
    )
    assert dependent.exit_code == 2 and "depends on features that are disabled: [DRADeviceTaints]" in dependent.output


# --- a whole cluster dump ---------------------------------------------------------------------------------------


def dump(tmp_path, *extra, nodes=True):
    items = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{n}-slice"},
            "spec": {
                "driver": EX,
                "nodeName": n,
                "pool": {"name": n, "generation": 1, "resourceSliceCount": 1},
                "devices": [
                    {"name": f"gpu-{i}", "attributes": {"index": {"int": i}}, "capacity": {"memory": {"value": "80Gi"}}}
                    for i in range(4)
                ],
            },
        }
        for n in ("node-a", "node-b")
    ]
    if nodes:
        items += [
            {"apiVersion": "v1", "kind": "Node", "metadata": {"name": n, "labels": {"pool": "gpu"}}}
            for n in ("node-a", "node-b")
        ]
    items += [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": EX},
            "spec": {"selectors": [{"cel": {"expression": f"device.driver == '{EX}'"}}]},
        },
        *extra,
    ]
    path = tmp_path / "dump.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


def allocated_claim(name, node, devices, namespace="ml-research", admin=False):
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "g", "exactly": {"deviceClassName": EX, "count": len(devices)}}]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {
                            "request": "g",
                            "driver": EX,
                            "pool": node,
                            "device": d,
                            **({"adminAccess": True} if admin else {}),
                        }
                        for d in devices
                    ]
                },
                "nodeSelector": {
                    "nodeSelectorTerms": [
                        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}
                    ]
                },
            }
        },
    }


def test_existing_allocations_count_and_pin_their_pods(dev, tmp_path):
    inventory = dump(
        tmp_path,
        allocated_claim("busy", "node-a", ["gpu-0", "gpu-1", "gpu-2"]),
        allocated_claim("watch", "node-b", ["gpu-0", "gpu-1", "gpu-2", "gpu-3"], admin=True),
    )
    report = fit_report(
        dev,
        "dev",
        [write(tmp_path, "p.yaml", pod("user", claims=("busy",)), pod("new", "one-gpu", namespace="ml-migrating"))],
        inventory,
    )
    one = rows(report)["ml-migrating/one-gpu"]
    assert one["maxConcurrent"] == 1 + 4  # node-a has one free GPU; adminAccess results are not "in use"
    busy = rows(report)["ml-research/busy"]
    assert busy["outcome"] == "allocated" and busy["allocations"][0]["node"] == "node-a"
    user = pods(report)["ml-research/user"]["instances"][0]
    assert user["node"] == "node-a" and user["claims"][0]["devices"] == [f"{EX}/node-a/gpu-{i}" for i in range(3)]
    assert pods(report)["ml-migrating/new"]["instances"][0]["node"] == "node-a"  # the first node with a free GPU
    assert report["inventory"]["allocatedDevices"] == 3 and report["inventory"]["nodeClasses"] == 2


def test_nodes_of_a_dump_are_never_merged_with_the_simulation(dev, tmp_path):
    report = fit_report(dev, "dev", inventory_file=dump(tmp_path))
    assert report["inventory"]["nodes"] == 2 and {
        a["node"] for a in rows(report)["ml-migrating/one-gpu"]["allocations"]
    } == {"node-a"}
    assert rows(report)["ml-migrating/one-gpu"]["allocations"][0]["pool"] == "node-a"  # identical nodes: one pool


def test_a_duplicated_slice_does_not_count_twice(dev, tmp_path):
    path = dump(tmp_path)
    document = json.loads(path.read_text())
    twin = json.loads(json.dumps(document["items"][0]))
    twin["metadata"]["name"] = "node-a-copy"
    document["items"].append(twin)
    path.write_text(json.dumps(document))
    report = fit_report(dev, "dev", inventory_file=path)
    one = rows(report)["ml-migrating/one-gpu"]
    assert one["maxConcurrent"] == 4  # node-a's pool: two slices for resourceSliceCount 1, so incomplete
    assert {a["node"] for a in one["allocations"]} == {"node-b"}
