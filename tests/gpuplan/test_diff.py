"""`gpuplan diff` semantics over pairs of prod stack files (EKS): the committed stack against edited copies
written with the same stack name, so URNs match. One run per edited file, shared by the module."""

from __future__ import annotations

import copy

import pytest

from gpuplan.diff.report import allow, diff_runs
from tests.conftest import load_committed, run_config

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _pool(config, name):
    return next(p for p in config["nodePools"] if p["name"] == name)


def _namespace(config, name):
    return next(n for n in config["namespaces"] if n["name"] == name)


@pytest.fixture(scope="module")
def prod_runs(tmp_path_factory):
    """before: committed prod. edits: several independent edits in one file. reorder: pools reversed.
    rename: pool t4-legacy renamed, and the Capacity Block pool moved to another instance type."""
    base = load_committed("prod")
    before = run_config(tmp_path_factory.mktemp("before"), base, "prod")

    edits = copy.deepcopy(base)
    _pool(edits, "h100-infer")["maxNodes"] = 8  # resize
    _pool(edits, "t4-legacy")["instanceType"] = "g4dn.2xlarge"  # instance type on the node group
    edits["namespaces"].append({"name": "ml-new", "migration": "legacy", "quota": {"legacyGpus": 1}})
    _namespace(edits, "ml-research")["migration"] = "dual"  # dra-only -> dual
    template = next(t for t in _namespace(edits, "ml-research")["claimTemplates"] if t["name"] == "training-gpus")
    template["count"] = 4
    edited = run_config(tmp_path_factory.mktemp("edits"), edits, "prod")

    reorder = copy.deepcopy(base)
    reorder["nodePools"].reverse()
    reorder["deviceClasses"].reverse()
    reordered = run_config(tmp_path_factory.mktemp("reorder"), reorder, "prod")

    rename = copy.deepcopy(base)
    _pool(rename, "t4-legacy")["name"] = "t4-old"
    _pool(rename, "h100-train")["instanceType"] = "p5.4xlarge"  # instance type on the launch template
    renamed = run_config(tmp_path_factory.mktemp("rename"), rename, "prod")
    return before, edited, reordered, renamed


@pytest.fixture(scope="module")
def edits_report(prod_runs):
    before, edited, _, _ = prod_runs
    return diff_runs(before, edited, against="committed")


@pytest.fixture(scope="module")
def rename_report(prod_runs):
    before, _, _, renamed = prod_runs
    return diff_runs(before, renamed, against="committed")


def _by_name(report):
    return {c.name: c for c in report.changes}


def test_reordering_pools_and_classes_changes_nothing(prod_runs):
    before, _, reordered, _ = prod_runs
    report = diff_runs(before, reordered)
    summary = report.summary()
    assert summary["same"] == len(before.resources) > 50
    assert {op: summary[op] for op in ("create", "update", "replace", "delete")} == dict.fromkeys(
        ("create", "update", "replace", "delete"), 0
    )
    assert report.refused == []


def test_resize_is_an_update_of_the_scaling_config_only(edits_report):
    nodes = _by_name(edits_report)["gpu-prod-eks-pool-h100-infer-nodes"]
    assert nodes.op == "update" and nodes.paths == ["scalingConfig.maxSize"]
    assert nodes.values["scalingConfig.maxSize"] == (4, 8)
    assert not nodes.refused and nodes.rolling == []
    # desiredSize is ignoreChanges on node groups: never reported
    assert all("desiredSize" not in p for c in edits_report.changes for p in c.paths)


def test_instance_type_on_the_node_group_replaces_it_and_is_refused(edits_report):
    changes = _by_name(edits_report)
    nodes = changes["gpu-prod-eks-pool-t4-legacy-nodes"]
    assert nodes.op == "replace" and nodes.replace_reasons == ["instanceTypes[0]"]
    assert nodes.values["instanceTypes[0]"] == ("g4dn.xlarge", "g4dn.2xlarge")
    assert "node_group.go" in nodes.source
    assert nodes.refused and "GPU pool `t4-legacy`" in nodes.why and "protect is set" in nodes.why
    assert (
        "new pool beside this one" in nodes.how and "kubectl drain -l dra-gpu-platform.io/pool=t4-legacy" in nodes.how
    )
    # the launch template only changes its description (not a new version)...
    template = changes["gpu-prod-eks-pool-t4-legacy-launch-template"]
    assert template.op == "update" and template.paths == ["description"]
    # ...while the ASG tags follow the replaced node group: their group name is unknown until it exists
    tags = [c for c in edits_report.changes if c.type == "aws:autoscaling/tag:Tag" and "t4-legacy" in c.name]
    assert tags and all(t.op == "replace" and t.replace_reasons == ["autoscalingGroupName"] for t in tags)
    assert all(t.unknown and "gpu-prod-eks-pool-t4-legacy-nodes" in t.unknown[0] for t in tags)
    assert all(not t.refused for t in tags)
    # other pools are untouched
    assert changes["gpu-prod-eks-pool-h100-train-nodes"].op == "same"


def test_adding_a_namespace_creates_it(edits_report):
    changes = _by_name(edits_report)
    created = {name for name, c in changes.items() if c.op == "create"}
    policies = {f"gpu-prod-ns-ml-new-netpol-gpu-{p}" for p in ("default-deny", "allow-dns", "allow-same-namespace")}
    assert created == {
        "gpu-prod-ns-ml-new",
        "gpu-prod-ns-ml-new-namespace",
        "gpu-prod-ns-ml-new-quota",
        "gpu-prod-ns-ml-new-priority-quota",
        "gpu-prod-ns-ml-new-netpol-gpu-allow-internet",
        *policies,
    }


def test_dra_only_to_dual_updates_the_namespace_labels_only(edits_report):
    namespace = _by_name(edits_report)["gpu-prod-ns-ml-research-namespace"]
    assert namespace.op == "update" and namespace.paths == ['metadata.labels["gpu-mode"]']
    assert namespace.values['metadata.labels["gpu-mode"]'] == ("dra-only", "dual")
    assert not namespace.refused


def test_claim_template_count_replaces_the_template_only(edits_report):
    changes = _by_name(edits_report)
    template = changes["gpu-prod-ns-ml-research-template-training-gpus"]
    assert template.op == "replace"
    assert template.replace_reasons == ["spec.spec.devices.requests[0].exactly.count"]
    assert "ValidateResourceClaimTemplateUpdate" in template.source
    # prod protects tenant objects: `pulumi up` would stop at the delete half of the replace
    assert template.refused and "protect is set on it" in template.why
    assert changes["gpu-prod-ns-ml-research-template-inference"].op == "same"
    assert changes["gpu-prod-ns-ml-research-quota"].op == "same"


def test_edits_summary_counts_every_resource_once(edits_report, prod_runs):
    before, edited, _, _ = prod_runs
    summary = edits_report.summary()
    assert sum(summary[op] for op in ("create", "update", "replace", "delete", "same")) == len(
        {r.urn for r in before.resources} | {r.urn for r in edited.resources}
    )
    assert summary["create"] == 8 and summary["delete"] == 0
    assert [c.name for c in edits_report.refused] == [
        "gpu-prod-eks-pool-t4-legacy-nodes",
        "gpu-prod-ns-ml-research-template-training-gpus",
    ]
    document = edits_report.as_json()
    assert document["refused"] == sorted(c.urn for c in edits_report.refused)
    assert set(document["changes"][0]) >= {
        "urn",
        "type",
        "op",
        "paths",
        "replaceReasons",
        "refused",
        "why",
        "howToDoItSafely",
    }


def test_rename_is_delete_plus_create_refused_with_an_alias_hint(rename_report):
    changes = _by_name(rename_report)
    old, new = changes["gpu-prod-eks-pool-t4-legacy-nodes"], changes["gpu-prod-eks-pool-t4-old-nodes"]
    assert (old.op, new.op) == ("delete", "create")
    assert old.refused and not new.refused
    assert old.renamed_to == new.name and new.renamed_from == old.name
    assert 'pulumi.Alias(name="gpu-prod-eks-pool-t4-legacy-nodes")' in old.how
    assert "new pool beside this one" in old.how
    deleted_tags = [c for c in rename_report.changes if c.op == "delete" and "t4-legacy-asg-tag" in c.name]
    # 4 labels, 1 taint, 1 resources, and 3 autoscaler discovery tags
    assert len(deleted_tags) == 9 and not any(t.refused for t in deleted_tags)


def test_capacity_block_instance_type_is_a_new_template_version_that_rolls_the_pool(rename_report):
    changes = _by_name(rename_report)
    template = changes["gpu-prod-eks-pool-h100-train-launch-template"]
    assert template.op == "update" and "instanceType" in template.paths and not template.replace_reasons
    nodes = changes["gpu-prod-eks-pool-h100-train-nodes"]
    # the instance type lives on the template: the node group is not replaced, but points at a new
    # template version (unknown until the template is updated), which rolls every node
    assert nodes.op == "update" and nodes.rolling == ["launchTemplate.version"]
    assert nodes.unknown == [
        "launchTemplate.version (from updated aws:ec2/launchTemplate:LaunchTemplate "
        "gpu-prod-eks-pool-h100-train-launch-template)"
    ]
    assert nodes.refused and "rolls every node of GPU pool `h100-train`" in nodes.why
    assert "cr-0123456789abcdef0" in nodes.why


def test_allow_replace_accepts_a_refused_change(rename_report, prod_runs):
    before, _, _, renamed = prod_runs
    report = diff_runs(before, renamed)
    refused = {c.name: c.urn for c in report.refused}
    # p5.4xlarge has no EFA: the last EFA pool goes, and with it the (protected) EFA device plugin release
    assert set(refused) == {
        "gpu-prod-eks-pool-t4-legacy-nodes",
        "gpu-prod-eks-pool-h100-train-nodes",
        "gpu-prod-eks-efa-device-plugin-release",
    }
    # one by URN, one by its (unique) resource name
    unmatched = allow(
        report,
        [
            refused["gpu-prod-eks-pool-t4-legacy-nodes"],
            "gpu-prod-eks-pool-h100-train-nodes",
            "gpu-prod-eks-efa-device-plugin-release",
            "no-such-resource",
        ],
    )
    assert unmatched == ["no-such-resource"]
    assert report.refused == [] and all(report.by_urn()[u].allowed for u in refused.values())
    assert report.as_json()["allowed"] == sorted(refused.values())


def test_a_cluster_created_with_self_managed_addons_is_not_replaced(prod_runs):
    """bootstrapSelfManagedAddons forces a new cluster; clusters created before it was false keep running."""
    before, _, _, _ = prod_runs
    deployed = copy.deepcopy(before)
    cluster = next(r for r in deployed.resources if r.name == "gpu-prod-eks-eks")
    cluster.inputs["bootstrapSelfManagedAddons"] = True  # what a cluster created with the default has
    change = _by_name(diff_runs(deployed, before))["gpu-prod-eks-eks"]
    assert change.op == "same"
    unguarded = copy.deepcopy(before)
    next(r for r in unguarded.resources if r.name == "gpu-prod-eks-eks").options.pop("ignoreChanges")
    change = _by_name(diff_runs(deployed, unguarded))["gpu-prod-eks-eks"]
    assert change.op == "replace" and change.replace_reasons == ["bootstrapSelfManagedAddons"] and change.refused
