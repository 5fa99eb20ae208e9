"""MIG layouts on one GPU's memory slices (dra_gpu_platform/dra/mig.py)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.dra.mig import ALL_BALANCED, catalog_mig_shapes, mig_layout
from dra_gpu_platform.facts import catalog


def test_all_balanced_fits_two_1g_one_2g_one_3g_on_an_a100():
    layout = mig_layout(catalog_mig_shapes(catalog.gpu_model("A100-40GB")), ALL_BALANCED)
    assert sorted(shape.profile for shape, _ in layout) == ["1g.5gb", "1g.5gb", "2g.10gb", "3g.20gb"]
    used = [i for shape, start in layout for i in range(start, start + shape.memory_slices)]
    assert len(used) == len(set(used)) and max(used) < 8


@pytest.mark.parametrize(
    "spec, message",
    [
        ("7g.40gb=1,1g.5gb=1", "does not fit"),
        ("9g.99gb", "not a MIG profile"),
        ("1g.5gb=x", "PROFILE=COUNT"),
    ],
)
def test_impossible_layouts_are_refused(spec, message):
    with pytest.raises(ValueError, match=message):
        mig_layout(catalog_mig_shapes(catalog.gpu_model("A100-40GB")), spec)
