"""gpuplan's offline runner keeps the CLI's semantics: levels, message format, remediation, unknowns,
parents and dependencies for stack policies, and policy config validation."""

from __future__ import annotations

import pytest
from pulumi_policy import EnforcementLevel, ResourceValidationPolicy, StackValidationPolicy
from pulumi_policy.proxy import UNKNOWN_BOOLEAN_VALUE

from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.policies.pack import PACK_LEVEL, POLICIES
from dra_gpu_platform.policies.rules import cloud as cloud_rules
from gpuplan.engine.runtime import ProgramRun, Registration
from gpuplan.policy.runner import PACK_VERSION, evaluate, reconcile
from tests.policies import builders as b

PROVIDER = "pulumi:providers:kubernetes"


def reg(
    type_,
    name,
    inputs,
    *,
    parent="",
    provider="",
    deps=(),
    protect=False,
    options=None,
    custom=True,
    property_deps=None,
):
    return Registration(
        urn=b.urn(type_, name),
        type=type_,
        name=name,
        custom=custom,
        parent=parent,
        provider=provider,
        dependencies=list(deps),
        protect=protect,
        inputs=inputs,
        options=options or {},
        property_dependencies=property_deps or {},
    )


def program(*registrations):
    return ProgramRun(
        "test", "dra-gpu-platform", None, "(hand-built)", sorted(registrations, key=lambda r: r.urn), {}, []
    )


def run(registrations, config=None, **kw):
    settings = reconcile(config or {}, "(test)", kw.get("policies", POLICIES))
    return evaluate(program(*registrations), settings, **kw)


UNTAINTED = reg(b.EKS_NODE_GROUP, "gpu", b.node_group(taints=[]))


def levels(report, policy):
    return [v.level for v in report.violations if v.policy == policy]


# ---------------------------------------------------------------- enforcement levels


@pytest.mark.parametrize(
    "config, expected",
    [
        ({}, ["mandatory"]),  # the policy's own level
        ({"all": "advisory"}, ["advisory"]),  # the config's "all" beats the policy's level
        ({"all": "advisory", "gpu-node-pool-tainted": "mandatory"}, ["mandatory"]),  # per policy beats "all"
        ({"gpu-node-pool-tainted": {"enforcementLevel": "advisory"}}, ["advisory"]),
        ({"gpu-node-pool-tainted": "disabled"}, []),
    ],
)
def test_level_precedence(config, expected):
    assert levels(run([UNTAINTED], config), "gpu-node-pool-tainted") == expected


def test_advisory_default_of_gpu_budget_and_all_mandatory():
    big = reg(b.EKS_NODE_GROUP, "big", b.node_group("p5.48xlarge", max_size=10))
    assert levels(run([big]), "gpu-budget") == ["advisory"]
    assert levels(run([big], {"all": "mandatory"}), "gpu-budget") == ["mandatory"]
    assert levels(run([big], {"gpu-budget": {"maxGpus": 80}}), "gpu-budget") == []


def test_pack_level_applies_to_a_policy_without_its_own():
    probe = ResourceValidationPolicy("probe", "probe policy", validate=lambda args, report: None)
    assert reconcile({}, "(test)", [probe])["probe"].level == PACK_LEVEL
    assert reconcile({"all": "advisory"}, "(test)", [probe])["probe"].level == EnforcementLevel.ADVISORY


def test_message_is_description_newline_rule_message_and_urn_is_the_resource():
    [violation] = run([UNTAINTED]).violations
    assert violation.message.split("\n", 1) == [
        cloud_rules.GPU_NODE_POOL_TAINTED.description,
        "GPU node pool gpu (p5.48xlarge) lacks the taint nvidia.com/gpu:NoSchedule (its taints: none); any pod can "
        "land on these nodes and hold CPU and memory that GPU jobs need.",
    ]
    assert violation.urn == UNTAINTED.urn
    assert violation.as_json() == {
        "policy": "gpu-node-pool-tainted",
        "level": "mandatory",
        "urn": UNTAINTED.urn,
        "message": violation.message,
    }


# ---------------------------------------------------------------- remediation


def _probe_stack_policy(seen):
    def validate(args, report):
        for r in args.resources:
            seen[r.urn] = r

    return StackValidationPolicy("probe-stack", "records what stack policies receive", validate=validate)


def test_remediate_level_rewrites_before_analyze_and_stack_policies_see_the_result():
    template = reg(b.LAUNCH_TEMPLATE, "lt", b.launch_template(http_tokens="optional", instance="p5.48xlarge"))
    seen = {}
    policies = [cloud_rules.IMDS_V2_REQUIRED, cloud_rules.GPU_NODE_POOL_TAINTED, _probe_stack_policy(seen)]
    report = run([template, UNTAINTED], {"all": "remediate"}, policies=policies)
    assert report.violations == []
    assert {(r.policy, r.urn) for r in report.remediations} == {
        ("imds-v2-required", template.urn),
        ("gpu-node-pool-tainted", UNTAINTED.urn),
    }
    assert seen[template.urn].props["metadataOptions"]["httpTokens"] == "required"
    assert seen[UNTAINTED.urn].props["taints"][0]["key"] == "nvidia.com/gpu"


def test_a_violation_remediation_cannot_fix_is_reported_as_mandatory():
    kind = reg(b.COMMAND, "kind", b.kind_command([b.labels_for("dra")], taint=False))
    report = run([kind], {"gpu-node-pool-tainted": "remediate"})
    assert levels(report, "gpu-node-pool-tainted") == ["mandatory"]
    assert report.remediations == []


# ---------------------------------------------------------------- unknowns, providers, parents, dependencies


def test_unknown_values_become_a_note_not_a_violation():
    cluster = reg(
        b.EKS_CLUSTER,
        "eks",
        {
            "vpcConfig": {"endpointPublicAccess": UNKNOWN_BOOLEAN_VALUE},
            "accessConfig": {"bootstrapClusterCreatorAdminPermissions": False},
            "enabledClusterLogTypes": ["audit"],
        },
    )
    report = run([cluster])
    assert report.violations == []
    assert report.notes == [
        f"can't run policy 'cluster-endpoint-private' from policy pack 'dra-gpu-platform@v{PACK_VERSION}' during "
        "preview: boolean value at .vpcConfig.endpointPublicAccess can't be known during preview"
    ]


def test_resources_get_options_provider_parent_and_dependencies():
    seen_resource = {}

    def validate(args, report):
        seen_resource[args.urn] = args

    probe = ResourceValidationPolicy("probe", "records resource args", validate=validate)
    seen_stack = {}
    component = reg("example:index:Component", "comp", {}, custom=False)
    provider = reg(PROVIDER, "k8s", {"kubeconfig": "[secret]"}, parent=component.urn)
    ns = reg(
        b.NAMESPACE,
        "ns",
        b.namespace("team-a"),
        parent=component.urn,
        provider=provider.urn,
        protect=True,
        options={"customTimeouts": {"create": "1h30m"}, "ignoreChanges": ["metadata"]},
    )
    quota = reg(
        b.QUOTA,
        "quota",
        b.quota("team-a", {}),
        parent=component.urn,
        provider=provider.urn,
        deps=[ns.urn],
        property_deps={"metadata": [ns.urn]},
    )
    run([component, provider, ns, quota], policies=[probe, _probe_stack_policy(seen_stack)])
    args = seen_resource[ns.urn]
    assert (args.opts.protect, args.opts.parent, list(args.opts.ignore_changes)) == (True, component.urn, ["metadata"])
    assert args.opts.custom_timeouts.create_seconds == 5400
    assert (args.provider.resource_type, args.provider.urn, dict(args.provider.props)) == (
        PROVIDER,
        provider.urn,
        {"kubeconfig": "[secret]"},
    )
    stack_quota = seen_stack[quota.urn]
    assert stack_quota.parent is seen_stack[component.urn]
    assert [d.urn for d in stack_quota.dependencies] == [ns.urn]
    assert [d.urn for d in stack_quota.property_dependencies["metadata"]] == [ns.urn]


# ---------------------------------------------------------------- policy config validation


def _problems(config):
    with pytest.raises(InputError) as caught:
        reconcile(config, "policies/config/x.json")
    return [(p.path, p.value, p.rule, p.fix) for p in caught.value.problems]


def test_schema_violations_name_path_value_rule_and_fix():
    [(path, value, rule, fix)] = _problems({"gpu-budget": {"maxGpus": "lots"}})
    assert (path, value, rule) == ("gpu-budget.maxGpus", "lots", "'lots' is not of type 'integer'")
    assert fix.startswith("use a whole number ≥ 0 (Most GPUs the stack's cloud node pools may reach at max scale.)")
    [(path, value, rule, fix)] = _problems({"helm-release-pinned": {"allowedRepositories": ["charts.example.com"]}})
    assert (path, value) == ("helm-release-pinned.allowedRepositories[0]", "charts.example.com")
    assert "does not match '^(https://|oci://)'" in rule and fix.startswith("use a string matching ^(https://|oci://)")


def test_every_problem_at_once_names_typos_and_bad_levels():
    problems = _problems(
        {
            "gpu-budgett": {"maxGpus": 4},
            "gpu-budget": {"maxGPUs": 4, "enforcementLevel": "strict"},
            "imds-v2-required": 3,
            "all": {"enforcementLevel": "advisory", "maxGpus": 1},
        }
    )
    by_path = {p[0]: p for p in problems}
    assert set(by_path) == {
        "all",
        "gpu-budget.enforcementLevel",
        "gpu-budget.maxGPUs",
        "gpu-budgett",
        "imds-v2-required",
    }
    assert by_path["gpu-budgett"][2:] == ("no policy of that name in the pack", "did you mean 'gpu-budget'?")
    assert by_path["gpu-budget.maxGPUs"][2:] == ("unknown setting for this policy", "known settings: maxGpus")
    assert by_path["gpu-budget.enforcementLevel"][2] == "not an enforcement level"
    assert by_path["imds-v2-required"][2] == "must be an enforcement level or an object"
    assert by_path["all"][2] == '"all" takes only an enforcement level'


def test_defaults_fill_in_and_given_settings_override():
    settings = reconcile({"gpu-budget": {"maxGpus": 8}}, "(test)")
    assert settings["gpu-budget"].properties == {"maxGpus": 8}
    assert settings["protected-in-production"].properties == {"production": False}
    assert settings["claim-template-class-exists"].level == EnforcementLevel.MANDATORY
