"""`pulumi preview --policy-pack policies`, offline: a recorded program run fed through the pack.

The pack's own analyzer servicer (pulumi_policy's `_PolicyAnalyzerServicer`, pinned pulumi-policy 1.21)
does the evaluating, so the semantics are the CLI's, not a re-implementation:
- enforcement level: the policy config file's per-policy level > its "all" > the policy's own > the pack's;
- the message of a violation is the policy description, a newline, then the rule's message;
- a policy at `remediate` rewrites the resource first (Remediate runs before Analyze, as in the engine's
  step generator); a violation it still finds is reported as mandatory; stack policies never remediate;
- reading an unknown value turns into an advisory "can't run policy ... during preview" (kept as a note,
  not a violation).
The policy config is reconciled as the CLI does (schema defaults, then "all", then per-policy settings)
and validated against each policy's config schema with jsonschema; gpuplan is stricter than the CLI in
also refusing unknown policy names and unknown settings (a typo would otherwise be silently ignored).

Props are the cleaned recorded inputs (gpuplan.engine.outputs.clean): what the program asked for, before the
provider's Check (the CLI's analyzers see post-Check inputs; default providers are not recorded).
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Any

import jsonschema
from google.protobuf import json_format, struct_pb2
from pulumi.runtime import proto
from pulumi_policy import EnforcementLevel, Policy
from pulumi_policy.deserialize import deserialize_properties

# Private pulumi-policy API (1.21): the analyzer servicer the CLI talks to. The public PolicyPack starts a gRPC
# server and blocks forever, so offline evaluation with the CLI's exact semantics has to call the servicer
# (Configure, Remediate, Analyze, AnalyzeStack, _map_enforcement_level). tests/test_private_sdk_apis.py fails
# when pulumi-policy changes its constructor or these methods.
from pulumi_policy.policy import _PolicyAnalyzerServicer

from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import DOCUMENTS, read_text
from dra_gpu_platform.policies.pack import PACK_LEVEL, PACK_NAME, POLICIES
from gpuplan.engine.outputs import clean
from gpuplan.engine.runtime import ProgramRun, Registration
from gpuplan.engine.sources import StackSource

# The pack is versioned with the distribution (policies/PulumiPolicy.yaml says the same: tests/policies/test_pack.py).
PACK_VERSION = metadata.version("dra-gpu-platform")
# Where a project keeps its policy configs (this repository's: policies/config/, the pack's shell).
PROJECT_POLICY_CONFIG_DIR = Path("policies", "config")
LEVELS = {level.value: level for level in EnforcementLevel}
_LEVEL_NAMES = {
    proto.ADVISORY: "advisory",
    proto.MANDATORY: "mandatory",
    proto.REMEDIATE: "remediate",
    proto.DISABLED: "disabled",
}
_SKIPPED_PREFIX = "can't run policy"


@dataclass(frozen=True)
class Violation:
    policy: str
    level: str  # advisory | mandatory
    urn: str | None  # None: the stack as a whole
    message: str  # description + "\n" + the rule's message, as the CLI shows it

    def as_json(self) -> dict[str, Any]:
        return {"policy": self.policy, "level": self.level, "urn": self.urn, "message": self.message}


@dataclass(frozen=True)
class Remediation:
    policy: str
    urn: str


@dataclass
class PolicyReport:
    stack: str
    policy_config: str | None  # file the config came from; None: each policy's default level
    violations: list[Violation]
    remediations: list[Remediation] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # policies that could not run (unknown values)
    resources: int = 0

    @property
    def mandatory(self) -> list[Violation]:
        return [v for v in self.violations if v.level == "mandatory"]

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": self.stack,
            "policyPack": PACK_NAME,
            "policyConfig": self.policy_config,
            "violations": [v.as_json() for v in self.violations],
            "remediations": [{"policy": r.policy, "urn": r.urn} for r in self.remediations],
            "notes": self.notes,
        }


# ---------------------------------------------------------------------------------------------------
# Policy config: parse, reconcile (defaults, "all", per policy), validate


@dataclass(frozen=True)
class PolicySettings:
    level: EnforcementLevel
    properties: dict[str, Any]


def default_config_path(stack: str, project_root: Path | None) -> Path | None:
    """`policies/config/<stack>.json` of the project the stack belongs to, else None (each policy's default level).
    Never another project's: this package's reference configs are its own stacks', not those of a user's stack that
    happens to share a name."""
    if project_root is None:
        return None
    path = project_root / PROJECT_POLICY_CONFIG_DIR / f"{stack}.json"
    return path if path.is_file() else None


POLICY_CONFIG_LIMITS = replace(DOCUMENTS, what="policy config file", max_bytes=1024 * 1024)


def read_policy_config(path: Path | str) -> dict[str, Any]:
    file = str(path)
    text = read_text(path, POLICY_CONFIG_LIMITS, missing_fix="check --policy-config")
    if not text.strip():
        return {}  # the CLI accepts an empty file as "no config"
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            [
                Problem(
                    file,
                    "",
                    MISSING,
                    f"not valid JSON (line {error.lineno}, column {error.colno}): {error.msg}",
                    "fix the JSON syntax",
                )
            ],
            file,
        ) from None
    if not isinstance(document, dict):
        raise InputError(
            [
                Problem(
                    file,
                    "",
                    document,
                    "a policy config is a JSON object keyed by policy name",
                    'write {"<policy>": "mandatory", ...}',
                )
            ],
            file,
        )
    return document


def _level(value: Any, file: str, path: str, problems: list[Problem]) -> EnforcementLevel | None:
    if isinstance(value, str) and value in LEVELS:
        return LEVELS[value]
    problems.append(Problem(file, path, value, "not an enforcement level", f"use one of {', '.join(LEVELS)}"))
    return None


def reconcile(
    document: dict[str, Any], file: str, policies: list[Policy] = POLICIES, pack_level: EnforcementLevel = PACK_LEVEL
) -> dict[str, PolicySettings]:
    """The config every policy receives, as the CLI computes it; InputError lists every problem."""
    problems: list[Problem] = []
    by_name = {p.name: p for p in policies}
    result: dict[str, list[Any]] = {}
    for policy in policies:
        schema = policy.config_schema.properties if policy.config_schema else {}
        defaults = {k: v["default"] for k, v in schema.items() if "default" in v}
        result[policy.name] = [policy.enforcement_level or pack_level, defaults]

    given: dict[str, tuple[EnforcementLevel | None, dict[str, Any]]] = {}
    for name, value in document.items():
        if name != "all" and name not in by_name:
            close = difflib.get_close_matches(name, list(by_name), n=1)
            problems.append(
                Problem(
                    file,
                    name,
                    value,
                    "no policy of that name in the pack",
                    f"did you mean {close[0]!r}?" if close else f"use one of {', '.join(by_name)}",
                )
            )
            continue
        if isinstance(value, str):
            given[name] = (_level(value, file, name, problems), {})
        elif isinstance(value, dict):
            level = (
                _level(value["enforcementLevel"], file, f"{name}.enforcementLevel", problems)
                if "enforcementLevel" in value
                else None
            )
            properties = {k: v for k, v in value.items() if k != "enforcementLevel"}
            if name == "all" and properties:
                problems.append(
                    Problem(
                        file,
                        "all",
                        value,
                        '"all" takes only an enforcement level',
                        "move settings under the policy they belong to",
                    )
                )
                properties = {}
            given[name] = (level, properties)
        else:
            problems.append(
                Problem(
                    file,
                    name,
                    value,
                    "must be an enforcement level or an object",
                    'write "mandatory" or {"enforcementLevel": "advisory", ...}',
                )
            )
    if "all" in given and given["all"][0] is not None:
        for entry in result.values():
            entry[0] = given["all"][0]
    for name, (level, properties) in given.items():
        if name == "all":
            continue
        if level is not None:
            result[name][0] = level
        result[name][1] = {**result[name][1], **properties}

    for policy in policies:
        properties = result[policy.name][1]
        problems.extend(_schema_problems(policy, properties, file))
    if problems:
        raise InputError(problems, f"policy config {file}")
    return {name: PolicySettings(level, properties) for name, (level, properties) in result.items()}


def _schema_problems(policy: Policy, properties: dict[str, Any], file: str) -> list[Problem]:
    schema = policy.config_schema
    declared = schema.properties if schema else {}
    problems = []
    for key in sorted(set(properties) - set(declared)):
        known = ", ".join(declared) or "none (only enforcementLevel)"
        problems.append(
            Problem(
                file,
                f"{policy.name}.{key}",
                properties[key],
                "unknown setting for this policy",
                f"known settings: {known}",
            )
        )
    document = {"type": "object", "properties": declared}
    if schema and schema.required:
        document["required"] = schema.required
    validator = jsonschema.Draft7Validator(document)
    for error in sorted(validator.iter_errors(properties), key=lambda e: list(e.absolute_path)):
        path = ".".join(
            [policy.name, *(f"[{p}]" if isinstance(p, int) else str(p) for p in error.absolute_path)]
        ).replace(".[", "[")
        if error.validator == "required":
            missing = error.message.split("'")[1] if "'" in error.message else ""
            problems.append(
                Problem(
                    file,
                    f"{policy.name}.{missing}",
                    MISSING,
                    "required setting is missing",
                    f"add it: {_describe_schema(declared.get(missing, {}))}",
                )
            )
            continue
        problems.append(Problem(file, path, error.instance, error.message, f"use {_describe_schema(error.schema)}"))
    return problems


def _describe_schema(schema: dict[str, Any]) -> str:
    kind = schema.get("type", "a value")
    text = {
        "integer": "a whole number",
        "number": "a number",
        "boolean": "true or false",
        "string": "a string",
        "array": "a list",
        "object": "an object",
    }.get(kind, str(kind))
    if "minimum" in schema:
        text += f" ≥ {schema['minimum']}"
    if "maximum" in schema:
        text += f" ≤ {schema['maximum']}"
    if "enum" in schema:
        text = f"one of {', '.join(map(str, schema['enum']))}"
    if "pattern" in schema:
        text += f" matching {schema['pattern']}"
    if kind == "array" and isinstance(schema.get("items"), dict):
        text += f" of {_describe_schema(schema['items'])}"
    if schema.get("description"):
        text += f" ({schema['description']})"
    return text


# ---------------------------------------------------------------------------------------------------
# Running the servicer


def _struct(value: dict[str, Any]) -> struct_pb2.Struct:
    message = struct_pb2.Struct()
    message.update(value)
    return message


def _seconds(duration: str | None) -> float:
    """Go duration ("15m", "1h30m") → seconds, as the engine passes custom timeouts."""
    if not duration:
        return 0.0
    units = {"h": 3600, "m": 60, "s": 1, "ms": 0.001}
    return sum(float(n) * units[u] for n, u in re.findall(r"([0-9.]+)(ms|h|m|s)", duration))


def _options(resource: Registration) -> proto.AnalyzerResourceOptions:
    options = resource.options
    timeouts = options.get("customTimeouts", {})
    return proto.AnalyzerResourceOptions(
        protect=resource.protect,
        ignoreChanges=options.get("ignoreChanges", []),
        deleteBeforeReplace=bool(options.get("deleteBeforeReplace", False)),
        deleteBeforeReplaceDefined="deleteBeforeReplace" in options,
        additionalSecretOutputs=options.get("additionalSecretOutputs", []),
        aliases=options.get("aliases", []),
        customTimeouts=proto.AnalyzerResourceOptions.CustomTimeouts(
            create=_seconds(timeouts.get("create")),
            update=_seconds(timeouts.get("update")),
            delete=_seconds(timeouts.get("delete")),
        ),
        parent=resource.parent,
    )


def _servicer(config: dict[str, PolicySettings] | None, policies: list[Policy]) -> _PolicyAnalyzerServicer:
    servicer = _PolicyAnalyzerServicer(PACK_NAME, PACK_VERSION, list(policies), PACK_LEVEL)
    if config is not None:
        request = proto.ConfigureAnalyzerRequest()
        for name, entry in config.items():
            request.policyConfig[name].CopyFrom(
                proto.PolicyConfig(
                    enforcementLevel=servicer._map_enforcement_level(entry.level), properties=_struct(entry.properties)
                )
            )
        servicer.Configure(request, None)
    return servicer


def evaluate(
    run: ProgramRun,
    config: dict[str, PolicySettings] | None,
    *,
    config_source: str | None = None,
    policies: list[Policy] = POLICIES,
) -> PolicyReport:
    """Remediate, then Analyze every recorded resource; then AnalyzeStack over all of them."""
    servicer = _servicer(config, policies)
    by_urn = run.by_urn()
    props: dict[str, dict[str, Any]] = {r.urn: clean(r.inputs) for r in run.resources}
    report = PolicyReport(run.stack, config_source, [], resources=len(run.resources))

    def provider(resource: Registration) -> proto.AnalyzerProviderResource | None:
        found = by_urn.get(resource.provider)
        if found is None:
            # A default provider: the mock runtime never registers those; the engine hands the pack the one it
            # creates from the stack's config (docs/references.md#pulumi-analyzer-providers), region included.
            return _default_provider(run, resource)
        return proto.AnalyzerProviderResource(
            type=found.type, properties=_struct(props[found.urn]), urn=found.urn, name=found.name
        )

    for resource in run.resources:
        request = proto.AnalyzeRequest(
            type=resource.type,
            properties=_struct(props[resource.urn]),
            urn=resource.urn,
            name=resource.name,
            options=_options(resource),
            provider=provider(resource),
        )
        remediated = servicer.Remediate(request, None)
        for remediation in remediated.remediations:
            if remediation.diagnostic:
                report.notes.append(f"{remediation.policyName} on {resource.urn}: {remediation.diagnostic}")
            if remediation.HasField("properties"):
                props[resource.urn] = deserialize_properties(json_format.MessageToDict(remediation.properties))
                report.remediations.append(Remediation(remediation.policyName, resource.urn))
        if remediated.remediations:
            request.properties.CopyFrom(_struct(props[resource.urn]))
        _collect(servicer.Analyze(request, None), report, resource.urn)

    stack_request = proto.AnalyzeStackRequest()
    for resource in run.resources:
        stack_request.resources.append(
            proto.AnalyzerResource(
                type=resource.type,
                properties=_struct(props[resource.urn]),
                urn=resource.urn,
                name=resource.name,
                options=_options(resource),
                provider=provider(resource),
                parent=resource.parent,
                dependencies=resource.dependencies,
                propertyDependencies={
                    k: proto.AnalyzerPropertyDependencies(urns=v) for k, v in resource.property_dependencies.items()
                },
            )
        )
    _collect(servicer.AnalyzeStack(stack_request, None), report, None)
    order = {p.name: i for i, p in enumerate(policies)}
    report.violations.sort(key=lambda v: (order.get(v.policy, len(order)), v.urn or "", v.message))
    return report


# The config key that says where a default provider creates resources, per package.
_DEFAULT_PROVIDER_REGION_KEYS = {"aws": "region", "azure-native": "location"}


def _default_provider(run: ProgramRun, resource: Registration) -> proto.AnalyzerProviderResource | None:
    """The default provider of a cloud resource as the engine would hand it to the pack: its region (or location)
    from the stack's config (`aws:region`, `azure-native:location`)."""
    package = resource.type.split(":", 1)[0]
    key = _DEFAULT_PROVIDER_REGION_KEYS.get(package)
    region = run.config.region if run.config is not None else None
    if key is None or not region or not resource.custom or resource.type.startswith("pulumi:providers:"):
        return None
    kind = f"pulumi:providers:{package}"
    return proto.AnalyzerProviderResource(
        type=kind,
        properties=_struct({key: region}),
        urn=f"urn:pulumi:{run.stack}::{run.project}::{kind}::default",
        name="default",
    )


def _collect(response, report: PolicyReport, resource_urn: str | None) -> None:
    for diagnostic in response.diagnostics:
        if diagnostic.message.startswith(_SKIPPED_PREFIX):
            report.notes.append(diagnostic.message)
            continue
        urn = resource_urn or diagnostic.urn or None  # Analyze: always the resource's own URN
        report.violations.append(
            Violation(diagnostic.policyName, _LEVEL_NAMES[diagnostic.enforcementLevel], urn, diagnostic.message)
        )


# ---------------------------------------------------------------------------------------------------
# The whole command: stack file + policy config → report


def run_policies(program: StackSource, policy_config: Path | str | None) -> PolicyReport:
    """Validate the policy config first (cheap), then run the program and the pack. The pack needs only the
    recorded resources (their props, options, parents and providers), so a user's program is checked the same way."""
    source = policy_config if policy_config is not None else default_config_path(program.stack, program.project_root())
    config = reconcile(read_policy_config(source), str(source)) if source is not None else reconcile({}, "(defaults)")
    run = program.run()
    return evaluate(run, config, config_source=_display(source) if source else None)


def _display(path: Path | str) -> str:
    """Paths inside the working directory are shown relative to it (stable across machines)."""
    try:
        return str(Path(path).resolve().relative_to(Path.cwd()))
    except ValueError:
        return str(path)
