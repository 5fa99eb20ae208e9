"""The YAML and TypeScript examples use the component package (provider/): every type token, input (its name and
its type, enum values included), required input, resource option and output they use exists in
provider/schema.json; each package resource, with the inputs the program gives it, is constructed by the package's
provider under mocks (as the engine sends them: tests/provider/construct.py) without a property error; and
tenancy-yaml registers exactly the Kubernetes objects its Python twin tenancy-py does.

The programs are read, not run (no Pulumi CLI, no Node.js here): a YAML program's `${name}` of a config key or a
variable is resolved from its Pulumi.dev.yaml and Pulumi.yaml; a TypeScript program gives each component an object
literal written as YAML flow syntax (unquoted keys, no comments, no trailing commas), so YAML reads it."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pulumi
import pytest
import yaml

from dra_gpu_platform.config.models import StackConfig
from dra_gpu_platform.facts.type_tokens import Upstream
from gpuplan.engine.outputs import clean
from provider.generate import SCHEMA
from tests.examples.examples import examples, folder, run
from tests.provider.construct import hosting_provider, over_the_wire
from tests.resources.alone import provider, register

PACKAGE = "dra-gpu-platform"
# The resource options of Pulumi YAML (pulumi/pulumi-yaml v1.38.1, pkg/pulumiyaml/ast/template.go:368-391).
YAML_OPTIONS = frozenset(
    [
        "additionalSecretOutputs",
        "aliases",
        "customTimeouts",
        "deleteBeforeReplace",
        "dependsOn",
        "ignoreChanges",
        "import",
        "parent",
        "protect",
        "provider",
        "providers",
        "version",
        "pluginDownloadURL",
        "replaceOnChanges",
        "retainOnDelete",
        "replaceWith",
        "deletedWith",
        "hideDiffs",
        "replacementTrigger",
        "envVarMappings",
    ]
)
REFERENCE = re.compile(r"^\$\{([\w-]+)\}$")
SDK_CALL = re.compile(r"const (\w+) = new draGpuPlatform\.(?:(\w+)\.)?(\w+)\(\s*\"([\w-]+)\",\s*")


@dataclass
class Use:
    """One resource of the package as a program uses it."""

    name: str
    token: str
    properties: dict[str, Any]
    kubernetes: bool = False  # its options give it a Kubernetes provider
    outputs_read: list[str] = field(default_factory=list)


def _schema() -> dict[str, Any]:
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def yaml_program(example: str) -> list[Use]:
    project = yaml.safe_load((folder(example) / "Pulumi.yaml").read_text(encoding="utf-8"))
    stack_file = folder(example) / "Pulumi.dev.yaml"
    stack = yaml.safe_load(stack_file.read_text(encoding="utf-8"))["config"] if stack_file.exists() else {}
    config = {
        key: stack.get(f"{project['name']}:{key}", declared.get("default"))
        for key, declared in project.get("config", {}).items()
    }
    variables = project.get("variables", {})

    def resolve(value: Any) -> Any:
        if isinstance(value, dict):
            return {key: resolve(item) for key, item in value.items()}
        if isinstance(value, list):
            return [resolve(item) for item in value]
        named = REFERENCE.match(value) if isinstance(value, str) else None
        if named and named[1] in config:
            return config[named[1]]
        if named and named[1] in variables:
            return resolve(variables[named[1]])
        return value  # text, or a resource's output: known when the program runs

    resources, outputs = project["resources"], json.dumps(project.get("outputs", {}))
    uses = []
    for name, resource in resources.items():
        if not resource["type"].startswith(f"{PACKAGE}:"):
            continue
        options = resource.get("options", {})
        assert set(options) <= YAML_OPTIONS, (name, sorted(set(options) - YAML_OPTIONS))
        given = [*options.get("providers", []), *([options["provider"]] if "provider" in options else [])]
        kubernetes = any(resources[REFERENCE.match(ref)[1]]["type"] == Upstream.KUBERNETES_PROVIDER for ref in given)
        read = re.findall(r"\$\{" + re.escape(name) + r"\.(\w+)\}", outputs)
        uses.append(Use(name, resource["type"], resolve(resource.get("properties", {})), kubernetes, read))
    return uses


def typescript_program(example: str) -> list[Use]:
    source = (folder(example) / "index.ts").read_text(encoding="utf-8")
    uses = []
    for call in SDK_CALL.finditer(source):
        variable, module, component, name = call.groups()
        start = call.end()
        end = _closing(source, start)
        options = source[end + 1 : source.index(");", end)]
        read = re.findall(r"\b" + variable + r"\.(\w+)\b", source[end:])
        token = f"{PACKAGE}:{module or 'index'}:{component}"
        uses.append(Use(name, token, yaml.safe_load(source[start : end + 1]), "kubernetes" in options, read))
    return uses


def _closing(source: str, start: int) -> int:
    assert source[start] == "{", source[start : start + 40]
    depth = 0
    for end in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            return end
    raise AssertionError("an object literal never closes")


READERS = {"yaml": yaml_program, "nodejs": typescript_program}
COMPONENT_EXAMPLES = sorted(name for kind in READERS for name in examples(kind))


def program(example: str) -> list[Use]:
    return READERS[next(kind for kind in READERS if example in examples(kind))](example)


# --- the schema check ------------------------------------------------------------------------------------------


def problems(use: Use, schema: dict[str, Any]) -> list[str]:
    """What of `use` the schema does not have: its token, an input, an input's type, a required input, an output."""
    resource = schema["resources"].get(use.token)
    if resource is None:
        return [f"{use.name}: {use.token} is not a resource of the package"]
    found = _object(use.properties, resource["inputProperties"], resource.get("requiredInputs", []), schema, "")
    found += [f"output {name} is not in the schema" for name in use.outputs_read if name not in resource["properties"]]
    return [f"{use.name}: {problem}" for problem in found]


def _object(value: Any, properties: dict, required: list[str], schema: dict, path: str) -> list[str]:
    if not isinstance(value, dict):
        return [f"{path}: {value!r} is not an object"]
    at = f"{path}." if path else ""
    found = [f"{at}{key} is required" for key in required if key not in value]
    for key, item in value.items():
        if key not in properties:
            found.append(f"{at}{key} is not in the schema")
        else:
            found += _value(item, properties[key], schema, f"{at}{key}")
    return found


def _value(value: Any, spec: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    if isinstance(value, str) and value.startswith("${"):
        return []  # an output of another resource: its type is the engine's to check
    ref = spec.get("$ref", "")
    if ref.startswith("#/types/"):
        declared = schema["types"][ref.removeprefix("#/types/")]
        if "enum" in declared:
            allowed = [v["value"] for v in declared["enum"]]
            return [] if value in allowed else [f"{path}: {value!r} is not one of {allowed}"]
        return _object(value, declared.get("properties", {}), declared.get("required", []), schema, path)
    if ref == "pulumi.json#/Any":
        return []
    kind = spec.get("type")
    if kind == "array":
        if not isinstance(value, list):
            return [f"{path}: {value!r} is not a list"]
        return [p for i, item in enumerate(value) for p in _value(item, spec["items"], schema, f"{path}[{i}]")]
    if kind == "object":
        if not isinstance(value, dict):
            return [f"{path}: {value!r} is not a map"]
        items = spec.get("additionalProperties", {})
        return [p for key, item in value.items() for p in _value(item, items, schema, f"{path}.{key}")]
    fits = {
        "string": lambda v: isinstance(v, str),
        "boolean": lambda v: isinstance(v, bool),
        "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
        "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
    }
    return [] if kind not in fits or fits[kind](value) else [f"{path}: {value!r} is not of type {kind}"]


@pytest.mark.parametrize("example", COMPONENT_EXAMPLES)
def test_the_program_uses_only_what_the_schema_has(example):
    uses, schema = program(example), _schema()
    assert uses and all(use.outputs_read for use in uses), uses
    assert [p for use in uses for p in problems(use, schema)] == []


def test_the_schema_check_finds_each_kind_of_mistake():
    schema = _schema()
    (platform,) = typescript_program("platform-eks-ts")
    platform.properties["nodePools"][0]["maxNode"] = platform.properties["nodePools"][0].pop("maxNodes")
    platform.properties["cluster"]["platform"] = "gke"
    platform.properties["namespaces"][0]["quota"]["claims"] = "ten"
    platform.outputs_read.append("kubeConfig")
    assert problems(platform, schema) == [
        "gpu-prod: cluster.platform: 'gke' is not one of ['eks', 'aks', 'kind', 'existing']",
        "gpu-prod: nodePools[0].maxNodes is required",
        "gpu-prod: nodePools[0].maxNode is not in the schema",
        "gpu-prod: namespaces[0].quota.claims: 'ten' is not of type integer",
        "gpu-prod: output kubeConfig is not in the schema",
    ]
    namespace = next(use for use in yaml_program("tenancy-yaml") if use.name == "ns-vision")
    assert problems(Use("x", namespace.token.replace("tenancy", "dra"), {}), schema) == [
        "x: dra-gpu-platform:dra:TenantNamespace is not a resource of the package"
    ]


# --- construction through the package ----------------------------------------------------------------------------


def construct(use: Use):
    """`use` constructed by the package's provider under mocks: (its registrations, the property error or None).
    A GpuPlatform's mocks give its cluster's cloud outputs, as `gpuplan preview` fakes them for its stack."""
    raised: list[Exception] = []
    stack = None
    if use.token == f"{PACKAGE}:index:GpuPlatform":
        sections = {key: value for key, value in use.properties.items() if key != "region"}
        stack = StackConfig.model_validate({**sections, "region": use.properties.get("region"), "stack": "dev"})

    def build():
        options = pulumi.ResourceOptions(providers={"kubernetes": provider()} if use.kubernetes else None)
        try:
            hosting_provider().construct(use.name, use.token, over_the_wire(use.properties), options)
        except (pulumi.InputPropertiesError, pulumi.InputPropertyError) as error:
            raised.append(error)

    return register(build, config=stack), (raised[0] if raised else None)


@pytest.mark.parametrize("example", COMPONENT_EXAMPLES)
def test_each_component_is_constructed_from_the_programs_inputs(example):
    for use in program(example):
        registered, error = construct(use)
        assert error is None, f"{use.name}: {error}"
        assert [r.name for r in registered if r.type == use.token] == [use.name]
        assert any(r.custom for r in registered), f"{use.name} registers nothing"


def test_a_bad_input_is_refused_at_construction_as_the_engine_would():
    namespace = next(use for use in yaml_program("tenancy-yaml") if use.name == "ns-vision")
    namespace.properties["namespace"] = "audio"  # not an item of namespaces
    registered, error = construct(namespace)
    assert error is not None and "namespace" in str(error)
    assert [r.type for r in registered if r.custom] == [Upstream.KUBERNETES_PROVIDER]  # the program's own


def test_the_yaml_program_registers_the_kubernetes_objects_of_its_python_twin():
    def objects(registered) -> list[tuple[str, str, str]]:
        found = [r for r in registered if r.custom and r.type != Upstream.KUBERNETES_PROVIDER]
        return sorted((r.type, r.name, json.dumps(clean(r.inputs), sort_keys=True)) for r in found)

    from_yaml = [r for use in yaml_program("tenancy-yaml") for r in construct(use)[0]]
    assert objects(from_yaml) == objects(run("tenancy-py").resources)
    assert len(objects(from_yaml)) > 10
