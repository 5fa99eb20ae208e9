"""The one loader of the stack file contract: qualified config keys (`dra-gpu-platform:cluster`, `aws:region`, ...)
to a validated StackConfig, with every problem at once. Pure: no Pulumi imports.

The Pulumi program feeds it from the runtime config (components/program.py), `gpuplan` from the
stack file itself (`load_stack_file`), so both always agree. Structural errors come from pydantic (the models in
components/config/models.py); the cross-field rules live in components/config/rules/.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Annotated, Any

from pydantic import AfterValidator, BaseModel, TypeAdapter, ValidationError

from dra_gpu_platform.config.models import (
    PROJECT,
    STACK_CONFIG_DIR,
    AutoscalerConfig,
    ClusterConfig,
    DeviceClassConfig,
    DnsLabel,
    DraDriverConfig,
    GpuOperatorConfig,
    MaintenanceConfig,
    MonitoringConfig,
    NamespaceConfig,
    NodePool,
    StackBool,
    StackConfig,
    check_kubernetes_version,
)
from dra_gpu_platform.config.problems import MISSING, InputError, Problem, join_path, short_text
from dra_gpu_platform.config.rules import consistency_problems
from dra_gpu_platform.config.strict_yaml import read_stack_yaml
from dra_gpu_platform.facts import regions, versions

# Top-level keys of the project namespace and the model field each maps to.
SECTIONS: dict[str, tuple[str, Any]] = {
    "cluster": ("cluster", ClusterConfig),
    "nodePools": ("node_pools", list[NodePool]),
    "gpuOperator": ("gpu_operator", GpuOperatorConfig),
    "draDriver": ("dra_driver", DraDriverConfig),
    "deviceClasses": ("device_classes", list[DeviceClassConfig]),
    "namespaces": ("namespaces", list[NamespaceConfig]),
    "maintenance": ("maintenance", MaintenanceConfig),
    "autoscaler": ("autoscaler", AutoscalerConfig),
    "monitoring": ("monitoring", MonitoringConfig),
}
SECRET_KEYS = ("kubeconfig",)
# Provider config keys naming where the cluster runs: the table each is checked against.
_REGION_TABLES = {
    "aws:region": (regions.AWS_REGIONS, "AWS region", "us-east-1", "docs/references.md#aws-regions"),
    "azure-native:location": (
        regions.AZURE_LOCATIONS,
        "Azure location",
        "eastus",
        "docs/references.md#azure-locations",
    ),
}
_ADAPTERS = {key: TypeAdapter(model) for key, (_, model) in SECTIONS.items()}


def stack_file_path(stack: str, root: Path | str = ".") -> Path:
    return Path(root) / STACK_CONFIG_DIR / f"Pulumi.{stack.replace('/', '-')}.yaml"


def stack_name_from_path(path: Path | str) -> str:
    name = Path(path).name
    for suffix in (".yaml", ".yml"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    return name[len("Pulumi.") :] if name.startswith("Pulumi.") else name


def read_stack_file(path: Path | str) -> dict[str, Any]:
    """The `config:` map of a stack file (key → YAML value), read as Pulumi reads it (components/config/strict_yaml.py:
    regular UTF-8 files within limits, no duplicate keys, no aliases, YAML 1.2 scalars). Raises InputError."""
    file = str(path)
    document = read_stack_yaml(path)
    if document is None:
        document = {}
    if not isinstance(document, dict):
        raise InputError([Problem(file, "", document, "a stack file is a YAML mapping", "start with `config:`")], file)
    unknown = sorted(
        set(document) - {"config", "secretsprovider", "encryptedkey", "encryptionsalt", "environment"}, key=str
    )
    if unknown:
        raise InputError(
            [
                Problem(file, str(k), document[k], "not a Pulumi stack file key", "put settings under `config:`")
                for k in unknown
            ],
            file,
        )
    config = document.get("config") or {}
    if not isinstance(config, dict):
        raise InputError(
            [Problem(file, "config", config, "config must be a mapping", "use `key: value` entries")], file
        )
    not_text = [key for key in config if not isinstance(key, str)]
    if not_text:
        raise InputError(
            [
                Problem(
                    file,
                    f"config[{key!r}]",
                    key,
                    "a config key is text like `dra-gpu-platform:cluster`",
                    "quote the key or fix its spelling",
                )
                for key in not_text
            ],
            file,
        )
    return config


def load_stack_file(path: Path | str) -> StackConfig:
    """Validate a stack file directly (gpuplan). Raises InputError with every problem."""
    return parse_config_map(read_stack_file(path), stack=stack_name_from_path(path), source=str(path))


def parse_config_map(values: Mapping[str, Any], *, stack: str, source: str) -> StackConfig:
    """The single door for input: qualified config keys (`dra-gpu-platform:cluster`, `aws:region`, ...)
    mapped to decoded values. JSON strings (as the Pulumi runtime stores objects) are decoded first."""
    problems: list[Problem] = []
    project_values: dict[str, Any] = {}
    region = None
    for key, raw in values.items():
        namespace, _, name = key.rpartition(":")
        if namespace in ("", PROJECT):
            project_values[name] = _decode(raw)
        elif key in _REGION_TABLES:
            known, cloud, example, listed = _REGION_TABLES[key]
            if isinstance(raw, str) and raw in known:
                region = raw
            else:
                guesses = regions.closest(raw, known) if isinstance(raw, str) else []
                problems.append(
                    Problem(
                        source,
                        key,
                        raw,
                        f"not an {cloud} name ({listed} lists them)",
                        f"did you mean {' or '.join(guesses)}?" if guesses else f"write one, e.g. {example}",
                    )
                )
    for key in sorted(set(project_values) - set(SECTIONS) - set(SECRET_KEYS)):
        problems.append(
            Problem(
                source,
                join_path(key),
                project_values[key],
                "unknown config key",
                f"remove it or fix the spelling; known keys: {', '.join([*SECTIONS, *SECRET_KEYS])}",
            )
        )
    if project_values.get("cluster") is None:
        problems.append(
            Problem(
                source,
                "cluster",
                MISSING,
                "required key",
                f"add `{PROJECT}:cluster` with platform, name, kubernetesVersion",
            )
        )

    parsed: dict[str, Any] = {}
    for key, (field, model) in SECTIONS.items():
        if key not in project_values:
            continue
        value = project_values[key]
        if value is None:
            continue
        try:
            parsed[field] = _ADAPTERS[key].validate_python(value)
        except ValidationError as exc:
            problems.extend(_pydantic_problems(exc, key, value, source, model))
            if getattr(model, "__origin__", None) is list:
                parsed[field] = _valid_items(value, model.__args__[0])
    secret = project_values.get("kubeconfig")
    has_kubeconfig = secret is not None and secret != ""

    if "cluster" not in parsed and isinstance(project_values.get("cluster"), dict):
        fallback = _fallback_cluster(project_values["cluster"])
        if fallback is not None:
            parsed["cluster"] = fallback
    config = None
    if "cluster" in parsed:
        config = with_autoscaler_defaults(
            StackConfig(stack=stack, source=source, region=region, has_kubeconfig=has_kubeconfig, **parsed)
        )
        given = {key for key in _REGION_TABLES if key in values}  # written, perhaps wrongly: not "missing" again
        problems.extend(
            p
            for p in consistency_problems(config, _declared_names(project_values))
            if not (p.path in given and p.value is MISSING)
        )
    if problems:
        raise InputError(problems, source)
    assert config is not None
    return config


def plaintext_secret_warnings(
    values: Mapping[str, Any], is_secret: Callable[[str], bool], *, stack: str, source: str
) -> list[str]:
    """Secret config values (the kubeconfig) written in plaintext: whoever can read the stack file, which is
    committed, holds the cluster's credentials. A warning, not an error: the stack still works."""
    warnings = []
    for name in SECRET_KEYS:
        key = f"{PROJECT}:{name}"
        if values.get(key) not in (None, "") and not is_secret(key):
            warnings.append(
                f"{source}: {key} is stored in plaintext, so anyone who can read the stack file holds the cluster's "
                f'credentials. Make it a secret: `pulumi config set --secret {name} "$(cat ~/.kube/config)" --stack '
                f"{stack}` (offline, `{key}: {{secure: v1:offline-placeholder}}` is enough for gpuplan)"
            )
    return warnings


def with_autoscaler_defaults(config: StackConfig) -> StackConfig:
    """Where the autoscaler runs, an on-demand or spot `dra` pool that does not name its minNodes keeps one node:
    the autoscaler cannot see DRA devices on a node group with no nodes
    (docs/references.md#cluster-autoscaler-dra). An explicit minNodes stays as written (rules/autoscaler.py judges it)."""
    if not config.autoscaler_enabled:
        return config
    pools = [
        pool.model_copy(update={"min_nodes": 1})
        if "min_nodes" not in pool.model_fields_set and pool.autoscaled_from_one_node
        else pool
        for pool in config.node_pools
    ]
    return config.model_copy(update={"node_pools": pools})


def _fallback_cluster(raw: dict[str, Any]) -> ClusterConfig | None:
    """A stand-in cluster built from the parts of an invalid `cluster` block that are valid, so the
    cross-field rules of the other sections still run and every problem shows up in one pass."""
    platform = raw.get("platform")
    if platform not in ("eks", "aks", "kind", "existing"):
        return None
    fields: dict[str, Any] = {
        "platform": platform,
        "name": "invalid",
        "kubernetes_version": versions.SUPPORTED_KUBERNETES[-1],
    }
    for alias, field, adapter in (
        ("name", "name", TypeAdapter(DnsLabel)),
        (
            "kubernetesVersion",
            "kubernetes_version",
            TypeAdapter(Annotated[Any, AfterValidator(check_kubernetes_version)]),
        ),
        ("protect", "protect", TypeAdapter(StackBool)),
        *(
            (block, block, TypeAdapter(ClusterConfig.model_fields[block].annotation))
            for block in ("eks", "aks", "kind", "existing")
        ),
    ):
        try:
            if alias in raw:
                fields[field] = adapter.validate_python(raw[alias])
        except ValidationError:
            continue
    return ClusterConfig.model_construct(**fields)


def _declared_names(project_values: dict[str, Any]) -> dict[str, set[str]]:
    """Names written in list sections, valid or not: a reference to an item that failed validation is
    not reported a second time as a dangling reference."""
    names: dict[str, set[str]] = {}
    for key in ("nodePools", "deviceClasses", "namespaces"):
        items = project_values.get(key)
        names[key] = (
            {i["name"] for i in items if isinstance(i, dict) and isinstance(i.get("name"), str)}
            if isinstance(items, list)
            else set()
        )
    return names


def _decode(raw: Any) -> Any:
    if isinstance(raw, str):
        stripped = raw.strip()
        if stripped[:1] in ("{", "[") or stripped in ("true", "false", "null"):
            try:
                return json.loads(stripped)
            except json.JSONDecodeError:
                return raw
    return raw


def _valid_items(items: Any, model: type[BaseModel]) -> list[BaseModel]:
    """Items of a list section that validate on their own, so cross-field rules still run on them."""
    if not isinstance(items, list):
        return []
    good = []
    for item in items:
        try:
            good.append(model.model_validate(item))
        except ValidationError:
            continue
    return good


def _pydantic_problems(exc: ValidationError, section: str, value: Any, source: str, model: Any) -> list[Problem]:
    problems = []
    for error in exc.errors():
        loc = [part for part in error["loc"] if not (isinstance(part, str) and part.startswith("function-"))]
        path = join_path(section, *loc)
        bad = _lookup(value, loc)
        rule, fix = _explain(error, model, loc, bad)
        problems.append(Problem(source, path, bad, rule, fix))
    return problems


def _lookup(value: Any, loc: list) -> Any:
    for part in loc:
        if (isinstance(value, dict) and part in value) or (
            isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        ):
            value = value[part]
        else:
            return MISSING
    return value


def _explain(error: dict, model: Any, loc: list, value: Any = MISSING) -> tuple[str, str]:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "dra_rule":
        return ctx["rule"], ctx["fix"]
    if kind == "extra_forbidden":
        allowed = _allowed_keys(model, loc[:-1])
        return "unknown key", f"remove it or fix the spelling; allowed here: {', '.join(allowed)}"
    if kind == "missing":
        return "required key is missing", f"add `{loc[-1]}`"
    if kind in ("literal_error", "enum"):
        return f"must be one of {ctx.get('expected', '')}", f"use one of {ctx.get('expected', '')}"
    if kind in ("int_type", "int_parsing", "int_from_float"):
        if isinstance(value, bool):
            return "must be a whole number, not a boolean", "write the number itself, e.g. 4 (true is not read as 1)"
        return "must be a whole number", "write an integer without quotes, e.g. 4"
    if kind in ("bool_type", "bool_parsing"):
        if isinstance(value, str):
            return "must be true or false", (
                f"write true or false; {short_text(repr(value), 40)} is text here "
                "(Pulumi reads stack files as YAML 1.2: yes, no, on and off are not booleans)"
            )
        return "must be true or false", "write true or false (a number is not read as a boolean)"
    if kind in ("string_type",):
        return "must be a string", "quote the value"
    if kind in ("list_type",):
        return "must be a list", "write a YAML list (`- item` or `[a, b]`)"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be a mapping", "write `key: value` entries"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')}", "check the identifier's format"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        return error["msg"].lower(), "use a number within the allowed range"
    if kind in ("too_short", "too_long", "string_too_long", "string_too_short"):
        return error["msg"], "shorten or lengthen the value to the allowed size"
    return error["msg"], "see the config reference in docs/configuration.md"


def _allowed_keys(model: Any, loc: list) -> list[str]:
    current = model
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int):
            continue
        if isinstance(current, type) and issubclass(current, BaseModel):
            field = next((f for f in current.model_fields.values() if f.alias == part), None)
            if field is None:
                return []
            current = field.annotation
        else:
            continue  # dict key
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [f.alias or n for n, f in current.model_fields.items()]
    return []


def _unwrap(annotation: Any) -> Any:
    """list[X] / Optional[X] / dict[str, X] / Annotated[X, ...] → X."""
    for _ in range(5):
        args = typing.get_args(annotation)
        if typing.get_origin(annotation) is None or not args:  # X | None has args but no __origin__
            return annotation
        non_none = [a for a in args if a is not type(None)]
        annotation = non_none[-1]
    return annotation
