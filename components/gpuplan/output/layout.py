"""Text for people and for pipes: how wide gpuplan's text is, lines that fit it without cutting a name or a
value (a line that cannot fit breaks at a gap, never with "…"), long texts said once and named afterwards, and
where two long strings differ.

On a terminal the width is the terminal's, and $COLUMNS where it is set; there text breaks at spaces and tables
fold a cell rather than cut it. In a pipe or a CI log without $COLUMNS nothing is broken or cut: a logical line is
one line (grep finds it), tables take their natural width, and the resource tree is laid out for PIPE_WIDTH (100)
columns, the width a log viewer shows without scrolling. A word longer than the width (a URN) stays whole.
"""

from __future__ import annotations

import os
import re
import textwrap
from collections.abc import Iterable

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table
from rich.text import Text

PIPE_WIDTH = 100
UNBOUNDED = 100_000  # the console width of a pipe: rich then never wraps or folds


def columns() -> int | None:
    """$COLUMNS when it is a usable width."""
    text = os.environ.get("COLUMNS", "")
    return int(text) if text.isdigit() and int(text) >= 40 else None


def text_console(stderr: bool = False) -> Console:
    """A console for gpuplan's text: the terminal's width (or $COLUMNS), else unbounded (a pipe)."""
    probe = Console(stderr=stderr)
    if probe.is_terminal:
        return Console(stderr=stderr, highlight=False, width=columns())
    width = columns()
    return Console(stderr=stderr, highlight=False, width=width or UNBOUNDED, soft_wrap=width is None)


def layout_width(console: Console) -> int:
    """The width gpuplan lays its own text out for (the tree, broken lines): the console's, PIPE_WIDTH in a pipe."""
    return PIPE_WIDTH if console.width >= UNBOUNDED else console.width


def breaks_lines(console: Console) -> bool:
    """Whether text is broken to the width (a terminal, $COLUMNS), not left whole (a pipe)."""
    return console.width < UNBOUNDED


def fit_columns(parts: list[str], width: int, indent: str = "    ") -> list[str]:
    """`parts` joined by two spaces on one line when it fits `width`; else as many parts per line as fit, each
    further line starting with `indent`. A part is never cut."""
    lines: list[str] = []
    current = ""
    for part in (p for p in parts if p):
        if not current:
            current = part if not lines else indent + part
        elif cell_len(current) + 2 + cell_len(part) <= width:
            current = f"{current}  {part}"
        else:
            lines.append(current)
            current = indent + part
    if current:
        lines.append(current)
    return lines


# ---------------------------------------------------------------------------------------------------
# long quoted texts (CEL selectors) said once, then named


class Legend:
    """Texts too long to repeat (a CEL selector in every pool's reason), each shown once and then named (`S1`)."""

    def __init__(self, prefix: str = "S", min_length: int = 60) -> None:
        self.prefix = prefix
        self.pattern = re.compile("`([^`]{" + str(min_length) + ",})`")
        self.names: dict[str, str] = {}

    def shorten(self, line: str) -> str:
        """`line` with every long backquoted text replaced by its name; where a text first appears it stays, named:
        `` S1 `<text>` ``; afterwards only `S1`."""

        def name(match: re.Match[str]) -> str:
            text = match.group(1)
            if text in self.names:
                return self.names[text]
            self.names[text] = f"{self.prefix}{len(self.names) + 1}"
            return f"{self.names[text]} `{text}`"

        return self.pattern.sub(name, line)


# ---------------------------------------------------------------------------------------------------
# where two long strings differ

CONTEXT = 24  # characters shown around a difference


def difference(old: str, new: str, limit: int = 60) -> tuple[str, str]:
    """(old, new) as a diff line shows them: whole when both are short; else the part where they differ with up to
    CONTEXT characters around it, and how much is left out on each side (`[143 same]...`), so two long strings that
    share a beginning never print as the same cut-off text."""
    if len(old) <= limit and len(new) <= limit:
        return old, new
    start, end = common_ends(old, new)
    return _window(old, start, end), _window(new, start, end)


def common_ends(a: str, b: str) -> tuple[int, int]:
    """(prefix, suffix): how many characters `a` and `b` share at their start and, after that, at their end (the
    two never overlap). Where two texts differ (difference) and how alike two names are (gpuplan/diff/safety.py)."""
    shortest = min(len(a), len(b))
    prefix = 0
    while prefix < shortest and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < shortest - prefix and a[-1 - suffix] == b[-1 - suffix]:
        suffix += 1
    return prefix, suffix


def _window(text: str, start: int, end: int) -> str:
    left = max(0, start - CONTEXT)
    right = len(text) - max(0, end - CONTEXT)
    shown = text[left:right]
    before = f"[{left} same]" if left else ""
    after = f"[{len(text) - right} same]" if right < len(text) else ""
    return f"{before}{shown}{after}"


def widest(lines: Iterable[str]) -> int:
    return max((cell_len(line) for line in lines), default=0)


def wrap(text: str, width: int, indent: str = "", hanging: str = "    ") -> list[str]:
    """`text` broken at spaces into lines of at most `width` cells (the first after `indent`, the others after
    `hanging`); a word longer than the width (a URN, a path) stays whole on a line of its own."""
    leading = len(text) - len(text.lstrip(" "))
    first = indent + text[:leading]
    return textwrap.wrap(
        text[leading:],
        width=max(width, 20),
        initial_indent=first,
        subsequent_indent=hanging if not leading else first + hanging,
        break_long_words=False,
        break_on_hyphens=False,
    ) or [first]


def table(
    headers: list[str], rows: list[list[str]], width: int, *, whole: Iterable[str] = (), **options: object
) -> Table:
    """A rich Table of `rows` (cells in rich markup) no wider than `width` where that is possible: the columns in
    `whole` (short values: a state, a count) never wrap; the others wrap at spaces, the first (a name) last of all,
    and where even their longest words do not fit, they share the width and fold those words. No cell is ever cut
    ("…")."""
    whole = set(whole)
    plain = [[Text.from_markup(cell).plain for cell in row] for row in rows]
    natural = [max([cell_len(h), *(cell_len(r[i]) for r in plain)]) for i, h in enumerate(headers)]
    least = [
        natural[i]
        if h in whole
        else max([4, *(cell_len(word) for text in [h, *(r[i] for r in plain)] for word in text.split())])
        for i, h in enumerate(headers)
    ]
    widths = list(natural)
    excess = sum(natural) + 3 * len(headers) + 1 - width
    wrapping = [i for i in range(len(headers)) if headers[i] not in whole]
    order = [i for i in wrapping if i != 0] + [i for i in wrapping if i == 0]
    for i in order:  # down to each column's longest word: the other columns first, the name column last
        if excess <= 0:
            break
        give = min(excess, widths[i] - least[i])
        widths[i] -= give
        excess -= give
    if excess > 0 and wrapping:  # still too wide: the name column keeps its longest word where it can; the other
        room = sum(widths[i] for i in wrapping) - excess  # wrapping columns share the rest, folding long words
        others = [i for i in wrapping if i != 0]
        if 0 in wrapping and others and room - least[0] >= 12 * len(others):
            widths[0] = least[0]
            room -= least[0]
        else:
            others = wrapping
        total = sum(least[i] for i in others)
        for i in others:
            widths[i] = max(8, room * least[i] // total)
    result = Table(**options)  # type: ignore[arg-type]
    for i, header in enumerate(headers):
        fixed = widths[i] if widths[i] != natural[i] else None
        result.add_column(header, overflow="fold", no_wrap=header in whole, width=fixed)
    for row in rows:
        result.add_row(*row)
    return result
