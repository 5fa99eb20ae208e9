"""gpuplan's text for people and pipes (gpuplan/output/layout.py): at 80, 100 and 200 columns every line fits the
width unless it is one word longer than it (a URN), no name or value is cut ("…"), and in a pipe nothing is
broken at all; a long selector is printed once and named afterwards; diff shows where two long strings differ;
the live status shows on a terminal only."""

from __future__ import annotations

import copy
import io
import json
import re

import pytest
from rich.cells import cell_len
from rich.console import Console
from typer.testing import CliRunner

from gpuplan.app import app
from gpuplan.diff.text import change_text
from gpuplan.output import emit, layout
from gpuplan.output.emit import OutputFormat
from gpuplan.preview.tree import render_tree
from tests.conftest import KIND_BASE, STACKS_DIR, run_file, write_stack

ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
WIDTHS = (80, 100, 200)


@pytest.fixture(scope="module")
def prod_run():
    return run_file(STACKS_DIR / "Pulumi.prod.yaml")


def _lines(text: str) -> list[str]:
    return [ANSI.sub("", line) for line in text.splitlines()]


def _fits(lines: list[str], width: int) -> list[str]:
    """The lines wider than `width` that are not one unbreakable word after their indentation and tree drawing."""
    return [line for line in lines if cell_len(line) > width and len(re.sub(r"^[+\s│├└─]*", "", line).split()) > 1]


def _terminal(width: int) -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, width=width, force_terminal=True, highlight=False), buffer


@pytest.mark.parametrize("width", WIDTHS)
def test_the_resource_tree_fits_the_terminal_and_cuts_no_name(prod_run, width):
    console, buffer = _terminal(width)
    render_tree(prod_run, console)
    lines = _lines(buffer.getvalue())
    assert not _fits(lines, width), _fits(lines, width)
    text = "\n".join(lines)
    assert "…" not in text
    for resource in prod_run.resources:  # every name and type whole, on one line
        assert any(resource.name in line for line in lines), resource.name
        assert any(resource.type in line for line in lines), resource.type
    if width == 200:  # wide enough: one aligned line per resource
        assert len([line for line in lines if line.startswith("+ ")]) == len(prod_run.resources) + 1


def test_in_a_pipe_the_tree_is_laid_out_for_100_columns_and_other_lines_stay_whole(prod_run, monkeypatch):
    buffer = io.StringIO()
    monkeypatch.setattr("sys.stdout", buffer)
    console = emit.console()  # what gpuplan prints with when stdout is no terminal
    assert not console.is_terminal and not layout.breaks_lines(console)
    render_tree(prod_run, console)
    note = "note: " + " ".join(f"word{i}" for i in range(60))  # 400 characters
    emit.say(console, note, style="yellow", lead=5)
    lines = buffer.getvalue().splitlines()
    tree = lines[:-1]
    assert not _fits(tree, layout.PIPE_WIDTH), _fits(tree, layout.PIPE_WIDTH)
    assert lines[-1] == note  # one line, however long: grep finds it whole
    assert "…" not in buffer.getvalue() and "\x1b[" not in buffer.getvalue()


@pytest.mark.parametrize("width", WIDTHS)
def test_on_a_terminal_text_breaks_at_spaces_under_its_first_word(width):
    console, buffer = _terminal(width)
    text = "note: pool h100-train: " + " ".join(f"word{i}" for i in range(60))
    emit.say(console, text, style="yellow", lead=5)
    lines = _lines(buffer.getvalue())
    assert all(cell_len(line) <= width for line in lines)
    assert lines[0].startswith("note: pool h100-train:") and all(line.startswith("      w") for line in lines[1:])
    assert " ".join(line.strip() for line in lines) == text


def _long_selector_stack(tmp_path):
    config = copy.deepcopy(KIND_BASE)
    selector = (
        "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL' && "
        "device.attributes['gpu.example.com'].index >= 100"
    )
    config["deviceClasses"] = [{"name": "big", "selectors": [selector]}]
    config["namespaces"][0]["claimTemplates"] = [
        {"name": "one", "deviceClass": "big"},
        {"name": "two", "deviceClass": "big", "count": 2},
    ]
    return write_stack(tmp_path, config, "longsel"), selector


@pytest.mark.parametrize("width", (80, None))
def test_fit_prints_a_long_selector_once_and_fits_the_width(tmp_path, width):
    stack, selector = _long_selector_stack(tmp_path)
    env = {"COLUMNS": str(width), "FORCE_COLOR": "1"} if width else {}
    result = CliRunner().invoke(app, ["fit", "--config", str(stack), "--out", str(tmp_path / "out")], env=env)
    assert result.exit_code == 1, result.output  # the claims cannot be placed: findings
    text = "\n".join(_lines(result.stdout))
    flat = re.sub(r"\s+", " ", text)
    assert flat.count(re.sub(r"\s+", " ", selector)) == 1, text  # said once...
    assert re.search(r"\bS1\b(?! `)", text), text  # ...and named afterwards
    for claim in ("team-a/one", "team-a/two"):
        assert claim in text
    if width:
        assert not _fits(text.splitlines(), width), _fits(text.splitlines(), width)


def test_legend_names_each_long_text_once():
    legend = layout.Legend(min_length=10)
    first = legend.shorten("a `device.driver == 'x'` b")
    again = legend.shorten("c `device.driver == 'x'` d `short` e `device.driver == 'y'`")
    assert first == "a S1 `device.driver == 'x'` b"
    assert again == "c S1 d `short` e S2 `device.driver == 'y'`"


def test_diff_shows_where_two_long_strings_differ():
    old = (
        "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].productName == "
        "'NVIDIA H100 80GB HBM3' && device.capacity['gpu.nvidia.com'].memory.compareTo(quantity('79Gi')) >= 0"
    )
    new = old.replace("NVIDIA H100 80GB HBM3", "NVIDIA H200")
    shown = change_text(old, new)
    before, after = shown.split(" → ")
    assert before != after and "H100 80GB HBM3" in before and "H200" in after
    assert before.startswith("[") and "same]" in before  # the shared beginning counted, not repeated
    assert len(shown) < len(old)
    assert change_text("short", "other") == "short → other"
    assert change_text({"a": 1}, {"a": 2}) == '{"a": 1} → {"a": 2}'


def test_policy_text_fits_the_width(tmp_path):
    width = 80
    env = {"COLUMNS": str(width), "FORCE_COLOR": "1"}
    result = CliRunner().invoke(app, ["policy", "--stack", "dev", "--out", str(tmp_path)], env=env)
    lines = _lines(result.stdout)
    assert lines and not _fits(lines, width), _fits(lines, width)
    assert "…" not in result.stdout


def test_the_table_helper_keeps_names_whole_where_the_width_allows():
    rows = [["ml-research/inference", "fits", "dra-workers (gpu/big-gpu)", "15"]]
    console, buffer = _terminal(60)
    console.print(layout.table(["claim", "result", "pools", "at once"], rows, 60, whole=("result", "at once")))
    lines = _lines(buffer.getvalue())
    assert all(cell_len(line) <= 60 for line in lines)
    assert any("ml-research/inference" in line for line in lines) and "…" not in buffer.getvalue()


def test_the_live_status_shows_on_a_terminal_only(monkeypatch):
    buffer = io.StringIO()
    terminal = Console(file=buffer, force_terminal=True, width=100)
    monkeypatch.setattr(emit, "error_console", lambda: terminal)
    with emit.status(OutputFormat.text, "running the program offline") as step:
        step("validating manifests")
    assert "validating manifests" in buffer.getvalue() or "running the program" in buffer.getvalue()
    for fmt, console in ((OutputFormat.json, terminal), (OutputFormat.text, Console(file=io.StringIO()))):
        buffer.truncate(0)
        monkeypatch.setattr(emit, "error_console", lambda console=console: console)
        with emit.status(fmt, "quiet") as step:
            step("still quiet")
        assert "quiet" not in buffer.getvalue() and "quiet" not in console.file.getvalue()


def test_json_output_has_no_status_or_colour(tmp_path):
    result = CliRunner().invoke(
        app, ["fit", "--stack", "dev", "--format", "json", "--out", str(tmp_path)], env={"FORCE_COLOR": "1"}
    )
    assert result.exit_code == 0, result.output
    json.loads(result.stdout)


COMMANDS = ["", "diff", "fit", "inventory", "policy", "preflight", "preview", "render"]
# What typer's rich help prints for an annotation where no metavar is set: gpuplan's help names none.
TYPE_NAMES = re.compile(r"<(bool|str|int|float|path|Path|list\[[^>]*\]|text\|json)>|<list\[|\[\[")


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("command", COMMANDS)
def test_help_names_no_python_type_and_cuts_no_word(command, width, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    result = CliRunner().invoke(app, [*command.split(), "--help"], terminal_width=width)
    assert result.exit_code == 0, result.output
    text = _lines(result.output)
    assert not [line for line in text if TYPE_NAMES.search(line)], [line for line in text if TYPE_NAMES.search(line)]
    assert "…" not in result.output, [line for line in text if "…" in line]
    assert all(cell_len(line) <= width for line in text), [line for line in text if cell_len(line) > width]
    if command:
        flat = re.sub(r"\s+", " ", "\n".join(text))
        assert "--help Show this message and exit." in flat.replace("│", " ").replace("  ", " ")
        assert re.search(r"--format\s+\[text\|json\]", flat), flat
        assert re.search(r"--stack\s+NAME", flat) and re.search(r"--out\s+DIR", flat), flat


def test_help_shows_metavars_and_the_argument_once():
    result = CliRunner().invoke(app, ["fit", "--help"], terminal_width=200)
    assert "Usage: gpuplan fit [OPTIONS] [FILE]..." in result.output
    for shown in ("--claims", "FILE...", "--config", "FILE", "--project", "DIR", "--inventory", "--kubernetes-version"):
        assert shown in result.output
    assert re.search(r"--version\s+Print gpuplan's version", CliRunner().invoke(app, ["--help"]).output)


@pytest.mark.parametrize("width", (80, 100))
def test_command_descriptions_are_reflowed(width):
    """No description line ends where the docstring's line ended: each paragraph is one line for the terminal."""
    result = CliRunner().invoke(app, ["--help"], terminal_width=width, env={"COLUMNS": str(width)})
    rows = [line.strip("│ ").rstrip() for line in _lines(result.output)]
    # the diff description wraps at the width: "delete per resource" follows "replace," on the same line
    joined = " ".join(row for row in rows)
    assert "create, update, replace, delete per resource" in re.sub(r"\s+", " ", joined)
    assert not any(row.endswith("replace,") and len(row) < width - 20 for row in rows), rows
