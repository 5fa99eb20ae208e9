"""Every stack file in stacks/ (the reference stacks and any a team adds) gets the generic checks: it is a valid
stack, every manifest it declares is strict-valid for its Kubernetes minor and the minor its platform can move to
next, and the policy pack passes with policies/config/<stack>.json when it exists, else each policy's default
level. Golden files, README entries and committed policy configs belong to the reference stacks only
(tests/conftest.py REFERENCE_STACKS)."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from gpuplan.checks.kube_validate import versions_for
from gpuplan.engine.sources import StackFileSource
from gpuplan.policy.runner import default_config_path, run_policies
from gpuplan.preview.stack import render_preview
from tests.conftest import ALL_STACKS, REFERENCE_STACKS, ROOT, STACKS_DIR

pytestmark = pytest.mark.stacks  # reads stacks/: selected by tests/acceptance/test_own_stack.py


def _source(stack: str) -> StackFileSource:
    return StackFileSource(stack, STACKS_DIR / f"Pulumi.{stack}.yaml")


@pytest.mark.parametrize("stack", ALL_STACKS)
def test_the_stack_is_valid(stack):
    config = load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml")
    assert config.stack == stack and config.cluster.name


@pytest.mark.parametrize("stack", ALL_STACKS)
def test_every_manifest_is_strict_valid_for_the_stacks_kubernetes_minor(stack, tmp_path):
    preview = render_preview(_source(stack), tmp_path)
    config = load_stack_file(STACKS_DIR / f"Pulumi.{stack}.yaml")
    minor = config.cluster.kubernetes_version
    # the rule preview applies, for this stack's platform: an EKS or AKS stack on the newest minor its service
    # offers has no next minor to be checked for
    assert preview.checked == versions_for(minor, config.platform) and f"{minor}.0" in preview.checked
    assert preview.manifests, f"{stack} declares no Kubernetes object"
    assert [error.render() for error in preview.errors] == []


@pytest.mark.parametrize("stack", ALL_STACKS)
def test_the_policy_pack_passes_with_the_stacks_policy_config_or_the_defaults(stack):
    committed = ROOT / "policies" / "config" / f"{stack}.json"
    assert default_config_path(stack, ROOT) == (committed if committed.exists() else None)
    report = run_policies(_source(stack), None)
    assert [f"{v.policy}: {v.urn}: {v.message}" for v in report.mandatory] == []
    assert (report.policy_config is None) == (not committed.exists())


def test_the_reference_stacks_are_stack_files_in_stacks():
    assert set(REFERENCE_STACKS) <= set(ALL_STACKS)
