"""docs/configuration.md stays true: its generated tables are what the models and the catalog say today, and
its example stack files are valid stack files. UPDATE_GOLDEN=1 rewrites the generated tables."""

from __future__ import annotations

import os
import re

import pytest
import yaml

from dra_gpu_platform.config import parse_config_map
from dra_gpu_platform.config.loading import SECTIONS
from gpuplan.engine.runtime import runtime_config_from_file
from tests.docs.generated import CONFIGURATION_BLOCKS, regenerate
from tests.docs.markdown import DOCS

PAGE = DOCS / "configuration.md"
EXAMPLE_MARKER = "<!-- example stack file: tests load it -->"


def test_generated_tables_are_current():
    if os.environ.get("UPDATE_GOLDEN"):
        regenerate(PAGE)
    text = PAGE.read_text(encoding="utf-8")
    stale = [b.name for b in CONFIGURATION_BLOCKS if b.current(text) != b.generate()]
    assert stale == [], f"docs/configuration.md is stale in {stale}: rerun the tests with UPDATE_GOLDEN=1"


def test_the_reference_documents_real_keys_only():
    text = PAGE.read_text(encoding="utf-8")
    reference = next(b for b in CONFIGURATION_BLOCKS if b.name == "config-reference").current(text)
    assert [f"dra-gpu-platform:{key}" for key in SECTIONS] == re.findall(
        r"^### `(dra-gpu-platform:\w+)`", reference, re.MULTILINE
    )
    assert "`nodePools[].gpuStack`" in reference


def test_the_defaults_table_says_what_a_pool_of_one_gpu_key_becomes():
    text = PAGE.read_text(encoding="utf-8")
    defaults = next(b for b in CONFIGURATION_BLOCKS if b.name == "gpu-defaults").current(text)
    # the newcomer's surprise: an H100 pool on AKS is 8 GPUs per node
    assert "| `H100` |" in defaults and "`Standard_ND96isr_H100_v5` (8 × H100, 96 vCPUs)" in defaults


def _examples() -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    blocks = re.findall(re.escape(EXAMPLE_MARKER) + r"\n```yaml\n(.*?)```", text, re.DOTALL)
    assert len(blocks) == text.count(EXAMPLE_MARKER) >= 2
    return blocks


@pytest.mark.parametrize("index", range(2))
def test_example_stack_files_are_valid(index):
    document = yaml.safe_load(_examples()[index])
    config = parse_config_map(document["config"], stack="example", source="docs/configuration.md")
    assert config.cluster.name


def test_the_complete_example_sets_every_section():
    document = yaml.safe_load(_examples()[0])
    keys = {k.split(":", 1)[1] for k in document["config"] if k.startswith("dra-gpu-platform:")}
    assert keys == set(SECTIONS), f"missing: {set(SECTIONS) - keys}"


def test_the_existing_cluster_example_runs_offline_with_a_secret_placeholder():
    document = yaml.safe_load(_examples()[1])
    values = document["config"]
    assert values["dra-gpu-platform:cluster"]["platform"] == "existing"
    assert set(values["dra-gpu-platform:kubeconfig"]) == {"secure"}, "the example never shows a plaintext kubeconfig"
    runtime, secret_keys = runtime_config_from_file(values)
    assert secret_keys == ["dra-gpu-platform:kubeconfig"]
    assert "v1:offline-placeholder" not in runtime["dra-gpu-platform:kubeconfig"], "offline runs never see ciphertext"
