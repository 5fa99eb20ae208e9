"""What the engine sends the hosted GpuPlatform, back into stack-file sections, validated by the one config path.

Known SDK behaviour this undoes (docs/references.md#pulumi-component-provider-inputs): a component's args arrive as
dicts keyed by the Python names of the analyzer's mapping; numbers arrive as floats (the protobuf Struct of the wire
has no integers), so an integral float becomes an int again where the model types an integer, and only there; an
enum arrives as its Enum member or as its text; a secret or a value that depends on another resource arrives as an
Output. A key is read by its Python name or its stack-file key, so a value the SDK passed through unmapped (see
provider/package.py) converts the same way.

Which resources GpuPlatform registers depends on every section, so a section value must be known when the program
runs: an Output inside a section (or as the region) is a problem at its path, never awaited.
"""

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

import pulumi

from dra_gpu_platform.config.problems import MISSING, InputError, Problem
from dra_gpu_platform.resources.platform import GpuPlatformArgs
from provider import shapes
from provider.shapes import Shape

REGION = "region"
KUBECONFIG = "kubeconfig"
NOT_KNOWN_RULE = "must be known when the program runs: which resources GpuPlatform registers depends on it"
NOT_KNOWN_FIX = "pass a plain value, not a secret or the output of another resource"


def platform_args(component: str, args: Mapping[str, Any]) -> GpuPlatformArgs:
    """GpuPlatformArgs from the hosted component's args; raises pulumi.InputPropertiesError naming every bad input."""
    later: list[str] = []  # input paths that hold an Output
    sections: dict[str, Any] = {}
    for field in shapes.sections():
        value = _get(args, field.name, field.alias)
        if value is not None:
            sections[field.alias] = _value(field.shape, value, field.alias, later)
    inputs = {name for field in shapes.sections() for name in (field.name, field.alias)} | {REGION, KUBECONFIG}
    sections.update({key: value for key, value in args.items() if key not in inputs})  # the loader refuses them
    region = _get(args, REGION, REGION)
    if isinstance(region, pulumi.Output):
        later.append(REGION)
        region = None
    problems = [Problem(component, path, MISSING, NOT_KNOWN_RULE, NOT_KNOWN_FIX) for path in later]
    try:
        platform = GpuPlatformArgs.from_sections(sections, region=region, kubeconfig=_get(args, KUBECONFIG, KUBECONFIG))
    except InputError as error:
        problems += [
            dataclasses.replace(problem, file=component, path=_input_path(problem.path, inputs | set(args)))
            for problem in error.problems
            if not any(_under(problem.path, path) for path in later)  # an Output's path is reported once
        ]
    if problems:
        raise input_properties_error(component, problems)
    return platform


def input_properties_error(component: str, problems: list[Problem]) -> pulumi.InputPropertiesError:
    """Every problem as a property error at its input path; the message lists them as a stack file's errors do."""
    error = InputError(problems, f"the inputs of {component}")
    details: list[pulumi.InputPropertyErrorDetails] = [
        {"property_path": p.path, "reason": _reason(p)} for p in error.problems
    ]
    return pulumi.InputPropertiesError(error.render(), details)


def _reason(problem: Problem) -> str:
    value = "(missing)" if problem.value is MISSING else repr(problem.as_json()["value"])
    return f"{value}: {problem.rule}; fix: {problem.fix}"


def _get(args: Mapping[str, Any], name: str, alias: str) -> Any:
    return args.get(name, args.get(alias)) if isinstance(args, Mapping) else None


def _value(shape: Shape, value: Any, path: str, later: list[str]) -> Any:
    """`value` as the stack file would hold it; an Output is left out and its path recorded in `later`."""
    if isinstance(value, pulumi.Output):
        later.append(path)
        return None
    if isinstance(value, enum.Enum):
        return value.value
    if shape.kind == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if shape.kind == "list" and isinstance(value, list) and shape.item is not None:
        return [_value(shape.item, item, f"{path}[{i}]", later) for i, item in enumerate(value)]
    if shape.kind == "map" and isinstance(value, Mapping) and shape.item is not None:
        return {key: _value(shape.item, item, f"{path}.{key}", later) for key, item in value.items()}
    if shape.kind == "object" and isinstance(value, Mapping):
        converted = {}
        for key, item in value.items():
            field = shape.field(key)
            if field is None:  # not a key of the model: the model reports it as unknown
                converted[key] = item
            elif item is not None:
                converted[field.alias] = _value(field.shape, item, f"{path}.{field.alias}", later)
        return converted
    return value


def _under(path: str, parent: str) -> bool:
    return path == parent or path.startswith((f"{parent}.", f"{parent}["))


def _input_path(path: str, inputs: set[str]) -> str:
    """A problem's path as the input that holds the value: a section's paths are the same; the only other keys the
    loader reports are the provider-config keys `from_sections` puts the region under (aws:region,
    azure-native:location)."""
    root = path.split(".", 1)[0].split("[", 1)[0]
    return path if root in inputs else REGION
