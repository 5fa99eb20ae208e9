"""A cluster dump read as the allocator sees it: newest generations, DeviceTaintRules, v1beta1 slices, every problem at
once (dra_gpu_platform/dra/dump.py)."""

from __future__ import annotations

import json

import pytest

from dra_gpu_platform.dra.dump import read_cluster_dump
from dra_gpu_platform.inputs.problems import InputError
from tests.conftest import ROOT
from tests.dra.builders import nodes_of

DUMP = ROOT / "tests" / "fixtures" / "resourceslices-kind-dev.json"


def test_kubectl_dump_uses_the_newest_generation_and_device_taints():
    dump = read_cluster_dump([json.loads(DUMP.read_text())], str(DUMP))
    nodes = {n.name: n for n in nodes_of(dump.slices)}
    assert {name: len(n.devices) for name, n in nodes.items()} == {"gpu-dev-worker": 8, "gpu-dev-worker2": 8}
    tainted = [name for _, name, shape in nodes["gpu-dev-worker2"].devices if shape.taints]
    assert tainted == ["gpu-3"]
    rule = {
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "pool": "gpu-dev-worker", "device": "gpu-5"},
            "taint": {"key": "k", "effect": "NoSchedule"},
        }
    }
    nodes = {n.name: n for n in nodes_of(dump.slices, rules=[rule])}
    assert [name for _, name, shape in nodes["gpu-dev-worker"].devices if shape.taints] == ["gpu-5"]


def test_v1beta1_slices_are_read_as_v1():
    old = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "metadata": {"name": "x"},
        "spec": {
            "driver": "gpu.example.com",
            "nodeName": "n",
            "pool": {"name": "n", "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "basic": {"attributes": {"model": {"string": "M"}}, "capacity": {"memory": {"value": "1Gi"}}},
                }
            ],
        },
    }
    [node] = nodes_of(read_cluster_dump([old], "old.yaml").slices)
    assert node.devices[0][2].device.attributes == {"gpu.example.com": {"model": "M"}}


def test_bad_dumps_report_every_problem_with_its_path():
    good = json.loads(DUMP.read_text())
    good["items"][0]["spec"]["devices"][0]["attributes"] = ["not", "a", "map"]
    del good["items"][1]["spec"]["driver"]
    with pytest.raises(InputError) as caught:
        read_cluster_dump([good], "dump.json")
    paths = [p.path for p in caught.value.problems]
    assert "items[0].spec.devices[0].attributes" in paths and "items[1].spec.driver" in paths
    with pytest.raises(InputError, match="no ResourceSlice"):
        read_cluster_dump([{"apiVersion": "v1", "kind": "List", "items": []}], "empty.json")
