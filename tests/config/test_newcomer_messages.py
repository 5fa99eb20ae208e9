"""What a newcomer reads must exist in their clone: no message cites the team's reference notes (clouds.md 6,
dra.md 1.2: not in the repository); an existing-cluster stack without a kubeconfig is told the offline
placeholder; a plaintext kubeconfig in a stack file is warned about, in `pulumi up` and in `gpuplan preview`."""

from __future__ import annotations

import ast
import copy
import json
import re

from typer.testing import CliRunner

from components.config.loading import parse_config_map, plaintext_secret_warnings
from components.config.problems import InputError
from gpuplan.cli.app import app
from tests.conftest import ROOT, qualify, write_stack

TEAM_NOTES = re.compile(r"\b(clouds|dra|offline-testing|style-anchors)\.md\b")
EXISTING = {
    "cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"},
    "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 1, "gpusPerNode": 8}],
}


def _strings_users_see(path):
    """String constants of a module that are not docstrings (comments are not in the AST at all)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
            yield node.lineno, node.value


def test_no_message_cites_notes_a_clone_does_not_have():
    cited = [f"{path.relative_to(ROOT)}:{line}: {text[:80]}"
             for package in ("components", "gpuplan", "policies") for path in sorted((ROOT / package).rglob("*.py"))
             for line, text in _strings_users_see(path) if TEAM_NOTES.search(text)]
    assert cited == []


def test_an_existing_cluster_without_kubeconfig_is_told_the_offline_placeholder():
    try:
        parse_config_map(qualify(copy.deepcopy(EXISTING)), stack="lab", source="Pulumi.lab.yaml")
    except InputError as error:
        [problem] = [p for p in error.problems if p.path == "kubeconfig"]
    assert "pulumi config set --secret kubeconfig" in problem.fix and "--stack lab" in problem.fix
    assert "{secure: v1:offline-placeholder}" in problem.fix


def test_plaintext_secrets_are_warned_about_and_secret_ones_are_not():
    values = {"dra-gpu-platform:kubeconfig": "apiVersion: v1\nclusters: []\n"}
    [warning] = plaintext_secret_warnings(values, lambda key: False, stack="lab", source="Pulumi.lab.yaml")
    assert "stored in plaintext" in warning and "--secret kubeconfig" in warning and "offline-placeholder" in warning
    assert plaintext_secret_warnings(values, lambda key: True, stack="lab", source="s") == []
    assert plaintext_secret_warnings({}, lambda key: False, stack="lab", source="s") == []


def test_preview_shows_the_plaintext_kubeconfig_warning(tmp_path):
    config = {**copy.deepcopy(EXISTING), "kubeconfig": "apiVersion: v1\nkind: Config\n"}
    result = CliRunner().invoke(app, ["preview", "--config", str(write_stack(tmp_path, config, "lab")),
                                      "--out", str(tmp_path / "out"), "--format", "json"])
    assert result.exit_code == 0, result.output
    assert any("dra-gpu-platform:kubeconfig is stored in plaintext" in note for note in json.loads(result.stdout)["notes"])
