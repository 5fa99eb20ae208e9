"""The last line of a test run: how many tests skipped and why, the reasons grouped (tests/conftest.py installs the
hook). Light on purpose: it imports nothing of the project."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"


def skip_summary(reasons: list[str]) -> str:
    """One line: how many tests skipped and why, the reasons grouped (a reason up to its first ': '; every reason
    about ../shared is one)."""
    if not reasons:
        return "skipped: none"
    groups: dict[str, int] = {}
    for reason in reasons:
        text = reason.removeprefix("Skipped: ")
        key = "../shared is absent next to the checkout" if str(SHARED) in text else text.split(": ", 1)[0]
        key = key.replace(str(ROOT) + "/", "")
        groups[key] = groups.get(key, 0) + 1
    ordered = sorted(groups.items(), key=lambda item: (-item[1], item[0]))
    return f"skipped {len(reasons)}: " + "; ".join(f"{count} {key}" for key, count in ordered)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int):
    """After pytest's own summary (so it is the run's last line): the skips, grouped by reason. Only where the
    terminal is (the xdist controller, not its workers)."""
    result = yield
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and not hasattr(session.config, "workerinput"):
        reasons = [
            str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else str(report.longrepr)
            for report in reporter.stats.get("skipped", [])
        ]
        reporter.write_line(skip_summary(reasons), yellow=bool(reasons))
    return result
