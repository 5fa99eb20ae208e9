"""docs/library.md stays true to the library: its table of the finer components' `from_sections` arguments names
each component's descriptor's arguments (dra_gpu_platform/config/descriptors.py). Its programs live in examples/ and
are tested there (tests/examples)."""

from __future__ import annotations

import re

from dra_gpu_platform.config.descriptors import BY_NAME
from tests.docs.markdown import DOCS

PAGE = DOCS / "library.md"


def test_the_finer_components_table_lists_each_descriptors_arguments():
    rows = re.findall(r"^\| `(\w+)`, `\w+Args` \| (.*?) \|", PAGE.read_text(encoding="utf-8"), re.MULTILINE)
    assert [name for name, _ in rows] == list(BY_NAME)
    for name, cell in rows:
        assert set(re.findall(r"`(\w+)`", cell)) == {a.name for a in BY_NAME[name].arguments}, name
