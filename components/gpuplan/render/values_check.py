"""`gpuplan render --check-values`: is every values key the stack sets read by a template of the chart? Each
leaf is changed in turn and the chart rendered again; a leaf whose change leaves the output byte-identical is
read by no template (dead configuration, like a key of a template the chart renders only under a switch that
is off). A leaf whose changed value renders the same is tried once more as the empty value of its type: a key a
template only tests (`{{ if .Values.autoDiscovery.clusterName }}`) is read through its truthiness. A change that
makes the render fail counts as read: a template checked it."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from gpuplan.render import helm


def leaves(node: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(node, dict) and node:
        for key, value in node.items():
            yield from leaves(value, (*path, str(key)))
    else:
        yield path, node


def changed(value: Any) -> Any:
    """A different value of the same shape, so the chart's own type checks see what it expects."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, (int, float)):
        return value + 7
    if isinstance(value, str):
        return {"true": "false", "false": "true"}.get(value, value + "-x")
    if isinstance(value, list):
        if value and isinstance(value[0], dict):
            return [{**value[0], "gpuplanCheck": "x"}, *value[1:]]
        return [*value, "gpuplan-check"] if value else ["gpuplan-check"]
    return "gpuplan-check"


def emptied(value: Any) -> Any:
    """The falsy value of the same type, for keys a template reads only as a switch."""
    if isinstance(value, bool):
        return not value
    return type(value)() if isinstance(value, (int, float, str, list, dict)) else None


def _with(values: dict[str, Any], path: tuple[str, ...], value: Any) -> dict[str, Any]:
    copied = copy.deepcopy(values)
    node = copied
    for key in path[:-1]:
        node = node[key]
    node[path[-1]] = value
    return copied


def unread_keys(
    helm_binary: str,
    rendered: helm.Rendered,
    workdir: Path,
    *,
    kube_version: str,
    api_versions: list[str],
) -> list[str]:
    """The dotted paths of the values leaves no template of the chart reads."""
    baseline = rendered.documents
    unread = []

    def renders_the_same(path: tuple[str, ...], value: Any) -> bool:
        variant = replace(rendered.release, values=_with(rendered.release.values, path, value))
        assert rendered.source is not None  # a release that rendered has its chart
        again = helm.render(
            helm_binary, variant, workdir, kube_version=kube_version, api_versions=api_versions, chart=rendered.source
        )
        return again.error is None and again.documents == baseline

    for path, value in leaves(rendered.release.values):
        if not path:
            continue
        if renders_the_same(path, changed(value)) and renders_the_same(path, emptied(value)):
            unread.append(".".join(path))
    return unread
