"""The layout is a contract: the import direction (import-linter), no import cycles (function-level imports
included), no hand-written module over 700 lines, and no Pulumi SDK below dra_gpu_platform.resources."""

from __future__ import annotations

import ast
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from provider.generate import GENERATED_MARK
from tests.conftest import ROOT, SOURCE_ROOT, module_name

MAX_MODULE_LINES = 700  # the library, gpuplan and provider alike: modules split by job (issue 32)
# Generated code says so in its first line (Go's convention, "Code generated ... DO NOT EDIT."); its size is the
# generator's business.
GENERATED = re.compile(r"^# Code generated .* DO NOT EDIT\.$")
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")


def _modules() -> dict[str, Path]:
    """Every module by its import name: the packages under the source root, and provider/ (not installed: its
    modules import each other as the `provider` package, provider/__main__.py)."""
    found = {module_name(path): path for path in sorted(SOURCE_ROOT.rglob("*.py"))}
    for path in sorted((ROOT / "provider").rglob("*.py")):
        relative = path.relative_to(ROOT).with_suffix("").parts
        found[".".join(relative[:-1] if relative[-1] == "__init__" else relative)] = path
    return found


def _imports(path: Path, module: str, known: set[str]) -> set[str]:
    """Every repository module `path` imports, wherever the import statement is (module level, function, class)."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    edges: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            targets = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base for alias in node.names]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != module:
                edges.add(target)
    return edges


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycles_function_level_imports_included():
    modules = _modules()
    graph = {name: _imports(path, name, set(modules)) for name, path in modules.items()}
    assert _cycles(graph) == []


def test_the_cycle_finder_sees_a_function_level_cycle(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "a.py").write_text("from pkg import b\n")
    (tmp_path / "pkg" / "b.py").write_text("def late():\n    from pkg.a import thing\n")
    known = {"pkg", "pkg.a", "pkg.b"}
    graph = {m: _imports(tmp_path / Path(*m.split(".")).with_suffix(".py"), m, known) for m in ("pkg.a", "pkg.b")}
    assert _cycles(graph) == [["pkg.a", "pkg.b"]]


def _hand_written(path: Path) -> bool:
    first = path.read_text(encoding="utf-8").split("\n", 1)[0]
    return not GENERATED.match(first)


def test_no_hand_written_module_is_longer_than_700_lines():
    long = {
        name: n
        for name, path in _modules().items()
        if _hand_written(path) and (n := len(path.read_text().splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_the_generated_provider_modules_carry_the_mark_the_cap_skips():
    assert GENERATED.match(GENERATED_MARK)
    marked = sorted(name for name, path in _modules().items() if not _hand_written(path))
    assert marked == ["provider.input_types", "provider.inputs"]


def _lint_imports(root: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache"], cwd=root, capture_output=True, text=True, timeout=120, env=env
    )


def test_import_contracts_are_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "BROKEN" not in result.stdout and "6 kept, 0 broken" in result.stdout


@pytest.mark.parametrize(
    "module, bad_import, contract",
    [
        ("dra_gpu_platform/facts/_scratch.py", "from dra_gpu_platform.resources import platform", "package layers"),
        ("dra_gpu_platform/plans/_scratch.py", "import pulumi_kubernetes", "pure layers import no Pulumi SDK"),
        ("dra_gpu_platform/dra/_scratch.py", "import gpuplan.app", "nothing imports gpuplan from the package"),
        ("dra_gpu_platform/cel/_scratch.py", "from dra_gpu_platform.config import models", "package layers"),
        ("dra_gpu_platform/inputs/_scratch.py", "from dra_gpu_platform.cel import Device", "package layers"),
        ("dra_gpu_platform/dra/_scratch.py", "from dra_gpu_platform.config import models", "package layers"),
        ("dra_gpu_platform/recorded/_scratch.py", "from dra_gpu_platform.resources import platform", "package layers"),
        ("dra_gpu_platform/config/_scratch.py", "from dra_gpu_platform.dra import allocator", "package layers"),
        (
            "dra_gpu_platform/policies/rules/_scratch.py",
            "from dra_gpu_platform.resources import platform",
            "the policy pack imports the pure layers only",
        ),
        (
            "dra_gpu_platform/resources/_scratch.py",
            "from dra_gpu_platform.config.models import StackConfig",
            "resources never import config",
        ),
        # gpuplan: nothing runs back up (the engine never reaches the commands' options, the output toolkit never the
        # engine, a lower feature never a higher one) and sibling features stay apart
        ("gpuplan/engine/_scratch.py", "from gpuplan.commands import options", "gpuplan in one direction"),
        ("gpuplan/output/_scratch.py", "from gpuplan.engine import runtime", "gpuplan in one direction"),
        ("gpuplan/commands/_scratch.py", "import gpuplan.app", "gpuplan in one direction"),
        ("gpuplan/preview/_scratch.py", "from gpuplan.render import stack", "gpuplan in one direction"),
        ("gpuplan/diff/_scratch.py", "from gpuplan.policy import runner", "gpuplan in one direction"),
    ],
)
def test_a_deliberate_bad_import_breaks_the_contract(tmp_path, module, bad_import, contract):
    # A scratch copy of the source root, put first on the path ahead of the editable install's (this checkout's).
    shutil.copytree(SOURCE_ROOT, tmp_path / "components", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "components" / module).write_text(f"{bad_import}\n")
    result = _lint_imports(tmp_path, {**os.environ, "PYTHONPATH": str(tmp_path / "components")})
    assert result.returncode == 1, result.stdout
    assert f"{contract}" in result.stdout and "BROKEN" in result.stdout


def test_package_inits_list_their_public_modules():
    """Each package that exports its modules lists exactly the public ones (a new module joins the list)."""
    for init in sorted(ROOT.glob("*/**/__init__.py")):
        text = init.read_text(encoding="utf-8")
        if "the public modules of this package" not in text:
            continue
        package = init.parent
        public = sorted(
            p.stem
            for p in package.iterdir()
            if (p.suffix == ".py" and p.stem not in ("__init__",) and not p.stem.startswith("_"))
            or (p.is_dir() and (p / "__init__.py").exists())
        )
        listed = ast.literal_eval(text.split("__all__ = ", 1)[1].split("  #", 1)[0])
        assert listed == public, init.relative_to(ROOT)
