"""The deploy critical-path model (gpuplan/timing/deploy_model.py) on hand-built graphs: scheduling rules
(dependencies, providers, parents, components), the critical path, the lower bound, the duration table."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from gpuplan.timing import deploy_model
from gpuplan.timing.deploy_model import DURATIONS, MINUTE, CycleError, Node, classify, model
from tests.conftest import ROOT


def node(
    id_: str,
    key: str,
    *,
    role: str = "",
    parent: str = "",
    deps: tuple[str, ...] = (),
    provider: str = "",
    type_: str = "t:m:T",
) -> Node:
    return Node(id=id_, name=id_, type=type_, key=key, role=role, parent=parent, dependencies=deps, provider=provider)


def eks_like_graph(*, release_waits_for_pools: bool = False) -> list[Node]:
    """A small EKS platform: role -> cluster -> system nodes -> provider -> namespace -> operator release,
    and two GPU pools (components with a node group each) after the cluster."""
    release_deps = ("ns", "pool-a", "pool-b") if release_waits_for_pools else ("ns",)
    return [
        node("platform", "component"),
        node("eks", "component", parent="platform"),
        node("role", "cloud-object", parent="eks", type_="aws:iam/role:Role"),
        node("cluster", "eks-cluster", role="cluster", parent="eks", deps=("role",)),
        node("system", "eks-node-group", role="node-pool", parent="eks", deps=("cluster", "role")),
        node("pool-a", "component", parent="eks", deps=("role",)),
        node("pool-a-ng", "eks-gpu-node-group", role="node-pool", parent="pool-a", deps=("cluster",)),
        node("pool-b", "component", parent="eks", deps=("role",)),
        node("pool-b-lt", "cloud-object", parent="pool-b", deps=("cluster",)),
        node("pool-b-ng", "eks-gpu-node-group", role="node-pool", parent="pool-b", deps=("cluster", "pool-b-lt")),
        node("k8s", "provider", parent="eks", deps=("cluster", "system")),
        node("operator", "component", parent="platform"),
        node("ns", "kubernetes-object", parent="operator", provider="k8s", type_="kubernetes:core/v1:Namespace"),
        node("release", "gpu-operator", role="release", parent="operator", deps=release_deps, provider="k8s"),
    ]


def test_the_critical_path_follows_the_longest_chain_and_names_what_held_each_step():
    result = model(eks_like_graph())
    assert [s.node.id for s in result.path] == ["role", "cluster", "system", "k8s", "ns", "release"]
    assert [s.via for s in result.path] == ["start", "dependency", "dependency", "dependency", "provider", "dependency"]
    # 10 s role, 12 min cluster, 5 min system nodes, 0 s provider, 2 s namespace, 5 min operator.
    assert result.seconds == pytest.approx(10 + 12 * MINUTE + 5 * MINUTE + 2 + 5 * MINUTE)
    starts = [s.start for s in result.path]
    assert starts == sorted(starts) and result.path[-1].finish == pytest.approx(result.seconds)
    # The GPU branch (cluster, launch template, node group) is shorter and off the path.
    assert result.finish["pool-b-ng"] == pytest.approx(10 + 12 * MINUTE + 10 + 8 * MINUTE)


def test_lower_bound_is_the_slowest_chain_of_cluster_node_pool_and_release_that_wait_for_each_other():
    result = model(eks_like_graph())
    bound = result.lower_bound
    # The release waits for the system nodes (through the provider), not for the GPU pools:
    # cluster + system nodes + release (22 min) beats cluster + GPU pool (20 min).
    assert (bound.cluster.id, bound.node_pool.id, bound.release.id) == ("cluster", "system", "release")
    assert bound.gpu_pool is None  # the chain's pool is the system node group
    assert bound.seconds == pytest.approx((12 + 5 + 5) * MINUTE)
    assert result.ratio == pytest.approx(result.seconds / bound.seconds) and result.ratio >= 1
    # Once the release waits for the GPU pools, cluster + GPU pool + release is the slowest chain.
    serial = model(eks_like_graph(release_waits_for_pools=True)).lower_bound
    assert (serial.cluster.id, serial.gpu_pool.id, serial.release.id) == ("cluster", "pool-a-ng", "release")
    assert serial.seconds == pytest.approx((12 + 8 + 5) * MINUTE)


def test_a_needless_dependency_on_the_gpu_pools_lengthens_the_path():
    serial = model(eks_like_graph(release_waits_for_pools=True))
    assert [s.node.id for s in serial.path][-3:] == ["pool-b-lt", "pool-b-ng", "release"]
    assert serial.seconds > model(eks_like_graph()).seconds
    assert serial.seconds == pytest.approx(10 + 12 * MINUTE + 10 + 8 * MINUTE + 5 * MINUTE)


def test_a_child_waits_for_its_parents_dependencies():
    graph = [
        node("slow", "eks-cluster"),
        node("group", "component", deps=("slow",)),
        node("child", "kubernetes-object", parent="group"),
        node("grandchild", "kubernetes-object", parent="child"),
    ]
    result = model(graph)
    assert result.finish["child"] == pytest.approx(12 * MINUTE + 2)
    # The rule is transitive (the grandchild waits for what its grandparent waits for), and a child does not
    # wait for its custom parent itself.
    assert result.finish["grandchild"] == pytest.approx(12 * MINUTE + 2)
    assert [s.via for s in result.path] == ["start", "parent's dependency"]


def test_waiting_for_a_component_waits_for_all_its_children():
    graph = [
        node("group", "component"),
        node("fast", "kubernetes-object", parent="group"),
        node("slow", "aks-cluster", parent="group"),
        node("after", "kubernetes-object", deps=("group",)),
    ]
    result = model(graph)
    assert result.finish["group"] == pytest.approx(10 * MINUTE)
    assert result.finish["after"] == pytest.approx(10 * MINUTE + 2)
    assert [s.node.id for s in result.path] == ["slow", "after"]


def test_the_provider_is_waited_for_like_a_dependency():
    graph = [
        node("cluster", "kind-cluster", role="cluster"),
        node("k8s", "provider", deps=("cluster",)),
        node("object", "kubernetes-object", provider="k8s"),
    ]
    assert model(graph).finish["object"] == pytest.approx(MINUTE + 2)
    without = [graph[0], graph[1], node("object", "kubernetes-object")]
    assert model(without).finish["object"] == pytest.approx(2)


def test_dependencies_on_ancestors_and_unknown_urns_are_ignored():
    graph = [
        node("group", "component"),
        node("child", "eks-node-group", parent="group", deps=("group", "urn:elsewhere")),
    ]
    assert model(graph).seconds == pytest.approx(5 * MINUTE)


def test_a_dependency_cycle_is_refused():
    with pytest.raises(CycleError, match="a, b"):
        model([node("a", "cloud-object", deps=("b",)), node("b", "cloud-object", deps=("a",))])


def test_duplicate_ids_are_refused():
    with pytest.raises(ValueError, match="duplicate"):
        model([node("a", "cloud-object"), node("a", "cloud-object")])


def test_no_cluster_means_every_release_counts_and_an_empty_graph_takes_no_time():
    result = model([node("rel", "dra-driver", role="release"), node("other", "helm-release", role="release")])
    assert result.lower_bound.cluster is None and result.lower_bound.release.id == "other"
    assert result.ratio == pytest.approx(1.0)
    empty = model([])
    assert empty.seconds == 0 and empty.path == () and empty.ratio is None


@pytest.mark.parametrize(
    "type_, custom, parent_type, inputs, expected",
    [
        ("dra-gpu-platform:cluster:EksCluster", False, "", {}, ("component", "")),
        ("pulumi:providers:kubernetes", True, "", {}, ("provider", "")),
        ("aws:eks/cluster:Cluster", True, "", {}, ("eks-cluster", "cluster")),
        (
            "aws:eks/nodeGroup:NodeGroup",
            True,
            "dra-gpu-platform:cluster:EksGpuNodePool",
            {},
            ("eks-gpu-node-group", "node-pool"),
        ),
        (
            "aws:eks/nodeGroup:NodeGroup",
            True,
            "dra-gpu-platform:cluster:EksCluster",
            {},
            ("eks-node-group", "node-pool"),
        ),
        ("azure-native:containerservice:ManagedCluster", True, "", {}, ("aks-cluster", "cluster")),
        (
            "azure-native:containerservice:AgentPool",
            True,
            "dra-gpu-platform:cluster:AksGpuPool",
            {},
            ("aks-pool", "node-pool"),
        ),
        ("command:local:Command", True, "dra-gpu-platform:cluster:KindCluster", {}, ("kind-cluster", "cluster")),
        ("command:local:Command", True, "dra-gpu-platform:x:Other", {}, ("command", "")),
        (
            "kubernetes:helm.sh/v3:Release",
            True,
            "",
            {"chart": "gpu-operator", "values": {"driver": {"enabled": False}}},
            ("gpu-operator", "release"),
        ),
        (
            "kubernetes:helm.sh/v3:Release",
            True,
            "",
            {"chart": "gpu-operator", "values": {}},
            ("gpu-operator-driver-build", "release"),
        ),
        (
            "kubernetes:helm.sh/v3:Release",
            True,
            "",
            {"chart": "oci://registry.k8s.io/dra-driver-nvidia/charts/dra-driver-nvidia-gpu"},
            ("dra-driver", "release"),
        ),
        ("kubernetes:helm.sh/v3:Release", True, "", {"chart": "kube-prometheus-stack"}, ("helm-release", "release")),
        ("kubernetes:core/v1:Namespace", True, "", {}, ("kubernetes-object", "")),
        ("aws:iam/role:Role", True, "", {}, ("cloud-object", "")),
    ],
)
def test_classify(type_, custom, parent_type, inputs, expected):
    assert classify(type_, custom, parent_type, inputs) == expected


def test_every_duration_names_its_source_and_the_referenced_numbers_are_the_ones_used():
    assert all(
        d.source and d.seconds >= 0 and (d.p90_seconds is None or d.p90_seconds >= d.seconds)
        for d in DURATIONS.values()
    )
    # docs/references.md: each duration-* entry ends with "Deploy model: `key` N min, p90 M; ..."
    text = (ROOT / "docs" / "references.md").read_text(encoding="utf-8")
    entries = re.findall(r'<a id="(duration-[a-z0-9-]+)"></a>(.*?)(?=\n### |\n## |\Z)', text, re.DOTALL)
    quoted = {
        key: (anchor, int(typical), int(p90))
        for anchor, body in entries
        for key, typical, p90 in re.findall(r"`([a-z0-9-]+)` (\d+) min, p90 (\d+)", " ".join(body.split()))
    }
    assert set(quoted) >= {
        "eks-cluster",
        "eks-gpu-node-group",
        "eks-node-group",
        "aks-cluster",
        "aks-pool",
        "gpu-operator",
        "gpu-operator-driver-build",
        "dra-driver",
        "dra-example-driver",
    }
    for key, (anchor, typical, p90) in quoted.items():
        assert (DURATIONS[key].seconds, DURATIONS[key].p90_seconds) == (typical * MINUTE, p90 * MINUTE), key
        assert DURATIONS[key].source.startswith(f"docs/references.md#{anchor}: "), key


def test_rendered_path_lists_the_long_steps_and_sums_the_quick_ones():
    result = model(eks_like_graph())
    assert deploy_model.render_path(result.path) == (
        "EKS cluster cluster 12 min → EKS node group system 5 min → GPU Operator release 5 min (+ 2 quick steps, 12 s)"
    )
    assert deploy_model.render_path(result.path, shortest=0.001) == (
        "Role role 10 s → EKS cluster cluster 12 min → EKS node group system 5 min → Namespace ns 2 s"
        " → GPU Operator release 5 min"
    )
    assert deploy_model.format_duration(90) == "1.5 min" and deploy_model.format_duration(720) == "12 min"


@st.composite
def random_graphs(draw) -> list[Node]:
    """Any stack's shape: resources of any duration and role, parents, dependencies and providers among the
    resources registered before them (as a program registers them)."""
    count = draw(st.integers(min_value=0, max_value=10))
    keys = sorted(DURATIONS)
    graph: list[Node] = []
    for index in range(count):
        earlier = [n.id for n in graph]
        pick = st.sampled_from(earlier) if earlier else st.nothing()
        graph.append(
            Node(
                id=f"n{index}",
                name=f"n{index}",
                type="t:m:T",
                key=draw(st.sampled_from(keys)),
                role=draw(
                    st.sampled_from(
                        ["", "", deploy_model.ROLE_CLUSTER, deploy_model.ROLE_NODE_POOL, deploy_model.ROLE_RELEASE]
                    )
                ),
                parent=draw(st.one_of(st.just(""), pick)) if earlier else "",
                dependencies=tuple(draw(st.lists(pick, max_size=3, unique=True))) if earlier else (),
                provider=draw(st.one_of(st.just(""), pick)) if earlier else "",
            )
        )
    return graph


@settings(max_examples=60, deadline=None)
@given(random_graphs())
def test_the_lower_bound_never_exceeds_the_modelled_path(graph):
    try:
        result = model(graph)
    except CycleError:
        assume(False)  # the engine refuses a cycle too
    bound = result.lower_bound
    assert result.seconds >= bound.seconds - 1e-6
    assert result.ratio is None or result.ratio >= 1 - 1e-9
    for term, role in (
        (bound.cluster, deploy_model.ROLE_CLUSTER),
        (bound.node_pool, deploy_model.ROLE_NODE_POOL),
        (bound.release, deploy_model.ROLE_RELEASE),
    ):
        assert term is None or term.role == role
    # The bound is a chain the path really has to wait through: each term finishes after the one before it starts.
    ordered = sorted(bound.terms, key=lambda n: result.finish[n.id])
    for earlier, later in itertools.pairwise(ordered):
        assert result.finish[later.id] >= result.finish[earlier.id] + later.seconds - 1e-6
