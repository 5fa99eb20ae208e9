"""Replacement rules (dra_gpu_platform/facts/replacements.py) and the diff engine's Pulumi semantics: coverage of
every type the package emits, property paths, ignoreChanges/replaceOnChanges, unknown types, provider
replacement, and the AKS and kind stacks."""

from __future__ import annotations

import copy

import pytest

from dra_gpu_platform.facts import replacements as rules
from gpuplan.diff.paths import parse_path, render_path
from gpuplan.diff.report import diff_runs
from gpuplan.engine.runtime import ProgramRun, Registration
from tests.conftest import load_committed, run_config

PREFIX = "urn:pulumi:test::dra-gpu-platform::"


@pytest.fixture(scope="module")
def emitted_types(tmp_path_factory):
    """Every custom resource type of the committed stacks plus an EKS variant that creates its own VPC (with a
    public endpoint for the deploy), admin access entries, an EFA pool with a placement group, a Capacity Block
    with scheduled scaling and monitoring."""
    types = set()
    for stack in ("prod", "staging", "dev"):
        run = run_config(tmp_path_factory.mktemp(stack), load_committed(stack), stack)
        types |= {r.type for r in run.resources if r.custom}
    variant = load_committed("prod")
    del variant["cluster"]["eks"]["subnetIds"]
    variant["cluster"]["eks"].update(endpointPublicAccess=True, publicAccessCidrs=["203.0.113.0/24"])
    block = next(p for p in variant["nodePools"] if p.get("capacity") == "capacity-block")
    block.update(capacityBlockStart="2031-01-05T11:30:00Z", capacityBlockEnd="2031-01-19T11:30:00Z")
    variant["cluster"]["eks"]["adminRoleArns"] = ["arn:aws:iam::123456789012:role/platform-admin"]
    variant["nodePools"].append({"name": "h100-efa", "gpu": "H100", "instanceType": "p5.48xlarge", "maxNodes": 2})
    variant["monitoring"] = {"enabled": True}
    run = run_config(tmp_path_factory.mktemp("variant"), variant, "prod")
    return types | {r.type for r in run.resources if r.custom}


def test_every_emitted_type_has_a_sourced_rule_or_is_declared_unverified(emitted_types):
    assert {
        "aws:ec2/vpc:Vpc",
        "aws:eks/accessEntry:AccessEntry",
        "aws:ec2/placementGroup:PlacementGroup",
        "kubernetes:core/v1:ConfigMap",
        "azure-native:containerservice:AgentPool",
        "command:local:Command",
    } <= emitted_types
    missing = sorted(t for t in emitted_types if rules.rule_for(t) is None and t not in rules.UNVERIFIED_TYPES)
    assert missing == []
    for type_ in emitted_types - set(rules.UNVERIFIED_TYPES):
        rule = rules.rule_for(type_)
        assert rule.source and rule.replace, type_
    # unverified types are really unknown to the rules (reported as "may replace")
    assert all(rules.rule_for(t) is None for t in rules.UNVERIFIED_TYPES)


def test_kubernetes_rules_cover_name_namespace_and_immutable_specs():
    template = rules.rule_for("kubernetes:resource.k8s.io/v1:ResourceClaimTemplate")
    assert template.replace == ("metadata.name", "metadata.namespace", "spec") and template.complete
    device_class = rules.rule_for("kubernetes:resource.k8s.io/v1:DeviceClass")
    assert device_class.replace == ("metadata.name", "metadata.namespace") and device_class.complete
    unknown_kind = rules.rule_for("kubernetes:example.com/v1:Widget")
    assert not unknown_kind.complete and unknown_kind.updatable == ("metadata",)
    assert rules.rule_for(rules.HELM_RELEASE).replace == ("name", "namespace")
    assert rules.rule_for("aws:ec2/notEmitted:Thing") is None


@pytest.mark.parametrize(
    "text",
    [
        'spec.hard["count/resourceclaims.resource.k8s.io"]',
        "instanceTypes[0]",
        'metadata.labels["gpu-mode"]',
        "scalingConfig.maxSize",
        'tags["k8s.io/cluster-autoscaler/enabled"]',
    ],
)
def test_paths_round_trip(text):
    assert render_path(parse_path(text)) == text


# ------------------------------------------------------------------------------ hand-built registrations


def _reg(type_, name, inputs, *, parent_type="", provider="", deps=(), protect=False, options=None, state=None):
    qualified = f"{parent_type}${type_}" if parent_type else type_
    return Registration(
        urn=f"{PREFIX}{qualified}::{name}",
        type=type_,
        name=name,
        custom=True,
        parent="",
        provider=provider,
        dependencies=list(deps),
        protect=protect,
        inputs=inputs,
        options=options or {},
        state=state or dict(inputs),
    )


def _run(*resources):
    return ProgramRun("test", "dra-gpu-platform", None, "(test)", sorted(resources, key=lambda r: r.urn), {}, [])


def test_unknown_types_may_replace_and_a_protected_one_is_refused():
    old = _reg("acme:index:Widget", "w", {"size": 1}, protect=True)
    new = _reg("acme:index:Widget", "w", {"size": 2}, protect=True)
    change = diff_runs(_run(old), _run(new)).changes[0]
    assert change.op == "update" and change.may_replace == ["size"] and change.source is None
    assert change.refused and "cannot tell whether size replaces it" in change.why
    unprotected = diff_runs(
        _run(_reg("acme:index:Widget", "w", {"size": 1})), _run(_reg("acme:index:Widget", "w", {"size": 2}))
    )
    assert unprotected.changes[0].may_replace == ["size"] and not unprotected.changes[0].refused
    assert unprotected.summary()["mayReplace"] == 1


def test_ignore_changes_and_replace_on_changes_options_are_honoured():
    type_ = "aws:eks/nodeGroup:NodeGroup"
    old = _reg(type_, "ng", {"scalingConfig": {"desiredSize": 1, "maxSize": 2}, "labels": {"a": "1"}})
    new = _reg(
        type_,
        "ng",
        {"scalingConfig": {"desiredSize": 3, "maxSize": 2}, "labels": {"a": "2"}},
        options={"ignoreChanges": ["scalingConfig.desiredSize"], "replaceOnChanges": ["labels"]},
    )
    change = diff_runs(_run(old), _run(new)).changes[0]
    assert change.paths == ["labels.a"] and change.replace_reasons == ["labels.a"] and change.op == "replace"


def test_a_replaced_provider_replaces_its_objects_unless_it_has_a_cluster_identifier():
    cluster_type, provider_type = "aws:eks/cluster:Cluster", rules.KUBERNETES_PROVIDER
    ns_type = "kubernetes:core/v1:Namespace"

    def runs(role, identifier=None):
        cluster = _reg(
            cluster_type,
            "c",
            {"name": "gpu", "roleArn": role},
            state={"name": "gpu", "roleArn": role, "endpoint": "https://ABCDEF0123456789.eks.example"},
        )
        provider_inputs = {"kubeconfig": "server: https://ABCDEF0123456789.eks.example"}
        if identifier:
            provider_inputs["clusterIdentifier"] = identifier
        provider = _reg(provider_type, "k8s", provider_inputs, deps=[cluster.urn])
        namespace = _reg(ns_type, "ns", {"metadata": {"name": "team"}}, provider=provider.urn)
        return _run(cluster, provider, namespace)

    report = diff_runs(runs("arn:role/a"), runs("arn:role/b"))
    changes = {c.name: c for c in report.changes}
    assert changes["c"].op == "replace" and changes["c"].replace_reasons == ["roleArn"]
    assert changes["k8s"].op == "replace" and changes["k8s"].replace_reasons == ["kubeconfig"]
    assert changes["ns"].op == "replace" and changes["ns"].replace_reasons == ["provider"]
    assert changes["c"].refused and "every node pool" in changes["c"].why

    pinned = {c.name: c for c in diff_runs(runs("arn:role/a", "gpu"), runs("arn:role/b", "gpu")).changes}
    assert pinned["k8s"].op == "update" and pinned["ns"].op == "same"


# ------------------------------------------------------------------------------------- AKS and kind


@pytest.fixture(scope="module")
def staging_report(tmp_path_factory):
    base = load_committed("staging")
    edited = copy.deepcopy(base)
    pools = {p["name"]: p for p in edited["nodePools"]}
    pools["t4-legacy"]["instanceType"] = "Standard_NC8as_T4_v3"
    pools["a100-mig"]["maxNodes"] += 1
    before = run_config(tmp_path_factory.mktemp("staging-before"), base, "staging")
    after = run_config(tmp_path_factory.mktemp("staging-after"), edited, "staging")
    return diff_runs(before, after)


def test_aks_vm_size_replaces_the_agent_pool_and_resize_updates_it(staging_report):
    changes = {c.name: c for c in staging_report.changes}
    t4 = changes["gpu-staging-aks-pool-t4-legacy-agent-pool"]
    assert t4.op == "replace" and t4.replace_reasons == ["vmSize"] and "replacement.go" in t4.source
    assert t4.refused and "GPU pool `t4-legacy`" in t4.why
    a100 = changes["gpu-staging-aks-pool-a100-mig-agent-pool"]
    assert a100.op == "update" and a100.paths == ["maxCount"] and not a100.refused


@pytest.fixture(scope="module")
def dev_report(tmp_path_factory):
    base = load_committed("dev")
    edited = copy.deepcopy(base)
    edited["nodePools"][0]["maxNodes"] += 1
    before = run_config(tmp_path_factory.mktemp("dev-before"), base, "dev")
    after = run_config(tmp_path_factory.mktemp("dev-after"), edited, "dev")
    return diff_runs(before, after)


def test_growing_a_kind_pool_recreates_the_kind_cluster_and_is_refused(dev_report):
    command = next(c for c in dev_report.changes if c.type == "command:local:Command")
    assert command.op == "update" and command.paths == ["environment.KIND_CONFIG"]
    assert command.refused and "kind create cluster" in command.why
    provider = next(c for c in dev_report.changes if c.type == rules.KUBERNETES_PROVIDER)
    # the kubeconfig is the Command's stdout, recomputed by the update: unknown in a real preview
    assert provider.op == "replace" and provider.replace_reasons == ["kubeconfig"]
    objects = [c for c in dev_report.changes if c.custom and c.type.startswith("kubernetes:")]
    assert objects and all(c.op == "replace" and "provider" in c.replace_reasons for c in objects)
    namespaces_with_templates = [c for c in objects if c.type == "kubernetes:core/v1:Namespace" and c.refused]
    assert namespaces_with_templates and all("ResourceClaims" in c.why for c in namespaces_with_templates)


@pytest.mark.parametrize(
    "template_change, rolls", [({"description": "pool b"}, False), ({"instanceType": "p5.4xlarge"}, True)]
)
def test_only_a_template_data_change_makes_a_new_version_that_rolls_the_node_group(template_change, rolls):
    lt_type, ng_type = "aws:ec2/launchTemplate:LaunchTemplate", "aws:eks/nodeGroup:NodeGroup"

    def run(extra):
        inputs = {"description": "pool a", "instanceType": "p5.48xlarge", **extra}
        template = _reg(lt_type, "lt", inputs, state={**inputs, "latestVersion": 1})
        nodes = _reg(
            ng_type,
            "ng",
            {"launchTemplate": {"id": "lt-id", "version": "1"}, "scalingConfig": {"maxSize": 2}},
            deps=[template.urn],
        )
        nodes.property_dependencies = {"launchTemplate": [template.urn]}
        return _run(template, nodes)

    changes = {c.name: c for c in diff_runs(run({}), run(template_change)).changes}
    assert changes["lt"].op == "update" and changes["lt"].paths == list(template_change)
    if rolls:
        assert changes["ng"].op == "update" and changes["ng"].rolling == ["launchTemplate.version"]
        assert changes["ng"].paths == ["launchTemplate.version"] and changes["ng"].values == {}
    else:
        assert changes["ng"].op == "same"


def test_a_wholly_added_block_is_reported_once_with_its_value():
    type_ = "aws:ec2/launchTemplate:LaunchTemplate"
    old = _reg(type_, "lt", {"description": "x"})
    new = _reg(type_, "lt", {"description": "x", "placement": {"groupName": "pg-1", "tenancy": "default"}})
    change = diff_runs(_run(old), _run(new)).changes[0]
    assert change.op == "update" and change.paths == ["placement"]
    assert change.values["placement"][1] == {"groupName": "pg-1", "tenancy": "default"}
