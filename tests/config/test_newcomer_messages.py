"""What a newcomer meets: an existing-cluster stack without a kubeconfig is told the offline placeholder; a
plaintext kubeconfig in a stack file is warned about, in `pulumi up` and in `gpuplan preview`. (That messages cite
only docs a clone has is tests/docs/test_citations.py.)"""

from __future__ import annotations

import copy
import json

from typer.testing import CliRunner

from dra_gpu_platform.config.loading import parse_config_map, plaintext_secret_warnings
from dra_gpu_platform.inputs.problems import InputError
from gpuplan.app import app
from tests.conftest import qualify, write_stack

EXISTING = {
    "cluster": {"platform": "existing", "name": "lab", "kubernetesVersion": "1.35"},
    "nodePools": [{"name": "h100", "gpu": "H100", "maxNodes": 1, "gpusPerNode": 8}],
}


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
    result = CliRunner().invoke(
        app,
        [
            "preview",
            "--config",
            str(write_stack(tmp_path, config, "lab")),
            "--out",
            str(tmp_path / "out"),
            "--format",
            "json",
        ],
    )
    assert result.exit_code == 0, result.output
    assert any(
        "dra-gpu-platform:kubeconfig is stored in plaintext" in note for note in json.loads(result.stdout)["notes"]
    )
