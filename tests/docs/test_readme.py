"""README stays true: the two commands, every committed stack, every gpuplan command, the generated
config reference."""

from __future__ import annotations

import os
import re

from components.config.reference import config_reference
from gpuplan.cli.app import app
from tests.conftest import COMMITTED_STACKS, ROOT

README = ROOT / "README.md"
BEGIN = "<!-- BEGIN CONFIG REFERENCE"
END = "<!-- END CONFIG REFERENCE -->"


def test_readme_shows_the_two_setup_commands():
    text = README.read_text()
    assert "make preview" in text and "make test" in text


def test_readme_describes_every_committed_stack():
    text = README.read_text()
    for stack in COMMITTED_STACKS:
        assert f"`{stack}` (`stacks/Pulumi.{stack}.yaml`)" in text, stack


def test_readme_documents_every_gpuplan_command():
    text = README.read_text()
    for command in app.registered_commands:
        name = command.name or command.callback.__name__
        assert f"### `gpuplan {name}`" in text, name


def test_config_reference_is_generated_from_the_models():
    text = README.read_text()
    start = text.index(BEGIN)
    start = text.index("-->", start) + len("-->\n")
    end = text.index(END)
    generated = config_reference() + "\n"
    if os.environ.get("UPDATE_GOLDEN"):
        README.write_text(text[:start] + generated + text[end:])
        text = README.read_text()
        end = text.index(END)
    assert text[start:end] == generated, "README config reference is stale: rerun with UPDATE_GOLDEN=1"
    # every documented key is a real field (no invented config keys in the docs)
    assert re.search(r"`nodePools\[\]\.gpuStack`", generated)
