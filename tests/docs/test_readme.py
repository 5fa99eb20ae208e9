"""README.md is the first screen: short, the two commands, what lands in build/, the stacks, one line per
gpuplan command, a layout map, links onward."""

from __future__ import annotations

import re
from pathlib import Path

from gpuplan.app import app
from tests.conftest import REFERENCE_STACKS, ROOT
from tests.docs.markdown import DOCS, README, links, section

MAX_LINES = 300


def command_names() -> list[str]:
    return sorted(c.name or c.callback.__name__ for c in app.registered_commands)


def test_readme_is_at_most_300_lines():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_LINES, f"README.md has {lines} lines; move detail to a docs/ page"


def test_readme_shows_the_two_commands_and_what_the_first_run_costs():
    text = README.read_text(encoding="utf-8")
    two = section(README, "## The two commands")
    assert "make preview" in two and "make test" in two
    # newcomers: the first run installs everything and takes minutes; afterwards the CLI is not on PATH
    assert "first run" in two.lower() and "minutes" in two
    assert "`.venv/bin/gpuplan`" in two or "**`.venv/bin/gpuplan`**" in two
    assert text.index("## The two commands") < text.index("## The stacks")


def test_readme_says_what_lands_in_build():
    build = section(README, "## What lands in `build/`")
    for path in (
        "build/<stack>/",
        "plan.json",
        "manifests/",
        "manifests/helm/<release>.values.yaml",
        "kind-config.yaml",
    ):
        assert path in build, path


def test_readme_describes_every_committed_stack():
    text = README.read_text(encoding="utf-8")
    for stack in REFERENCE_STACKS:
        assert f"`{stack}` (`stacks/Pulumi.{stack}.yaml`)" in text, stack


def test_readme_has_one_line_per_gpuplan_command_linking_its_page():
    gpuplan = section(README, "## gpuplan")
    lines = [line for line in gpuplan.split("\n") if re.match(r"^- \[`gpuplan ", line)]
    documented = [re.match(r"^- \[`gpuplan ([a-z-]+)`\]\(docs/gpuplan/([a-z-]+)\.md\)", line) for line in lines]
    assert all(documented), [line for line, m in zip(lines, documented, strict=False) if not m]
    assert [m[1] for m in documented] == command_names(), "one line per command, in `gpuplan --help` order"
    assert all(m[1] == m[2] for m in documented), "each line links its own page"


def test_readme_layout_map_names_folders_that_exist():
    block = section(README, "## Layout").split("```")[1]
    named: list[Path] = []
    parents = [ROOT]  # the folder each indentation level (two spaces) sits in
    for line in block.strip("\n").split("\n"):
        token = line.split()[0]
        depth = (len(line) - len(line.lstrip(" "))) // 2
        if not token.endswith("/") or depth >= len(parents) or line[: depth * 2].strip():
            continue  # a file list, or a description's continuation line
        folder = parents[depth] / token
        named.append(folder)
        del parents[depth + 1 :]
        parents.append(folder)
    assert {f.relative_to(ROOT).as_posix() for f in named} >= {
        "components",
        "components/dra_gpu_platform",
        "components/dra_gpu_platform/facts",
        "components/dra_gpu_platform/inputs",
        "components/dra_gpu_platform/cel",
        "components/dra_gpu_platform/config",
        "components/dra_gpu_platform/dra",
        "components/dra_gpu_platform/plans",
        "components/dra_gpu_platform/resources",
        "components/dra_gpu_platform/recorded",
        "components/dra_gpu_platform/policies",
        "components/gpuplan",
        "policies",
        "provider",
        "stacks",
        "tests",
        "bench",
        "docs",
    }
    assert [f for f in named if not f.is_dir()] == []


def test_readme_links_onward_to_every_top_level_page():
    onward = {link.target.split("#")[0] for link in links(README)}
    for page in sorted(DOCS.glob("*.md")):
        assert f"docs/{page.name}" in onward, f"README links every top-level docs page: {page.name}"
