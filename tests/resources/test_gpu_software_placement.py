"""No node can get both the NVIDIA device plugin and a DRA kubelet plugin.

A small scheduler model reads the rendered Helm values (nodeSelectors, tolerations, the NVIDIA chart's
default affinity, NFD's custom label rules) and the labels and taints each node of each pool really carries
(components/facts/node_labels.py; on kind the rendered kind config), then decides per node which plugins land
there. The device plugin comes from the GPU Operator (its DaemonSet runs where the operator's
nvidia.com/gpu.deploy.device-plugin label is "true") or from the Bottlerocket AMI itself."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import pytest
import yaml

from components.facts import eks_amis
from components.plans import gpu_software as gsv
from components.plans import kind as kind_config
from components.config.models import StackConfig
from components.config.loading import load_stack_file
from components.facts.node_labels import DEVICE_PLUGIN_DEPLOY_LABEL, GPU_PRESENT_LABEL, pool_taint
from components.plans.node_pools import pool_labels
from tests.conftest import COMMITTED_STACKS, STACKS_DIR
from tests.plans.test_gpu_software import TABLE, stack

# The NVIDIA DRA chart's default kubeletPlugin affinity: any one of these labels
# (docs/references.md#nvidia-dra-kubelet-plugin-placement).
NVIDIA_KUBELET_PLUGIN_AFFINITY = (
    ("feature.node.kubernetes.io/pci-10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0302_10de.present", "true"),
    ("feature.node.kubernetes.io/pci-0300_10de.present", "true"),
    (GPU_PRESENT_LABEL, "true"),
)
NFD_GPU_LABEL = "feature.node.kubernetes.io/pci-10de.present"


@dataclass
class Node:
    name: str
    pool: str | None  # None: a CPU node (system pool, kind control plane)
    gpu_stack: str | None
    labels: dict[str, str]
    taints: list[dict[str, str]]
    os_id: str = "ubuntu"
    has_gpu: bool = True
    found: set[str] = field(default_factory=set)  # plugins placed on it


def nodes_of(config: StackConfig) -> list[Node]:
    key, value, effect = pool_taint()
    if config.platform == "kind":
        rendered = kind_config.render(config)["nodes"]
        workers = kind_config.worker_names(config)
        by_name = {name: pool for pool, names in workers.items() for name in names}
        nodes = [Node("control-plane", None, None, {"node-role.kubernetes.io/control-plane": ""},
                      [{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}], has_gpu=False)]
        worker_names = [n for names in workers.values() for n in names]
        for name, spec in zip(worker_names, [n for n in rendered if n["role"] == "worker"]):
            patches = [yaml.safe_load(p) for p in spec["kubeadmConfigPatches"]]
            taints = [t for p in patches for t in p["nodeRegistration"]["taints"]]
            pool = config.pool(by_name[name])
            nodes.append(Node(name, pool.name, pool.gpu_stack, dict(spec["labels"]), taints))
        return nodes
    nodes = [Node("system-0", None, None, {}, [], has_gpu=False)]
    for pool in config.node_pools:
        os_id = "bottlerocket" if pool.ami_type == eks_amis.BOTTLEROCKET_NVIDIA else "amzn" if config.platform == "eks" else "ubuntu"
        taints = [{"key": key, "value": value, "effect": effect}]
        if config.platform == "aks" and pool.capacity == "spot":
            taints.append(dict(gsv.AKS_SPOT_TAINT))  # AKS adds it to every Spot node
        nodes.append(Node(f"{pool.name}-0", pool.name, pool.gpu_stack, pool_labels(pool), taints, os_id=os_id))
    return nodes


def selects(selector: dict[str, str], labels: dict[str, str]) -> bool:
    return all(labels.get(k) == v for k, v in selector.items())


def tolerates(tolerations: list[dict], taints: list[dict]) -> bool:
    def covers(t: dict, taint: dict) -> bool:
        if t.get("effect") and t["effect"] != taint["effect"]:
            return False
        if t.get("operator", "Equal") == "Exists":
            return not t.get("key") or t["key"] == taint["key"]
        return t.get("key") == taint["key"] and t.get("value", "") == taint.get("value", "")

    return all(any(covers(t, taint) for t in tolerations) for taint in taints if taint["effect"] in ("NoSchedule", "NoExecute"))


def nfd_custom_labels(nfd: dict, node: Node) -> dict[str, str]:
    """Labels NFD's custom rules publish on the node (only namespaces NFD may publish)."""
    allowed = set(nfd.get("master", {}).get("config", {}).get("extraLabelNs", []))
    labels: dict[str, str] = {}
    for rule in nfd.get("worker", {}).get("config", {}).get("sources", {}).get("custom", []):
        matched = True
        for feature in rule["matchFeatures"]:
            for attribute, expression in feature["matchExpressions"].items():
                assert expression["op"] == "In"
                actual = {"system.osRelease": {"ID": node.os_id}, "pci.device": {"vendor": "10de" if node.has_gpu else ""}}
                matched &= actual[feature["feature"]][attribute] in expression["value"]
        if matched:
            labels.update({k: v for k, v in rule["labels"].items() if k.split("/")[0] in allowed})
    return labels


def place(config: StackConfig, operator: dict | None, dra: dict | None, example: dict | None,
          nodes: list[Node] | None = None) -> list[Node]:
    """Which plugins each node gets, from the values of the three releases (None: not installed)."""
    nodes = nodes_of(config) if nodes is None else nodes
    for node in nodes:
        if node.os_id == "bottlerocket":
            node.found.add("ami-device-plugin")
        labels = dict(node.labels)
        if operator is not None:
            nfd = operator["node-feature-discovery"]
            worker = nfd["worker"]
            if selects(worker.get("nodeSelector", {}), labels) and tolerates(worker.get("tolerations", []), node.taints):
                node.found.add("nfd")
                if node.has_gpu:
                    labels[NFD_GPU_LABEL] = "true"
                labels.update(nfd_custom_labels(nfd, node))  # NFD overwrites labels it manages
            gpu_node = labels.get(NFD_GPU_LABEL) == "true" or labels.get(GPU_PRESENT_LABEL) == "true"
            # the operator labels GPU nodes deploy.<operand>=true unless the label is already "false"
            deploy = labels.get(DEVICE_PLUGIN_DEPLOY_LABEL, "true") if gpu_node else None
            if operator["devicePlugin"]["enabled"] and deploy == "true" and tolerates(operator["daemonsets"]["tolerations"], node.taints):
                node.found.add("operator-device-plugin")
        if dra is not None:
            plugin = dra["kubeletPlugin"]
            affinity = any(labels.get(k) == v for k, v in NVIDIA_KUBELET_PLUGIN_AFFINITY)
            if affinity and selects(plugin.get("nodeSelector", {}), labels) and tolerates(plugin.get("tolerations", []), node.taints):
                node.found.add("dra-kubelet-plugin")
        if example is not None:
            plugin = example["kubeletPlugin"]
            if selects(plugin.get("nodeSelector", {}), labels) and tolerates(plugin.get("tolerations", []), node.taints):
                node.found.add("dra-kubelet-plugin")
    return nodes


def place_rendered(config: StackConfig) -> list[Node]:
    plans = gsv.gpu_operator_plan(config), gsv.dra_driver_plan(config), gsv.example_driver_plan(config)
    return place(config, *(p.values if p else None for p in plans))


DEVICE_PLUGINS = {"operator-device-plugin", "ami-device-plugin"}


def conflicts(nodes: list[Node]) -> list[str]:
    return [n.name for n in nodes if n.found & DEVICE_PLUGINS and "dra-kubelet-plugin" in n.found]


def check_stack(config: StackConfig) -> None:
    nodes = place_rendered(config)
    assert conflicts(nodes) == []
    dra_installed = gsv.dra_driver_plan(config) or gsv.example_driver_plan(config)
    operator = gsv.gpu_operator_plan(config)
    for node in nodes:
        if node.pool is None:  # CPU nodes get no GPU software at all
            assert node.found == set(), node.name
        elif node.gpu_stack == "dra":
            assert ("dra-kubelet-plugin" in node.found) == bool(dra_installed), node.name
            assert not node.found & DEVICE_PLUGINS, node.name
        else:
            assert "dra-kubelet-plugin" not in node.found, node.name
            has_plugin = operator is not None or node.os_id == "bottlerocket"
            assert bool(node.found & DEVICE_PLUGINS) == has_plugin, node.name
            assert len(node.found & DEVICE_PLUGINS) <= 1, node.name  # never two device plugins either


def table_config(spec: dict) -> StackConfig:
    spec = dict(spec)
    return stack(spec.pop("platform"), spec.pop("pools"), **spec)


@pytest.mark.parametrize("spec", [row[1] for row in TABLE], ids=[row[0] for row in TABLE])
def test_no_node_gets_both_plugins_in_the_decision_table(spec):
    check_stack(table_config(spec))


@pytest.mark.parametrize("name", COMMITTED_STACKS)
def test_no_node_gets_both_plugins_in_committed_stacks(name):
    config = load_stack_file(STACKS_DIR / f"Pulumi.{name}.yaml")
    check_stack(config)
    assert any(n.found for n in place_rendered(config))  # the stack installs something to check


def test_the_analysis_catches_a_kubelet_plugin_without_its_node_selector():
    config = table_config(TABLE[1][1])  # eks dual-stack
    dra = copy.deepcopy(gsv.dra_driver_values(config))
    del dra["kubeletPlugin"]["nodeSelector"]
    assert conflicts(place(config, gsv.gpu_operator_values(config), dra, None)) == ["t4-0"]


def test_the_analysis_catches_a_bottlerocket_dra_pool():
    config = table_config(TABLE[0][1])  # eks, one DRA pool; Bottlerocket DRA pools are a config error
    pool = config.node_pools[0].model_copy(update={"ami_type": eks_amis.BOTTLEROCKET_NVIDIA})
    config = config.model_copy(update={"node_pools": [pool]})
    assert conflicts(place_rendered(config)) == ["h100-0"]


def test_the_analysis_sees_untolerated_spot_taints():
    config = table_config(next(row[1] for row in TABLE if row[0] == "aks-spot-pool"))
    operator, dra = gsv.gpu_operator_values(config), gsv.dra_driver_values(config)
    assert "dra-kubelet-plugin" in {p for n in place(config, operator, dra, None) if n.pool == "a100" for p in n.found}
    dra["kubeletPlugin"]["tolerations"] = dra["kubeletPlugin"]["tolerations"][:1]
    assert not [n for n in place(config, operator, dra, None) if n.pool == "a100" and n.found & {"dra-kubelet-plugin"}]


def test_the_analysis_catches_dra_nodes_without_the_device_plugin_opt_out_label():
    config = table_config(TABLE[1][1])
    nodes = nodes_of(config)
    for node in nodes:
        node.labels.pop(DEVICE_PLUGIN_DEPLOY_LABEL, None)
    placed = place(config, gsv.gpu_operator_values(config), gsv.dra_driver_values(config), None, nodes=nodes)
    assert conflicts(placed) == ["h100-0"]
