"""docs/references.md: every entry has a stable anchor, the fact, its public source and how it was checked,
in one of the agreed sections."""

from __future__ import annotations

import re

from tests.docs.markdown import DOCS, prose_lines

PAGE = DOCS / "references.md"
SECTIONS = [
    "Kubernetes DRA API",
    "DRA allocator",
    "NVIDIA DRA driver",
    "GPU Operator",
    "Clouds (AWS)",
    "Clouds (Azure)",
    "kind",
    "Monitoring",
    "Helm charts",
    "Tenancy and cluster access",
    "Input handling",
]
ENTRY = re.compile(r'^### <a id="([a-z0-9]+(?:-[a-z0-9]+)*)"></a>\S')


def entries() -> dict[str, str]:
    """anchor → the entry's text (up to the next heading)."""
    found: dict[str, str] = {}
    current = None
    for _, line in prose_lines(PAGE.read_text(encoding="utf-8")):
        if line.startswith("#"):
            match = ENTRY.match(line)
            current = match.group(1) if match else None
            if match:
                assert current not in found, f"anchor #{current} twice"
                found[current] = ""
        elif current:
            found[current] += line + "\n"
    return found


def test_sections_are_the_agreed_ones_in_order():
    headings = [line[3:] for _, line in prose_lines(PAGE.read_text(encoding="utf-8")) if line.startswith("## ")]
    assert headings == SECTIONS


def test_every_entry_heading_carries_a_stable_anchor():
    entry_headings = [line for _, line in prose_lines(PAGE.read_text(encoding="utf-8")) if line.startswith("### ")]
    assert entry_headings and all(ENTRY.match(line) for line in entry_headings), [
        line for line in entry_headings if not ENTRY.match(line)
    ]


def test_every_entry_states_the_fact_its_source_and_how_it_was_checked():
    for anchor, text in entries().items():
        fact = text.split("**Source:**", 1)[0].strip()
        assert len(fact) > 40, f"#{anchor}: the fact in one or two sentences"
        assert "**Source:**" in text, f"#{anchor}: its public source"
        assert "**Checked:**" in text, f"#{anchor}: how it was verified"


def test_sources_are_public():
    text = PAGE.read_text(encoding="utf-8")
    assert "../shared" not in text and "/work/" not in text
