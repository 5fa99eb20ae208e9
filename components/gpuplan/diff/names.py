"""The names `--allow-replace` takes for a change of `gpuplan diff`: its URN, its resource's logical name, or the URN's
`type::name` suffix. URNs are long and carry `$` (the parent chain), which a shell expands unquoted; the shortest of
these that names one change is what gpuplan offers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol


class Named(Protocol):
    urn: str
    type: str
    name: str
    op: str


def suffix(change: Named) -> str:
    """`type::name`: the URN after its last `$` (the parent chain) or its project."""
    return f"{change.type}::{change.name}"


def matching(value: str, changes: Iterable[Named]) -> list[Named]:
    """The changes a value names: the one with that URN, else every change (not `same`) with that logical name or
    `type::name`."""
    changes = list(changes)
    exact = [c for c in changes if c.urn == value]
    if exact:
        return exact
    return [c for c in changes if c.op != "same" and value in (c.name, suffix(c))]


def short_name(change: Named, changes: Sequence[Named]) -> str:
    """The shortest name that picks this change alone: its logical name, else `type::name`, else its URN."""
    for candidate in (change.name, suffix(change)):
        if matching(candidate, changes) == [change]:
            return candidate
    return change.urn
