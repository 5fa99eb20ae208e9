"""Wall time of the whole test suite, once: `pytest -q -n 2` (the CI invocation on two cores)."""

from __future__ import annotations

from xml.etree import ElementTree

from bench import measure

TARGET_S = 60.0


def _counts(report) -> dict[str, int]:
    """Test counts from the JUnit report (pytest.ini's -q plus -q hides pytest's own summary line)."""
    try:
        root = ElementTree.parse(report).getroot()
    except (OSError, ElementTree.ParseError):
        return {}
    suite = root if root.tag == "testsuite" else root.find("testsuite")
    if suite is None:
        return {}
    total, failures, errors, skipped = (int(suite.get(k, 0)) for k in ("tests", "failures", "errors", "skipped"))
    return {"passed": total - failures - errors - skipped, "failed": failures, "errors": errors, "skipped": skipped}


def run() -> dict:
    report = measure.WORK / "suite-junit.xml"
    report.unlink(missing_ok=True)
    sample, _ = measure.run([measure.PYTHON, "-m", "pytest", "-q", "-n", "2", f"--junitxml={report}"], timeout=1800)
    counts = _counts(report)
    return {
        "command": "pytest -q -n 2",
        "wall_s": round(sample.wall_s, 2),
        "cpu_s": round(sample.cpu_s, 2),  # the xdist workers are children of pytest: counted when reaped
        "exit_code": sample.returncode,
        "counts": counts,
        "summary": ", ".join(f"{n} {kind}" for kind, n in counts.items() if n) or "no JUnit report",
        "target_s": TARGET_S,
        "met": sample.wall_s < TARGET_S,
    }
