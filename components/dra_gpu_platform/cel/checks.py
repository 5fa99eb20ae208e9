"""Policy check: capacities read through device.attributes (an evaluation error that aborts allocation)."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from dra_gpu_platform.cel.base import _MEMORY_SLICE_RE
from dra_gpu_platform.cel.syntax import _children, _ident_name, _string_constant

# ---------------------------------------------------------------------------------------------------------
# Policy check: capacities read through device.attributes


def _is_capacity_name(name: str | None, capacity_names: Collection[str]) -> bool:
    return name is not None and (name in capacity_names or _MEMORY_SLICE_RE.fullmatch(name) is not None)


def _location(checked: Any, node_id: int) -> str:
    offsets = {entry.key: entry.value for entry in checked.source_info.positions}
    if node_id not in offsets:
        return ""
    offset = offsets[node_id]
    line_starts = [0, *checked.source_info.line_offsets]
    line = max(index for index, start in enumerate(line_starts) if start <= offset)
    return f" at {line + 1}:{offset - line_starts[line] + 1}"


def _capacity_reads_through_attributes(checked: Any, capacity_names: Collection[str]) -> list[str]:
    """`device.attributes[d].memory` (also `.?memory`, `['memory']`, and through `cel.bind`)."""
    problems = []

    def attributes_domain(node: Any, scope: Mapping[str, str | None]) -> tuple[bool, str | None]:
        """(True, domain) when node evaluates to one domain's attribute map."""
        name = _ident_name(node)
        if name is not None:
            return (name in scope, scope.get(name))
        if node.WhichOneof("kind") != "call_expr":
            return (False, None)
        call = node.call_expr
        if call.function in ("_[_]", "_[?_]") and _ident_name(call.args[0]) == "device.attributes":
            return (True, _string_constant(call.args[1]))
        if call.function == "orValue" and call.HasField("target"):
            return attributes_domain(call.target, scope)
        return (False, None)

    def visit(node: Any, scope: Mapping[str, str | None]) -> None:
        kind = node.WhichOneof("kind")
        read: tuple[Any, str | None] | None = None
        if kind == "select_expr":
            read = (node.select_expr.operand, node.select_expr.field)
        elif kind == "call_expr" and node.call_expr.function in ("_[_]", "_[?_]", "_?._"):
            args = node.call_expr.args
            read = (args[0], _string_constant(args[1])) if len(args) == 2 else None
        if read is not None and _is_capacity_name(read[1], capacity_names):
            is_domain_map, domain = attributes_domain(read[0], scope)
            if is_domain_map:
                shown = repr(domain) if domain is not None else "..."
                problems.append(
                    f"reads {read[1]!r} through device.attributes{_location(checked, node.id)}: drivers publish "
                    f"{read[1]} as a capacity, so the attribute is missing and reading it is an evaluation error "
                    f"that aborts allocation; use device.capacity[{shown}].{read[1]} with .compareTo(quantity('...'))"
                )
        if kind == "comprehension_expr":
            loop = node.comprehension_expr
            visit(loop.iter_range, scope)
            visit(loop.accu_init, scope)
            is_domain_map, domain = attributes_domain(loop.accu_init, scope)
            inner = {key: value for key, value in scope.items() if key not in (loop.iter_var, loop.accu_var)}
            if is_domain_map:  # cel.bind(name, device.attributes[d], ...)
                inner[loop.accu_var] = domain
            for part in (loop.loop_condition, loop.loop_step, loop.result):
                visit(part, inner)
            return
        for child in _children(node):
            visit(child, scope)

    visit(checked.expr, {})
    return problems
