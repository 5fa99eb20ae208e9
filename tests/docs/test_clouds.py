"""docs/clouds.md's table of what each provisioner does for a pending GPU pod is what
dra_gpu_platform/facts/provisioners.py says (the facts the config rules read). UPDATE_GOLDEN=1 rewrites it."""

from __future__ import annotations

import os

from tests.docs.generated import CLOUDS_BLOCKS, regenerate
from tests.docs.markdown import DOCS

PAGE = DOCS / "clouds.md"


def test_the_provisioner_table_is_current():
    if os.environ.get("UPDATE_GOLDEN"):
        regenerate(PAGE, CLOUDS_BLOCKS)
    text = PAGE.read_text(encoding="utf-8")
    assert [b.name for b in CLOUDS_BLOCKS if b.current(text) != b.generate()] == []


def test_the_table_says_karpenter_needs_1_15_for_claims():
    text = PAGE.read_text(encoding="utf-8")
    row = next(line for line in text.splitlines() if line.startswith("| `karpenter` 1.15.0"))
    assert "from zero" in row
    assert "never" in next(line for line in text.splitlines() if line.startswith("| `karpenter` 1.14.1"))
