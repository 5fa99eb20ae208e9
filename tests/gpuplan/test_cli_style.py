"""The CLI in Typer's current style: every option declared once with `typing.Annotated` and shared between the
commands, nothing done at import beyond definitions, and `gpuplan --version` from the distribution's metadata."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
import tomllib
from importlib import metadata

import typer
from typer.testing import CliRunner

from gpuplan.app import app
from tests.conftest import ROOT, SOURCE_ROOT

CLI_MODULES = sorted(
    [
        SOURCE_ROOT / "gpuplan" / "app.py",
        SOURCE_ROOT / "gpuplan" / "main.py",
        *(SOURCE_ROOT / "gpuplan" / "commands").glob("*.py"),
    ]
)
SHARED = ("--stack", "--config", "--project", "--out", "--format")


def _parameter_calls(tree: ast.AST) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == "typer"
        and node.func.attr in ("Option", "Argument")
    ]


def test_version_prints_the_distributions_version():
    expected = f"gpuplan {metadata.version('dra-gpu-platform')}"
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == expected
    process = subprocess.run([sys.executable, "-m", "gpuplan", "--version"], capture_output=True, text=True, cwd=ROOT)
    assert process.returncode == 0 and process.stdout.strip() == expected


def test_each_option_is_declared_once_and_only_in_an_annotated_alias():
    flags: dict[str, list[str]] = {}
    for module in CLI_MODULES:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for function in (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)):
            defaults = [*function.args.defaults, *function.args.kw_defaults]
            assert not [d for d in defaults if d is not None and _parameter_calls(d)], (
                f"{module.name}:{function.name}: a typer.Option/Argument as a default value (declare it with Annotated)"
            )
        for call in _parameter_calls(tree):
            declared = [a.value for a in call.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
            for flag in (f for f in declared if f.startswith("--")):
                flags.setdefault(flag, []).append(module.name)
    # `inventory --out` is its own option (an extra file, no default folder); every other flag is declared once
    assert {flag: sorted(modules) for flag, modules in flags.items() if len(modules) > 1} == {
        "--out": ["inventory.py", "options.py"]
    }
    assert all(flag in flags for flag in SHARED)
    ignores = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["ruff"]["lint"]["per-file-ignores"]
    assert not any("B008" in rules for rules in ignores.values())


def test_shared_options_mean_the_same_in_every_command():
    command = typer.main.get_command(app)
    seen: dict[str, set[str]] = {}
    for name, sub in command.commands.items():
        for parameter in sub.params:
            for flag in parameter.opts:
                if flag in SHARED and not (name == "inventory" and flag == "--out"):
                    seen.setdefault(flag, set()).add(parameter.help or "")
    assert {flag: len(texts) for flag, texts in seen.items()} == dict.fromkeys(SHARED, 1)
    takes_project = sorted(n for n, sub in command.commands.items() if any("--project" in p.opts for p in sub.params))
    # every command on one stack takes a user's program too; diff compares stack files (git revisions of them) and
    # upgrade edits them
    assert takes_project == ["fit", "inventory", "policy", "preflight", "preview", "render"]


def test_cli_modules_define_things_and_do_nothing_at_import():
    for module in CLI_MODULES:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in tree.body:
            definition = isinstance(
                node, (ast.Import, ast.ImportFrom, ast.FunctionDef, ast.ClassDef, ast.Assign, ast.AnnAssign)
            )
            docstring = isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
            # `app.command(...)(preview)`: registering a command is how a Typer app is defined
            registration = (
                isinstance(node, ast.Expr)
                and isinstance(node.value, ast.Call)
                and isinstance(node.value.func, ast.Call)
                and ast.unparse(node.value.func.func) == "app.command"
            )
            assert definition or docstring or registration, f"{module.name}:{node.lineno}: {ast.unparse(node)[:80]}"


def test_importing_the_cli_installs_no_handler_and_prints_nothing():
    code = textwrap.dedent(
        """
        import signal
        before = [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)]
        import gpuplan.app, gpuplan.main
        assert [signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)] == before
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
