"""The docs tree has a page for every gpuplan command and a runbook page for every alert, and no page for
one that does not exist."""

from __future__ import annotations

import re

import pytest

from gpuplan.output.exit_codes import ExitCode
from tests.docs.markdown import DOCS, section
from tests.docs.test_readme import command_names

GPUPLAN = DOCS / "gpuplan"
RUNBOOKS = DOCS / "monitoring" / "runbooks"
from tests.plans.monitoring.test_alerts import ALL as ALERTS  # noqa: E402  (every alert the package can render)


def test_every_gpuplan_command_has_a_page_and_no_page_is_left_over():
    pages = sorted(p.stem for p in GPUPLAN.glob("*.md") if p.name != "index.md")
    assert pages == command_names()


@pytest.mark.parametrize("command", command_names())
def test_each_command_page_is_titled_and_links_the_common_contract(command):
    text = (GPUPLAN / f"{command}.md").read_text(encoding="utf-8")
    assert text.startswith(f"# `gpuplan {command}`"), "the page's title names the command"
    assert "](index.md)" in text, "each page links the common options, exit codes and error format"


def test_the_command_index_lists_every_command_once_in_help_order():
    table = section(GPUPLAN / "index.md", "## Commands")
    rows = re.findall(r"^\| `gpuplan ([a-z-]+)` \| \[([a-z-]+)\.md\]\(([a-z-]+)\.md\) \|", table, re.MULTILINE)
    assert [r[0] for r in rows] == command_names()
    assert all(r[0] == r[1] == r[2] for r in rows)


def test_the_exit_code_table_matches_the_contract():
    table = section(GPUPLAN / "index.md", "## Exit codes")
    assert re.findall(r"^\| (\d+) \|", table, re.MULTILINE) == [str(code.value) for code in ExitCode]


def test_every_alert_has_a_runbook_page_and_no_page_is_left_over():
    assert sorted(p.stem for p in RUNBOOKS.glob("*.md")) == sorted(ALERTS)


def test_the_alert_table_links_every_runbook():
    table = section(DOCS / "monitoring" / "index.md", "## Alerts")
    linked = re.findall(r"^\| \[`(\w+)`\]\(runbooks/(\w+)\.md\) \|", table, re.MULTILINE)
    assert [a for a, _ in linked] == ALERTS and all(a == b for a, b in linked)
