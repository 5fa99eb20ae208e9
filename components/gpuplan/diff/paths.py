"""Path algebra over recorded inputs, for `gpuplan diff`: a path is a tuple of map keys (str) and list indices (int),
printed as `spec.hard["count/resourceclaims.resource.k8s.io"]` or `instanceTypes[0]`; rule paths (the replacement
rules of dra_gpu_platform/facts/replacements.py, ignoreChanges, replaceOnChanges) may hold `*` for any key or
index."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

Path = tuple  # of str (map keys) and int (list indices)
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MISSING = object()  # no value at a path


def render_path(path: Path) -> str:
    """`spec.hard["count/resourceclaims.resource.k8s.io"]`, `instanceTypes[0]`."""
    out = ""
    for token in path:
        if isinstance(token, int):
            out += f"[{token}]"
        elif _IDENT.match(token):
            out += f".{token}" if out else token
        else:
            out += '["' + token.replace('"', '\\"') + '"]'
    return out


def parse_path(text: str) -> Path:
    """Rule paths: `a.b`, `a[*].b`, `a["key"]`; `*` matches any list index or key."""
    tokens: list[Any] = []
    for match in re.finditer(r'\["((?:[^"\\]|\\.)*)"\]|\[(\*|\d+)\]|([^.\[\]]+)', text):
        quoted, index, name = match.groups()
        if quoted is not None:
            tokens.append(quoted.replace('\\"', '"'))
        elif index is not None:
            tokens.append("*" if index == "*" else int(index))
        else:
            tokens.append(name)
    return tuple(tokens)


def covers(rule: Path, path: Path) -> bool:
    """The rule path equals the changed path or is an ancestor of it, or the changed path is an
    ancestor of the rule path (a whole block added or removed)."""
    return all(not (a not in ("*", b)) for a, b in zip(rule, path, strict=False))


def ignored(path: Path, ignore: list[Path]) -> bool:
    """`path` is at or below one of the `ignore` paths (options.ignoreChanges)."""
    return any(len(path) >= len(i) and all(a in ("*", b) for a, b in zip(i, path, strict=False)) for i in ignore)


def leaves(value: Any, prefix: Path = ()) -> dict[Path, Any]:
    out: dict[Path, Any] = {}
    if isinstance(value, dict) and value:
        for key, item in value.items():
            out.update(leaves(item, (*prefix, key)))
    elif isinstance(value, list) and value:
        for index, item in enumerate(value):
            out.update(leaves(item, (*prefix, index)))
    elif prefix:
        out[prefix] = value
    return out


def value_at(tree: Any, path: Path) -> Any:
    """The value at `path`, or MISSING."""
    for token in path:
        if (isinstance(tree, dict) and token in tree) or (
            isinstance(tree, list) and isinstance(token, int) and token < len(tree)
        ):
            tree = tree[token]
        else:
            return MISSING
    return tree


def has_prefix(paths: Iterable[Path], prefix: Path) -> bool:
    return any(p[: len(prefix)] == prefix for p in paths)


def compress(changed: Iterable[Path], old: dict[Path, Any], new: dict[Path, Any]) -> dict[Path, Path]:
    """Changed leaf → the path reported for it: a wholly added or removed block once (`launchTemplate`),
    not leaf by leaf."""
    out: dict[Path, Path] = {}
    for path in changed:
        out[path] = path
        for cut in range(1, len(path)):
            ancestor = path[:cut]
            if not has_prefix(old, ancestor) or not has_prefix(new, ancestor):
                out[path] = ancestor
                break
    return out
