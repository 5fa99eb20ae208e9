"""Field types of the stack file contract: each carries its own rule (a DNS label, a quantity, a CEL selector that
compiles, ...), and the base model every section shares: camelCase keys only, unknown keys refused. Pure: no Pulumi.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, Field, Strict
from pydantic.alias_generators import to_camel
from pydantic_core import PydanticCustomError

from dra_gpu_platform.cel import CelCompileError, compile_selector
from dra_gpu_platform.facts import kubernetes, versions
from dra_gpu_platform.facts.catalog import GPU_MODELS
from dra_gpu_platform.facts.naming import DNS_SUBDOMAIN_MAX
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

PROJECT = "dra-gpu-platform"  # the Pulumi project: stack file keys are `dra-gpu-platform:<section>`
STACK_CONFIG_DIR = "stacks"

GpuKey = Literal[
    "H100",
    "H100-NVL",
    "H200",
    "A100-40GB",
    "A100-80GB",
    "B200",
    "GB200",
    "B300",
    "RTX-PRO-6000",
    "A10G",
    "A10",
    "T4",
    "L4",
    "L40S",
]
assert set(get_args(GpuKey)) == set(GPU_MODELS)  # the stack contract and the catalog list the same GPUs


def rule_error(rule: str, fix: str) -> PydanticCustomError:
    return PydanticCustomError("dra_rule", "{rule}", {"rule": rule, "fix": fix})


_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")


def _dns_label(value: str) -> str:
    if len(value) > 63 or not _DNS_LABEL.match(value):
        raise rule_error(
            "must be a DNS label (RFC 1123): lower-case letters, digits and '-', starting and ending with a "
            "letter or digit, at most 63 characters",
            f"rename it, e.g. {_suggest_label(value)!r}",
        )
    return value


_DNS_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _dns_subdomain(value: str) -> str:
    if len(value) > DNS_SUBDOMAIN_MAX or not _DNS_SUBDOMAIN.match(value):
        raise rule_error(
            "must be a DNS subdomain (RFC 1123), as Kubernetes names a DeviceClass: lower-case letters, digits, '-' "
            f"and '.', each dot-separated part starting and ending with a letter or digit, at most {DNS_SUBDOMAIN_MAX} "
            "characters",
            f"rename it, e.g. {_suggest_subdomain(value)!r}",
        )
    return value


def _suggest_subdomain(value: str) -> str:
    parts = (part.strip("-") for part in re.sub(r"[^a-z0-9.-]+", "-", value.lower()).split("."))
    return ".".join(part for part in parts if part)[:DNS_SUBDOMAIN_MAX].strip(".-") or "name"


def _suggest_label(value: str) -> str:
    label = re.sub(r"[^a-z0-9-]+", "-", value.lower()).strip("-")[:63].strip("-")
    return label or "name"


def _quantity(value: str | int) -> str:
    try:
        parse_quantity(value)
    except QuantityError as exc:
        raise rule_error(str(exc), "write a Kubernetes quantity such as '79Gi', '81559Mi' or '40G'") from None
    return str(value)


_QUALIFIED_ATTRIBUTE = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z_][A-Za-z0-9_]{0,31}$")


def _qualified_attribute(value: str) -> str:
    if len(value.split("/", 1)[0]) > 253 or not _QUALIFIED_ATTRIBUTE.match(value):
        raise rule_error(
            "must be a fully qualified device attribute `<domain>/<name>` whose name is a C identifier "
            "(letters, digits, '_'; at most 32 characters); hyphens are not allowed in the name",
            "use an attribute the driver publishes, e.g. resource.kubernetes.io/pcieRoot or gpu.nvidia.com/parentUUID",
        )
    return value


_CC = re.compile(r"^\d+\.\d+(\.\d+)?$")


def _compute_capability(value: str | float) -> str:
    text = str(value)
    if not _CC.match(text):
        raise rule_error(
            'must be a CUDA compute capability like "8.0" or "9.0"', 'quote it: minComputeCapability: "8.0"'
        )
    return text


def check_kubernetes_version(value: Any) -> str:
    # YAML reads an unquoted 1.35 as a float; accept it when it reads back unambiguously.
    text = value if isinstance(value, str) else (repr(value) if isinstance(value, float) else None)
    if text is None or not re.match(r"^1\.\d{2}$", text):
        raise rule_error(
            'must be a Kubernetes minor version string like "1.35"', 'write it quoted: kubernetesVersion: "1.35"'
        )
    minor = int(text.split(".")[1])
    if (1, minor) < versions.MIN_KUBERNETES:
        raise rule_error(
            "DRA's resource.k8s.io/v1 API is GA from Kubernetes 1.34; older versions are not supported",
            'use "1.34" or newer',
        )
    if text in kubernetes.ANNOUNCED:
        announced = kubernetes.ANNOUNCED[text]
        raise rule_error(
            f"Kubernetes {text} is announced for {announced.due.isoformat()} and served here only once released and "
            f"its facts are read; this package renders for {', '.join(versions.SUPPORTED_KUBERNETES)}",
            f'stay on "{versions.SUPPORTED_KUBERNETES[-1]}" or older; `gpuplan upgrade --to {text}` lists what {text} '
            "changes",
        )
    if text not in versions.SUPPORTED_KUBERNETES:
        raise rule_error(
            f"this package renders and validates for Kubernetes {', '.join(versions.SUPPORTED_KUBERNETES)} (which of "
            "them EKS and AKS offer is checked per platform: dra_gpu_platform/config/rules/kubernetes_version.py)",
            f"use one of {', '.join(versions.SUPPORTED_KUBERNETES)}",
        )
    return text


_LABEL_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_LABEL_PREFIX = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def _label_key(value: str) -> str:
    prefix, _, name = value.rpartition("/")
    if (
        (prefix and (len(prefix) > 253 or not _LABEL_PREFIX.match(prefix)))
        or len(name) > 63
        or not _LABEL_NAME.match(name)
    ):
        raise rule_error(
            f"label key {value!r} is not a valid Kubernetes label key",
            "use [prefix/]name with name ≤ 63 characters of [A-Za-z0-9_.-]",
        )
    return value


def _label_value(value: str) -> str:
    if value and (len(value) > 63 or not _LABEL_NAME.match(value)):
        raise rule_error(
            f"label value {value!r} is not a valid Kubernetes label value",
            "use ≤ 63 characters of [A-Za-z0-9_.-], starting and ending alphanumeric",
        )
    return value


def _node_name(value: str) -> str:
    if len(value) > DNS_SUBDOMAIN_MAX or not _DNS_SUBDOMAIN.match(value):
        raise rule_error(
            "a node name is a DNS subdomain (RFC 1123): lower-case letters, digits, '-' and '.', at most 253 "
            "characters",
            "copy the name from `kubectl get nodes`",
        )
    return value


_PULUMI_INT = re.compile(r"^[-+]?(0|[1-9][0-9]*)$")


def _pulumi_bool(value: Any) -> Any:
    # `pulumi config set --type string --path cluster.protect true` (or a quoted "true") stores the text "true";
    # Pulumi's own coercion of untyped path values turns exactly "true"/"false" into booleans (config/object.go coerce).
    if isinstance(value, str) and value in ("true", "false"):
        return value == "true"
    return value


def _pulumi_int(value: Any) -> Any:
    # The same coercion's integers: base-10 digits without a leading zero ("0123" stays text there, so here too).
    if isinstance(value, str) and _PULUMI_INT.match(value):
        return int(value)
    return value


# Strict where pydantic's lax mode changes meaning: `maxNodes: true` is not 1, `protect: 1`, `protect: "yes"` and
# `protect: "on"` are not true; only the strings Pulumi itself would coerce are read as booleans or numbers.
StackBool = Annotated[bool, Strict(), BeforeValidator(_pulumi_bool)]
StackInt = Annotated[int, Strict(), BeforeValidator(_pulumi_int)]
DnsLabel = Annotated[str, AfterValidator(_dns_label)]
DnsSubdomain = Annotated[str, AfterValidator(_dns_subdomain)]
NodeName = Annotated[str, AfterValidator(_node_name)]
QuantityText = Annotated[str, AfterValidator(_quantity)]
QualifiedAttribute = Annotated[str, AfterValidator(_qualified_attribute)]
ComputeCapability = Annotated[str, AfterValidator(_compute_capability)]
LabelKey = Annotated[str, AfterValidator(_label_key)]  # a label's (or a taint's) key: [prefix/]name
LabelValue = Annotated[str, AfterValidator(_label_value)]
# Each entry checked by itself, a problem at its own path (`labels["bad key"]`): a value of the wrong type never
# hides a bad key beside it, and every bad key or value is named, not only the first.
Labels = dict[LabelKey, LabelValue]


def _compiles(expression: str) -> str:
    # The scheduler and the policy pack read selectors with this engine (dra.cel); one that does not compile is a
    # config error, named with its path here rather than by the policy after a preview or by the API server.
    try:
        compile_selector(expression)
    except CelCompileError as error:
        first_line = str(error).splitlines()[0]  # the engine's caret drawing would break the one-line problem
        raise rule_error(
            f"not a DRA device selector that compiles: {first_line}",
            "write a CEL expression that evaluates to bool over device.driver, device.attributes['<domain>'].<name> "
            "and device.capacity['<domain>'].<name> (docs/references.md#cel-device-variable)",
        ) from None
    return expression


# A CEL device selector (DeviceClass, claim request, firstAvailable alternative): compiled at config time.
CelExpression = Annotated[str, Field(min_length=1, max_length=10 * 1024), AfterValidator(_compiles)]


class ConfigModel(BaseModel):
    # Keys are read by their camelCase alias only: a stack file, a sections dict and a Python call all spell
    # `instanceType`, so `instance_type:` is an unknown key (with a suggestion), never a silent second spelling.
    model_config = ConfigDict(
        extra="forbid",
        frozen=True,
        alias_generator=to_camel,
        validate_by_alias=True,
        validate_by_name=False,
        strict=False,
    )
