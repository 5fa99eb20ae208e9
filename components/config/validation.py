"""How sections become a StackConfig, whichever door they come through (a stack file, a dict, a library call): each
section validated on its own, the derived defaults applied, the cross-field rules run, and every problem raised at
once as one ConfigError. StackConfig's validator (components/config/models.py) runs `validate_stack`; the stack file
loader (components/config/loading.py) only adapts qualified keys to sections. Pure: no Pulumi imports.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from pydantic import AfterValidator, BaseModel, TypeAdapter, ValidationError
from pydantic.alias_generators import to_camel

from dra_gpu_platform.config.cluster import (
    CLUSTER_MODELS,
    PLATFORM_SETTINGS,
    PLATFORMS,
    ClusterBase,
    ClusterConfig,
)
from dra_gpu_platform.config.fields import PROJECT, DnsLabel, StackBool, check_kubernetes_version
from dra_gpu_platform.config.problems import MISSING, ConfigError, Problem, join_path, short_text
from dra_gpu_platform.config.rules import consistency_problems
from dra_gpu_platform.config.sections import (
    GPU_CHOICE_TAGS,
    AutoscalerConfig,
    DeviceClassConfig,
    DraDriverConfig,
    GpuOperatorConfig,
    MaintenanceConfig,
    MonitoringConfig,
    NamespaceConfig,
    NodePool,
    StackSections,
)
from dra_gpu_platform.facts import regions, versions

# The stack file's sections (`dra-gpu-platform:<key>`) and the model field each fills.
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
# Secret config values: only whether they are set is kept (an existing cluster's kubeconfig).
SECRET_KEYS = ("kubeconfig",)
STACK_FILE_KEYS = (*SECTIONS, *SECRET_KEYS)
# What a StackConfig takes besides the sections. A stack file never holds these keys: the loader fills them from the
# file's name, `aws:region` / `azure-native:location` and the `kubeconfig` secret.
METADATA: dict[str, tuple[str, Any]] = {
    "stack": ("stack", str),
    "source": ("source", str),
    "region": ("region", str),
    "hasKubeconfig": ("has_kubeconfig", StackBool),
}
_ADAPTERS = {key: TypeAdapter(model) for key, (_, model) in SECTIONS.items()}
_METADATA_ADAPTERS = {key: TypeAdapter(kind) for key, (_, kind) in METADATA.items()}
_KNOWN_REGIONS = regions.AWS_REGIONS | regions.AZURE_LOCATIONS

Stack = TypeVar("Stack", bound=StackSections)


def validate_stack(cls: type[Stack], data: Any, handler: Callable[[Any], Stack]) -> Stack:
    """The body of StackConfig's validator: the StackConfig of `data` (its sections by their camelCase keys, plus
    METADATA), or one ConfigError listing every problem."""
    if isinstance(data, cls):
        return handler(data)  # built and validated before: a StackConfig that exists is valid
    if not isinstance(data, Mapping):
        raise ConfigError(
            [
                Problem(
                    None,
                    "",
                    data,
                    "a stack is a mapping of its sections",
                    "pass {'cluster': {...}, 'nodePools': [...], ...}: a stack file's dra-gpu-platform:* keys",
                )
            ],
            "the stack config",
        )
    problems: list[Problem] = []
    fields = _metadata(data, problems)
    source = fields.get("source")
    for key in data:
        if key not in SECTIONS and key not in SECRET_KEYS and key not in METADATA:
            problems.append(unknown_config_key(source, key, data[key]))
    if data.get("cluster") is None:
        problems.append(
            Problem(
                source,
                "cluster",
                MISSING,
                "required key",
                f"add `{PROJECT}:cluster` with platform, name, kubernetesVersion",
            )
        )
    for key, (field, model) in SECTIONS.items():
        value = data.get(key)
        if value is None:
            continue
        if key == "cluster":
            cluster = _cluster(value, source, problems)
            if cluster is not None:
                fields[field] = cluster
            continue
        try:
            fields[field] = _ADAPTERS[key].validate_python(value)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, (key,), value, source, model))
            if typing.get_origin(model) is list:
                fields[field] = _valid_items(value, typing.get_args(model)[0])
    if "cluster" not in fields:
        raise ConfigError(problems, source or "the stack config")
    config = with_autoscaler_defaults(cls.model_construct(**fields))
    problems.extend(consistency_problems(config, _declared_names(data)))
    if problems:
        raise ConfigError(problems, source or "the stack config")
    # what was given (so model_fields_set stays what the user wrote), with the derived defaults
    return handler({cls.model_fields[field].alias or field: getattr(config, field) for field in fields})


def with_autoscaler_defaults(config: Stack) -> Stack:
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


def config_error(error: ValidationError, source: str | None = None) -> ConfigError:
    """The ConfigError inside a ValidationError (pydantic wraps what a validator raises), else pydantic's own
    errors as problems."""
    for detail in error.errors():
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, ConfigError):
            return cause
    return ConfigError(pydantic_problems(error, (), MISSING, source, StackSections), source or "the stack config")


def unknown_config_key(source: str | None, key: Any, value: Any) -> Problem:
    return Problem(
        source,
        join_path(str(key)),
        value,
        "unknown config key",
        unknown_key_fix(key, list(STACK_FILE_KEYS), "known keys"),
    )


def unknown_key_fix(key: Any, allowed: list[str], listing: str = "allowed here") -> str:
    guess = closest_key(key, allowed)
    hint = f" (did you mean {guess}?)" if guess else ""
    return f"remove it or fix the spelling{hint}; {listing}: {', '.join(allowed)}"


def closest_key(key: Any, allowed: list[str]) -> str | None:
    """The allowed key `key` most likely meant: its camelCase spelling (`instance_type` → instanceType), the same
    letters in another case (`maxnodes` → maxNodes), or a near spelling."""
    text = str(key)
    by_letters = {a.lower(): a for a in allowed}
    for candidate in (to_camel(text), text.replace("_", "").replace("-", "").lower()):
        if candidate in allowed:
            return candidate
        if candidate.lower() in by_letters:
            return by_letters[candidate.lower()]
    matches = difflib.get_close_matches(text, allowed, n=1, cutoff=0.6)
    return matches[0] if matches else None


# ---------------------------------------------------------------------------------------------------
# the cluster section


def _cluster(raw: Any, source: str | None, problems: list[Problem]) -> ClusterConfig | None:
    """The cluster of its platform's class. A block of another platform is one problem (the block is then left out,
    so it causes nothing more); with the platform missing or unknown, the rest is still checked."""
    if not isinstance(raw, Mapping):  # a cluster model built in Python, or not a mapping at all
        try:
            return _ADAPTERS["cluster"].validate_python(raw)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, ("cluster",), raw, source, ClusterBase))
            return None
    platform = raw.get("platform")
    if isinstance(platform, str) and platform in CLUSTER_MODELS:
        for other in PLATFORMS:
            if other != platform and raw.get(other) is not None:
                problems.append(
                    Problem(
                        source,
                        f"cluster.{other}",
                        "{...}",
                        f"only the block matching platform ({platform}) is allowed",
                        f"remove cluster.{other} or set platform: {other}",
                    )
                )
        own = {key: value for key, value in raw.items() if key not in PLATFORMS or key == platform}
        model = CLUSTER_MODELS[platform]
        try:
            return model.model_validate(own)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, ("cluster",), own, source, model))
            return _fallback_cluster(platform, own)
    common = {key: value for key, value in raw.items() if key not in PLATFORMS}
    try:
        ClusterBase.model_validate(common)
    except ValidationError as exc:
        problems.extend(pydantic_problems(exc, ("cluster",), common, source, ClusterBase))
    for block in PLATFORMS:
        if raw.get(block) is not None:
            try:
                PLATFORM_SETTINGS[block].model_validate(raw[block])
            except ValidationError as exc:
                problems.extend(
                    pydantic_problems(exc, ("cluster", block), raw[block], source, PLATFORM_SETTINGS[block])
                )
    return None


def _fallback_cluster(platform: str, raw: Mapping[str, Any]) -> ClusterConfig:
    """A stand-in cluster built from the parts of an invalid `cluster` block that are valid, so the
    cross-field rules of the other sections still run and every problem shows up in one pass."""
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
        (platform, platform, TypeAdapter(PLATFORM_SETTINGS[platform] | None)),
    ):
        try:
            if alias in raw:
                fields[field] = adapter.validate_python(raw[alias])
        except ValidationError:
            continue
    return CLUSTER_MODELS[platform].model_construct(**fields)


# ---------------------------------------------------------------------------------------------------
# metadata and list sections


def _metadata(data: Mapping[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """stack, source, region, hasKubeconfig (and the presence of a `kubeconfig` secret) as model fields."""
    fields: dict[str, Any] = {}
    source = data.get("source") if isinstance(data.get("source"), str) else None
    for key, (field, _) in METADATA.items():
        value = data.get(key)
        if value is None:
            continue
        try:
            fields[field] = _METADATA_ADAPTERS[key].validate_python(value)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, (key,), value, source, StackSections))
    region = fields.get("region")
    if region is not None and region not in _KNOWN_REGIONS:
        guesses = regions.closest(region, _KNOWN_REGIONS)
        problems.append(
            Problem(
                source,
                "region",
                region,
                "not an AWS region or Azure location name (docs/references.md#aws-regions and "
                "docs/references.md#azure-locations list them)",
                f"did you mean {' or '.join(guesses)}?",
            )
        )
        del fields["region"]
    secret = data.get("kubeconfig")
    if secret is not None and secret != "":
        fields["has_kubeconfig"] = True
    return fields


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


def _declared_names(data: Mapping[str, Any]) -> dict[str, set[str]]:
    """Names written in list sections, valid or not: a reference to an item that failed validation is
    not reported a second time as a dangling reference."""
    names: dict[str, set[str]] = {}
    for key in ("nodePools", "deviceClasses", "namespaces"):
        items = data.get(key)
        names[key] = set()
        for item in items if isinstance(items, list) else ():
            name = item.get("name") if isinstance(item, Mapping) else getattr(item, "name", None)
            if isinstance(name, str):
                names[key].add(name)
    return names


# ---------------------------------------------------------------------------------------------------
# pydantic's errors as problems


def pydantic_problems(
    exc: ValidationError, prefix: tuple[str, ...], value: Any, source: str | None, model: Any
) -> list[Problem]:
    """One problem per pydantic error, at the path of the key the user wrote (`nodePools[1].maxNodes`)."""
    problems = []
    for error in exc.errors():
        loc = _user_path(error["loc"])
        bad = _lookup(value, loc)
        rule, fix = _explain(error, model, loc, bad)
        problems.append(Problem(source, join_path(*prefix, *loc), bad, rule, fix))
    return problems


def _user_path(loc: tuple[int | str, ...]) -> list[int | str]:
    """The path of the key the user wrote: without pydantic's validator names and union branch tags
    (`nodePools.0.gpu.described.memory` is `nodePools[0].gpu.memory`)."""
    path: list[int | str] = []
    for part in loc:
        if isinstance(part, str) and (
            part.startswith("function-") or (path[-1:] == ["gpu"] and part in GPU_CHOICE_TAGS)
        ):
            continue
        path.append(part)
    return path


def _lookup(value: Any, loc: list) -> Any:
    for part in loc:
        if (isinstance(value, Mapping) and part in value) or (
            isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        ):
            value = value[part]
        else:
            return MISSING
    return value


def _explain(error: Any, model: Any, loc: list, value: Any = MISSING) -> tuple[str, str]:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "dra_rule":
        return ctx["rule"], ctx["fix"]
    if kind == "extra_forbidden":
        return "unknown key", unknown_key_fix(loc[-1], _allowed_keys(model, loc[:-1]))
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
        keys = [f.alias or n for n, f in current.model_fields.items()]
        return [*keys, *PLATFORMS] if current is ClusterBase else keys
    return []


def _unwrap(annotation: Any) -> Any:
    """list[X] / Optional[X] / dict[str, X] / Annotated[X, ...] → X."""
    for _ in range(8):
        args = typing.get_args(annotation)
        if typing.get_origin(annotation) is None or not args:  # X | None has args but no __origin__
            return annotation
        if typing.get_origin(annotation) is typing.Annotated:
            annotation = args[0]
            continue
        non_none = [a for a in args if a is not type(None)]
        annotation = non_none[-1]
    return annotation
