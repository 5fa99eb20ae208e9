"""config compiles CEL selectors with dra.cel, the one exception to the layers (pyproject.toml): it holds only while
dra.cel stays a self-contained engine that imports nothing from config, plans or resources."""

from __future__ import annotations

import grimp

from dra_gpu_platform.config import fields

FORBIDDEN = ("dra_gpu_platform.config", "dra_gpu_platform.plans", "dra_gpu_platform.resources")


def test_dra_cel_imports_nothing_from_config_plans_or_resources():
    graph = grimp.build_graph("dra_gpu_platform")
    needed = graph.find_upstream_modules("dra_gpu_platform.dra.cel", as_package=True)
    assert needed, "the graph sees what dra.cel imports"
    assert sorted(m for m in needed if m.startswith(FORBIDDEN)) == []
    # and config reaches the rest of dra through nothing but dra.cel
    dra = {
        target
        for module in graph.find_children("dra_gpu_platform.config") | graph.find_descendants("dra_gpu_platform.config")
        for target in graph.find_modules_directly_imported_by(module)
        if target.startswith("dra_gpu_platform.dra")
    }
    assert dra == {"dra_gpu_platform.dra.cel"}


def test_the_config_compiles_with_the_engine_the_policy_pack_uses():
    from dra_gpu_platform.dra import cel

    assert fields.compile_selector is cel.compile_selector
