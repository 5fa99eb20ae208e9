"""How sections become a StackConfig, whichever door they come through (a stack file, a dict, a library call): each
section validated on its own, the derived defaults applied, the cross-field rules run, and every problem raised at
once as one ConfigError. StackConfig's validator (dra_gpu_platform/config/models.py) runs `validate_stack`; the stack file
loader (dra_gpu_platform/config/loading.py) only adapts qualified keys to sections. Pure: no Pulumi imports.
"""

from __future__ import annotations

import re
import typing
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from dra_gpu_platform.config.cluster import (
    CLUSTER_MODELS,
    PLATFORM_SETTINGS,
    ClusterBase,
    ClusterConfig,
)
from dra_gpu_platform.config.derived import StackSections
from dra_gpu_platform.config.fields import PROJECT, StackBool
from dra_gpu_platform.config.repair import Repair, Slot, agreed_problems
from dra_gpu_platform.config.rules import consistency_problems
from dra_gpu_platform.config.sections.autoscaler import AutoscalerConfig
from dra_gpu_platform.config.sections.device_classes import DeviceClassConfig
from dra_gpu_platform.config.sections.maintenance import MaintenanceConfig
from dra_gpu_platform.config.sections.monitoring import MonitoringConfig
from dra_gpu_platform.config.sections.namespaces import NamespaceConfig
from dra_gpu_platform.config.sections.node_pools import AUTOSCALED_DRA_MIN_NODES, GPU_CHOICE_TAGS, NodePool
from dra_gpu_platform.config.sections.software import BRIDGE_CHOICE_TAGS, DraDriverConfig, GpuOperatorConfig
from dra_gpu_platform.config.spelling import Spelling, closest_key, correct, read_as, unknown_key_fix
from dra_gpu_platform.facts import catalog, eks_amis, gpu_software_support, provisioners, regions
from dra_gpu_platform.facts.platforms import PLATFORMS
from dra_gpu_platform.inputs.problems import MISSING, ConfigError, Problem, join_path, short_text

__all__ = ["closest_key", "config_error", "unknown_config_key", "unknown_key_fix", "validate_stack"]

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
    METADATA), or one ConfigError listing every problem: each mistake once, none hidden by another
    (dra_gpu_platform/config/repair.py: refused sections reach the rules as stand-ins; spelling.py: misspelled keys)."""
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
    written = data
    source = data.get("source") if isinstance(data.get("source"), str) else None
    spelling = Spelling(data)
    data = _read_as_meant(data, source, spelling)
    problems: list[Problem] = []
    fields = _metadata(data, problems)
    for key in data:
        if key not in SECTIONS and key not in SECRET_KEYS and key not in METADATA:
            problems.append(unknown_config_key(source, key, data[key]))
    repair = Repair()
    templates: dict[str, Any] = {}
    cluster = _cluster(data.get("cluster"), source, problems, repair)
    (templates if _is_template(cluster) else fields)["cluster"] = cluster
    for key, (field, model) in SECTIONS.items():
        value = data.get(key)
        if value is None or key == "cluster":
            continue
        try:
            fields[field] = _ADAPTERS[key].validate_python(value)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, (key,), value, source, model))
            templates[field] = repair.template(model, value, (key,))
    declared, unknown = _declared_names(data)

    def rules(choice: Mapping[str, int]) -> list[Problem]:
        built = {**fields, **{field: repair.build(template, choice) for field, template in templates.items()}}
        return consistency_problems(with_derived_defaults(cls.model_construct(**built)), declared, unknown)

    problems.extend(agreed_problems(repair, rules))
    problems = [*(spelling.as_written(p) for p in problems), *spelling.problems]
    if problems:
        raise ConfigError([p.named(written) for p in problems], source or "the stack config")
    config = with_derived_defaults(cls.model_construct(**fields))
    # what was given (so model_fields_set stays what the user wrote), with the derived defaults
    given = {cls.model_fields[field].alias or field: getattr(config, field) for field in fields}
    if config.gpu_operator.version != cls.model_fields["gpu_operator"].get_default(call_default_factory=True).version:
        given["gpuOperator"] = config.gpu_operator  # a per-minor default differs from the field's
    return handler(given)


def _read_as_meant(data: Mapping[str, Any], source: str | None, spelling: Spelling) -> dict[str, Any]:
    """`data` with misspelled section keys (`nodepools`) and misspelled keys inside the sections read as the keys
    they mean (dra_gpu_platform/config/spelling.py)."""
    out: dict[str, Any] = {}
    claimed: set[str] = set()
    known = list(STACK_FILE_KEYS)
    for key, value in data.items():
        if key in SECTIONS or key in SECRET_KEYS or key in METADATA:
            out[key] = value
            continue
        meant, _ = read_as(key, data, known, claimed)
        if meant is None:
            out[key] = value
            continue
        claimed.add(meant)
        out[meant] = value
        spelling.written[meant] = str(key)
        spelling.problems.append(
            Problem(
                source,
                join_path(str(key)),
                value,
                "unknown config key",
                f"did you mean {meant}? rename it to {PROJECT}:{meant} (it was read as {meant} for the other "
                f"checks); known keys: {', '.join(STACK_FILE_KEYS)}",
            )
        )
    for key, (_, model) in SECTIONS.items():
        if key in out and key != "cluster":
            out[key] = correct(model, out[key], (key,), source, spelling)
    cluster = out.get("cluster")
    if isinstance(cluster, Mapping):
        platform = cluster.get("platform")
        model = CLUSTER_MODELS.get(platform) if isinstance(platform, str) else None
        out["cluster"] = correct(model or ClusterBase, cluster, ("cluster",), source, spelling, PLATFORMS)
    return out


def with_derived_defaults(config: Stack) -> Stack:
    return with_gpu_operator_default(with_autoscaler_defaults(config))


def with_gpu_operator_default(config: Stack) -> Stack:
    """A GPU Operator without a pinned version gets the newest listed release NVIDIA supports on the stack's minor
    (dra_gpu_platform/facts/gpu_software_support.py default_gpu_operator); a pinned one stays as written."""
    operator = config.gpu_operator
    if "version" in operator.model_fields_set or not isinstance(config.cluster, ClusterBase):
        return config
    try:
        minor = config.cluster.minor
    except (AttributeError, IndexError, ValueError):
        return config  # a cluster the rules refuse
    version = gpu_software_support.default_gpu_operator(minor)
    if version is None or version == operator.version:
        return config
    derived = GpuOperatorConfig.model_construct(operator.model_fields_set, **{**dict(operator), "version": version})
    return config.model_copy(update={"gpu_operator": derived})


def with_autoscaler_defaults(config: Stack) -> Stack:
    """Where the cluster autoscaler runs, an on-demand or spot `dra` pool that does not name its minNodes keeps one
    node: the autoscaler cannot see DRA devices on a node group with no nodes (docs/references.md#cluster-autoscaler-dra).
    Under Karpenter a device-plugin pool that names no amiType boots Bottlerocket NVIDIA, whose own device plugin
    advertises nvidia.com/gpu as the node registers (dra_gpu_platform/facts/karpenter.py). Explicit values stay as
    written (rules/autoscaler.py and rules/provisioners.py judge them)."""
    if not config.autoscaler_enabled:
        return config
    if config.provisioner == provisioners.KARPENTER:
        pools = [
            pool.model_copy(update={"ami_type": eks_amis.BOTTLEROCKET_NVIDIA})
            if pool.gpu_stack == "device-plugin" and pool.ami_type is None and _x86(config.platform, pool)
            else pool
            for pool in config.node_pools
        ]
        return config.model_copy(update={"node_pools": pools})
    if config.provisioner != provisioners.CLUSTER_AUTOSCALER:
        return config
    pools = [
        pool.model_copy(update={"min_nodes": AUTOSCALED_DRA_MIN_NODES})
        if "min_nodes" not in pool.model_fields_set and pool.autoscaled_from_one_node
        else pool
        for pool in config.node_pools
    ]
    return config.model_copy(update={"node_pools": pools})


def _x86(platform: str, pool: NodePool) -> bool:
    first = pool.instance_types[0] if pool.instance_types else pool.instance_type
    shape = catalog.pool_shape(platform, pool.gpu_key, first)
    return shape is None or shape.cpu_architecture == "x86_64"


def config_error(error: ValidationError, source: str | None = None) -> ConfigError:
    """The ConfigError inside a ValidationError (pydantic wraps what a validator raises), else pydantic's own
    errors as problems."""
    for detail in error.errors():
        cause = (detail.get("ctx") or {}).get("error")
        if isinstance(cause, ConfigError):
            return cause
    return ConfigError(pydantic_problems(error, (), MISSING, source, StackSections), source or "the stack config")


def unknown_config_key(source: str | None, key: Any, value: Any) -> Problem:
    """A stack file key that is no section: what it may have meant and the known keys."""
    return Problem(
        source,
        join_path(str(key)),
        value,
        "unknown config key",
        unknown_key_fix(key, list(STACK_FILE_KEYS), "known keys"),
    )


# ---------------------------------------------------------------------------------------------------
# the cluster section


def _cluster(raw: Any, source: str | None, problems: list[Problem], repair: Repair) -> Any:
    """The cluster of its platform's class, or a template of its stand-in (repair.py) when it is refused. A block of
    another platform is one problem (the block is then left out, so it causes nothing more); with the platform
    missing or unknown, the rest is still checked and the rules see a cluster of each platform in turn."""
    if raw is None:
        problems.append(
            Problem(
                source,
                "cluster",
                MISSING,
                "required key",
                f"add `{PROJECT}:cluster` with platform, name, kubernetesVersion",
            )
        )
        return _any_platform({}, ("cluster",), repair)
    if not isinstance(raw, Mapping):  # a cluster model built in Python, or not a mapping at all
        try:
            return _ADAPTERS["cluster"].validate_python(raw)
        except ValidationError as exc:
            problems.extend(pydantic_problems(exc, ("cluster",), raw, source, ClusterBase))
            return _any_platform({}, ("cluster",), repair)
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
            return repair.model(model, own, ("cluster",))
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
    return _any_platform(raw, ("cluster", "platform"), repair)


def _any_platform(raw: Mapping[str, Any], loc: tuple[str, ...], repair: Repair) -> Slot:
    """A cluster whose platform is unknown: a stand-in of each platform (with that platform's block where one is
    written), so the rules report only what holds on every platform."""
    common = {key: value for key, value in raw.items() if key not in PLATFORMS and key != "platform"}
    options = [
        repair.model(
            CLUSTER_MODELS[platform],
            {**common, "platform": platform, **({platform: raw[platform]} if raw.get(platform) is not None else {})},
            ("cluster",),
        )
        for platform in PLATFORMS
    ]
    return repair.slot(loc, options)


def _is_template(value: Any) -> bool:
    return not isinstance(value, BaseModel)


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


def _declared_names(data: Mapping[str, Any]) -> tuple[dict[str, set[str]], set[str]]:
    """Names written in list sections, valid or not (a reference to an item that failed validation is not reported
    a second time as a dangling reference), and the sections where a name cannot be read (an item without a text
    name, a section that is no list): any reference may mean that item."""
    names: dict[str, set[str]] = {}
    unknown: set[str] = set()
    for key in ("nodePools", "deviceClasses", "namespaces"):
        items = data.get(key)
        names[key] = set()
        if items is not None and not isinstance(items, list):
            unknown.add(key)
        for item in items if isinstance(items, list) else ():
            name = item.get("name") if isinstance(item, Mapping) else getattr(item, "name", None)
            if isinstance(name, str):
                names[key].add(name)
            else:
                unknown.add(key)
    return names, unknown


# ---------------------------------------------------------------------------------------------------
# pydantic's errors as problems


DICT_KEY = "[key]"  # the last part of the location pydantic gives an error of a mapping's key (dict key validation)


def pydantic_problems(
    exc: ValidationError, prefix: tuple[str, ...], value: Any, source: str | None, model: Any
) -> list[Problem]:
    """One problem per pydantic error, at the path of the key the user wrote (`nodePools[1].maxNodes`)."""
    problems = []
    for error in exc.errors():
        loc = _user_path(error["loc"])
        # a mapping's key refused (a label key): the problem is at that entry, and the bad value is the key itself
        bad = loc[-1] if error["loc"][-1:] == (DICT_KEY,) else _lookup(value, loc)
        rule, fix = _explain(error, model, loc, bad)
        if error["type"] == "extra_forbidden":
            parent = _lookup(value, loc[:-1])
            allowed = _allowed_keys(model, loc[:-1])
            given = isinstance(parent, Mapping) and closest_key(loc[-1], allowed) in parent
            fix = unknown_key_fix(loc[-1], allowed, written=given)
        problems.append(Problem(source, join_path(*prefix, *loc), bad, rule, fix))
    return problems


def _user_path(loc: tuple[int | str, ...]) -> list[int | str]:
    """The path of the key the user wrote: without pydantic's validator names, union branch tags and the marker of a
    refused mapping key (`nodePools.0.gpu.described.memory` is `nodePools[0].gpu.memory`, `labels.a b.[key]` is
    `labels["a b"]`)."""
    path: list[int | str] = []
    for part in loc:
        if isinstance(part, str) and (
            part.startswith("function-")
            or (path[-1:] == ["gpu"] and part in GPU_CHOICE_TAGS)
            or (path[-1:] == ["extendedResourceBridge"] and part in BRIDGE_CHOICE_TAGS)
            or part == DICT_KEY
        ):
            continue
        path.append(part)
    return path


def _lookup(value: Any, loc: list[Any]) -> Any:
    for part in loc:
        if (isinstance(value, Mapping) and part in value) or (
            isinstance(value, list) and isinstance(part, int) and 0 <= part < len(value)
        ):
            value = value[part]
        else:
            return MISSING
    return value


def _explain(error: Any, model: Any, loc: list[Any], value: Any = MISSING) -> tuple[str, str]:
    kind = error["type"]
    ctx = error.get("ctx") or {}
    if kind == "dra_rule":
        return ctx["rule"], ctx["fix"]
    if kind == "extra_forbidden":
        return "unknown key", unknown_key_fix(loc[-1], _allowed_keys(model, loc[:-1]))
    if kind == "missing":
        return "required key is missing", f"add `{loc[-1]}`"
    if kind in ("literal_error", "enum"):
        expected = str(ctx.get("expected", ""))
        guess = closest_key(value, re.findall(r"'([^']*)'", expected)) if isinstance(value, str) else None
        hint = f"did you mean {guess}? " if guess is not None and guess != value else ""
        return f"must be one of {expected}", f"{hint}use one of {expected}"
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
        if isinstance(value, Mapping) and len(value) == 1:
            key, inner = next(iter(value.items()))
            return "must be a string; YAML read it as a mapping because it holds ': '", (
                f'quote the whole text: "{short_text(key, 80)}: {short_text(inner, 80)}"'
            )
        return "must be a string", "quote the value"
    if kind in ("list_type",):
        if isinstance(value, Mapping) and value and all(isinstance(item, Mapping) for item in value.values()):
            first = next(iter(value))
            return "must be a list", (
                f"write the entries as a YAML list with their names inside, e.g. `- name: {first}` followed by its "
                "keys, one `- name:` entry per item"
            )
        return "must be a list", "write a YAML list (`- item` or `[a, b]`)"
    if kind in ("dict_type", "model_type", "model_attributes_type"):
        return "must be a mapping", "write `key: value` entries"
    if kind == "string_pattern_mismatch":
        return f"must match {ctx.get('pattern')}", "check the identifier's format"
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        low, high = _bounds(model, loc)
        low = low if low is not None else ctx.get("ge", ctx["gt"] + 1 if "gt" in ctx else None)
        high = high if high is not None else ctx.get("le", ctx["lt"] - 1 if "lt" in ctx else None)
        allowed = (
            f"from {low} to {high}"
            if low is not None and high is not None
            else f"of at least {low}"
            if low is not None
            else f"of at most {high}"
        )
        return f"must be a number {allowed}", f"use a number {allowed}"
    if kind in ("too_short", "too_long", "string_too_long", "string_too_short"):
        return error["msg"], "shorten or lengthen the value to the allowed size"
    return error["msg"], "see the config reference in docs/configuration.md"


def _bounds(model: Any, loc: list[Any]) -> tuple[Any, Any]:
    """(smallest, largest) number the field at `loc` takes, from its ge/gt/le/lt constraints (None: unbounded)."""
    field = _field_at(model, loc)
    low = high = None
    for item in _constraints(field):
        low = getattr(item, "ge", None) if getattr(item, "ge", None) is not None else low
        low = item.gt + 1 if getattr(item, "gt", None) is not None else low
        high = getattr(item, "le", None) if getattr(item, "le", None) is not None else high
        high = item.lt - 1 if getattr(item, "lt", None) is not None else high
    return low, high


def _constraints(field: Any) -> list[Any]:
    """The metadata of a field and of the Annotated types inside its annotation (dict values, list items)."""
    if field is None:
        return []
    found = list(field.metadata)
    todo = [field.annotation]
    while todo:
        annotation = todo.pop()
        if typing.get_origin(annotation) is typing.Annotated:
            for item in typing.get_args(annotation)[1:]:
                found.extend(getattr(item, "metadata", None) or [item])  # Field(ge=0) inside Annotated
        todo.extend(a for a in typing.get_args(annotation) if not isinstance(a, (str, int)))
    return found


def _field_at(model: Any, loc: list[Any]) -> Any:
    current, field = model, None
    for part in loc:
        current = _unwrap(current)
        if isinstance(part, int) or not (isinstance(current, type) and issubclass(current, BaseModel)):
            continue
        field = next((f for f in current.model_fields.values() if f.alias == part), field)
        current = field.annotation if field is not None else None
    return field


def _allowed_keys(model: Any, loc: list[Any]) -> list[str]:
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
