"""One loader, two doors: the config the Pulumi program reads from the runtime equals the config gpuplan
reads from the stack file, for every committed stack (so preview and `pulumi up` never disagree)."""

from __future__ import annotations

import pulumi
import pytest
from pulumi.runtime import mocks

from dra_gpu_platform.config.loading import load_stack_file, read_stack_file
from dra_gpu_platform.inputs.problems import InputError
from dra_gpu_platform.program import load_stack_config
from gpuplan.engine.runtime import runtime_config_from_file
from tests.conftest import REFERENCE_STACKS, STACKS_DIR, write_stack


class _NoMocks(mocks.Mocks):
    def new_resource(self, args):
        return f"{args.name}-id", args.inputs

    def call(self, args):
        return {}


def _from_runtime(stack: str, path):
    runtime, secrets = runtime_config_from_file(read_stack_file(path))
    mocks.set_mocks(_NoMocks(), project="dra-gpu-platform", stack=stack, preview=True)
    pulumi.runtime.set_all_config(runtime, secrets)
    return load_stack_config()


@pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py
@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_program_and_gpuplan_read_the_same_config(stack):
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    from_file = load_stack_file(path)
    from_runtime = _from_runtime(stack, path)
    # the source differs only in how the path is spelled
    assert from_runtime.model_copy(update={"source": ""}) == from_file.model_copy(update={"source": ""})


def test_program_turns_config_problems_into_a_clean_run_error(tmp_path):
    path = write_stack(
        tmp_path, {"cluster": {"platform": "kind", "name": "Bad_Name", "kubernetesVersion": "1.35"}}, stack="bad"
    )
    with pytest.raises(InputError):
        load_stack_file(path)
    with pytest.raises(pulumi.RunError) as caught:
        _from_runtime("bad", path)
    assert "stacks/Pulumi.bad.yaml: cluster.name = 'Bad_Name'" in str(caught.value)
    assert "Traceback" not in str(caught.value)
