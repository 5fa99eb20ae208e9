"""The default filter plugins, the kubelet's admission of nodeName pods, PodRequests and the FailedScheduling text,
case by case as the upstream tests state them (dra_gpu_platform/dra/nodefilters.py, pod_resources.py)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra import nodefilters as nf
from dra_gpu_platform.dra.model import NodeInfo
from dra_gpu_platform.dra.pod_resources import pod_requests, request_name
from dra_gpu_platform.dra.tolerations import Taint, Toleration

GPU = Taint("nvidia.com/gpu", "present", "NoSchedule")
NODE = NodeInfo(
    "n1", {"pool": "a", "gen": "5"}, (GPU,), False, {"cpu": 4000, "memory": 8 << 30, "pods": 3, "nvidia.com/gpu": 2}
)


def pod(**kw):
    return nf.PodConstraints(**kw)


# tainttoleration/taint_toleration_test.go TestTaintTolerationFilter; core/v1 TestTolerationToleratesTaint
@pytest.mark.parametrize(
    "tolerations, taints, fails",
    [
        ((), (), False),
        ((), (GPU,), True),
        ((Toleration("nvidia.com/gpu", "Exists", "", "NoSchedule"),), (GPU,), False),
        ((Toleration("", "Exists"),), (GPU,), False),  # empty key with Exists tolerates everything
        ((Toleration("nvidia.com/gpu", "Equal", "absent", "NoSchedule"),), (GPU,), True),  # wrong value
        ((Toleration("nvidia.com/gpu", "Exists", "", "NoExecute"),), (GPU,), True),  # effect mismatch
        ((), (Taint("soft", "", "PreferNoSchedule"),), False),  # PreferNoSchedule only scores
    ],
)
def test_taint_toleration(tolerations, taints, fails):
    status = nf.taint_toleration(pod(tolerations=tolerations), NodeInfo("n", {}, taints))
    assert (status is not None) is fails
    if fails:
        assert status.reasons == ("node(s) had untolerated taint(s)",) and status.unresolvable  # 1.35+ wording
        assert "nvidia.com/gpu=present:NoSchedule" in status.detail or "soft" not in status.detail


# component-helpers nodeaffinity_test.go TestNodeSelectorMatch / TestNodeSelectorRequirementsAsSelector
def _terms(*terms):
    return {"nodeSelectorTerms": list(terms)}


@pytest.mark.parametrize(
    "selector, affinity, matches",
    [
        ({"pool": "a"}, None, True),
        ({"pool": "b"}, None, False),
        ({}, _terms({}), False),  # an empty term matches nothing
        ({}, _terms({"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["x"]}]}), True),
        ({}, _terms({"matchExpressions": [{"key": "zone", "operator": "DoesNotExist"}]}), True),
        ({}, _terms({"matchExpressions": [{"key": "pool", "operator": "Gt", "values": ["1"]}]}), False),  # not int
        ({}, _terms({"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["4"]}]}), True),
        ({}, _terms({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}), True),
        ({}, _terms({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1", "n2"]}]}), False),
        ({}, _terms({}, {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["a"]}]}), True),  # ORed
        ({"pool": "a"}, _terms({"matchExpressions": [{"key": "pool", "operator": "In", "values": ["b"]}]}), False),
    ],
)
def test_node_affinity(selector, affinity, matches):
    status = nf.node_affinity(pod(node_selector=selector, affinity=affinity), NODE)
    assert (status is None) is matches
    if not matches:
        assert status.reasons == ("node(s) didn't match Pod's node affinity/selector",)


# noderesources/fit_test.go TestEnoughRequests
@pytest.mark.parametrize(
    "requests, requested, pods, reasons, unresolvable",
    [
        ({"cpu": 1000}, {}, 0, (), False),
        ({"cpu": 1000}, {}, 3, ("Too many pods",), False),
        (
            {"cpu": 3000, "memory": 6 << 30},
            {"cpu": 2000, "memory": 4 << 30},
            1,
            ("Insufficient cpu", "Insufficient memory"),
            False,
        ),
        ({"cpu": 5000}, {}, 0, ("Insufficient cpu",), True),  # more than the node has at all
        ({"nvidia.com/gpu": 4}, {}, 0, ("Insufficient nvidia.com/gpu",), True),
        ({"vpc.amazonaws.com/efa": 1}, {}, 0, ("Insufficient vpc.amazonaws.com/efa",), True),  # not advertised
    ],
)
def test_node_resources_fit(requests, requested, pods, reasons, unresolvable):
    status = nf.node_resources_fit(pod(requests=requests), NODE, requested, pods)
    assert (status.reasons if status else ()) == reasons
    if status:
        assert status.unresolvable is unresolvable


def test_resources_delegated_to_dra_are_left_to_dynamic_resources():
    dra_node = NodeInfo("d", {}, (), False, {"cpu": 1000})
    delegated = lambda resource, node: resource == "nvidia.com/gpu" and not node.allocatable.get(resource)  # noqa: E731
    assert nf.node_resources_fit(pod(requests={"nvidia.com/gpu": 1}), dra_node, {}, 0, delegated) is None
    assert nf.node_resources_fit(pod(requests={"nvidia.com/gpu": 1}), dra_node, {}, 0) is not None


def test_unknown_allocatable_is_not_checked_and_cordoned_nodes_are_skipped():
    kind_node = NodeInfo("k")
    assert nf.node_resources_fit(pod(requests={"cpu": 10**6, "memory": 1 << 40}), kind_node, {}, 50) is None
    cordoned = NodeInfo("c", unschedulable=True)
    assert nf.node_unschedulable(pod(), cordoned).reasons == ("node(s) were unschedulable",)
    tolerant = pod(tolerations=(Toleration("node.kubernetes.io/unschedulable", "Exists", "", "NoSchedule"),))
    assert nf.node_unschedulable(tolerant, cordoned) is None


def test_kubelet_admission_of_a_nodename_pod_checks_only_noexecute_taints():
    """lifecycle/predicate.go generalFilter: the GPU taint (NoSchedule) does not stop a pod bound by nodeName."""
    assert nf.kubelet_admission(pod(node_name="n1"), NODE, {}, 0) is None
    evicting = NodeInfo("n1", {}, (Taint("drain", "", "NoExecute"),))
    assert nf.kubelet_admission(pod(node_name="n1"), evicting, {}, 0).plugin == "TaintToleration"
    assert nf.kubelet_admission(pod(requests={"vpc.amazonaws.com/efa": 1}), NODE, {}, 0) is None  # dropped


# framework/types_test.go TestFitError_Error; the PostFilter suffix
def test_fit_error_counts_sorted_as_strings_and_the_postfilter_words():
    taint = nf.FilterStatus("TaintToleration", ("node(s) had untolerated taint(s)",))
    cpu = nf.FilterStatus("NodeResourcesFit", ("Insufficient cpu",), unresolvable=False)
    message = nf.fit_error(12, [taint] * 2 + [cpu] * 10, has_claims=True)
    assert message == (
        "0/12 nodes are available: 10 Insufficient cpu, 2 node(s) had untolerated taint(s). still not schedulable, "
        "preemption: 0/12 nodes are available: 10 No preemption victims found for incoming pod, "
        "2 Preemption is not helpful for scheduling."
    )
    assert nf.fit_error(3, [taint] * 3, has_claims=False).endswith(
        "3 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: "
        "3 Preemption is not helpful for scheduling."
    )
    assert nf.fit_error(2, [], has_claims=True, prefilter="pod affinity terms conflict").startswith(
        "0/2 nodes are available: pod affinity terms conflict. still"
    )
    assert nf.event_message("x" * 2000).endswith(" ...") and len(nf.event_message("x" * 2000)) == 1024


# component-helpers resource/helpers_test.go TestPodResourceRequests
def test_pod_requests_take_init_maxima_sidecars_and_overhead():
    spec = {
        "initContainers": [
            {"name": "i1", "resources": {"requests": {"cpu": "2", "memory": "1Gi"}}},
            {"name": "side", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
            {"name": "i2", "resources": {"requests": {"cpu": "1"}}},
        ],
        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "2", "memory": "2Gi"}}}],
        "overhead": {"cpu": "100m"},
    }
    # containers 1 + sidecar 0.5 = 1.5; init max(2, 0.5 + 1) = 2 -> 2 cpu, + overhead
    assert pod_requests(spec) == {"cpu": 2100, "memory": 2 << 30, "nvidia.com/gpu": 2}
    # createDeviceRequests: the index among all sorted request keys (cpu, memory, nvidia.com/gpu)
    assert request_name(spec, 3, "nvidia.com/gpu") == "container-3-request-2"
