"""`make test` ends with one line saying how many tests skipped and why (tests/conftest.py), grouped by reason."""

from __future__ import annotations

import pytest

from tests.skip_summary import ROOT, SHARED, skip_summary

pytest_plugins = ["pytester"]


def test_reasons_are_grouped_on_one_line():
    line = skip_summary(
        [
            f"Skipped: {SHARED}/fixtures/nvml/h200 is absent: the shared H200 NVML dump is read from ../shared",
            f"Skipped: {SHARED}/upstream-specs is absent: upstream manifests are read from ../shared",
            "Skipped: no helm for the render tests: the dev dependency is not installed",
            f"{SHARED}/metaschema.json is absent: Pulumi's metaschema is read from ../shared",
        ]
    )
    assert line == ("skipped 4: 3 ../shared is absent next to the checkout; 1 no helm for the render tests")
    assert "\n" not in line and str(ROOT) not in line
    assert skip_summary([]) == "skipped: none"


def test_the_line_is_the_last_of_the_run(pytester: pytest.Pytester):
    pytester.makeconftest("from tests.skip_summary import pytest_sessionfinish  # noqa: F401\n")
    pytester.makepyfile(
        """
        import pytest

        def test_runs():
            pass

        @pytest.mark.parametrize("n", [1, 2])
        def test_needs_a_gpu(n):
            pytest.skip("no GPU here: the live NVML test needs one")
        """
    )
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider", "-p", "no:xdist")
    lines = [line for line in result.outlines if line.strip()]
    assert lines[-1] == "skipped 2: 2 no GPU here", lines
    assert "1 passed, 2 skipped" in lines[-2]
