"""A team adds its own stack files to stacks/, as the README says: `make test` keeps passing. A scratch copy of the
repository with more valid stack files runs every test that reads stacks/ (marker `stacks`) with this same
interpreter; each extra stack gets the generic checks, the reference stacks their golden files as before. The
extras are what teams write: a newcomer's kind stack, and stacks on the newest minor their cloud offers (EKS 1.36
and AKS 1.36, which have no next minor to be checked for) and on kind 1.37. The test itself is not marked, so the
copy never runs it again."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT, write_stack

SEEDS = ROOT / "tests" / "seed_stacks"

# What a newcomer writes first: a kind cluster with one DRA pool, a class and one namespace that uses it.
EXTRA_STACK = {
    "cluster": {"platform": "kind", "name": "lab", "kubernetesVersion": "1.35", "kind": {"gpuDriver": "example"}},
    "nodePools": [{"name": "dra", "gpu": "H100", "maxNodes": 1}],
    "deviceClasses": [{"name": "any-gpu", "minMemory": "40Gi"}],
    "namespaces": [
        {
            "name": "team-a",
            "migration": "dra-only",
            "quota": {"claims": 2, "devices": {"any-gpu": 2}},
            "claimTemplates": [{"name": "one", "deviceClass": "any-gpu"}],
        }
    ],
}
# A team's stacks on the newest minor each platform offers (copies of tests/seed_stacks, under the team's names).
NEWEST_MINOR_STACKS = {
    "team-eks": SEEDS / "Pulumi.eks-136-bridge.yaml",
    "team-aks": SEEDS / "Pulumi.aks-136-migrating.yaml",
    "team-kind": SEEDS / "Pulumi.kind-137.yaml",
}
EXTRA_STACKS = ("lab", *NEWEST_MINOR_STACKS)
SKIPPED_DIRS = {".git", ".venv", ".tools", "build", "__pycache__", ".hypothesis", ".pytest_cache", ".ruff_cache"}


def repository_files() -> list[Path]:
    """The checkout's files as a clone has them: tracked and untracked-but-not-ignored (git), else a walk."""
    if (ROOT / ".git").exists() and shutil.which("git"):
        listed = subprocess.run(
            ["git", "-C", str(ROOT), "ls-files", "-co", "--exclude-standard", "-z"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        return [Path(name) for name in listed.split("\0") if name and (ROOT / name).is_file()]
    return [
        path.relative_to(ROOT)
        for path in ROOT.rglob("*")
        if path.is_file() and not SKIPPED_DIRS.intersection(path.relative_to(ROOT).parts)
    ]


def test_a_scratch_copy_with_more_stacks_passes_every_test_that_reads_stacks(tmp_path):
    copy = tmp_path / "repository"
    for relative in repository_files():
        (copy / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / relative, copy / relative)
    write_stack(copy / "stacks", EXTRA_STACK, "lab")
    for stack, seed in NEWEST_MINOR_STACKS.items():
        shutil.copy2(seed, copy / "stacks" / f"Pulumi.{stack}.yaml")
    # Only the modules that hold such tests are collected (collecting the whole suite costs seconds).
    modules = sorted(
        str(path.relative_to(copy))
        for path in (copy / "tests").rglob("test_*.py")
        if "pytest.mark.stacks" in path.read_text(encoding="utf-8")
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "PYTHONPATH"))}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-m", "stacks", "-n", "0", "-vv", "-p", "no:cacheprovider", *modules],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    output = result.stdout + result.stderr
    assert result.returncode == 0, output[-6000:]
    for stack in EXTRA_STACKS:
        for check in (
            "test_the_stack_is_valid",
            "test_every_manifest_is_strict_valid_for_the_stacks_kubernetes_minor",
            "test_the_policy_pack_passes_with_the_stacks_policy_config_or_the_defaults",
        ):
            assert f"test_every_stack.py::{check}[{stack}] PASSED" in output, (stack, check)
    # (-vv: pytest.ini's -q takes one back.) The reference stacks keep their golden checks; nothing else sees the
    # extras.
    assert "test_urns.py::test_urns_match_the_golden_list[prod] PASSED" in output
    assert [
        line
        for line in output.splitlines()
        if any(f"[{stack}]" in line for stack in EXTRA_STACKS) and "test_every_stack.py" not in line
    ] == []
