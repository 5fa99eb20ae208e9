"""A corpus of newcomer mistakes, each written into a stack that is otherwise right, and for each exactly the
problems it has: by path as the text shows it (the items named), with the rule and a fix that fits the file, and
nothing else. One mistake is one problem (a refused value causes no knock-on elsewhere: dra_gpu_platform/config/repair.py),
a misspelled key is read as the key it means (dra_gpu_platform/config/spelling.py), and an independent mistake is never
hidden by another."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.inputs.problems import InputError
from tests.conftest import qualify

# A production EKS stack as docs/configuration.md writes one: a MIG-partitioned H100 pool, a T4 device-plugin pool
# on Bottlerocket (its own device plugin), two classes, a DRA namespace with two templates and a legacy one.
EKS: dict[str, Any] = {
    "aws:region": "us-east-1",
    "cluster": {
        "platform": "eks",
        "name": "gpu-prod",
        "kubernetesVersion": "1.35",
        "eks": {"subnetIds": ["subnet-0a1b2c3d4e5f60718", "subnet-0b2c3d4e5f6071829"]},
    },
    "nodePools": [
        {
            "name": "h100-train",
            "gpu": "H100",
            "instanceType": "p5.48xlarge",
            "minNodes": 1,
            "maxNodes": 4,
            "mig": {"profile": "3g.40gb"},
            "labels": {"team": "research"},
        },
        {
            "name": "t4-legacy",
            "gpu": "T4",
            "maxNodes": 6,
            "gpuStack": "device-plugin",
            "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
        },
    ],
    "deviceClasses": [
        {"name": "h100-3g", "gpu": "H100", "migProfile": "3g.40gb"},
        {"name": "ampere-or-newer", "minComputeCapability": "8.0"},
    ],
    "namespaces": [
        {
            "name": "ml-research",
            "quota": {"claims": 10, "devices": {"h100-3g": 16}},
            "claimTemplates": [
                {"name": "training-gpus", "deviceClass": "h100-3g", "count": 2},
                {
                    "name": "inference",
                    "firstAvailable": [{"deviceClass": "h100-3g"}, {"deviceClass": "ampere-or-newer"}],
                },
            ],
        },
        {"name": "ml-legacy", "migration": "legacy", "quota": {"legacyGpus": 8}},
    ],
}

KIND: dict[str, Any] = {
    "cluster": {"platform": "kind", "name": "gpu-lab", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "example"}},
    "nodePools": [{"name": "workers", "gpu": "H100", "maxNodes": 2}],
    "deviceClasses": [{"name": "any-gpu", "selectors": ["device.driver == 'gpu.example.com'"]}],
    "namespaces": [{"name": "team-a", "claimTemplates": [{"name": "one", "deviceClass": "any-gpu"}]}],
}

Mutation = Callable[[dict[str, Any]], None]


def _pool(index: int, **changes: Any) -> Mutation:
    return lambda c: c["nodePools"][index].update(changes)


def _rename(section: dict[str, Any], old: str, new: str) -> None:
    section[new] = section.pop(old)


# (id, base, mutation, {where: (words in the rule, words in the fix)})
CASES: list[tuple[str, dict[str, Any], Mutation, dict[str, tuple[str, str]]]] = [
    (
        "snake-case-key",
        EKS,
        lambda c: _rename(c["nodePools"][0], "instanceType", "instance_type"),
        {"nodePools[0] (h100-train).instance_type": ("unknown key", "did you mean instanceType?")},
    ),
    (
        "kebab-case-key-read-as-meant",
        EKS,
        lambda c: _rename(c["nodePools"][1], "maxNodes", "max-nodes"),
        {"nodePools[1] (t4-legacy).max-nodes": ("unknown key", "did you mean maxNodes?")},
    ),
    (
        "section-typo-no-knock-ons",
        EKS,
        lambda c: _rename(c, "nodePools", "nodepools"),
        {"nodepools": ("unknown config key", "did you mean nodePools?")},
    ),
    (
        "refused-gpu-of-a-device-plugin-pool",
        EKS,
        _pool(1, gpu="t4"),
        {"nodePools[1] (t4-legacy).gpu": ("must be one of", "did you mean T4?")},
    ),
    (
        "unknown-key-does-not-hide-mig-profile",
        EKS,
        _pool(0, zone="us-east-1a", mig={"profile": "3g.45gb"}),
        {
            "nodePools[0] (h100-train).zone": ("unknown key", "did you mean availabilityZone?"),
            "nodePools[0] (h100-train).mig.profile": ("not a MIG profile of H100", "3g.40gb"),
        },
    ),
    (
        "later-items-keep-their-index",
        EKS,
        lambda c: c["nodePools"].extend(
            [
                {"name": "bad", "gpu": "H100", "maxNodes": "four"},
                {"name": "l4", "gpu": "L4", "minNodes": 3, "maxNodes": 2},
            ]
        ),
        {
            "nodePools[2] (bad).maxNodes": ("whole number", "integer"),
            "nodePools[3] (l4).minNodes": ("minNodes must be ≤ maxNodes (2)", "lower minNodes"),
        },
    ),
    (
        "refused-max-nodes-no-range-knock-on",
        EKS,
        _pool(0, maxNodes=0),
        {"nodePools[0] (h100-train).maxNodes": ("must be a number from 1 to 1000", "from 1 to 1000")},
    ),
    (
        "gpu-stack-spelling",
        EKS,
        _pool(1, gpuStack="device_plugin"),
        {"nodePools[1] (t4-legacy).gpuStack": ("must be one of", "did you mean device-plugin?")},
    ),
    (
        "invalid-class-referenced-by-templates-and-quota",
        EKS,
        lambda c: c["deviceClasses"][0].update(minMemory="40 GB"),
        {"deviceClasses[0] (h100-3g).minMemory": ("", "79Gi")},
    ),
    (
        "namespaces-as-a-mapping",
        EKS,
        lambda c: c.update(namespaces={"ml-research": {"migration": "dra-only"}}),
        {"namespaces": ("must be a list", "- name: ml-research")},
    ),
    (
        "unknown-platform-and-an-independent-mig-mistake",
        EKS,
        lambda c: (c["cluster"].update(platform="gke"), c["nodePools"][0].update(mig={"profile": "3g.45gb"})),
        {
            "cluster.platform": ("must be one of", "use one of"),
            "nodePools[0] (h100-train).mig.profile": ("not a MIG profile of H100", "3g.40gb"),
        },
    ),
    (
        "no-cluster",
        KIND,
        lambda c: c.pop("cluster"),
        {"cluster": ("required key", "platform, name, kubernetesVersion")},
    ),
    (
        "old-kubernetes-version",
        EKS,
        lambda c: c["cluster"].update(kubernetesVersion="1.30"),
        {"cluster.kubernetesVersion": ("GA from Kubernetes 1.34", '"1.34" or newer')},
    ),
    (
        "misspelled-migration",
        EKS,
        lambda c: c["namespaces"][1].update(migration="Legacy"),
        {"namespaces[1] (ml-legacy).migration": ("must be one of", "did you mean legacy?")},
    ),
    (
        "class-name-with-capitals-still-resolves",
        EKS,
        lambda c: (
            c["deviceClasses"][0].update(name="H100-3g"),
            c["namespaces"][0]["quota"].update(devices={"H100-3g": 16}),
            c["namespaces"][0]["claimTemplates"][0].update(deviceClass="H100-3g"),
            c["namespaces"][0]["claimTemplates"][1]["firstAvailable"][0].update(deviceClass="H100-3g"),
        ),
        {"deviceClasses[0] (H100-3g).name": ("DNS subdomain", "'h100-3g'")},
    ),
    (
        "a-reference-to-a-class-that-is-not-there",
        EKS,
        lambda c: c["namespaces"][0]["claimTemplates"][0].update(deviceClass="h100-3G"),
        {
            "namespaces[0] (ml-research).claimTemplates[0] (training-gpus).deviceClass": (
                "no such device class",
                "ampere-or-newer",
            )
        },
    ),
    (
        "reserved-label-domain",
        EKS,
        lambda c: c["nodePools"][0]["labels"].update({"nvidia.com/gpu.product": "H100"}),
        {"nodePools[0] (h100-train).labels.nvidia.com/gpu.product": ("managed by the platform", "your own prefix")},
    ),
    (
        "item-written-as-a-name",
        EKS,
        lambda c: c["nodePools"].append("a100-extra"),
        {"nodePools[2]": ("must be a mapping", "key: value")},
    ),
    (
        "legacy-namespace-with-templates",
        EKS,
        lambda c: c["namespaces"][1].update(claimTemplates=[{"name": "t", "deviceClass": "h100-3g"}]),
        {"namespaces[1] (ml-legacy).claimTemplates": ("claim templates are not allowed", "dual")},
    ),
    (
        "duplicate-pool-name",
        EKS,
        lambda c: c["nodePools"].append(
            {
                "name": "t4-legacy",
                "gpu": "T4",
                "maxNodes": 1,
                "gpuStack": "device-plugin",
                "amiType": "BOTTLEROCKET_x86_64_NVIDIA",
            }
        ),
        {"nodePools[2] (t4-legacy).name": ("unique", "rename one")},
    ),
    (
        "yaml-1-1-boolean",
        KIND,
        lambda c: c.update(draDriver={"enabled": "yes"}),
        {"draDriver.enabled": ("true or false", "YAML 1.2")},
    ),
    (
        "singular-selector-key",
        KIND,
        lambda c: _rename(c["deviceClasses"][0], "selectors", "selector"),
        {"deviceClasses[0] (any-gpu).selector": ("unknown key", "did you mean selectors?")},
    ),
    (
        "selector-with-colon-read-as-mapping",
        KIND,
        lambda c: c["deviceClasses"][0].update(selectors=[{"device.attributes['gpu.example.com'].model == 'x": "y'"}]),
        {"deviceClasses[0] (any-gpu).selectors[0]": ("read it as a mapping", "quote the whole text")},
    ),
    (
        "gpu-of-a-class-lower-case",
        EKS,
        lambda c: c["deviceClasses"][0].update(gpu="h100"),
        {"deviceClasses[0] (h100-3g).gpu": ("must be one of", "did you mean H100?")},
    ),
    (
        "another-platforms-block",
        EKS,
        lambda c: c["cluster"].update(aks={"resourceGroup": "rg"}),
        {"cluster.aks": ("only the block matching platform (eks)", "remove cluster.aks")},
    ),
    (
        "class-section-typo-keeps-references",
        EKS,
        lambda c: _rename(c, "deviceClasses", "deviceclass"),
        {"deviceclass": ("unknown config key", "did you mean deviceClasses?")},
    ),
    (
        "negative-quota",
        EKS,
        lambda c: c["namespaces"][0]["quota"]["devices"].update({"h100-3g": -1}),
        {"namespaces[0] (ml-research).quota.devices.h100-3g": ("at least 0", "at least 0")},
    ),
    (
        "region-typo",
        EKS,
        lambda c: c.update({"aws:region": "us-est-1"}),
        {"aws:region": ("not an AWS region", "us-east-1")},
    ),
    (
        "capacity-block-without-its-ids",
        EKS,
        lambda c: c["nodePools"].append(
            {"name": "h200-block", "gpu": "H200", "maxNodes": 2, "capacity": "capacity-block"}
        ),
        {
            "nodePools[2] (h200-block).capacityReservationId": ("reservation id", "cr-"),
            "nodePools[2] (h200-block).availabilityZone": ("one zone", "availabilityZone"),
        },
    ),
    (
        "two-independent-mistakes-in-two-pools",
        EKS,
        lambda c: (c["nodePools"][0].update(maxNodes="four"), c["nodePools"][1].update(gpu="T40")),
        {
            "nodePools[0] (h100-train).maxNodes": ("whole number", "integer"),
            "nodePools[1] (t4-legacy).gpu": ("must be one of", "did you mean T4?"),
        },
    ),
    (
        "subdomain-class-name-is-accepted",
        EKS,
        lambda c: (
            c["deviceClasses"][0].update(name="nvidia-h100-mig-3g.40gb"),
            c["namespaces"][0]["quota"].update(devices={"nvidia-h100-mig-3g.40gb": 16}),
            c["namespaces"][0]["claimTemplates"][0].update(deviceClass="nvidia-h100-mig-3g.40gb"),
            c["namespaces"][0]["claimTemplates"][1]["firstAvailable"][0].update(deviceClass="nvidia-h100-mig-3g.40gb"),
        ),
        {},
    ),
]


def problems_of(config: dict[str, Any]) -> dict[str, tuple[str, str]]:
    try:
        parse_config_map(qualify(config), stack="prod", source="Pulumi.prod.yaml")
    except InputError as error:
        found: dict[str, tuple[str, str]] = {}
        for problem in error.problems:
            assert problem.where or problem.path not in found, f"two problems at {problem.path}"
            found[problem.where or problem.path] = (problem.rule, problem.fix)
        return found
    return {}


def test_the_bases_are_valid():
    assert problems_of(EKS) == {} and problems_of(KIND) == {}


@pytest.mark.parametrize("mutate, base, expected", [pytest.param(m, b, e, id=i) for i, b, m, e in CASES])
def test_each_mistake_gets_exactly_its_problems(mutate, base, expected):
    config = copy.deepcopy(base)
    mutate(config)
    found = problems_of(config)
    assert set(found) == set(expected), found
    for where, (rule_words, fix_words) in expected.items():
        rule, fix = found[where]
        assert rule_words in rule and fix_words in fix and fix, (where, rule, fix)


# --- the same mistakes in a stack file as people write them: the YAML itself ------------------------------------

STACK_TEXT = """\
config:
  aws:region: us-east-1
  dra-gpu-platform:cluster:
    platform: eks
    name: gpu-prod
    kubernetesVersion: "1.35"
  dra-gpu-platform:nodePools:
    - name: h100-train
      gpu: H100
      maxNodes: 4
"""

# (id, text replaced, replacement, where, words of the cause, words of the fix, the caret line)
SYNTAX: list[tuple[str, str, str, str, str, str, str]] = [
    (
        "tab",
        "    name: gpu-prod",
        "\tname: gpu-prod",
        "line 5, column 1",
        "a tab character",
        "with spaces",
        "5 | →name: gpu-prod",
    ),
    (
        "indentation-step",
        "    name: gpu-prod",
        "     name: gpu-prod",
        "line 5, column 10",
        "indented 5 spaces, line 4 above it 4",
        "indent it 4 spaces",
        "5 |      name: gpu-prod",
    ),
    (
        "item-key-off-by-one",
        "      maxNodes: 4",
        "     maxNodes: 4",
        "line 10, column 6",
        "indented 5 spaces, line 9 above it 6",
        "indent it 6 spaces",
        "10 |      maxNodes: 4",
    ),
    (
        "key-at-the-dash",
        "      gpu: H100",
        "    gpu: H100",
        "line 9, column 5",
        "like the '-' of the list item on line 8",
        "indent it 6 spaces",
        "9 |     gpu: H100",
    ),
    (
        "unquoted-colon",
        "    name: gpu-prod",
        "    name: gpu: prod",
        "line 5, column 14",
        "the value of name holds ': '",
        'name: "gpu: prod"',
        "5 |     name: gpu: prod",
    ),
    (
        "no-space-after-colon",
        "    platform: eks",
        "    platform:eks",
        "line 5, column 9",
        "line 4 has no space after ':' (platform:eks)",
        "`platform: eks`",
        "5 |     name: gpu-prod",
    ),
    (
        "quote-not-closed",
        'kubernetesVersion: "1.35"',
        'kubernetesVersion: "1.35',
        "line 6, column 24",
        "the quote that opens here is never closed",
        "close the quote",
        '6 |     kubernetesVersion: "1.35',
    ),
]


@pytest.mark.parametrize("old, new, where, cause, fix, shown", [pytest.param(*case[1:], id=case[0]) for case in SYNTAX])
def test_a_yaml_mistake_shows_the_line_the_caret_the_cause_and_the_fix(tmp_path, old, new, where, cause, fix, shown):
    from dra_gpu_platform.config.loading import load_stack_file

    assert old in STACK_TEXT
    path = tmp_path / "Pulumi.prod.yaml"
    path.write_text(STACK_TEXT.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(InputError) as caught:
        load_stack_file(path)
    [problem] = caught.value.problems
    assert problem.path.startswith(where) and cause in problem.rule and fix in problem.fix, problem
    lines = problem.excerpt.splitlines()
    assert any(line.strip().endswith(shown) for line in lines[:-1]), lines
    caret = lines[-1]
    column = int(problem.path.split("column ")[1]) if "column" in problem.path else None
    body = lines[-2]
    if column is not None:  # the caret sits under the column the parser names
        assert caret.index("^") - caret.index("|") - 2 == column - 1
        assert body.index("|") == caret.index("|")
    assert problem.render().count("^") == 1


# --- any one refused value: problems only where it is -----------------------------------------------------------


def _leaves(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    if isinstance(node, dict):
        return [leaf for key, value in node.items() for leaf in _leaves(value, (*prefix, key))]
    if isinstance(node, list):
        return [leaf for index, value in enumerate(node) for leaf in _leaves(value, (*prefix, index))]
    return [prefix]


def _path(parts: tuple[Any, ...]) -> str:
    from dra_gpu_platform.inputs.problems import join_path

    return join_path(*parts)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_a_refused_value_causes_no_problem_anywhere_else(data):
    """Whatever leaf of a valid stack becomes a value of no type it takes (a mapping where a scalar or a list belongs),
    every problem lies on the line from the stack's root to that leaf: nothing elsewhere is a knock-on."""
    from dra_gpu_platform.inputs.problems import is_under

    base = data.draw(st.sampled_from([EKS, KIND]))
    leaf = data.draw(st.sampled_from([p for p in _leaves(base) if p and ":" not in str(p[0])]))
    config = copy.deepcopy(base)
    parent = config
    for part in leaf[:-1]:
        parent = parent[part]
    parent[leaf[-1]] = {"refused": [1, 2]}
    try:
        parse_config_map(qualify(config), stack="prod", source="Pulumi.prod.yaml")
    except InputError as error:
        where = _path(leaf)
        assert error.problems
        stray = [p for p in error.problems if not (is_under(p.path, where) or is_under(where, p.path))]
        assert not stray, (where, [(p.path, p.rule) for p in error.problems])
    else:
        raise AssertionError(f"{_path(leaf)} took a mapping")


def test_a_misspelled_project_namespace_is_one_problem_and_other_namespaces_stay_theirs():
    config = qualify(copy.deepcopy(EKS))
    config["dra-gpu-plaform:namespaces"] = config.pop("dra-gpu-platform:namespaces")
    config["kubernetes:enableServerSideApply"] = True  # another provider's key: not ours to judge
    with pytest.raises(InputError) as caught:
        parse_config_map(config, stack="prod", source="Pulumi.prod.yaml")
    [problem] = caught.value.problems
    assert problem.path == "dra-gpu-plaform:namespaces" and "did you mean dra-gpu-platform:namespaces?" in problem.fix
