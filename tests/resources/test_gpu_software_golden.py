"""Golden Helm values per committed stack: exactly what `gpuplan preview` writes to
build/<stack>/manifests/helm/<release>.values.yaml, reviewed like code. Regenerate with UPDATE_GOLDEN=1."""

from __future__ import annotations

import os
import shutil

import pytest

from gpuplan.engine.outputs import write_outputs
from tests.conftest import REFERENCE_STACKS, ROOT, STACKS_DIR, run_file

GOLDEN = ROOT / "tests" / "golden" / "helm"


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_helm_values_match_the_golden_files(stack, tmp_path):
    write_outputs(run_file(STACKS_DIR / f"Pulumi.{stack}.yaml"), tmp_path)
    written = {
        p.name: p.read_text(encoding="utf-8") for p in sorted((tmp_path / "manifests" / "helm").glob("*.values.yaml"))
    }
    assert written, f"{stack} installs no Helm release"
    golden = GOLDEN / stack
    if os.environ.get("UPDATE_GOLDEN"):
        shutil.rmtree(golden, ignore_errors=True)
        golden.mkdir(parents=True)
        for name, text in written.items():
            (golden / name).write_text(text, encoding="utf-8")
    assert golden.is_dir(), f"no golden Helm values for {stack}: run with UPDATE_GOLDEN=1 and review them"
    expected = {p.name: p.read_text(encoding="utf-8") for p in sorted(golden.glob("*.values.yaml"))}
    assert sorted(written) == sorted(expected), "the set of Helm releases changed"
    for name, text in written.items():
        assert text == expected[name], f"{stack}/{name} changed: review, then UPDATE_GOLDEN=1"
