"""Hypothesis mutates valid stack files (wrong types, unknown keys, out-of-range numbers, bad names, deleted
keys): the loader either accepts the result or reports problems with a field path, never an exception,
and `gpuplan preview --config` on an invalid file exits 2 without a traceback."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file, parse_config_map, read_stack_file
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
    stack_file = write_stack(tmp_path, config, stack="fuzz")
    expected_paths = _file_problem_paths(stack_file)
    assume(expected_paths)  # still valid: nothing to check here (running the program is covered elsewhere)
    result = _preview(stack_file, tmp_path / "out")
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    for path in expected_paths:
        assert path in result.output


def test_the_cli_names_the_problems_of_the_file_not_of_the_dict_it_was_written_from(tmp_path):
    """The case the fuzzer found: a label value beyond 64 bits is an int in the dict but not in the file (Pulumi
    reads the file as go-yaml does, a float there: dra_gpu_platform/inputs/strict_yaml.py), so the dict's problems
    are not the file's. The empty key beside it is named at `labels[""]` whatever the values hold."""
    config = load_committed("dev")
    config["nodePools"][0]["labels"] = {"": 2**70, "team": 5}
    stack_file = write_stack(tmp_path, config, stack="fuzz")
    assert read_stack_file(stack_file)["dra-gpu-platform:nodePools"][0]["labels"] == {"": float(2**70), "team": 5}
    with pytest.raises(InputError) as from_file:
        load_stack_file(stack_file)
    assert {(p.where, p.rule) for p in from_file.value.problems} == {
        ('nodePools[0] (dra-workers).labels[""]', "label key '' is not a valid Kubernetes label key"),
        ('nodePools[0] (dra-workers).labels[""]', "must be a string"),
        ("nodePools[0] (dra-workers).labels.team", "must be a string"),
    }
    result = _preview(stack_file, tmp_path / "out")
    assert result.exit_code == 2, result.output
    for problem in from_file.value.problems:
        assert f"{problem.where} = " in result.output and problem.rule in result.output


def _file_problem_paths(stack_file: Path) -> list[str]:
    """Where the problems of the stack file are, read as the CLI reads it; [] when it is valid. The file, not the
    dict it was written from: the two can differ (see the test above)."""
    try:
        load_stack_file(stack_file)
    except InputError as error:
        return [p.where or p.path for p in error.problems]  # text names the items: nodePools[1] (t4)
    return []


def _preview(stack_file: Path, out: Path):
    from gpuplan.app import app

    return CliRunner().invoke(app, ["preview", "--config", str(stack_file), "--out", str(out)])
