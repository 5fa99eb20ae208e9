"""The private SDK APIs gpuplan and the policy pack rely on (each use site says why no public API serves).
These tests fail loudly when an SDK upgrade changes one of them."""

from __future__ import annotations

import inspect

from pulumi.runtime import rpc
from pulumi.runtime.stack import Stack
from pulumi_policy import EnforcementLevel
from pulumi_policy.policy import _PolicyAnalyzerServicer
from pulumi_policy.proxy import _DictProxy, _ListProxy


def test_secret_signature_constants_are_the_wire_protocol_values():
    # pulumi/pulumi sdk/proto: the special signature key and the secret signature of the property protocol
    assert rpc._special_sig_key == "4dabf18193072939515e22adb298388d"
    assert rpc._special_secret_sig == "1b47061264138c4ac30d75fd1eb44270"


def test_stack_can_register_outputs_after_set_mocks():
    assert "_finish" in vars(Stack) and list(inspect.signature(Stack._finish).parameters) == ["self"]
    source = inspect.getsource(Stack)
    assert "self._outputs_registered = False" in source and "if self._outputs_registered:" in source


def test_policy_analyzer_servicer_has_the_calls_the_offline_runner_makes():
    parameters = list(inspect.signature(_PolicyAnalyzerServicer.__init__).parameters)
    assert parameters[:5] == ["self", "name", "version", "policies", "enforcement_level"]
    for method in ("Configure", "Remediate", "Analyze", "AnalyzeStack", "_map_enforcement_level"):
        assert callable(getattr(_PolicyAnalyzerServicer, method)), method
    from dra_gpu_platform.policies.pack import POLICIES

    servicer = _PolicyAnalyzerServicer("p", "0.0.1", list(POLICIES), EnforcementLevel.ADVISORY)
    assert servicer._map_enforcement_level(EnforcementLevel.MANDATORY) != servicer._map_enforcement_level(
        EnforcementLevel.ADVISORY
    )


def test_policy_proxies_keep_their_raw_escape_hatch():
    target = {"a": {"b": 1}}
    assert _DictProxy(target, [])["__target"] is target
    items = [1, 2]
    assert _ListProxy(items, [])["__target"] is items


def test_registrations_take_their_stack_trace_from_the_module_function_gpuplan_replaces_offline():
    # gpuplan/engine/runtime.py record_run swaps pulumi.runtime.resource._get_stack_trace for an empty StackTrace
    # while the program runs (the recording monitor reads no source position)
    from pulumi.runtime import resource as runtime_resource
    from pulumi.runtime.proto import source_pb2

    assert list(inspect.signature(runtime_resource._get_stack_trace).parameters) == []
    assert isinstance(runtime_resource._get_stack_trace(), source_pb2.StackTrace)
    for function in (runtime_resource.register_resource, runtime_resource.read_resource):
        assert "stack_trace = _get_stack_trace()" in inspect.getsource(function), function.__name__


def test_a_program_run_puts_the_sdks_stack_trace_back():
    from pulumi.runtime import resource as runtime_resource

    from tests.conftest import STACKS_DIR, run_file

    before = runtime_resource._get_stack_trace
    assert run_file(STACKS_DIR / "Pulumi.dev.yaml").resources
    assert runtime_resource._get_stack_trace is before
