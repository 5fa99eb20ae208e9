"""Rewriting the checked tree into what the runtime environment runs, and what a selector reads."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from cel_expr_python import cel

from dra_gpu_platform.cel.base import CelCompileError
from dra_gpu_platform.cel.environment import _engine_message, _runtime_env, _shorten
from dra_gpu_platform.cel.syntax import (
    _AST,
    _bool_constant,
    _children,
    _Expr,
    _ident_name,
    _string_constant,
    _typecheck,
    _walk,
)
from dra_gpu_platform.cel.values import (
    _NO_SUCH_OVERLOAD,
    _QUANTITY_TAG,
    _SEMVER_TAG,
    Version,
    _cel_is_quantity,
    _cel_is_semver,
    _encode_quantity_value,
    _encode_version_value,
)
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

# ---------------------------------------------------------------------------------------------------------
# Rewriting the checked tree into what the runtime environment runs (see the module docstring)

_ORDERING_FUNCTIONS = frozenset({"compareTo", "isGreaterThan", "isLessThan"})
_SEMVER_FIELDS = {"major": 2, "minor": 3, "patch": 4}
_DOMAIN_MAPS = frozenset({"device.attributes", "device.capacity"})
_ABSTRACT_TAGS = {"kubernetes.Quantity": _QUANTITY_TAG, "kubernetes.Semver": _SEMVER_TAG}


class _Rewriter:
    def __init__(self, checked: Any, empty_domain_default: bool) -> None:
        self._static_tags = {
            entry.key: _ABSTRACT_TAGS.get(entry.value.abstract_type.name)
            for entry in checked.type_map
            if entry.value.HasField("abstract_type")
        }
        self._next_id = max(node.id for node in _walk(checked.expr)) + 1
        self._bindings = 0
        self._empty_domain_default = empty_domain_default

    # --- node builders; every node gets a fresh id ---
    def _node(self, **kind: Any) -> Any:
        self._next_id += 1
        return _Expr(id=self._next_id, **kind)

    def _const(self, value: bool | int | str | bytes) -> Any:
        name = {bool: "bool_value", int: "int64_value", str: "string_value", bytes: "bytes_value"}[type(value)]
        return self._node(const_expr=_AST["Constant"](**{name: value}))

    def _ident(self, name: str) -> Any:
        return self._node(ident_expr=_AST["Ident"](name=name))

    def _call(self, function: str, *args: Any, target: Any = None) -> Any:
        call: Any = _AST["Call"](function=function, args=list(args))
        if target is not None:
            call.target.CopyFrom(target)
        return self._node(call_expr=call)

    def _list(self, values: tuple[bool | int | str | bytes, ...]) -> Any:
        return self._node(list_expr=_AST["CreateList"](elements=[self._const(value) for value in values]))

    def _copy(self, node: Any) -> Any:
        copy = _Expr()
        copy.CopyFrom(node)
        for part in _walk(copy):
            self._next_id += 1
            part.id = self._next_id
        return copy

    def _index(self, operand: Callable[[], Any], position: int) -> Any:
        return self._call("_[_]", operand(), self._const(position))

    def _conditional(self, condition: Any, then: Any, otherwise: Any) -> Any:
        return self._call("_?_:_", condition, then, otherwise)

    def _with_operands(self, operands: list[Any], build: Callable[..., Any]) -> Any:
        """build(*makers) where each maker returns a fresh node for an operand; operands other than
        identifiers and literals are evaluated once, through cel.bind's comprehension form."""
        makers: list[Callable[[], Any]] = []
        bindings: list[tuple[str, Any]] = []
        for operand in operands:
            if operand.WhichOneof("kind") in ("ident_expr", "const_expr", "list_expr") and all(
                part.WhichOneof("kind") in ("ident_expr", "const_expr", "list_expr") for part in _walk(operand)
            ):
                makers.append(functools.partial(self._copy, operand))
            else:
                name = f"@k8s{self._bindings}"
                self._bindings += 1
                bindings.append((name, operand))
                makers.append(functools.partial(self._ident, name))
        result = build(*makers)
        for name, operand in reversed(bindings):
            loop = _AST["Comprehension"](
                iter_var="#unused",
                iter_range=self._node(list_expr=_AST["CreateList"]()),
                accu_var=name,
                accu_init=operand,
                loop_condition=self._const(False),
                loop_step=self._ident(name),
                result=result,
            )
            result = self._node(comprehension_expr=loop)
        return result

    def _guarded(self, function: str, operands: list[tuple[Callable[[], Any], bytes | None]], result: Any) -> Any:
        """Type checks the checker could not do (dyn operands, e.g. attributes); else no such overload."""
        expected = next((tag for _, tag in operands if tag is not None), None)
        terms = []
        for make, static_tag in operands:
            if static_tag is not None:
                continue
            terms.append(self._call("_==_", self._call("type", make()), self._ident("list")))
            if expected is not None:
                terms.append(self._call("_==_", self._index(make, 0), self._const(expected)))
        if expected is None and len(operands) == 2:  # both dyn: same kind of value on both sides
            (left, _), (right, _) = operands
            terms.append(self._call("_==_", self._call("type", self._index(left, 0)), self._ident("bytes")))
            terms.append(self._call("_==_", self._index(left, 0), self._index(right, 0)))
        if not terms:
            return result
        condition = functools.reduce(lambda left, right: self._call("_&&_", left, right), terms)
        failure = self._call(
            _NO_SUCH_OVERLOAD,
            self._const(function),
            self._node(list_expr=_AST["CreateList"](elements=[make() for make, _ in operands])),
        )
        return self._conditional(condition, result, failure)

    # --- rewrites ---
    def rewrite(self, node: Any) -> Any:
        """Returns the rewritten node; children are rewritten in place first."""
        kind = node.WhichOneof("kind")
        if kind == "select_expr":
            self._replace(node.select_expr.operand)
        elif kind == "call_expr":
            call = node.call_expr
            if call.HasField("target"):
                self._replace(call.target)
            for argument in call.args:
                self._replace(argument)
            return self._rewrite_call(node)
        else:
            for child in _children(node):
                self._replace(child)
        return node

    def _replace(self, child: Any) -> None:
        rewritten = self.rewrite(child)
        if rewritten is not child:
            child.CopyFrom(rewritten)

    def _rewrite_call(self, node: Any) -> Any:
        call = node.call_expr
        function, args = call.function, list(call.args)
        has_target = call.HasField("target")
        operands = ([call.target] if has_target else []) + args

        if function in ("quantity", "semver", "isQuantity", "isSemver") and not has_target:
            return self._fold_literal(node, function, args)
        if function in _ORDERING_FUNCTIONS and has_target and len(args) == 1:
            return self._ordering(function, call.target, args[0])
        if function in ("_==_", "_!=_") and not has_target and len(args) == 2 and _attribute_value_read(args[0]):
            return self._equality(function, args[0], args[1])
        if function == "sign" and len(operands) == 1:
            return self._sign(operands[0])
        if function in _SEMVER_FIELDS and has_target and not args:
            return self._semver_field(function, call.target)
        if (
            self._empty_domain_default
            and function == "_[_]"
            and not has_target
            and _ident_name(args[0]) in _DOMAIN_MAPS
        ):
            present = self._call("_[?_]", args[0], args[1])
            empty_map = self._node(struct_expr=_AST["CreateStruct"]())
            return self._call("orValue", empty_map, target=present)
        return node

    def _fold_literal(self, node: Any, function: str, args: list[Any]) -> Any:
        text = _string_constant(args[0])
        normalize = _bool_constant(args[1]) if len(args) == 2 else False
        if text is None or normalize is None:
            return node  # computed at run time by the Python implementation
        try:
            if function == "quantity":
                return self._list(_encode_quantity_value(parse_quantity(text).value))
            if function == "semver":
                return self._list(_encode_version_value(Version.parse(text, normalize=normalize)))
        except (QuantityError, ValueError):
            return node  # keeps the runtime error, as Kubernetes reports it at evaluation
        check = _cel_is_quantity(text) if function == "isQuantity" else _cel_is_semver(text, normalize)
        return self._const(check)

    def _ordering(self, function: str, receiver: Any, argument: Any) -> Any:
        tags = (self._static_tags.get(receiver.id), self._static_tags.get(argument.id))

        def build(left: Callable[[], Any], right: Callable[[], Any]) -> Any:
            def key(make: Callable[[], Any]) -> Any:
                return self._index(make, 1)

            if function == "isGreaterThan":
                result = self._call("_>_", key(left), key(right))
            elif function == "isLessThan":
                result = self._call("_<_", key(left), key(right))
            else:
                result = self._conditional(
                    self._call("_<_", key(left), key(right)),
                    self._const(-1),
                    self._conditional(self._call("_==_", key(left), key(right)), self._const(0), self._const(1)),
                )
            return self._guarded(function, [(left, tags[0]), (right, tags[1])], result)

        return self._with_operands([receiver, argument], build)

    def _equality(self, function: str, left: Any, right: Any) -> Any:
        """apiserver pkg/cel/{semver,quantity}.go Equal: a Semver or Quantity compared with anything else is
        `no such overload` (cel-go evaluates a == b as a.Equal(b), so only the left side decides: a version
        attribute == 'x' is an error, 'x' == a version attribute is false)."""

        def build(value: Callable[[], Any], other: Callable[[], Any]) -> Any:
            equal = self._call("_==_", value(), other())
            result = equal if function == "_==_" else self._call("!_", equal)
            same_kind = self._call(
                "_&&_",
                self._call("_==_", self._call("type", other()), self._ident("list")),
                self._call("_==_", self._index(other, 0), self._index(value, 0)),
            )
            failure = self._call(
                _NO_SUCH_OVERLOAD,
                self._const(function),
                self._node(list_expr=_AST["CreateList"](elements=[value(), other()])),
            )
            tagged = self._call("_==_", self._call("type", value()), self._ident("list"))
            return self._conditional(tagged, self._conditional(same_kind, result, failure), result)

        return self._with_operands([left, right], build)

    def _sign(self, operand: Any) -> Any:
        static = self._static_tags.get(operand.id) is not None

        def build(value: Callable[[], Any]) -> Any:
            key = functools.partial(self._index, value, 1)
            result = self._conditional(
                self._call("_>=_", key(), self._const("2")),
                self._const(1),
                self._conditional(self._call("_<_", key(), self._const("1")), self._const(-1), self._const(0)),
            )
            return result if static else self._require("sign", value, _QUANTITY_TAG, result)

        return self._with_operands([operand], build)

    def _semver_field(self, function: str, operand: Any) -> Any:
        static = self._static_tags.get(operand.id) is not None

        def build(value: Callable[[], Any]) -> Any:
            result = self._index(value, _SEMVER_FIELDS[function])
            return result if static else self._require(function, value, _SEMVER_TAG, result)

        return self._with_operands([operand], build)

    def _require(self, function: str, value: Callable[[], Any], tag: bytes, result: Any) -> Any:
        """result if the dyn operand is the encoded type, else the no-such-overload error."""
        condition = self._call(
            "_&&_",
            self._call("_==_", self._call("type", value()), self._ident("list")),
            self._call("_==_", self._index(value, 0), self._const(tag)),
        )
        failure = self._call(
            _NO_SUCH_OVERLOAD, self._const(function), self._node(list_expr=_AST["CreateList"](elements=[value()]))
        )
        return self._conditional(condition, result, failure)


def _attribute_value_read(node: Any) -> bool:
    """Whether `node` reads one attribute value (`device.attributes['d'].name`, `...['name']`): the checker
    types it dyn, so what `==` does with it is decided at run time."""
    kind = node.WhichOneof("kind")
    if kind == "select_expr":
        domain = node.select_expr.operand
    elif kind == "call_expr" and node.call_expr.function in ("_[_]", "_[?_]") and len(node.call_expr.args) == 2:
        domain = node.call_expr.args[0]
    else:
        return False
    if domain.WhichOneof("kind") != "call_expr":
        return False
    call = domain.call_expr
    if call.function == "orValue" and call.HasField("target"):  # the empty-domain default of the rewrite
        call = call.target.call_expr
    return (
        call.function in ("_[_]", "_[?_]") and len(call.args) == 2 and _ident_name(call.args[0]) == "device.attributes"
    )


@functools.lru_cache(maxsize=4096)
def _runtime_program(expression: str, generic_variables: tuple[str, ...] | None) -> cel.Expression:
    checked = _typecheck(expression, generic_variables).ast
    tree = _Expr()
    tree.CopyFrom(checked.expr)
    rewriter = _Rewriter(checked, empty_domain_default=generic_variables is None)
    tree = rewriter.rewrite(tree)
    parsed = _AST["ParsedExpr"](expr=tree, source_info=checked.source_info)
    envelope = _AST["Any"](type_url="type.googleapis.com/cel.expr.ParsedExpr", value=parsed.SerializeToString())
    try:
        return _runtime_env().deserialize(envelope.SerializeToString())
    except RuntimeError as error:  # a rewrite bug, not a user error; say so
        raise CelCompileError(f"internal error preparing {_shorten(expression)}: {_engine_message(error)}") from None


# What a selector reads: converting a device's maps into CEL values dominates evaluation time, so a selector
# that only reads `device.attributes['<domain>'].<name>` (or `has(...)`, `.?name`, `['<name>']`) gets just those
# entries, which gives the same results. Any other use of a map (iteration, `in`, size, cel.bind of a domain
# map, a computed domain) gets the whole map.
_Projection = tuple[tuple[str, "tuple[tuple[str, tuple[str, ...]], ...] | None"], ...]


def _selector_projection(checked: Any) -> _Projection:
    wanted: dict[str, dict[str, set[str]] | None] = {name: {} for name in sorted(_DOMAIN_MAPS)}

    def field_read_from(node: Any, domain_index: Any) -> str | None:
        """The constant name `node` reads from the domain map `domain_index`, if that is what it does."""
        kind = node.WhichOneof("kind")
        if kind == "select_expr" and node.select_expr.operand.id == domain_index.id:
            field: str = node.select_expr.field
            return field
        if kind == "call_expr" and node.call_expr.function in ("_[_]", "_[?_]", "_?._"):
            args = node.call_expr.args
            if len(args) == 2 and args[0].id == domain_index.id:
                return _string_constant(args[1])
        return None

    def visit(node: Any, parent: Any, grandparent: Any) -> None:
        name = _ident_name(node)
        domains = wanted.get(name) if name is not None else None
        if name is not None and domains is not None:
            domain = None
            if parent is not None and parent.WhichOneof("kind") == "call_expr":
                call = parent.call_expr
                if call.function in ("_[_]", "_[?_]") and len(call.args) == 2 and call.args[0].id == node.id:
                    domain = _string_constant(call.args[1])
            field_name = None
            if domain is not None and grandparent is not None:
                field_name = field_read_from(grandparent, parent)
            if domain is None or field_name is None:  # (no field without a domain)
                wanted[name] = None
            else:
                domains.setdefault(domain, set()).add(field_name)
        for child in _children(node):
            visit(child, node, parent)

    visit(checked.expr, None, None)
    return tuple(
        (name, None if domains is None else tuple((domain, tuple(sorted(names))) for domain, names in domains.items()))
        for name, domains in wanted.items()
    )
