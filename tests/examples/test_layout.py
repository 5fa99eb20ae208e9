"""examples/ as pulumi-eks keeps its examples: a folder per example with its Pulumi.yaml, its program and a README
that says what it builds, all listed in examples/README.md; the Python ones install this repository's distribution
(with the extra of their cloud) from the clone, the TypeScript one is a Node.js project."""

from __future__ import annotations

import json
import re
import tomllib

import pytest

from tests.conftest import ROOT
from tests.docs.markdown import broken, links
from tests.examples.examples import EXAMPLES, PROGRAMS, examples, folder, runtime


def test_the_examples_readme_lists_every_example_once():
    listed = re.findall(r"^\| \[([\w-]+)\]\(([\w-]+)\) \|", (EXAMPLES / "README.md").read_text(encoding="utf-8"), re.M)
    assert [name for name, target in listed if name == target] == [name for name, _ in listed]
    assert sorted(name for name, _ in listed) == examples() and len(examples()) >= 6
    assert {runtime(example) for example in examples()} == set(PROGRAMS)


@pytest.mark.parametrize("example", examples())
def test_each_example_has_its_program_and_a_readme_saying_what_it_builds(example):
    assert (folder(example) / PROGRAMS[runtime(example)]).is_file()
    readme = (folder(example) / "README.md").read_text(encoding="utf-8").split("\n")
    assert readme[0] == f"# {example}" and len(" ".join(readme[1:]).split()) >= 15


@pytest.mark.parametrize("example", examples("python"))
def test_a_python_example_installs_this_repository_with_its_clouds_extra(example):
    extras = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    )
    lines = [line for line in (folder(example) / "requirements.txt").read_text().split("\n") if line[:1] not in "#"]
    (requirement,) = [line for line in lines if line]
    path, _, wanted = re.fullmatch(r"([./]+)(\[([\w,]+)\])?", requirement).groups()
    assert (folder(example) / path).resolve() == ROOT  # pip reads it from the example's folder
    source = (folder(example) / "__main__.py").read_text(encoding="utf-8")
    needs = {"aws"} if "EksGpuNodePool" in source else {"azure"} if "AksGpuNodePool" in source else set()
    assert set((wanted or "").split(",")) - {""} == needs and needs <= extras


@pytest.mark.parametrize("example", examples("nodejs"))
def test_a_typescript_example_is_a_node_project_of_its_program(example):
    package = json.loads((folder(example) / "package.json").read_text(encoding="utf-8"))
    assert package["main"] == "index.ts" and "@pulumi/pulumi" in package["dependencies"]
    assert json.loads((folder(example) / "tsconfig.json").read_text(encoding="utf-8"))["files"] == ["index.ts"]


def test_every_link_in_the_examples_resolves():
    pages = sorted(EXAMPLES.rglob("*.md"))
    assert [f"{link.where()} {why}" for page in pages for link in links(page) if (why := broken(link))] == []
