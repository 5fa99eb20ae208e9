"""Runs a Pulumi program offline under Pulumi's mock runtime and records every registration: the package's stack
program (`dra_gpu_platform.program.run`) on a stack file's config and plan (read, validated and planned once by
gpuplan/engine/sources.py), or a user's own program (gpuplan/engine/user_program.py).

The recording monitor keeps what `pulumi preview` would know about each resource: type, name, parent,
provider, dependencies (explicit and through outputs), protect and the other resource options, and the
inputs. URNs are built the way the Pulumi engine builds them (the parent's full qualified type chain,
the root Stack left out), so names here equal the names a real `pulumi up` records.
"""

from __future__ import annotations

import gc
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pulumi
from pulumi.runtime import config as runtime_config
from pulumi.runtime import mocks as pulumi_mocks
from pulumi.runtime import rpc, settings

from dra_gpu_platform.config.loading import plaintext_secret_warnings
from dra_gpu_platform.config.models import PROJECT, StackConfig
from dra_gpu_platform.facts.type_tokens import Upstream
from dra_gpu_platform.plans.stack import StackPlan
from gpuplan.engine import mock_outputs
from gpuplan.engine.mock_outputs import CloudScope

SECRET = "[secret]"
# Garbage-collector thresholds while a program runs (defaults 700/10/10); see record_run.
GC_THRESHOLDS = (10_000, 50, 100)
STACK_TYPE = Upstream.STACK


@dataclass
class Registration:
    urn: str
    type: str
    name: str
    custom: bool
    parent: str
    provider: str  # provider URN ("" = default provider)
    dependencies: list[str]
    protect: bool
    inputs: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    state: dict[str, Any] = field(default_factory=dict)
    property_dependencies: dict[str, list[str]] = field(default_factory=dict)  # input property -> URNs


@dataclass(frozen=True)
class Read:
    """An existing object the program reads (`Resource.get`): `pulumi up` fails when it is missing."""

    type: str
    name: str
    id: str
    parent: str


@dataclass
class ProgramRun:
    stack: str
    project: str
    # The stack's validated config: the stack file's, or what a user's program built its GpuPlatform from (None
    # when it built none: only the recorded resources are known).
    config: StackConfig | None
    source: str  # the stack file, or the user's program
    resources: list[Registration]
    outputs: dict[str, Any]
    logs: list[tuple[str, str]]  # (severity, message)
    reads: list[Read] = field(default_factory=list)
    # The StackPlan the program's GpuPlatform was built from (None when it built none).
    plan: StackPlan | None = None

    def by_urn(self) -> dict[str, Registration]:
        return {r.urn: r for r in self.resources}

    def of_type(self, *types: str) -> list[Registration]:
        return [r for r in self.resources if r.type in types]


class ProgramError(Exception):
    """The program stopped with a pulumi.RunError (a clean, user-facing message)."""


class _Mocks(pulumi_mocks.Mocks):
    """Answers as the cloud would, for the scope known when the answer is asked for (a user's program names its
    region and cluster when it builds its GpuPlatform, after the run has started)."""

    def __init__(self, scope: Callable[[], CloudScope]):
        self.scope = scope

    def new_resource(self, args: pulumi_mocks.MockResourceArgs):
        state = dict(args.inputs)
        state.update(mock_outputs.outputs_for(args.typ, args.name, args.inputs, self.scope()))
        return f"{args.name}-id", state

    def call(self, args: pulumi_mocks.MockCallArgs):
        return mock_outputs.invoke(args.token, args.args, self.scope())


class RecordingMonitor(pulumi_mocks.MockMonitor):
    def __init__(self, mocks: pulumi_mocks.Mocks):
        super().__init__(mocks)
        self.registrations: list[Registration] = []
        self.reads: list[Read] = []
        self.stack_outputs: dict[str, Any] = {}
        self.stack_urn = ""
        self._types: dict[str, str] = {}  # urn -> qualified type chain

    def make_urn(self, parent: str, type_: str, name: str) -> str:
        qualified = type_
        parent_type = self._types.get(parent, "")
        if parent and parent_type and parent_type != STACK_TYPE:
            qualified = f"{parent_type}${type_}"
        urn = "urn:pulumi:" + "::".join([settings.get_stack(), settings.get_project(), qualified, name])
        self._types[urn] = qualified
        return urn

    def ReadResource(self, request):
        response = super().ReadResource(request)
        parent = "" if request.parent == self.stack_urn else request.parent
        self.reads.append(Read(type=request.type, name=request.name, id=request.id, parent=parent))
        return response

    def RegisterResource(self, request):
        response = super().RegisterResource(request)
        if request.type == STACK_TYPE:
            self.stack_urn = response.urn
            return response
        inputs = rpc.deserialize_properties(request.object)
        dependencies = set(request.dependencies)
        for urns in request.propertyDependencies.values():
            dependencies.update(urns.urns)
        dependencies.discard("")
        registered = self.resources.get(response.urn)
        self.registrations.append(
            Registration(
                urn=response.urn,
                type=request.type,
                name=request.name,
                custom=bool(request.custom),
                parent="" if request.parent == self.stack_urn else request.parent,
                provider=request.provider.rsplit("::", 1)[0] if request.provider else "",
                dependencies=sorted(dependencies),
                protect=bool(request.protect),
                inputs=inputs,
                options=_options(request),
                state=dict(registered.state) if registered else {},
                property_dependencies={
                    key: sorted(value.urns) for key, value in request.propertyDependencies.items() if value.urns
                },
            )
        )
        return response

    def RegisterResourceOutputs(self, request):
        if request.urn == self.stack_urn:
            self.stack_outputs = rpc.deserialize_properties(request.outputs)
        return super().RegisterResourceOutputs(request)


def _options(request) -> dict[str, Any]:
    options: dict[str, Any] = {}
    timeouts = request.customTimeouts
    if timeouts.create or timeouts.update or timeouts.delete:
        options["customTimeouts"] = {
            k: v
            for k, v in (("create", timeouts.create), ("update", timeouts.update), ("delete", timeouts.delete))
            if v
        }
    if request.ignoreChanges:
        options["ignoreChanges"] = sorted(request.ignoreChanges)
    if request.replaceOnChanges:
        options["replaceOnChanges"] = sorted(request.replaceOnChanges)
    if request.additionalSecretOutputs:
        options["additionalSecretOutputs"] = sorted(request.additionalSecretOutputs)
    if request.deleteBeforeReplace:
        options["deleteBeforeReplace"] = True
    if request.retainOnDelete:
        options["retainOnDelete"] = True
    aliases = [a.urn or _alias_spec(a.spec) for a in request.aliases]
    aliases += list(request.aliasURNs)
    if aliases:
        options["aliases"] = sorted(a for a in aliases if a)
    return options


def _alias_spec(spec) -> str:
    parts = [f"{k}={getattr(spec, k)}" for k in ("name", "type", "stack", "project") if getattr(spec, k, "")]
    if spec.parentUrn:
        parts.append(f"parent={spec.parentUrn}")
    if spec.noParent:
        parts.append("noParent")
    return "alias(" + ",".join(parts) + ")"


class _LogCollector(logging.Handler):
    def __init__(self):
        super().__init__(level=logging.INFO)
        self.records: list[tuple[str, str]] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append((record.levelname.lower(), record.getMessage()))


def runtime_config_from_file(values: Mapping[str, Any], project: str = PROJECT) -> tuple[dict[str, str], list[str]]:
    """Stack-file config → what the Pulumi CLI hands the program: qualified keys (a bare key belongs to the
    project), JSON-encoded non-strings. Encrypted secrets cannot be read offline and get a placeholder (marked
    secret)."""
    runtime: dict[str, str] = {}
    secret_keys: list[str] = []
    for key, value in values.items():
        qualified = key if ":" in key else f"{project}:{key}"
        if isinstance(value, dict) and set(value) == {"secure"}:
            runtime[qualified] = f"offline-placeholder-for-{qualified}"
            secret_keys.append(qualified)
        else:
            runtime[qualified] = value if isinstance(value, str) else json.dumps(value)
    return runtime, secret_keys


@dataclass
class Recording:
    """What one program run under the mocks left: its registrations, reads, stack outputs and logs."""

    resources: list[Registration]
    reads: list[Read]
    outputs: dict[str, Any]
    logs: list[tuple[str, str]]


def record_run(
    program: Callable[[], None],
    *,
    project: str,
    stack: str,
    runtime: dict[str, str],
    secret_keys: list[str],
    scope: Callable[[], CloudScope],
) -> Recording:
    """Run `program` under the mock runtime with the stack's runtime config (so `pulumi.Config` reads work as
    under `pulumi up`) and record everything it registers. A pulumi.RunError becomes ProgramError; InputError and
    every other exception pass through."""
    mocks = _Mocks(scope)
    monitor = RecordingMonitor(mocks)
    collector = _LogCollector()
    logger = logging.getLogger(f"gpuplan.engine.runtime.{stack}")
    logger.handlers = [collector]
    logger.propagate = False
    logger.setLevel(logging.INFO)

    settings.ROOT.set(None)  # a fresh root Stack per run: runs in one process never share state
    pulumi_mocks.set_mocks(mocks, project=project, stack=stack, preview=True, monitor=monitor, logger=logger)
    pulumi.runtime.set_all_config(runtime, secret_keys)

    @pulumi.runtime.test
    def _run():
        program()
        # set_mocks finished the root Stack before the program exported anything; register the
        # exports now so they reach the monitor like a real run's stack outputs. Private SDK API (Stack._finish,
        # Stack._outputs_registered, pulumi 3.272): no public call registers stack outputs after set_mocks has
        # created the root Stack. tests/test_private_sdk_apis.py fails when the SDK changes either.
        root = settings.get_root_resource()
        root._outputs_registered = False
        root._finish()

    # The mock runtime allocates hundreds of thousands of short-lived asyncio and Output objects; with the
    # default thresholds the collector runs thousands of times and its full passes walk every loaded SDK class
    # (a third of a 2,000-object preview, bench/RESULTS.md). Fewer collections; the memory peak is unchanged.
    thresholds = gc.get_threshold()
    gc.set_threshold(*GC_THRESHOLDS)
    try:
        _run()
    except pulumi.RunError as error:
        raise ProgramError(str(error)) from None
    finally:
        gc.set_threshold(*thresholds)
        logger.handlers = []
    return Recording(
        sorted(monitor.registrations, key=lambda r: r.urn),
        sorted(monitor.reads, key=lambda r: (r.type, r.name)),
        monitor.stack_outputs,
        collector.records,
    )


def run_stack_program(source: str, values: Mapping[str, Any], config: StackConfig, plan: StackPlan) -> ProgramRun:
    """Run the package's stack program (`dra_gpu_platform.program.run`) under mocks on a stack file's validated
    StackConfig and its StackPlan, both made once by gpuplan/engine/sources.py (the one place a stack file is read,
    validated and planned; `values` is its config map). The stack file's config is also the runtime config, so what
    the program reads with `pulumi.Config` (the kubeconfig secret) is there. Raises ProgramError (the program
    refused the config). Nothing here depends on where the stack file or the repository is."""
    stack = config.stack
    runtime, secret_keys = runtime_config_from_file(values)

    def program() -> None:
        # Loaded here: the program imports the resource SDKs, which `gpuplan --help` never needs.
        from dra_gpu_platform.program import run

        # The warnings the program logs when it reads the config itself (load_stack_config).
        for warning in plaintext_secret_warnings(values, runtime_config.is_config_secret, stack=stack, source=source):
            pulumi.log.warn(warning)
        run(config, plan)

    scope = CloudScope.of(plan)
    recording = record_run(
        program, project=PROJECT, stack=stack, runtime=runtime, secret_keys=secret_keys, scope=lambda: scope
    )
    return ProgramRun(
        stack,
        PROJECT,
        config,
        source,
        recording.resources,
        recording.outputs,
        recording.logs,
        recording.reads,
        plan,
    )
