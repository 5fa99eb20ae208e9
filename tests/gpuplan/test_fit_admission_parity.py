"""The ValidatingAdmissionPolicies and bindings the stack program records for the reference stacks (what `gpuplan
preview` runs, read back from the registered inputs) are, field for field as the API server runs them, the policies
`gpuplan fit` evaluates from the plan (gpuplan/fit/admission.py `validating_policy`): the two can never drift."""

from __future__ import annotations

import pytest

from dra_gpu_platform.config.loading import load_stack_file
from dra_gpu_platform.dra.admission import policy_from_manifests
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.fit.admission import StackAdmission, validating_policy
from tests.conftest import REFERENCE_STACKS, STACKS_DIR, clean_inputs, run_file


def recorded(run, kind: str) -> list[dict]:
    return [inputs for r in run.resources if (inputs := clean_inputs(r)).get("kind") == kind]


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_recorded_policies_are_what_fit_evaluates(stack):
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    run = run_file(path)
    plan = plan_stack(load_stack_file(path))
    bindings = {b["spec"]["policyName"]: b for b in recorded(run, "ValidatingAdmissionPolicyBinding")}
    policies = recorded(run, "ValidatingAdmissionPolicy")
    assert len(bindings) == len(policies)
    found = {p["metadata"]["name"]: policy_from_manifests(p, bindings[p["metadata"]["name"]]) for p in policies}
    planned = {
        p.name: validating_policy(p) for p in (plan.admission_policy, *plan.workload_policies, *plan.tenancy_policies)
    }
    assert found == planned
    # what fit runs on every pod and workload is exactly the recorded pod guards, in the plan's order
    admission = StackAdmission.of(plan, 35, {}, {}, {}, extended_resource=False)
    assert admission.validating == [found[p.name] for p in (plan.admission_policy, *plan.workload_policies)]
    assert {p.name for p in admission.validating} >= {"gpu-dra-only", "gpu-dra-only-workloads"}
