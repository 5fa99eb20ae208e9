"""The component package's Construct under mocks: the committed stacks passed as GpuPlatform's inputs register
exactly what `gpuplan preview` records for them, and a bad input is one property error naming every bad input,
with nothing registered."""

from __future__ import annotations

import copy
import re

import pulumi
import pytest
import yaml

from dra_gpu_platform.config.loading import load_stack_file, read_stack_file
from gpuplan.engine.sources import StackFileSource
from tests.conftest import REFERENCE_STACKS, ROOT, STACKS_DIR, run_config
from tests.docs.test_configuration import EXAMPLE_MARKER
from tests.provider.construct import component_inputs, construct
from tests.resources.test_existing_nodes import STACK as EXISTING_STACK


@pytest.mark.parametrize("stack", REFERENCE_STACKS)
def test_a_committed_stack_as_inputs_registers_what_gpuplan_preview_records(stack):
    path = STACKS_DIR / f"Pulumi.{stack}.yaml"
    config = load_stack_file(path)
    inputs, secrets = component_inputs(read_stack_file(path))
    built = construct(inputs, name=config.cluster.name, config=config, stack=stack, secrets=secrets)
    assert built.error is None
    reference = StackFileSource.of(path).run().resources
    assert [(r.type, r.name) for r in built.registrations] == [(r.type, r.name) for r in reference]
    assert built.registrations == reference  # URNs, parents, providers, dependencies, options and inputs too
    assert set(built.state) == {"kubeconfig", "deviceClassNames", "namespaceNames"}


def test_an_existing_cluster_takes_its_kubeconfig_as_a_secret_input(tmp_path):
    reference = run_config(tmp_path, EXISTING_STACK, "lab")
    inputs, secrets = component_inputs({f"dra-gpu-platform:{k}": v for k, v in EXISTING_STACK.items()})
    assert set(secrets) == {"kubeconfig"}
    built = construct(inputs, name="lab", config=reference.config, stack="lab", secrets=secrets)
    assert built.error is None
    assert built.registrations == reference.resources


def test_every_section_with_lists_and_maps_of_enums_and_integers_registers_what_gpuplan_preview_records(tmp_path):
    # The complete example of docs/configuration.md sets every section; exporters are a list of enum values, which
    # the SDK's own mapping would turn into empty objects (provider/package.py).
    text = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    example = yaml.safe_load(re.findall(re.escape(EXAMPLE_MARKER) + r"\n```yaml\n(.*?)```", text, re.DOTALL)[0])
    values = example["config"]
    values["dra-gpu-platform:monitoring"]["externalSources"] = ["kube-state-metrics", "kubelet"]
    reference = run_config(tmp_path, values, "example")
    assert reference.config.monitoring.external_sources == ["kube-state-metrics", "kubelet"]
    inputs, _ = component_inputs(values)
    built = construct(inputs, name="gpu-example", config=reference.config, stack="example")
    assert built.error is None
    assert built.registrations == reference.resources


def _dev_inputs():
    path = STACKS_DIR / "Pulumi.dev.yaml"
    return component_inputs(read_stack_file(path))[0], load_stack_file(path)


def _errors(built) -> dict[str, str]:
    assert isinstance(built.error, pulumi.InputPropertiesError), built.error
    assert built.registrations == [], "a bad input registers nothing, not even GpuPlatform"
    return {e["property_path"]: e["reason"] for e in built.error.errors}


def test_a_missing_cluster_is_a_property_error_on_cluster():
    inputs, config = _dev_inputs()
    del inputs["cluster"]
    errors = _errors(construct(inputs, name="gpu-dev", config=config))
    assert list(errors) == ["cluster"]
    assert "required" in errors["cluster"]


def test_every_bad_input_is_named_at_once():
    inputs, config = _dev_inputs()
    inputs = copy.deepcopy(inputs)
    inputs["nodePools"][0]["minNodes"] = 5  # maxNodes is 2
    inputs["deviceClasses"][0]["selectors"] = [""]
    inputs["namespaces"][2]["migration"] = "sideways"  # not an enum value: the SDK alone would stop here
    del inputs["maintenance"]["deviceTaints"][0]["driver"]  # a missing required key: the SDK would stop here too
    inputs["monitoring"]["claimPending"] = 3  # keys the schema does not have: the SDK would drop them
    inputs["nodepools"] = []
    built = construct(inputs, name="gpu-dev", config=config)
    errors = _errors(built)
    assert {
        "nodePools[0].minNodes",
        "deviceClasses[0].selectors[0]",
        "namespaces[2].migration",
        "maintenance.deviceTaints[0].driver",
        "monitoring.claimPending",
        "nodepools",
    } == set(errors), errors
    assert "maxNodes" in errors["nodePools[0].minNodes"] and "5" in errors["nodePools[0].minNodes"]
    message = str(built.error)
    assert message.startswith("6 problems in the inputs of GpuPlatform gpu-dev:")
    # each path as text shows it: the items it passes through named (`nodePools[0] (h100).minNodes`)
    named = {path: re.escape(path).replace(r"\]", r"\](?: \([^)]*\))?") for path in errors}
    assert all(re.search(f"GpuPlatform gpu-dev: {pattern} =", message) for pattern in named.values()), message


def test_integers_come_back_only_where_the_model_types_an_integer():
    inputs, config = _dev_inputs()
    inputs = copy.deepcopy(inputs)
    inputs["monitoring"] = {"claimPendingMinutes": 2.5, "idleGpuMinutes": 90.0}  # 90.0 arrives as 90: fine
    inputs["cluster"]["name"] = 7  # a whole number where the model wants text stays a number: a problem
    errors = _errors(construct(inputs, name="gpu-dev", config=config))
    assert set(errors) == {"monitoring.claimPendingMinutes", "cluster.name"}
    assert "whole number" in errors["monitoring.claimPendingMinutes"]


def test_a_section_value_known_only_later_is_a_problem_at_its_path():
    inputs, config = _dev_inputs()

    def later(sent):
        sent["monitoring"] = {"idleGpuMinutes": pulumi.Output.from_input(90)}
        sent["region"] = pulumi.Output.secret("us-east-1")

    errors = _errors(construct(inputs, name="gpu-dev", config=config, edit=later))
    assert set(errors) == {"monitoring.idleGpuMinutes", "region"}
    assert "must be known when the program runs" in errors["region"]


def test_an_existing_cluster_without_its_kubeconfig_names_the_kubeconfig_input():
    inputs, _ = component_inputs({f"dra-gpu-platform:{k}": v for k, v in EXISTING_STACK.items()})
    _, config = _dev_inputs()
    errors = _errors(construct(inputs, name="lab", config=config))
    assert list(errors) == ["kubeconfig"]


def test_an_eks_cluster_without_its_region_names_the_region_input():
    path = STACKS_DIR / "Pulumi.prod.yaml"
    inputs, _ = component_inputs(read_stack_file(path))
    del inputs["region"]
    errors = _errors(construct(inputs, name="gpu-prod", config=load_stack_file(path)))
    assert list(errors) == ["region"]
