"""Problems found in user input (stack files, claim files, inventories). Pure: no Pulumi imports.

Every problem names the file, the field path, the bad value, the rule it breaks and how to fix it, so a
stack author can correct all of them in one pass.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class Problem:
    file: str
    path: str  # e.g. nodePools[1].mig.profile
    value: Any
    rule: str
    fix: str

    def render(self) -> str:
        value = "(missing)" if self.value is _MISSING else _short(self.value)
        where = f"{self.file}: {self.path}" if self.path else self.file
        return f"{where} = {value}\n    rule: {self.rule}\n    fix:  {self.fix}"

    def as_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "path": self.path,
            "value": None if self.value is _MISSING else _jsonable(self.value),
            "rule": self.rule,
            "fix": self.fix,
        }


MISSING = _MISSING


class InputError(Exception):
    """Invalid input: carries every problem found, never just the first."""

    def __init__(self, problems: list[Problem], what: str = "input"):
        self.problems = sorted(problems, key=lambda p: (p.file, _path_key(p.path), p.rule))
        self.what = what
        super().__init__(self.render())

    def render(self) -> str:
        head = f"{len(self.problems)} problem{'s' if len(self.problems) != 1 else ''} in {self.what}:"
        return "\n".join([head, *(f"- {p.render()}" for p in self.problems)])


def _short(value: Any, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _jsonable(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    return repr(value)


def _path_key(path: str) -> tuple:
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
