"""Identity is sacred: a golden list of URNs per committed stack, and reordering any list in a stack file
changes no URN (logical names come from stable names, never list positions)."""

from __future__ import annotations

import copy
import os

import pytest

from tests.conftest import REFERENCE_STACKS, ROOT, STACKS_DIR, clean_inputs, load_committed, run_config, run_file

GOLDEN = ROOT / "tests" / "golden" / "urns"
ORDER_MATTERS = {"firstAvailable", "selectors", "publicAccessCidrs", "subnetIds"}  # meaning, not identity


def _reverse_lists(node, key=None):
    if isinstance(node, dict):
        return {k: _reverse_lists(v, k) for k, v in node.items()}
    if isinstance(node, list):
        items = [_reverse_lists(v) for v in node]
        return items if key in ORDER_MATTERS else items[::-1]
    return node


@pytest.fixture(scope="module")
def runs():
    return {stack: run_file(STACKS_DIR / f"Pulumi.{stack}.yaml") for stack in REFERENCE_STACKS}


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_urns_match_the_golden_list(runs, stack):
    urns = "".join(f"{r.urn}\n" for r in runs[stack].resources)
    golden = GOLDEN / f"{stack}.txt"
    if os.environ.get("UPDATE_GOLDEN"):
        golden.write_text(urns)
    assert golden.exists(), f"no golden URN list for {stack}: run with UPDATE_GOLDEN=1 and review it"
    assert urns == golden.read_text(), "URNs changed: a changed URN replaces infrastructure; add an alias or revert"


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_reordering_the_stack_file_changes_no_urn(runs, stack, tmp_path):
    config = load_committed(stack)
    reordered = _reverse_lists(copy.deepcopy(config))
    assert reordered != config  # the stack has lists to reorder
    run = run_config(tmp_path, reordered, stack=stack)
    assert [r.urn for r in run.resources] == [r.urn for r in runs[stack].resources]
    # and no input changes either: reordering is not even an update (the kind config is laid out by name)
    before = {r.urn: clean_inputs(r) for r in runs[stack].resources}
    assert {r.urn: clean_inputs(r) for r in run.resources} == before
