"""Every fact the code cites resolves inside the repository: each `docs/references.md#<anchor>` (and any other
`docs/<page>.md#<anchor>`) named in code, tests, stack files or pages exists, and nothing cites the team's notes
(`dra.md 4.3`, `clouds.md 6`, `offline-testing.md`, `../shared/reference/...`) that a clone does not have."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.docs.markdown import anchors

# bench/results*.json record a past `make bench` run (the sources it printed then); `make bench` rewrites them
RECORDED = ("bench/results.json", "bench/results-fit.json")
DOC_CITATION = re.compile(r"docs/((?:[\w-]+/)*[\w-]+\.md)#([A-Za-z0-9_-]+)")
NOTES_CITATION = re.compile(
    # the notes' names, but not our own page: docs/clouds.md, [clouds.md](clouds.md#...), "clouds.md"
    r"(?<![/\w\[-])(?:dra|clouds)\.md\b(?![#\"\])])|\boffline-testing\.md|\bstyle-anchors\.md|shared/(?:reference|design)/"
)
SECTION_ONLY = re.compile(r"\(§\d")  # "(§5)" after an earlier "dra.md §4.4"
# this file and the link tests spell the forbidden forms out on purpose
SELF = {"tests/docs/test_citations.py", "tests/docs/test_links.py", "tests/docs/test_references.py"}


def tracked_files() -> list[str]:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return sorted(
        f
        for f in listed
        if re.search(r"\.(py|md|ya?ml|toml|json|txt|cfg|ini)$|^Makefile$|^\.ci/", f)
        and not f.startswith("tests/golden/")
        and (ROOT / f).is_file()
    )


FILES = tracked_files()


def _lines(path: str):
    yield from enumerate((ROOT / path).read_text(encoding="utf-8", errors="replace").split("\n"), 1)


def test_the_scan_sees_the_code():
    assert {
        "components/dra_gpu_platform/facts/catalog.py",
        "components/gpuplan/timing/deploy_model.py",
        "components/dra_gpu_platform/policies/rules/dra.py",
        "README.md",
    } <= set(FILES)


def test_every_docs_anchor_cited_anywhere_exists():
    cited, missing = 0, []
    known: dict[str, set[str]] = {}
    for path in FILES:
        for number, line in _lines(path):
            for page, anchor in DOC_CITATION.findall(line):
                target = ROOT / "docs" / page
                if page != "references.md" and not target.is_file():
                    continue  # an upstream repository's docs/ path (e.g. kube-state-metrics' docs/metrics/...)
                cited += 1
                if page not in known:
                    known[page] = anchors(target) if target.is_file() else set()
                if anchor not in known[page]:
                    missing.append(f"{path}:{number}: docs/{page}#{anchor}")
    assert cited > 100, "the code cites its facts as docs/references.md#<anchor>"
    assert missing == []


@pytest.mark.parametrize("path", [f for f in FILES if f not in RECORDED and f not in SELF])
def test_nothing_cites_the_notes_a_clone_does_not_have(path):
    found = [
        f"{number}: {line.strip()}"
        for number, line in _lines(path)
        if NOTES_CITATION.search(line) or SECTION_ONLY.search(line)
    ]
    assert found == [], "cite docs/references.md#<anchor> (the fact and its public source) instead"


@pytest.mark.parametrize("path", [f for f in FILES if not f.startswith("tests/") and f not in RECORDED])
def test_only_tests_name_the_shared_folder(path):
    """Outside tests/ nothing points at ../shared; tests may read the shared fixtures and upstream examples
    from there (and skip with a reason when a clone lacks them)."""
    assert [number for number, line in _lines(path) if "../shared" in line] == []


def test_user_facing_messages_point_at_pages_a_clone_has():
    from gpuplan.fit import inputs
    from gpuplan.timing import critical_path

    for module in (critical_path, inputs):
        source = Path(module.__file__).read_text(encoding="utf-8")
        assert DOC_CITATION.search(source), module.__name__
