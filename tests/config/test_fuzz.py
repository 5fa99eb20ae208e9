"""Hypothesis mutates valid stack files (wrong types, unknown keys, out-of-range numbers, bad names, deleted
keys): the loader either accepts the result or reports problems with a field path, never an exception,
and `gpuplan preview --config` on an invalid file exits 2 without a traceback."""

from __future__ import annotations

import copy
from typing import Any

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import parse_config_map
from dra_gpu_platform.inputs.problems import InputError
from tests.config.test_loading import EKS_BASE
from tests.conftest import KIND_BASE, load_committed, qualify, write_stack

BASES = [KIND_BASE, EKS_BASE, load_committed("dev")]

WRONG_VALUES = st.one_of(
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.booleans(),
    st.none(),
    st.text(max_size=80),
    st.sampled_from(
        ["Bad_Name", "UPPER", "-lead", "trail-", "x" * 70, "80 GiB", "1.2.3.4", "gpu.nvidia.com/nvlink-domain"]
    ),
    st.lists(st.integers(), max_size=3),
    st.dictionaries(st.text(max_size=8), st.integers(), max_size=2),
)


def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix] if prefix else []
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            out += _paths(value, (*prefix, index))
    return out


def _apply(config: dict, path: tuple, action: str, value: Any) -> dict:
    config = copy.deepcopy(config)
    parent = config
    for part in path[:-1]:
        parent = parent[part]
    last = path[-1]
    if action == "replace":
        parent[last] = value
    elif action == "delete":
        if isinstance(parent, list):
            parent.pop(last)
        else:
            parent.pop(last)
    elif action == "unknown-key":
        target = parent[last]
        if isinstance(target, dict):
            target["unexpectedKey"] = value
        else:
            parent[last] = {"unexpectedKey": value}
    return config


@st.composite
def mutated_configs(draw) -> dict:
    base = draw(st.sampled_from(BASES))
    path = draw(st.sampled_from(_paths(base)))
    action = draw(st.sampled_from(["replace", "replace", "delete", "unknown-key"]))
    return _apply(base, path, action, draw(WRONG_VALUES))


def _load(config: dict):
    return parse_config_map(qualify(config), stack="fuzz", source="Pulumi.fuzz.yaml")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_configs())
def test_loader_accepts_or_reports_paths_never_raises(config):
    try:
        _load(config)
    except InputError as error:
        assert error.problems
        for problem in error.problems:
            assert problem.file == "Pulumi.fuzz.yaml"
            assert problem.rule and problem.fix
            # every problem points at a field, except unreadable-file problems
            assert problem.path, problem


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(config=mutated_configs())
def test_cli_exits_2_with_paths_and_no_traceback(tmp_path, config):
    try:
        _load(config)
    except InputError as error:
        expected_paths = [p.where or p.path for p in error.problems]  # text names the items: nodePools[1] (t4)
    else:
        assume(False)  # still valid: nothing to check here (running the program is covered elsewhere)
    from gpuplan.app import app

    stack_file = write_stack(tmp_path, config, stack="fuzz")
    result = CliRunner().invoke(app, ["preview", "--config", str(stack_file), "--out", str(tmp_path / "out")])
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    for path in expected_paths:
        assert path in result.output
