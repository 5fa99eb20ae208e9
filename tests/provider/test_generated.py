"""provider/input_types.py, provider/inputs.py and provider/schema.json are what the generator makes of the config models today, and the
schema is valid against Pulumi's metaschema."""

from __future__ import annotations

import copy
import json
import re
import tomllib

import pytest
from jsonschema import Draft202012Validator, validators
from jsonschema._keywords import pattern as json_schema_pattern
from pulumi.provider.experimental.util import camel_case

from dra_gpu_platform.config.loading import SECRET_KEYS, SECTIONS
from provider.generate import INPUT_TYPES, INPUTS, SCHEMA, render_inputs, render_schema
from provider.package import PACKAGE, VERSION
from tests.conftest import ROOT, UPSTREAM_SPECS

METASCHEMA = UPSTREAM_SPECS / "pulumi-metaschema.json"
TOKEN = f"{PACKAGE}:index:GpuPlatform"


def _schema() -> dict:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def test_the_input_types_are_current():
    rendered = render_inputs()
    assert set(rendered) == {INPUT_TYPES, INPUTS}
    for path, text in rendered.items():
        assert path.read_text(encoding="utf-8") == text, f"{path.name}: run `python -m provider.generate`"


def test_the_schema_is_current():
    assert SCHEMA.read_text(encoding="utf-8") == render_schema(), "run `python -m provider.generate`"


def _ecma_pattern(validator, pattern, instance, schema):
    # The metaschema's patterns are ECMA-262 regular expressions (JSON Schema's dialect); Python's `re` spells a
    # named group (?P<name>...).
    yield from json_schema_pattern(validator, re.sub(r"\(\?<(?=[A-Za-z])", "(?P<", pattern), instance, schema)


def _metaschema_errors(schema: dict) -> list[str]:
    if not METASCHEMA.exists():
        pytest.skip(f"{METASCHEMA} is absent: Pulumi's metaschema is read from ../shared next to the checkout")
    validator = validators.extend(Draft202012Validator, {"pattern": _ecma_pattern})
    metaschema = json.loads(METASCHEMA.read_text(encoding="utf-8"))
    return [f"{e.json_path}: {e.message}" for e in validator(metaschema).iter_errors(schema)]


def test_the_schema_is_valid_against_pulumis_metaschema():
    assert _metaschema_errors(_schema()) == []


def test_the_metaschema_check_refuses_a_broken_schema():
    broken = copy.deepcopy(_schema())
    broken["resources"][TOKEN]["inputProperties"]["region"]["type"] = "text"
    broken["version"] = "one"
    errors = "\n".join(_metaschema_errors(broken))
    assert "$.version" in errors and ".region" in errors


def test_gpu_platform_takes_the_stack_files_sections_the_region_and_a_secret_kubeconfig():
    resource = _schema()["resources"][TOKEN]
    inputs = resource["inputProperties"]
    assert list(inputs) == [*SECTIONS, "region", *SECRET_KEYS]
    assert resource["requiredInputs"] == ["cluster"]
    assert all(inputs[key].get("secret") is True for key in SECRET_KEYS)
    assert all(inputs[key].get("plain") is True for key in [*SECTIONS, "region"]), "known when the program runs"
    assert set(resource["properties"]) == {"kubeconfig", "deviceClassNames", "namespaceNames"}


def test_the_cluster_is_one_object_with_the_platform_enum_and_a_block_per_platform():
    types = _schema()["types"]
    cluster = types[f"{PACKAGE}:index:Cluster"]
    assert {"platform", "name", "kubernetesVersion"} <= set(cluster["required"])
    platform = types[cluster["properties"]["platform"]["$ref"].removeprefix("#/types/")]
    assert [v["value"] for v in platform["enum"]] == ["eks", "aks", "kind", "existing"]
    for block in ("eks", "aks", "kind", "existing"):
        assert block in cluster["properties"] and block not in cluster["required"]


def test_the_version_is_the_distributions():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert _schema()["version"] == VERSION == pyproject["project"]["version"]
    assert _schema()["name"] == PACKAGE == pyproject["project"]["name"]


def test_each_finer_component_takes_the_sections_but_cluster_and_its_from_sections_arguments():
    import dra_gpu_platform
    from dra_gpu_platform.config.descriptors import BY_NAME, PART_SECTIONS
    from dra_gpu_platform.inputs.problems import ConfigError
    from provider.arguments import HOSTED
    from provider.package import TOKENS

    resources = _schema()["resources"]
    tokens = {component.__name__: token for component, token in TOKENS.items()}
    assert set(resources) == set(tokens.values())
    assert [hosted.component for hosted in HOSTED[1:]] == list(BY_NAME)
    for hosted in HOSTED[1:]:
        resource = resources[tokens[hosted.component]]
        arguments = [camel_case(a.name) for a in hosted.arguments]
        assert list(resource["inputProperties"]) == [*PART_SECTIONS, *arguments], hosted.component
        assert resource["requiredInputs"] == sorted(camel_case(a.name) for a in hosted.arguments if a.required)
        # the package's inputs are the descriptor's hosted arguments; the others come from the resource options
        # (the Kubernetes provider, dependsOn for the GpuOperator) or are library objects (a node group's `after`)
        component = BY_NAME[hosted.component]
        assert hosted.arguments == component.hosted_arguments
        assert {a.name for a in component.arguments if not a.hosted} <= {"provider", "after", "gpu_operator"}
        # the library's from_sections binds the same descriptor: an argument it does not list is refused by name
        library = getattr(dra_gpu_platform, f"{hosted.component}Args").from_sections
        with pytest.raises(ConfigError) as refused:
            library({}, not_an_argument=1)
        assert {(p.path, p.rule) for p in refused.value.problems} >= {
            ("not_an_argument", f"not an argument of {hosted.component}")
        }
