"""CEL of a MutatingAdmissionPolicy's JSONPatch mutation: an expression that returns a list of `JSONPatch{op, path,
from, value}` values, as apiserver `pkg/admission/plugin/policy/mutating/patch/json_patch.go` (v0.36.3) evaluates it
(`ReturnTypes`: list(JSONPatch); `value` any CEL data literal that converts to JSON). Pure (no Pulumi).

`JSONPatch` is declared as a message type (fields op, path, from: string; value: google.protobuf.Value) so that the
expression type-checks and runs on cel-expr-python as written; the variables are dyn, as for validating policies.
Typed object initializers (`Object.spec.x{...}`) are not declared: a policy here writes values as map literals.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, json_format, struct_pb2

from dra_gpu_platform.cel.base import CelCompileError, CelEvaluationError
from dra_gpu_platform.cel.devices import _to_cel
from dra_gpu_platform.cel.environment import _engine_message, _extensions, _shorten

JSON_PATCH_TYPE = "JSONPatch"


@functools.lru_cache(maxsize=1)
def _pool() -> Any:
    pool = descriptor_pool.DescriptorPool()
    pool.AddSerializedFile(struct_pb2.DESCRIPTOR.serialized_pb)
    kinds = descriptor_pb2.FieldDescriptorProto
    file = descriptor_pb2.FileDescriptorProto(
        name="dra_gpu_platform_jsonpatch.proto", syntax="proto3", dependency=["google/protobuf/struct.proto"]
    )
    message = file.message_type.add(name=JSON_PATCH_TYPE)
    for number, name in enumerate(("op", "path", "from"), 1):
        message.field.add(name=name, number=number, type=kinds.TYPE_STRING, label=kinds.LABEL_OPTIONAL)
    message.field.add(
        name="value", number=4, type=kinds.TYPE_MESSAGE, type_name=".google.protobuf.Value", label=kinds.LABEL_OPTIONAL
    )
    pool.Add(file)
    return pool


@functools.lru_cache(maxsize=256)
def _program(expression: str, variables: tuple[str, ...]) -> Any:
    env = cel.NewEnv(
        descriptor_pool=_pool(),
        variables=dict.fromkeys(variables, cel.Type.DYN),
        extensions=_extensions(),
    )
    try:
        compiled = env.compile(expression)
    except RuntimeError as error:
        raise CelCompileError(f"invalid CEL expression: {_engine_message(error)}") from None
    if compiled.return_type().name() not in (f"LIST<{JSON_PATCH_TYPE}>", "LIST<DYN>"):
        raise CelCompileError(f"{_shorten(expression)} must return a list of JSONPatch")
    return compiled


def evaluate_json_patch(expression: str, variables: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The JSON Patch operations the expression returns for these variables (object, oldObject, request,
    namespaceObject, variables), as RFC 6902 dicts. Raises CelCompileError or CelEvaluationError."""
    program = _program(expression, tuple(sorted(variables)))
    result = program.eval(data={name: _to_cel(value) for name, value in variables.items()})
    if result.type() == cel.Type.ERROR:
        raise CelEvaluationError(f"{_shorten(expression)} failed: {_engine_message(result.value())}")
    operations = []
    for item in result.plain_value():
        if not hasattr(item, "DESCRIPTOR") or item.DESCRIPTOR.name != JSON_PATCH_TYPE:
            raise CelEvaluationError(f"{_shorten(expression)} returned {item!r}, not a JSONPatch")
        operation: dict[str, Any] = {"op": item.op, "path": item.path}
        if getattr(item, "from"):
            operation["from"] = getattr(item, "from")
        if item.HasField("value"):
            operation["value"] = json_format.MessageToDict(item.value)
        operations.append(operation)
    return operations
