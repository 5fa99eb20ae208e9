"""docs/library.md stays true to the component package: every property its YAML and TypeScript programs give
GpuPlatform exists in provider/schema.json where they use it (enum values included), every required one is
there, the outputs they read exist, and the sections they pass are a valid stack."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
import yaml

from dra_gpu_platform.resources.platform import GpuPlatformArgs
from provider.generate import SCHEMA
from tests.docs.markdown import DOCS

PAGE = DOCS / "library.md"
MARKER = "<!-- component program: tests check its properties against provider/schema.json -->"
TOKEN = "dra-gpu-platform:index:GpuPlatform"


def _blocks() -> dict[str, str]:
    text = PAGE.read_text(encoding="utf-8")
    found = dict(re.findall(re.escape(MARKER) + r"\n```(\w+)\n(.*?)```", text, re.DOTALL))
    assert set(found) == {"yaml", "typescript"}
    return found


def _yaml_program() -> tuple[dict[str, Any], list[str]]:
    program = yaml.safe_load(_blocks()["yaml"])
    (resource,) = [r for r in program["resources"].values() if r["type"] == TOKEN]
    read = re.findall(r"\$\{[\w-]+\.(\w+)\}", json.dumps(program["outputs"]))
    return resource["properties"], read


def _typescript_program() -> tuple[dict[str, Any], list[str]]:
    source = _blocks()["typescript"]
    start = source.index("{", source.index("new draGpuPlatform.GpuPlatform("))
    depth = 0
    for end in range(start, len(source)):
        depth += {"{": 1, "}": -1}.get(source[end], 0)
        if depth == 0:
            # the object literal is written as YAML flow syntax (no comments, no trailing commas), so YAML reads it
            return yaml.safe_load(source[start : end + 1]), re.findall(r"platform\.(\w+);", source)
    raise AssertionError("the GpuPlatform arguments never close")


def _problems(value: Any, spec: dict[str, Any], schema: dict[str, Any], path: str) -> list[str]:
    ref = spec.get("$ref", "")
    if ref.startswith("#/types/"):
        spec = schema["types"][ref.removeprefix("#/types/")]
        if "enum" in spec:
            return [] if value in [v["value"] for v in spec["enum"]] else [f"{path}: {value!r} is not an enum value"]
        return _object_problems(value, spec["properties"], spec.get("required", []), schema, path)
    if spec.get("type") == "array":
        return [p for i, item in enumerate(value) for p in _problems(item, spec["items"], schema, f"{path}[{i}]")]
    if "additionalProperties" in spec:
        return [p for k, v in value.items() for p in _problems(v, spec["additionalProperties"], schema, f"{path}.{k}")]
    return []


def _object_problems(value, properties, required, schema, path) -> list[str]:
    at = f"{path}." if path else ""
    problems = [f"{at}{key} is required" for key in required if key not in value]
    for key, item in value.items():
        if key not in properties:
            problems.append(f"{at}{key} is not in the schema")
        else:
            problems += _problems(item, properties[key], schema, f"{at}{key}")
    return problems


@pytest.mark.parametrize("program", [_yaml_program, _typescript_program], ids=["yaml", "typescript"])
def test_the_programs_use_what_the_schema_has(program):
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    resource = schema["resources"][TOKEN]
    properties, outputs_read = program()
    assert _object_problems(properties, resource["inputProperties"], resource["requiredInputs"], schema, "") == []
    assert outputs_read and set(outputs_read) <= set(resource["properties"])


@pytest.mark.parametrize("program", [_yaml_program, _typescript_program], ids=["yaml", "typescript"])
def test_the_programs_pass_a_valid_stack(program):
    properties, _ = program()
    region = properties.pop("region", None)
    assert GpuPlatformArgs.from_sections(properties, region=region).plan.name


def test_the_schema_check_finds_a_misspelled_key_and_a_bad_enum_value():
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    resource = schema["resources"][TOKEN]
    properties, _ = _yaml_program()
    properties["nodePools"][0]["maxNode"] = properties["nodePools"][0].pop("maxNodes")
    properties["cluster"]["platform"] = "gke"
    problems = _object_problems(properties, resource["inputProperties"], resource["requiredInputs"], schema, "")
    assert problems == [
        "cluster.platform: 'gke' is not an enum value",
        "nodePools[0].maxNodes is required",
        "nodePools[0].maxNode is not in the schema",
    ]


def test_the_finer_components_table_lists_each_descriptors_arguments():
    """The table of `from_sections` arguments names every argument of each component's descriptor
    (dra_gpu_platform/config/descriptors.py) and no other."""
    from dra_gpu_platform.config.descriptors import BY_NAME

    rows = re.findall(r"^\| `(\w+)`, `\w+Args` \| (.*?) \|", PAGE.read_text(encoding="utf-8"), re.MULTILINE)
    assert [name for name, _ in rows] == list(BY_NAME)
    for name, cell in rows:
        assert set(re.findall(r"`(\w+)`", cell)) == {a.name for a in BY_NAME[name].arguments}, name
