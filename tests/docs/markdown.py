"""Just enough Markdown for the docs tests: the pages, their anchors as GitHub renders them, their links."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import ROOT

DOCS = ROOT / "docs"
README = ROOT / "README.md"

_FENCE = re.compile(r"^(```|~~~)")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_HTML_ANCHOR = re.compile(r"""<a\s+(?:id|name)=["']([^"']+)["']""")
_INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target); the target ends at whitespace or ')'
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def pages() -> list[Path]:
    """README.md and every page under docs/."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def prose_lines(text: str) -> list[tuple[int, str]]:
    """(line number, line) outside fenced code blocks."""
    lines, fenced = [], False
    for number, line in enumerate(text.split("\n"), 1):
        if _FENCE.match(line.strip()):
            fenced = not fenced
            continue
        if not fenced:
            lines.append((number, line))
    return lines


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: markup and punctuation dropped, lower case, spaces to hyphens."""
    text = _HTML_ANCHOR.sub("", heading)
    text = re.sub(r"<[^>]+>", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a link may name in this page: heading slugs (GitHub numbers repeats -1, -2, ...) and
    explicit <a id> / <a name> anchors."""
    found: set[str] = set()
    seen: dict[str, int] = {}
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        found.update(_HTML_ANCHOR.findall(line))
        match = _HEADING.match(line)
        if match:
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            found.add(base if count == 0 else f"{base}-{count}")
    return found


@dataclass(frozen=True)
class Link:
    page: Path
    line: int
    target: str

    @property
    def external(self) -> bool:
        return bool(re.match(r"^[a-z][a-z0-9+.-]*:", self.target))

    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}: ({self.target})"


def links(path: Path) -> list[Link]:
    found = []
    for number, line in prose_lines(path.read_text(encoding="utf-8")):
        for match in _LINK.finditer(_INLINE_CODE.sub("", line)):
            found.append(Link(path, number, match.group(1)))
    return found


def broken(link: Link) -> str | None:
    """Why a relative link does not resolve inside the repository (None when it does)."""
    target, _, anchor = link.target.partition("#")
    path = (link.page.parent / target).resolve() if target else link.page
    if not path.is_relative_to(ROOT):
        return "leaves the repository (a clone does not have it)"
    if not path.exists():
        return "no such file"
    if anchor:
        if path.is_dir() or path.suffix != ".md":
            return "an anchor into something that is not a Markdown page"
        if anchor not in anchors(path):
            return f"no anchor #{anchor} in {path.relative_to(ROOT)}"
    return None


def section(path: Path, heading: str) -> str:
    """The text under `heading` (a full heading line) up to the next heading of the same or a higher level;
    `#` lines inside fenced code blocks are not headings."""
    lines = path.read_text(encoding="utf-8").split("\n")
    level = len(heading) - len(heading.lstrip("#"))
    prose = prose_lines("\n".join(lines))
    start = next(number for number, line in prose if line == heading)
    end = next(
        (
            number
            for number, line in prose
            if number > start and (m := _HEADING.match(line)) and len(m.group(1)) <= level
        ),
        len(lines) + 1,
    )
    return "\n".join(lines[start : end - 1])
