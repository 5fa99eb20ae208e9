"""A StackConfig that exists is valid, however it was built: `StackConfig.model_validate(sections)`, the constructor
and the stack file loader run the same validation (field rules, cross-field rules, derived defaults, CEL selectors)
and refuse an invalid stack with one ConfigError listing every problem, the same lines from every door."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from typing import Any

import pulumi
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from pulumi.runtime import mocks
from pydantic import BaseModel, ValidationError

import dra_gpu_platform
from dra_gpu_platform.config import ConfigError, StackConfig, parse_config_map, read_stack_file
from dra_gpu_platform.config.models import AksCluster, EksCluster, ExistingCluster, KindCluster
from dra_gpu_platform.inputs.problems import InputError
from tests.config.test_fuzz import WRONG_VALUES, _apply, _paths
from tests.config.test_loading import EKS_BASE
from tests.conftest import KIND_BASE, REFERENCE_STACKS, ROOT, STACKS_DIR, load_committed, qualify, write_stack

REGION_KEYS = ("aws:region", "azure-native:location")
AKS_BASE: dict[str, Any] = {
    "azure-native:location": "eastus",
    "cluster": {
        "platform": "aks",
        "name": "gpu-test",
        "kubernetesVersion": "1.35",
        "aks": {"authorizedIpRanges": ["203.0.113.0/24"]},
    },
    "nodePools": [{"name": "t4", "gpu": "T4", "maxNodes": 2}],
}


def sections(config: dict[str, Any]) -> dict[str, Any]:
    """A test stack (unqualified project keys, provider keys like aws:region) as StackConfig input."""
    out = {key: value for key, value in config.items() if ":" not in key}
    region = next((config[key] for key in REGION_KEYS if key in config), None)
    return {**out, "region": region} if region is not None else out


def refused(build, *args, **kwargs) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        build(*args, **kwargs)
    return caught.value


def paths(error: InputError) -> set[str]:
    return {p.path for p in error.problems}


# --- one error, every problem -------------------------------------------------------------------------------------


def test_model_validate_of_a_bad_dict_raises_one_config_error_with_every_problem():
    bad = copy.deepcopy(KIND_BASE)
    bad["nodePools"][0]["minNodes"] = 5  # > maxNodes 2 (a cross-field rule)
    bad["nodePools"][1]["desiredNodes"] = 5  # another pool's range
    bad["cluster"]["protect"] = "yes"  # a field rule (YAML 1.1's yes is text in a stack file)
    bad["deviceClasses"][0]["selectors"] = ["device.driver =="]  # a selector that does not compile
    bad["namespaces"][0]["claimTemplates"][0]["deviceClass"] = "missing"  # a dangling reference
    bad["monitoring"] = {"enabled": True, "claimPendingMinutes": 0}
    error = refused(StackConfig.model_validate, bad)
    assert isinstance(error, ValueError) and isinstance(error, InputError)
    expected = {
        "nodePools[0].minNodes",
        "nodePools[1].desiredNodes",
        "cluster.protect",
        "deviceClasses[0].selectors[0]",
        "namespaces[0].claimTemplates[0].deviceClass",
        "monitoring.claimPendingMinutes",
    }
    assert paths(error) == expected
    by_path = {p.path: p for p in error.problems}
    assert by_path["nodePools[0].minNodes"].value == 5 and "≤ maxNodes (2)" in by_path["nodePools[0].minNodes"].rule
    assert all(p.file is None and p.rule and p.fix for p in error.problems)
    text = str(error)
    # one `- path = value` line per problem, its rule and fix indented under it: what gpuplan preview prints
    assert text.splitlines()[0] == "6 problems in the stack config:"
    assert [line for line in text.splitlines() if line.startswith("- ")] == [
        f"- {p.render().splitlines()[0]}" for p in error.problems
    ]
    assert "- cluster.protect = 'yes'" in text


def test_the_file_is_named_when_the_sections_say_where_they_come_from():
    bad = copy.deepcopy(KIND_BASE)
    bad["nodePools"][0]["minNodes"] = 5
    error = refused(StackConfig.model_validate, {**bad, "source": "team/Pulumi.lab.yaml", "stack": "lab"})
    assert [p.file for p in error.problems] == ["team/Pulumi.lab.yaml"]
    assert "team/Pulumi.lab.yaml: nodePools[0] (dra-pool).minNodes = 5" in str(error)


@pytest.mark.parametrize(
    "base, pool, path, rule",
    [
        (KIND_BASE, {"name": "p", "gpu": "H100", "minNodes": 5, "maxNodes": 2}, "nodePools[0].minNodes", "≤ maxNodes"),
        (
            AKS_BASE,
            {"name": "p", "gpu": "A100-80GB", "maxNodes": 2, "capacity": "capacity-block"},
            "nodePools[0].capacity",
            "Capacity Blocks do not exist on AKS",
        ),
    ],
)
def test_stacks_the_loader_refuses_are_refused_by_model_validate_and_the_constructor(base, pool, path, rule):
    config = {**copy.deepcopy(base), "nodePools": [pool], "namespaces": [], "deviceClasses": []}
    for build in (StackConfig.model_validate, lambda data: StackConfig(**data)):
        error = refused(build, sections(config))
        assert rule in {p.path: p.rule for p in error.problems}[path]
    with pytest.raises(ConfigError) as from_file:
        parse_config_map(qualify(config), stack="t", source="t.yaml")
    assert path in paths(from_file.value)


def test_pydantic_validation_error_does_not_leak_and_nested_use_carries_the_same_lines():
    bad = {**copy.deepcopy(KIND_BASE), "nodePools": [{"name": "p", "gpu": "H100", "minNodes": 5, "maxNodes": 2}]}
    for build in (
        lambda: StackConfig.model_validate(bad),
        lambda: StackConfig(**bad),
        lambda: StackConfig.model_validate_json(json.dumps(bad)),
    ):
        with pytest.raises(ConfigError) as caught:
            build()
        assert not isinstance(caught.value, ValidationError)

    class Holder(BaseModel):  # a model (a provider's args) that takes a stack
        stack: StackConfig

    with pytest.raises(ValidationError) as nested:
        Holder.model_validate({"stack": bad})
    assert "nodePools[0] (p).minNodes = 5" in str(nested.value) and "minNodes must be ≤ maxNodes (2)" in str(
        nested.value
    )


@pytest.mark.parametrize("entry", ["model_validate", "model_validate_json", "model_validate_strings"])
def test_each_validating_entry_point_hands_pydantic_every_keyword(monkeypatch, entry):
    """StackConfig's overrides name no keyword of pydantic's: whatever a caller passes reaches pydantic unchanged."""
    original = vars(BaseModel)[entry].__func__
    seen: dict[str, Any] = {}

    def spy(cls, data, **options):
        seen.update(options)
        return original(cls, data, **options)

    monkeypatch.setattr(BaseModel, entry, classmethod(spy))
    data = sections(KIND_BASE)
    getattr(StackConfig, entry)(json.dumps(data) if entry.endswith("json") else data, strict=False, context={"k": 1})
    assert seen == {"strict": False, "context": {"k": 1}}


def test_stack_config_overrides_every_validating_entry_point_pydantic_has():
    """A validating classmethod pydantic adds would let a ValidationError out: the overrides must cover them all."""
    entries = sorted(name for name in vars(BaseModel) if name.startswith("model_validate"))
    assert entries == ["model_validate", "model_validate_json", "model_validate_strings"]
    assert all(name in vars(StackConfig) for name in entries)


def test_a_stack_config_that_exists_is_valid_and_the_escape_hatch_is_model_construct():
    config = StackConfig.model_validate(sections(EKS_BASE))
    assert StackConfig.model_validate(config) is config  # validated once
    assert StackConfig.model_validate(config.model_dump(by_alias=True)) == config  # a dump reads back
    assert StackConfig(**sections(EKS_BASE)) == config
    assert "model_construct" in (StackConfig.__doc__ or "")
    # model_construct validates nothing, as pydantic documents: a stand-in for data validated before
    assert StackConfig.model_construct(cluster=config.cluster, node_pools=[]).node_pools == []


def test_derived_defaults_run_inside_the_model():
    eks = StackConfig.model_validate(sections(EKS_BASE))  # the autoscaler runs on EKS
    assert [p.min_nodes for p in eks.node_pools] == [1, 0]  # the dra pool keeps a node, the device-plugin pool 0
    assert "min_nodes" not in StackConfig.model_validate(sections(KIND_BASE)).node_pools[0].model_fields_set
    assert eks.source is None and eks.stack is None and eks.region == "us-east-1"


def test_kubeconfig_presence_and_region_are_model_inputs():
    existing = {"cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"}}
    assert "kubeconfig" in paths(refused(StackConfig.model_validate, existing))
    assert StackConfig.model_validate({**existing, "kubeconfig": "apiVersion: v1"}).has_kubeconfig
    assert StackConfig.model_validate({**existing, "hasKubeconfig": True}).has_kubeconfig
    error = refused(StackConfig.model_validate, {**sections(EKS_BASE), "region": "us-est-1"})
    [problem] = [p for p in error.problems if p.path == "region"]
    assert "us-east-1" in problem.fix


# --- nothing is registered for an invalid stack -------------------------------------------------------------------


class _Counting(mocks.Mocks):
    def __init__(self) -> None:
        self.registered: list[str] = []

    def new_resource(self, args: mocks.MockResourceArgs):
        self.registered.append(args.typ)
        return f"{args.name}-id", args.inputs

    def call(self, args: mocks.MockCallArgs):
        return {}


def _run_program(stack_sections: dict[str, Any]) -> tuple[list[str], Exception | None]:
    """The smallest library program: build the stack's config, then the platform from it; what it registered."""
    from dra_gpu_platform.program import run

    counting = _Counting()
    mocks.set_mocks(counting, project="dra-gpu-platform", stack="lab", preview=True)
    raised: list[Exception] = []

    @pulumi.runtime.test
    def program():
        try:
            run(StackConfig.model_validate(stack_sections))
        except ConfigError as error:
            raised.append(error)

    program()
    return counting.registered, (raised[0] if raised else None)


def test_an_invalid_stack_registers_no_resource():
    registered, error = _run_program(sections(KIND_BASE))
    assert error is None and len(registered) > 10  # the harness counts what a valid stack registers
    bad = copy.deepcopy(KIND_BASE)
    bad["nodePools"][0]["minNodes"] = 5
    bad["cluster"]["kind"]["gpuDriver"] = "nvidia"
    bad["deviceClasses"][0]["selectors"] = ["1 + 1"]
    registered, error = _run_program(sections(bad))
    assert isinstance(error, ConfigError) and len(error.problems) >= 2
    assert registered == []


# --- cluster typed per platform -----------------------------------------------------------------------------------


def test_cluster_is_typed_per_platform():
    assert isinstance(StackConfig.model_validate(sections(EKS_BASE)).cluster, EksCluster)
    aks = StackConfig.model_validate(sections(AKS_BASE)).cluster
    assert isinstance(aks, AksCluster) and not hasattr(aks, "eks") and not hasattr(aks, "kind")
    assert aks.settings().system_nodes.vm_size == "Standard_D4s_v5" and aks.minor == 35
    assert "eks" not in AksCluster.model_fields and "aks" not in EksCluster.model_fields
    assert set(KindCluster.model_fields) == {"platform", "name", "kubernetes_version", "protect", "kind"}
    assert set(ExistingCluster.model_fields) == {"platform", "name", "kubernetes_version", "protect", "existing"}
    schema = StackConfig.model_json_schema()
    assert schema["properties"]["cluster"]["discriminator"]["propertyName"] == "platform"
    assert "aks" not in schema["$defs"]["EksCluster"]["properties"]
    assert schema["properties"]["nodePools"]["items"]["$ref"] == "#/$defs/NodePool"


def test_another_platforms_block_is_one_problem_without_knock_ons():
    config = copy.deepcopy(EKS_BASE)
    config["cluster"]["aks"] = {"resourceGroup": "rg"}
    for error in (
        refused(StackConfig.model_validate, sections(config)),
        refused(parse_config_map, qualify(config), stack="t", source="t.yaml"),
    ):
        [problem] = error.problems
        assert (problem.path, problem.rule) == ("cluster.aks", "only the block matching platform (eks) is allowed")
        assert problem.fix == "remove cluster.aks or set platform: aks"


def test_an_unknown_platform_still_reports_the_other_cluster_problems():
    config = copy.deepcopy(KIND_BASE)
    config["cluster"] = {"platform": "gke", "name": "Bad_Name", "kubernetesVersion": "1.35", "kind": {"gpuDrivr": 1}}
    error = refused(StackConfig.model_validate, sections(config))
    assert {"cluster.platform", "cluster.name", "cluster.kind.gpuDrivr"} <= paths(error)


# --- CEL selectors compile at config time -------------------------------------------------------------------------

BAD_SELECTORS = [
    ("deviceClasses", ["device.driver =="], "deviceClasses[0].selectors[0]"),
    ("claimTemplate", ["device.nope == 1"], "namespaces[0].claimTemplates[0].selectors[0]"),
    ("firstAvailable", ["'text'"], "namespaces[0].claimTemplates[0].firstAvailable[1].selectors[0]"),
]


def _with_selector(where: str, selectors: list[str]) -> dict[str, Any]:
    config = copy.deepcopy(KIND_BASE)
    if where == "deviceClasses":
        config["deviceClasses"][0]["selectors"] = selectors
    elif where == "claimTemplate":
        config["namespaces"][0]["claimTemplates"][0]["selectors"] = selectors
    else:
        config["namespaces"][0]["claimTemplates"][0] = {
            "name": "two",
            "firstAvailable": [
                {"deviceClass": "big"},
                {"name": "pair", "deviceClass": "big", "count": 2, "selectors": selectors},
            ],
        }
    return config


@pytest.mark.parametrize("where, selectors, path", BAD_SELECTORS)
def test_a_selector_that_does_not_compile_is_a_problem_at_its_path(where, selectors, path):
    good = "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'"
    assert StackConfig.model_validate(_with_selector(where, [good]))
    for error in (
        refused(StackConfig.model_validate, _with_selector(where, [good, *selectors])),
        refused(parse_config_map, qualify(_with_selector(where, [good, *selectors])), stack="t", source="t.yaml"),
    ):
        shifted = path[: -len("[0]")] + "[1]"  # the good selector stays first
        [problem] = [p for p in error.problems if p.path == shifted]
        assert problem.value == selectors[0] and "not a DRA device selector that compiles" in problem.rule
        assert "\n" not in problem.rule


def test_preview_exits_2_naming_the_path_of_a_bad_selector(tmp_path):
    config = _with_selector("deviceClasses", ["device.attributes['gpu.example.com'].model =="])
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "gpuplan",
            "preview",
            "--config",
            str(write_stack(tmp_path, config, "lab")),
            "--out",
            str(tmp_path / "out"),
            "--format",
            "json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 2, result.stdout + result.stderr
    [error] = json.loads(result.stdout)["errors"]
    assert error["path"] == "deviceClasses[0].selectors[0]" and error["file"].endswith("Pulumi.lab.yaml")


# --- keys by their camelCase alias only ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "mutate, path, guess",
    [
        (lambda c: c["nodePools"][0].update(instance_type="p5.48xlarge"), "nodePools[0].instance_type", "instanceType"),
        (lambda c: c["cluster"].update(kubernetes_version="1.35"), "cluster.kubernetes_version", "kubernetesVersion"),
        (lambda c: c["nodePools"][0].update(maxnodes=3), "nodePools[0].maxnodes", "maxNodes"),
        (lambda c: c.update(node_pools=c.pop("nodePools")), "node_pools", "nodePools"),
    ],
)
def test_snake_case_keys_are_refused_naming_the_closest_key(mutate, path, guess):
    config = copy.deepcopy(EKS_BASE)
    mutate(config)
    for error in (
        refused(StackConfig.model_validate, sections(config)),
        refused(parse_config_map, qualify(config), stack="t", source="t.yaml"),
    ):
        [problem] = [p for p in error.problems if p.path == path]
        assert problem.rule in ("unknown key", "unknown config key")
        assert f"did you mean {guess}?" in problem.fix


def test_field_names_are_not_a_second_spelling_in_python_either():
    error = refused(lambda: StackConfig(cluster=EKS_BASE["cluster"], node_pools=[]))
    [problem] = [p for p in error.problems if p.path == "node_pools"]
    assert "did you mean nodePools?" in problem.fix


def test_the_package_exports_the_model_and_the_error():
    assert dra_gpu_platform.StackConfig is StackConfig and dra_gpu_platform.ConfigError is ConfigError
    assert {"StackConfig", "ConfigError", "GpuPlatform", "GpuPlatformArgs"} <= set(dra_gpu_platform.__all__)


# --- the loader and the model give the same lines -----------------------------------------------------------------


def _lines(build, *args, **kwargs) -> list[str] | StackConfig:
    try:
        return build(*args, **kwargs)
    except ConfigError as error:
        return [p.render() for p in error.problems]


def _both(config: dict[str, Any]) -> tuple[Any, Any]:
    from_file = _lines(parse_config_map, qualify(config), stack="lab", source="Pulumi.lab.yaml")
    from_dict = _lines(StackConfig.model_validate, {**sections(config), "stack": "lab", "source": "Pulumi.lab.yaml"})
    return from_file, from_dict


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_committed_stacks_read_the_same_through_both_doors(stack):
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    values = read_stack_file(path)
    from_file = parse_config_map(values, stack=stack, source=str(path))
    project = {k.split(":", 1)[1]: v for k, v in values.items() if k.startswith("dra-gpu-platform:")}
    region = next((values[k] for k in REGION_KEYS if k in values), None)
    assert StackConfig.model_validate({**project, "region": region, "stack": stack, "source": str(path)}) == from_file


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_broken_committed_stacks_give_the_same_lines_through_both_doors(stack):
    config = load_committed(stack)
    config["nodePools"][0]["minNodes"] = 99
    config["nodePools"][0]["diskSize"] = 10
    config["cluster"]["protect"] = "yes"
    if config.get("deviceClasses"):
        config["deviceClasses"][0]["selectors"] = ["device.driver"]
    from_file, from_dict = _both(config)
    assert isinstance(from_file, list) and len(from_file) >= 3
    assert from_file == from_dict


BASES = [KIND_BASE, EKS_BASE, AKS_BASE, load_committed("dev")]


@st.composite
def _broken(draw) -> dict[str, Any]:
    base = draw(st.sampled_from(BASES))
    path = draw(st.sampled_from([p for p in _paths(base) if p[0] not in REGION_KEYS]))
    action = draw(st.sampled_from(["replace", "replace", "delete", "unknown-key"]))
    value = draw(WRONG_VALUES)
    # the loader decodes a top-level JSON string (the Pulumi runtime stores objects so); a dict never holds one
    assume(not (len(path) == 1 and isinstance(value, str)))
    return _apply(base, path, action, value)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_broken())
def test_the_loader_and_the_model_agree_line_for_line(config):
    from_file, from_dict = _both(config)
    assert from_file == from_dict
