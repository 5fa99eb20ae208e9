"""What the engine sends a hosted component, back into stack-file sections and the library's keyword arguments
(provider/arguments.py), validated by the one config path.

Known SDK behaviour this undoes (docs/references.md#pulumi-component-provider-inputs): a component's args arrive as
dicts keyed by the Python names of the analyzer's mapping; numbers arrive as floats (the protobuf Struct of the wire
has no integers), so an integral float becomes an int again where the model types an integer, and only there; an
enum arrives as its Enum member or as its text; a secret or a value that depends on another resource arrives as an
Output. A key is read by its Python name or its stack-file key, so a value the SDK passed through unmapped (see
provider/package.py) converts the same way.

Which resources a component registers depends on every section and on its plain arguments (a pool's name, the
cluster's platform), so those must be known when the program runs: an Output there is a problem at its path, never
awaited. The wiring (a node role's ARN, subnet ids) may be an Output.
"""

import dataclasses
import enum
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

import pulumi
from pulumi.provider.experimental.util import camel_case

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.resources.platform import GpuPlatformArgs
from provider import shapes
from provider.arguments import BY_COMPONENT, Hosted
from provider.shapes import Shape

REGION = "region"
# The provider-config keys GpuPlatformArgs.from_sections reports a region problem at (a stack file's keys).
REGION_KEYS = ("aws:region", "azure-native:location")
KUBERNETES_PROVIDER = "providers.kubernetes"  # where a Kubernetes-side component's provider comes from
NOT_KNOWN_RULE = "must be known when the program runs: which resources the component registers depends on it"
NOT_KNOWN_FIX = "pass a plain value, not a secret or the output of another resource"

Args = TypeVar("Args")


def platform_args(component: str, args: Mapping[str, Any]) -> GpuPlatformArgs:
    """GpuPlatformArgs from the hosted component's args; raises pulumi.InputPropertiesError naming every bad input."""

    def build(sections: dict[str, Any], arguments: dict[str, Any]) -> GpuPlatformArgs:
        return GpuPlatformArgs.from_sections(sections, **arguments)

    return hosted_args(component, BY_COMPONENT["GpuPlatform"], args, build)


def hosted_args(
    component: str,
    hosted: Hosted,
    args: Mapping[str, Any],
    build: Callable[[dict[str, Any], dict[str, Any]], Args],
    opts: pulumi.ResourceOptions | None = None,
) -> Args:
    """The library's args of a hosted component: `build(sections, arguments)` with its sections and keyword arguments
    (plus `provider` for a Kubernetes-side component, from `opts`). Raises pulumi.InputPropertiesError naming every
    bad input: the library's problems at their input paths, an argument missing or known only later, no provider."""
    args = args if isinstance(args, Mapping) else {}
    later: list[str] = []  # input paths that hold an Output
    problems: list[Problem] = []
    sections = _sections(hosted, args, later)
    arguments: dict[str, Any] = {}
    for argument in hosted.arguments:
        value = _get(args, argument.name, camel_case(argument.name))
        if argument.known and isinstance(value, pulumi.Output):
            later.append(camel_case(argument.name))
            value = None
        elif value is None and argument.required:
            problems.append(Problem(component, camel_case(argument.name), MISSING, "required input", "set it"))
        if value is not None or argument.required:  # a missing one is still passed, so the sections are checked
            arguments[argument.name] = value.value if isinstance(value, enum.Enum) else value
    if hosted.kubernetes:
        arguments["provider"] = kubernetes_provider(opts)
        if arguments["provider"] is None:
            problems.append(
                Problem(
                    component,
                    KUBERNETES_PROVIDER,
                    MISSING,
                    "its Kubernetes objects need the cluster's Kubernetes provider",
                    "pass the provider in the resource options: `providers: {kubernetes: <provider>}`",
                )
            )
    problems += [Problem(component, path, MISSING, NOT_KNOWN_RULE, NOT_KNOWN_FIX) for path in later]
    reported = [problem.path for problem in problems]  # the library's problems there are knock-ons of these
    inputs = _input_names(hosted) | set(args)
    try:
        built = build(sections, arguments)
    except InputError as error:
        for problem in error.problems:
            path = _input_path(problem.path, inputs)
            if not any(_under(path, known) for known in reported):
                problems.append(dataclasses.replace(problem, file=component, path=path))
    if problems:
        raise input_properties_error(component, problems)
    return built


def kubernetes_provider(opts: pulumi.ResourceOptions | None) -> pulumi.ProviderResource | None:
    """The Kubernetes provider among the resource options' `providers` (a map by package, or a list), or `provider`.
    The engine sends a program's providers as references (pulumi/provider/server.py _construct_options)."""
    if opts is None:
        return None
    found = list(opts.providers.values()) if isinstance(opts.providers, Mapping) else list(opts.providers or [])
    if opts.provider is not None:
        found.append(opts.provider)
    return next((p for p in found if getattr(p, "package", None) == "kubernetes"), None)


def input_properties_error(component: str, problems: list[Problem]) -> pulumi.InputPropertiesError:
    """Every problem as a property error at its input path; the message lists them as a stack file's errors do."""
    error = InputError(problems, f"the inputs of {component}")
    details: list[pulumi.InputPropertyErrorDetails] = [
        {"property_path": p.path, "reason": _reason(p)} for p in error.problems
    ]
    return pulumi.InputPropertiesError(error.render(), details)


def _sections(hosted: Hosted, args: Mapping[str, Any], later: list[str]) -> dict[str, Any]:
    """The stack-file sections among the inputs, and the keys that are neither a section nor an argument (the
    library refuses them as a stack file's unknown keys)."""
    sections: dict[str, Any] = {}
    fields = [field for field in shapes.sections() if field.alias in hosted.sections]
    for field in fields:
        value = _get(args, field.name, field.alias)
        if value is not None:
            sections[field.alias] = _value(field.shape, value, field.alias, later)
    names = _input_names(hosted)
    sections.update({key: value for key, value in args.items() if key not in names})
    return sections


def _input_names(hosted: Hosted) -> set[str]:
    """Every key an input of `hosted` may arrive under: Python names and schema (camelCase) names."""
    fields = [field for field in shapes.sections() if field.alias in hosted.sections]
    return {name for field in fields for name in (field.name, field.alias)} | {
        name for argument in hosted.arguments for name in (argument.name, camel_case(argument.name))
    }


def _reason(problem: Problem) -> str:
    value = "(missing)" if problem.value is MISSING else repr(problem.as_json()["value"])
    return f"{value}: {problem.rule}; fix: {problem.fix}"


def _get(args: Mapping[str, Any], name: str, alias: str) -> Any:
    return args.get(name, args.get(alias))


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
    """A problem's path as the input that holds the value. A section's paths are the same; a finer component's
    library names an argument by its keyword (`kubernetes_version`: the input `kubernetesVersion`); GpuPlatform's
    reports the region at the provider-config key a stack file holds it under."""
    if path in REGION_KEYS:
        return REGION
    root = path.split(".", 1)[0].split("[", 1)[0]
    return camel_case(root) + path[len(root) :] if root in inputs else path
