"""The checked syntax tree (a wire-compatible subset of cel-spec syntax.proto/checked.proto) and type-checking."""

from __future__ import annotations

import functools
from collections.abc import Iterator
from typing import Any, NamedTuple

from cel_expr_python import cel
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import Message

from dra_gpu_platform.cel.base import CelCompileError
from dra_gpu_platform.cel.environment import _engine_message, _typing_env

# ---------------------------------------------------------------------------------------------------------
# The checked syntax tree (wire-compatible subset of cel-spec cel/expr/syntax.proto and checked.proto).
# Fields not declared here (macro calls, most of Type) survive a round trip as unknown fields.

_STRING, _BYTES, _BOOL, _DOUBLE = "string", "bytes", "bool", "double"
_INT32, _INT64, _UINT64 = "int32", "int64", "uint64"
_AST_SCHEMA: dict[str, tuple[tuple[str, int, str, bool, str | None], ...]] = {
    # message: (field, number, type, repeated, oneof)
    "Constant": (
        ("null_value", 1, _INT32, False, "kind"),
        ("bool_value", 2, _BOOL, False, "kind"),
        ("int64_value", 3, _INT64, False, "kind"),
        ("uint64_value", 4, _UINT64, False, "kind"),
        ("double_value", 5, _DOUBLE, False, "kind"),
        ("string_value", 6, _STRING, False, "kind"),
        ("bytes_value", 7, _BYTES, False, "kind"),
    ),
    "Ident": (("name", 1, _STRING, False, None),),
    "Select": (
        ("operand", 1, "Expr", False, None),
        ("field", 2, _STRING, False, None),
        ("test_only", 3, _BOOL, False, None),
    ),
    "Call": (
        ("target", 1, "Expr", False, None),
        ("function", 2, _STRING, False, None),
        ("args", 3, "Expr", True, None),
    ),
    "CreateList": (("elements", 1, "Expr", True, None), ("optional_indices", 2, _INT32, True, None)),
    "Entry": (
        ("id", 1, _INT64, False, None),
        ("field_key", 2, _STRING, False, "key"),
        ("map_key", 3, "Expr", False, "key"),
        ("value", 4, "Expr", False, None),
        ("optional_entry", 5, _BOOL, False, None),
    ),
    "CreateStruct": (("message_name", 1, _STRING, False, None), ("entries", 2, "Entry", True, None)),
    "Comprehension": (
        ("iter_var", 1, _STRING, False, None),
        ("iter_range", 2, "Expr", False, None),
        ("accu_var", 3, _STRING, False, None),
        ("accu_init", 4, "Expr", False, None),
        ("loop_condition", 5, "Expr", False, None),
        ("loop_step", 6, "Expr", False, None),
        ("result", 7, "Expr", False, None),
        ("iter_var2", 8, _STRING, False, None),
    ),
    "Expr": (
        ("id", 2, _INT64, False, None),
        ("const_expr", 3, "Constant", False, "kind"),
        ("ident_expr", 4, "Ident", False, "kind"),
        ("select_expr", 5, "Select", False, "kind"),
        ("call_expr", 6, "Call", False, "kind"),
        ("list_expr", 7, "CreateList", False, "kind"),
        ("struct_expr", 8, "CreateStruct", False, "kind"),
        ("comprehension_expr", 9, "Comprehension", False, "kind"),
    ),
    "PositionEntry": (("key", 1, _INT64, False, None), ("value", 2, _INT32, False, None)),
    "SourceInfo": (("line_offsets", 3, _INT32, True, None), ("positions", 4, "PositionEntry", True, None)),
    "AbstractType": (("name", 1, _STRING, False, None),),
    "Type": (("abstract_type", 14, "AbstractType", False, None),),
    "TypeEntry": (("key", 1, _INT64, False, None), ("value", 2, "Type", False, None)),
    "Reference": (("name", 1, _STRING, False, None), ("overload_id", 3, _STRING, True, None)),
    "ReferenceEntry": (("key", 1, _INT64, False, None), ("value", 2, "Reference", False, None)),
    "CheckedExpr": (
        ("reference_map", 2, "ReferenceEntry", True, None),
        ("type_map", 3, "TypeEntry", True, None),
        ("expr", 4, "Expr", False, None),
        ("source_info", 5, "SourceInfo", False, None),
    ),
    "ParsedExpr": (("expr", 2, "Expr", False, None), ("source_info", 3, "SourceInfo", False, None)),
    "Any": (("type_url", 1, _STRING, False, None), ("value", 2, _BYTES, False, None)),
}


def _ast_messages() -> dict[str, type[Message]]:
    """The message classes of _AST_SCHEMA, built at run time: their fields are unknown to a type checker, so
    code that reads them holds the messages as Any."""
    kinds = descriptor_pb2.FieldDescriptorProto
    scalar = {
        _STRING: kinds.TYPE_STRING,
        _BYTES: kinds.TYPE_BYTES,
        _BOOL: kinds.TYPE_BOOL,
        _INT32: kinds.TYPE_INT32,
        _INT64: kinds.TYPE_INT64,
        _UINT64: kinds.TYPE_UINT64,
        _DOUBLE: kinds.TYPE_DOUBLE,
    }
    package = "dra_gpu_platform.cel_ast"
    file = descriptor_pb2.FileDescriptorProto(name=f"{package}.proto", package=package, syntax="proto3")
    for message_name, fields in _AST_SCHEMA.items():
        message = file.message_type.add(name=message_name)
        oneofs: dict[str, int] = {}
        for name, number, field_type, repeated, oneof in fields:
            descriptor = message.field.add(
                name=name,
                number=number,
                label=kinds.LABEL_REPEATED if repeated else kinds.LABEL_OPTIONAL,
            )
            if field_type in scalar:
                descriptor.type = scalar[field_type]
            else:
                descriptor.type = kinds.TYPE_MESSAGE
                descriptor.type_name = f".{package}.{field_type}"
            if oneof is not None:
                if oneof not in oneofs:
                    oneofs[oneof] = len(message.oneof_decl)
                    message.oneof_decl.add(name=oneof)
                descriptor.oneof_index = oneofs[oneof]
    pool = descriptor_pool.DescriptorPool()
    pool.Add(file)
    return {
        name: message_factory.GetMessageClass(pool.FindMessageTypeByName(f"{package}.{name}")) for name in _AST_SCHEMA
    }


_AST = _ast_messages()
_Expr = _AST["Expr"]


def _children(node: Any) -> Iterator[Any]:
    kind = node.WhichOneof("kind")
    if kind == "select_expr":
        yield node.select_expr.operand
    elif kind == "call_expr":
        if node.call_expr.HasField("target"):
            yield node.call_expr.target
        yield from node.call_expr.args
    elif kind == "list_expr":
        yield from node.list_expr.elements
    elif kind == "struct_expr":
        for entry in node.struct_expr.entries:
            if entry.HasField("map_key"):
                yield entry.map_key
            yield entry.value
    elif kind == "comprehension_expr":
        loop = node.comprehension_expr
        yield from (loop.iter_range, loop.accu_init, loop.loop_condition, loop.loop_step, loop.result)


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in _children(node):
        yield from _walk(child)


def _string_constant(node: Any) -> str | None:
    if node.WhichOneof("kind") == "const_expr" and node.const_expr.WhichOneof("kind") == "string_value":
        value: str = node.const_expr.string_value
        return value
    return None


def _bool_constant(node: Any) -> bool | None:
    if node.WhichOneof("kind") == "const_expr" and node.const_expr.WhichOneof("kind") == "bool_value":
        value: bool = node.const_expr.bool_value
        return value
    return None


def _ident_name(node: Any) -> str | None:
    return node.ident_expr.name if node.WhichOneof("kind") == "ident_expr" else None


class _Checked(NamedTuple):
    result_type: cel.Type
    ast: Any  # CheckedExpr; shared through caches, never mutated


@functools.lru_cache(maxsize=4096)
def _typecheck(expression: str, generic_variables: tuple[str, ...] | None) -> _Checked:
    try:
        compiled = _typing_env(generic_variables).compile(expression)
    except RuntimeError as error:
        raise CelCompileError(f"invalid CEL expression: {_engine_message(error)}") from None
    envelope: Any = _AST["Any"].FromString(compiled.serialize())
    return _Checked(compiled.return_type(), _AST["CheckedExpr"].FromString(envelope.value))
