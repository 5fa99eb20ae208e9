"""Problems found in user input (stack files, claim files, inventories). Pure: no Pulumi imports.

Every problem names the file, the field path, the bad value, the rule it breaks and how to fix it, so a
stack author can correct all of them in one pass.
"""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class Problem:
    file: str | None  # None: the input came from no file (a dict given to StackConfig, a library call)
    path: str  # e.g. nodePools[1].mig.profile
    value: Any
    rule: str
    fix: str
    # The path with the names of the list items it passes through, for people: `nodePools[1] (t4-legacy).maxNodes`.
    # `path` stays the plain field path (the contract's); None: the path names nothing.
    where: str | None = None
    # The source lines around the place, with a caret under the column (a YAML syntax error), as they are shown.
    excerpt: str | None = None

    def render(self) -> str:
        value = "(missing)" if self.value is _MISSING else _short(self.value)
        file = short_text(self.file, TEXT_LIMIT) if self.file is not None else ""
        path = short_text(self.where or self.path, TEXT_LIMIT)
        where = ": ".join(part for part in (file, path) if part) or "(input)"
        head = where if self.value is _MISSING and self.excerpt else f"{where} = {value}"
        shown = "".join(f"\n      {line}" for line in (self.excerpt or "").splitlines())
        return f"{head}{shown}\n    rule: {short_text(self.rule, TEXT_LIMIT)}\n    fix:  {short_text(self.fix, TEXT_LIMIT)}"

    def named(self, data: Any) -> Problem:
        """This problem with `where` naming the list items of `data` (as written) that its path passes through."""
        return dataclasses.replace(self, where=named_path(self.path, data))

    def as_json(self) -> dict[str, Any]:
        return {
            "file": short_text(self.file, TEXT_LIMIT) if self.file is not None else None,
            "path": short_text(self.path, TEXT_LIMIT),
            "where": short_text(self.where or self.path, TEXT_LIMIT),
            "value": None if self.value is _MISSING else _jsonable(self.value),
            "rule": short_text(self.rule, TEXT_LIMIT),
            "fix": short_text(self.fix, TEXT_LIMIT),
            "excerpt": self.excerpt,
        }


MISSING = _MISSING


class InputError(Exception):
    """Invalid input: carries every problem found, never just the first."""

    def __init__(self, problems: list[Problem], what: str = "input"):
        self.problems = sorted(problems, key=lambda p: (p.file or "", _path_key(p.path), p.rule))
        self.what = what
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''} in {self.what}:"
        return "\n".join([head, *(f"- {p.render()}" for p in self.problems)])


class ConfigError(InputError, ValueError):
    """An invalid stack: every problem at once, each with its field path, value, rule and fix (and the file when
    there is one). `str(error)` lists them as `gpuplan preview` does. A ValueError, and an InputError, so whoever
    catches either (gpuplan, the stack program) reports it."""

    def __init__(self, problems: list[Problem], what: str = "the stack config"):
        super().__init__(problems, what)


# Messages quote what the user wrote, but never all of a hostile value: a 50 MB string, a million-item list or a
# structure nested without end is cut (text and JSON alike), saying how much was left out.
TEXT_LIMIT = 500  # characters of a rule, fix, path or file name
VALUE_LIMIT = 200  # characters of a quoted string value
ITEMS_LIMIT = 20  # items of a list or mapping value in JSON
DEPTH_LIMIT = 6


def short_text(text: Any, limit: int = VALUE_LIMIT) -> str:
    shown = str(text)
    if len(shown) <= limit:
        return shown
    return f"{shown[: limit - 40]}... ({len(shown) - (limit - 40)} more characters)"


def _short(value: Any, limit: int = 120) -> str:
    text = repr(_jsonable(value))
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _jsonable(value: Any, depth: int = 0) -> Any:
    if isinstance(value, str):
        return short_text(value)
    if isinstance(value, (int, float, bool)) or value is None:
        if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
            return short_text(str(value), 60)
        return value
    if depth >= DEPTH_LIMIT:
        return "..."
    if isinstance(value, dict):
        items = list(value.items())
        keys = {short_text(str(k), 100): _jsonable(v, depth + 1) for k, v in items[:ITEMS_LIMIT]}
        if len(items) > ITEMS_LIMIT:
            keys["..."] = f"{len(items) - ITEMS_LIMIT} more keys"
        return keys
    if isinstance(value, (list, tuple)):
        cut = [_jsonable(v, depth + 1) for v in value[:ITEMS_LIMIT]]
        if len(value) > ITEMS_LIMIT:
            cut.append(f"... {len(value) - ITEMS_LIMIT} more items")
        return cut
    return short_text(repr(value))


def _path_key(path: str) -> tuple[Any, ...]:
    # sort nodePools[2] before nodePools[10]
    parts: list[Any] = []
    for token in path.replace("]", "").replace("[", ".").split("."):
        parts.append((0, int(token), "") if token.isdigit() else (1, 0, token))
    return tuple(parts)


_PLAIN_KEY = re.compile(r"^[A-Za-z0-9_./:-]+$")


def join_path(*parts: str | int) -> str:
    """`nodePools[1].mig.profile`; keys that are not plain words are quoted: `labels["a b"]`."""
    out = ""
    for part in parts:
        if isinstance(part, int):
            out += f"[{part}]"
        elif not _PLAIN_KEY.match(str(part)):
            out += f"[{json.dumps(str(part))}]"
        elif out:
            out += f".{part}"
        else:
            out = str(part)
    return out


# ---------------------------------------------------------------------------------------------------
# paths: where one lies within another, and the names of the list items they pass through


def is_under(path: str, prefix: str) -> bool:
    """`path` is `prefix` or lies within it (`nodePools[1].mig.profile` is under `nodePools[1]`)."""
    return path == prefix or (path.startswith(prefix) and path[len(prefix)] in ".[") or prefix == ""


def with_prefix(path: str, old: str, new: str) -> str:
    """`path` with its leading `old` (a whole path part) written as `new`."""
    return new + path[len(old) :] if old and is_under(path, old) else path


_INDEX = re.compile(r"\[(\d+)\]")
NAME_LIMIT = 60  # characters of an item's name shown in a path


def named_path(path: str, data: Any) -> str | None:
    """`path` with the name of every list item it passes through (`nodePools[1] (t4-legacy).maxNodes`), read from
    `data` as the user wrote it; None when it passes through no named item. The path is read as far as `data`
    goes; the rest is kept as written."""
    out: list[str] = []
    node, pos, named = data, 0, False
    while pos < len(path):
        if path[pos] == ".":
            out.append(".")
            pos += 1
            continue
        index = _INDEX.match(path, pos)
        if index is not None and isinstance(node, list) and int(index.group(1)) < len(node):
            node = node[int(index.group(1))]
            out.append(index.group(0))
            pos = index.end()
            name = node.get("name") if isinstance(node, dict) else None
            if isinstance(name, str) and name:
                out.append(f" ({short_text(name, NAME_LIMIT)})")
                named = True
            continue
        key = _key_at(path, pos, node)
        if key is None:
            out.append(path[pos:])
            break
        text, node, pos = key
        out.append(text)
    return "".join(out) if named else None


def _key_at(path: str, pos: int, node: Any) -> tuple[str, Any, int] | None:
    """The key of mapping `node` that `path` spells at `pos` (plain or quoted), its value and where it ends."""
    if not isinstance(node, dict):
        return None
    if path.startswith('["', pos):
        end = path.find('"]', pos + 2)
        while end != -1:
            try:
                key = json.loads(path[pos + 1 : end + 1])
            except ValueError:
                end = path.find('"]', end + 1)
                continue
            return (path[pos : end + 2], node[key], end + 2) if key in node else None
        return None
    # plain keys may hold dots themselves (a label key): the longest key that ends where a part ends
    for key in sorted((k for k in node if isinstance(k, str)), key=len, reverse=True):
        end = pos + len(key)
        if path.startswith(key, pos) and (end == len(path) or path[end] in ".["):
            return key, node[key], end
    return None
