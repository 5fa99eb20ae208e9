"""Drive the component provider's Construct in-process under Pulumi's mocks, as the engine would: the inputs
cross a protobuf Struct (so every number arrives as a float) and secrets arrive as secret Outputs."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pulumi
from google.protobuf import struct_pb2
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings

from dra_gpu_platform.config.models import PROJECT, StackConfig
from dra_gpu_platform.plans.stack import plan_stack
from gpuplan.engine import mock_outputs
from gpuplan.engine.runtime import RecordingMonitor, Registration
from provider.package import PACKAGE, GpuPlatformProvider

TOKEN = f"{PACKAGE}:index:GpuPlatform"
REGION_KEYS = ("aws:region", "azure-native:location")


@functools.cache
def hosting_provider() -> GpuPlatformProvider:
    """One provider for every test, as the plugin has one: analysing the components reads their sources (~0.5 s)."""
    return GpuPlatformProvider()


class Mocks(pulumi_mocks.Mocks):
    """The resource outputs gpuplan's engine gives the same stack (gpuplan/engine/mock_outputs.py)."""

    def __init__(self, config: StackConfig):
        self.scope = mock_outputs.CloudScope.of(plan_stack(config))

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        state = dict(args.inputs)
        state.update(mock_outputs.outputs_for(args.typ, args.name, args.inputs, self.scope))
        return f"{args.name}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        return mock_outputs.invoke(args.token, args.args, self.scope)


@dataclass
class Constructed:
    registrations: list[Registration]
    state: dict[str, Any]
    error: Exception | None


def component_inputs(stack_config: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A stack file's `config:` map as GpuPlatform's inputs: the project's sections by their keys and the region;
    secret values (`{secure: ...}`) apart, as the stand-in text gpuplan's engine gives them offline."""
    inputs: dict[str, Any] = {}
    secrets: dict[str, str] = {}
    for key, value in stack_config.items():
        namespace, _, name = key.rpartition(":")
        if key in REGION_KEYS:
            inputs["region"] = value
        elif namespace == PROJECT and isinstance(value, dict) and set(value) == {"secure"}:
            secrets[name] = f"offline-placeholder-for-{key}"
        elif namespace == PROJECT:
            inputs[name] = value
    return inputs, secrets


def over_the_wire(inputs: dict[str, Any]) -> dict[str, Any]:
    """What the provider's server deserializes from a ConstructRequest (pulumi/provider/server.py): a Struct."""
    struct = struct_pb2.Struct()
    struct.update(inputs)
    return rpc.deserialize_properties(struct, keep_unknowns=True)


def construct(
    inputs: dict[str, Any],
    *,
    name: str,
    config: StackConfig,
    stack: str = "test",
    secrets: dict[str, str] | None = None,
    edit: Callable[[dict[str, Any]], None] | None = None,
) -> Constructed:
    """Construct GpuPlatform `name` from `inputs` (plus `secrets` as secret Outputs; `edit` may change what is sent,
    inside the runtime, e.g. to put an Output somewhere); `config` only feeds the mocks' resource outputs."""
    mocks = Mocks(config)
    monitor = RecordingMonitor(mocks)
    settings.ROOT.set(None)  # a fresh root Stack per run
    pulumi_mocks.set_mocks(mocks, project=PROJECT, stack=stack, preview=True, monitor=monitor)
    done: dict[str, Any] = {"state": {}, "error": None}

    @pulumi.runtime.test
    def run():
        sent = over_the_wire(inputs)
        sent.update({key: pulumi.Output.secret(value) for key, value in (secrets or {}).items()})
        if edit is not None:
            edit(sent)
        try:
            result = hosting_provider().construct(name, TOKEN, sent, pulumi.ResourceOptions())
        except (pulumi.InputPropertiesError, pulumi.InputPropertyError) as error:
            done["error"] = error
            return None
        done["state"] = result.state
        return pulumi.Output.from_input(result.urn)

    run()
    registrations = [r for r in monitor.registrations if r.type != "pulumi:pulumi:Stack"]
    return Constructed(sorted(registrations, key=lambda r: r.urn), done["state"], done["error"])
