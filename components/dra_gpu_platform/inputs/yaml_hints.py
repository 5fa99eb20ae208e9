"""What a YAML syntax error looks like to the person who made it: the line with a caret under the column, the
usual cause in words (a tab, an indentation step, an unquoted `: `, a missing space after `:`, a quote or bracket
left open) and the fix for that line, as compilers show it. Pure: no Pulumi imports; used by strict_yaml.py.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

EXCERPT_WIDTH = 96  # characters of a source line shown; a longer one is shown around the column
TAB_SHOWN_AS = "→"  # one character, so the caret stays under the column


@dataclass(frozen=True)
class Hint:
    cause: str | None  # the usual cause in words, None when none is recognised
    fix: str


def excerpt(text: str, line: int, column: int) -> str:
    """The line before (for context) and line `line` (0-based) of `text`, numbered, and a caret under `column`."""
    lines = _lines(text)
    if not 0 <= line < len(lines) + 1:
        return ""
    shown = [n for n in (line - 1, line) if 0 <= n < len(lines)]
    width = len(str(line + 1))
    out = []
    start = max(0, column - EXCERPT_WIDTH // 2) if len(lines[line] if line < len(lines) else "") > EXCERPT_WIDTH else 0
    for n in shown:
        body = "".join(c if c.isprintable() else "\ufffd" for c in lines[n].replace("\t", TAB_SHOWN_AS))
        if len(body) > EXCERPT_WIDTH:
            body = ("..." if start else "") + body[start : start + EXCERPT_WIDTH] + "..."
        out.append(f"{n + 1:>{width}} | {body}")
    if line >= len(lines):
        out.append(f"{line + 1:>{width}} | (end of file)")
    offset = column - start + (3 if start else 0)
    out.append(f"{'':>{width}} | {' ' * max(offset, 0)}^")
    return "\n".join(out)


def _lines(text: str) -> list[str]:
    # the line breaks YAML counts (its marks number lines so), not every separator str.splitlines knows
    lines = re.split(r"\r\n|\r|\n|\x85|\u2028|\u2029", text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _meaningful(lines: list[str], before: int) -> list[tuple[int, str]]:
    """(number, line) of the lines before `before` that hold something, nearest first."""
    return [
        (n, lines[n])
        for n in range(min(before, len(lines)) - 1, -1, -1)
        if lines[n].strip() and not lines[n].lstrip().startswith("#")
    ]


_NO_SPACE = re.compile(r"^\s*(-\s+)?([A-Za-z0-9_.:/-]+?):([^\s:/][^\s]*)\s*$")
_PLAIN_KEY = re.compile(r"^\s*(?:-\s+)?([^\s'\"#][^:#]*?):\s")


def hint(text: str, line: int, column: int, problem: str, opened: tuple[int, int] | None = None) -> Hint:
    """The usual cause of `problem` (the parser's message) at `line`/`column` (0-based) of `text`, and its fix.
    `opened`: where the scalar or collection the parser was reading began (its context mark)."""
    lines = _lines(text)
    here = lines[line] if 0 <= line < len(lines) else ""
    at = here[column : column + 1]
    where = f"line {line + 1}"
    if at == "\t" or "\t" in here[: _indent(here) + 1] or (problem.startswith("found character") and "\t" in here):
        return Hint(
            "a tab character: YAML indents with spaces only, and a tab cannot start a token",
            f"replace the tab on {where} with spaces (set your editor to insert spaces in YAML files)",
        )
    if "quoted scalar" in problem:
        return Hint(
            "the quote that opens here is never closed, so YAML reads the rest of the file into it",
            "close the quote; inside '...' write a quote as '', inside \"...\" as \\\"",
        )
    if "flow sequence" in problem or "flow mapping" in problem:
        where_opened = f"opened on line {opened[0] + 1}" if opened is not None else "written on one line"
        return Hint(
            f"a [list] or {{mapping}} {where_opened} is not closed, or an item in it holds an unquoted ', ', ': ' "
            "or quote",
            'close the bracket, or quote each item that holds such characters, e.g. ["a: b", "c, d"]',
        )
    previous = _meaningful(lines, line)
    if "mapping values are not allowed" in problem:
        for _, above in previous[:1]:
            glued = _NO_SPACE.match(above)
            if glued is not None and _indent(above) == _indent(here):
                key, value = glued.group(2), glued.group(3)
                return Hint(
                    f"line {previous[0][0] + 1} has no space after ':' ({key}:{value}), so YAML reads it as text that "
                    "runs on into this line",
                    f"write `{key}: {value}`",
                )
        key = _PLAIN_KEY.match(here)
        if key is not None and column > key.end(1):
            name = key.group(1).strip()
            value = here[key.end() :].strip()
            quoted = value.replace("\\", "\\\\").replace('"', '\\"')
            return Hint(
                f"the value of {name} holds ': ', which YAML reads as the start of another key",
                f'quote the whole value: {name}: "{quoted}"',
            )
    indentation = _indentation_hint(here, previous, problem)
    if indentation is not None:
        return indentation
    return Hint(None, "fix the YAML syntax at the caret (keys end with ': ', list items start with '- ')")


def _indentation_hint(here: str, previous: list[tuple[int, str]], problem: str) -> Hint | None:
    if not previous or not any(
        words in problem
        for words in ("did not find expected", "expected <block end>", "mapping values are not allowed")
    ):
        return None
    number, above = previous[0]
    mine, theirs = _indent(here), _indent(above)
    stripped = above.lstrip(" ")
    if stripped.startswith("- "):
        item = theirs + 2 + _indent(stripped[2:])  # the keys of a list item line up with its first key
        if mine not in (theirs, item):
            return Hint(
                f"an indentation step: this line is indented {mine} spaces, but the keys of the list item on line "
                f"{number + 1} start at {item}",
                f"indent it {item} spaces (a new item starts with '- ' at {theirs})",
            )
        if mine == theirs and not here.lstrip(" ").startswith("-"):
            return Hint(
                f"an indentation step: this line is indented {mine} spaces, like the '-' of the list item on line "
                f"{number + 1}, so YAML expects a new item there",
                f"indent it {item} spaces to make it a key of that item, or start a new item with '- '",
            )
        return None
    if above.rstrip().endswith(":"):
        return None  # the line opens a block: any deeper step is allowed
    if mine != theirs:
        return Hint(
            f"an indentation step: this line is indented {mine} spaces, line {number + 1} above it {theirs}; the keys "
            "of one mapping line up",
            f"indent it {theirs} spaces, like line {number + 1}",
        )
    return None
