"""Hypothesis over the *text* of stack and claim files, not over parsed values: the committed stack files with
lines inserted, repeated, dropped, re-indented, characters and bytes replaced, YAML oddities spliced in (anchors,
aliases, merge keys, tags, directives, document markers, tabs, flow brackets, control characters, invalid UTF-8).
The loaders return a config or raise InputError whose every problem has a rule and a fix, never anything else;
the CLI exits 0 or 2 with exactly one JSON document, never a traceback, never exit 3."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from gpuplan.fit.inputs import read_documents
from tests.conftest import STACKS_DIR, UPSTREAM_SPECS

SEEDS = [p.read_bytes() for p in sorted(STACKS_DIR.glob("Pulumi.*.yaml"))]
CLAIM_SEEDS = [p.read_bytes() for p in sorted(UPSTREAM_SPECS.rglob("*.yaml"))[:6]] or [
    b"apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\nmetadata: {name: a}\nspec:\n  devices:\n"
    b"    requests: [{name: gpu, exactly: {deviceClassName: gpu.nvidia.com}}]\n"
]
FRAGMENTS = [
    "  x: &a {k: v}",
    "  y: *a",
    "  <<: *a",
    "  z: *missing",
    "- &b [1, *b]",
    "  ? complex\n  : key",
    "%YAML 1.1",
    "---",
    "...",
    "\t",
    "  key: value\n  key: again",
    "  maxNodes: true",
    "  protect: yes",
    "  protect: 'on'",
    "  name: !!binary aGVsbG8=",
    "  tag: !Custom x",
    "  flow: {a: [1, 2",
    "  ]",
    "'",
    '"',
    "  - - - -",
    "  deep: " + "[" * 70 + "]" * 70,
    "  big: 1" + "0" * 5000,
    '  esc: "\\ud800"',
    "  nul: \x00",
    "  bell: \x07",
    "dra-gpu-platform:cluster: null",
    "config: []",
    "  aws:region: mars-north-9",
    "  123: numeric key",
    "  kubernetesVersion: 1.3",
    "  kubernetesVersion: [1]",
    "  labels: {a b: c}",
    "  gpu: " + "H" * 3000,
    "  =: x",
    "  maxNodes: 0x10",
    "  maxNodes: 010",
    "  minNodes: -1_0",
    "  when: 2001-12-14t21:59:43.10-05:00",
]


@st.composite
def mutated_text(draw, seeds: list[bytes]) -> bytes:
    lines = draw(st.sampled_from(seeds)).split(b"\n")
    for _ in range(draw(st.integers(min_value=1, max_value=4))):
        at = draw(st.integers(min_value=0, max_value=max(0, len(lines) - 1)))
        action = draw(st.sampled_from(["insert", "insert", "repeat", "drop", "indent", "char", "byte"]))
        if action == "insert":
            lines.insert(at, draw(st.sampled_from(FRAGMENTS)).encode("utf-8"))
        elif action == "repeat" and lines:
            lines.insert(at, lines[at])
        elif action == "drop" and len(lines) > 1:
            lines.pop(at)
        elif action == "indent" and lines:
            lines[at] = b" " * draw(st.integers(min_value=0, max_value=7)) + lines[at].lstrip()
        elif action == "char" and lines and lines[at]:
            column = draw(st.integers(min_value=0, max_value=len(lines[at]) - 1))
            char = draw(st.characters(codec="utf-8")).encode("utf-8")
            lines[at] = lines[at][:column] + char + lines[at][column + 1 :]
        elif action == "byte" and lines:
            lines[at] = lines[at] + bytes([draw(st.integers(min_value=0x80, max_value=0xFF))])
    return b"\n".join(lines)


def _write(directory: str, text: bytes, name: str = "Pulumi.fuzz.yaml") -> Path:
    path = Path(directory) / name
    path.write_bytes(text)
    return path


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_text(SEEDS))
def test_the_stack_loader_returns_a_config_or_input_problems(text):
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, text)
        try:
            load_stack_file(path)
        except InputError as error:
            assert error.problems
            for problem in error.problems:
                assert problem.file == str(path) and problem.rule and problem.fix
                assert len(problem.render()) < 3_000  # long values are cut, even a 3,000-character GPU name
                json.dumps(problem.as_json())


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_text(SEEDS))
def test_the_cli_answers_any_stack_text_with_exit_0_or_2_and_one_json_document(text):
    with tempfile.TemporaryDirectory() as directory:
        path = _write(directory, text)
        # inventory --config loads, validates and plans the stack without running the Pulumi program: cheap enough
        # to fuzz, and the same loader every command starts with.
        result = CliRunner().invoke(app, ["inventory", "--config", str(path), "--format", "json"])
        assert result.exit_code in (0, 2), result.output
        assert "Traceback" not in result.output
        document = json.loads(result.stdout)
        assert ("errors" in document) == (result.exit_code == 2)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(mutated_text(CLAIM_SEEDS))
def test_the_claim_file_reader_returns_documents_or_problems(text):
    with tempfile.TemporaryDirectory() as directory:
        documents, problems = read_documents(_write(directory, text, "claims.yaml"))
        assert not (documents and problems)
        assert all(p.rule and p.fix for p in problems)
