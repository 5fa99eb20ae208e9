"""Every relative link in README.md and docs/ resolves in a clone: the file exists inside the repository and
the #anchor is a heading or an <a id> of that page. No page points at the team's notes outside the
repository, and every repository path a page names in backticks exists."""

from __future__ import annotations

import re

import pytest

from tests.conftest import ROOT
from tests.docs.markdown import anchors, broken, links, pages, prose_lines, slug

PAGES = pages()


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    problems = [f"{link.where()} {why}" for link in links(page) if not link.external and (why := broken(link))]
    assert problems == []


def test_slugs_follow_github():
    assert slug("What lands in `--out`") == "what-lands-in---out"
    assert slug("Migration runbook: device plugin → DRA") == "migration-runbook-device-plugin--dra"
    assert slug("`gpu-budget` (stack, advisory by default)") == "gpu-budget-stack-advisory-by-default"
    assert slug('<a id="x"></a>Sizes of `__init__`') == "sizes-of-__init__"


def test_the_link_checker_finds_a_broken_anchor_and_a_missing_file(tmp_path, monkeypatch):
    page = ROOT / "docs" / "gpuplan" / "index.md"
    assert "options-every-command-takes" in anchors(page)
    from tests.docs import markdown

    fake = markdown.Link(page, 1, "fit.md#no-such-heading")
    assert "no anchor #no-such-heading" in broken(fake)
    assert broken(markdown.Link(page, 1, "render-nothing.md")) == "no such file"
    assert "leaves the repository" in broken(markdown.Link(page, 1, "../../../shared/reference/dra.md"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_cites_the_notes_a_clone_does_not_have(page):
    text = page.read_text(encoding="utf-8")
    assert "../shared" not in text
    cited = re.findall(r"\b(?:dra|clouds|offline-testing|style-anchors)\.md(?: (?:section |§)?\d[\d.]*)", text)
    assert cited == [], f"cite docs/references.md anchors instead: {cited}"


# `dra_gpu_platform/catalog.py`, `tests/golden/helm/<stack>/`, `policies/config/<stack>.json`: paths in inline code
# folders that runs create (git-ignored), named by the pages but not in a clone
GENERATED = ("bench/.work", "policies/venv")
_PATH = re.compile(r"`((?:components|gpuplan|policies|tests|bench|stacks|docs|\.github|\.ci)/[\w./<>-]*)`")


@pytest.mark.parametrize(
    "page",
    [p for p in PAGES if p.name != "references.md"],  # it names upstream files
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_every_repository_path_a_page_names_exists(page):
    missing = []
    for number, line in prose_lines(page.read_text(encoding="utf-8")):
        for path in _PATH.findall(line):
            if "<" in path:  # up to the folder of the first placeholder: stacks/Pulumi.<stack>.yaml -> stacks
                path = path[: path.index("<")].rsplit("/", 1)[0]
            if path.startswith(GENERATED):
                continue
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}:{number}: {path}")
    assert missing == []
