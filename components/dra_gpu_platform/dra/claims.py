"""The ONE parser of ResourceClaim device requests (`spec.devices` of a ResourceClaim, `spec.spec.devices` of a
ResourceClaimTemplate) and of DeviceClass specs, into typed specs the allocator, the quota charges, the policy
pack and `gpuplan fit` share. Pure: no Pulumi imports, no I/O.

Shapes are resource.k8s.io/v1 (v1beta2 has the same `exactly`/`firstAvailable` nesting): k8s.io/api
resource/v1/types.go (DeviceRequest, ExactDeviceRequest, DeviceSubRequest, DeviceConstraint); limits from the same
file (32 requests, 8 subrequests, 32 constraints). docs/references.md#dra-api-request-shapes,
docs/references.md#dra-api-limits.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from dra_gpu_platform.dra.tolerations import Toleration
from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

_DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$")
_QUALIFIED = re.compile(r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[A-Za-z_][A-Za-z0-9_]{0,31}$")

SpecProblem = tuple[str, Any, str, str]  # (path, value, rule, fix)


@dataclass(frozen=True)
class SubRequest:
    """An `exactly` request, or one alternative of a firstAvailable request."""

    request: str
    name: str | None  # subrequest name; None for `exactly`
    device_class: str
    selectors: tuple[str, ...] = ()
    mode: str = "ExactCount"  # ExactCount | All
    count: int = 1
    admin_access: bool = False
    tolerations: tuple[Toleration, ...] = ()
    admin_access_set: bool = False  # adminAccess present (even false): refused when DRAAdminAccess is off
    capacity: tuple[tuple[str, Any], ...] | None = None  # capacity.requests (DRAConsumableCapacity): (name, Fraction)

    @property
    def label(self) -> str:
        return f"{self.request}/{self.name}" if self.name else self.request

    def __hash__(self) -> int:
        # Subrequests key the simulator's caches; hash the fields once, not on every lookup.
        cached = self.__dict__.get("_hash")
        if cached is None:
            cached = hash(
                (
                    self.request,
                    self.name,
                    self.device_class,
                    self.selectors,
                    self.mode,
                    self.count,
                    self.admin_access,
                    self.tolerations,
                    self.admin_access_set,
                    self.capacity,
                )
            )
            object.__setattr__(self, "_hash", cached)
        return cached


@dataclass(frozen=True)
class Request:
    name: str
    alternatives: tuple[SubRequest, ...]
    first_available: bool = False


@dataclass(frozen=True)
class Constraint:
    requests: tuple[str, ...]  # empty: every request
    attribute: str | None  # fully qualified; None: neither field set (stored only with DRAConsumableCapacity off)
    distinct: bool = False  # distinctAttribute instead of matchAttribute

    def applies(self, sub: SubRequest) -> bool:
        return not self.requests or sub.request in self.requests or sub.label in self.requests

    @property
    def field_name(self) -> str:
        return "distinctAttribute" if self.distinct else "matchAttribute"


@dataclass(frozen=True)
class ClaimSpec:
    requests: tuple[Request, ...]
    constraints: tuple[Constraint, ...] = ()

    @property
    def admin_access(self) -> bool:
        return any(sub.admin_access for request in self.requests for sub in request.alternatives)


@dataclass(frozen=True)
class DeviceClassSpec:
    name: str
    selectors: tuple[str, ...] = ()
    extended_resource_name: str | None = None
    # The sharing strategy its opaque config passes to the driver (NVIDIA GpuConfig/MigDeviceConfig and the example
    # driver's GpuConfig: `sharing.strategy`, e.g. TimeSlicing, MPS): the pods of one claim share its device.
    sharing: str | None = None


def parse_device_class(document: Mapping[str, Any]) -> tuple[DeviceClassSpec | None, list[SpecProblem]]:
    problems: list[SpecProblem] = []
    name = (document.get("metadata") or {}).get("name")
    if not isinstance(name, str) or not name:
        problems.append(("metadata.name", name, "a DeviceClass needs a name", "set metadata.name"))
        return None, problems
    spec = document.get("spec") or {}
    selectors = _selectors(spec.get("selectors"), "spec.selectors", problems)
    extended = spec.get("extendedResourceName")
    return DeviceClassSpec(
        name, selectors, extended if isinstance(extended, str) else None, _sharing_strategy(spec.get("config"))
    ), problems


def _sharing_strategy(configs: Any) -> str | None:
    for config in configs if isinstance(configs, list) else []:
        parameters = ((config or {}).get("opaque") or {}).get("parameters") if isinstance(config, Mapping) else None
        sharing = parameters.get("sharing") if isinstance(parameters, Mapping) else None
        strategy = sharing.get("strategy") if isinstance(sharing, Mapping) else None
        if isinstance(strategy, str) and strategy:
            return strategy
    return None


def _selectors(raw: Any, path: str, problems: list[SpecProblem]) -> tuple[str, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(
            (path, raw, "must be a list of {cel: {expression: ...}}", 'write selectors: [{cel: {expression: "..."}}]')
        )
        return ()
    expressions = []
    for i, selector in enumerate(raw):
        expression = ((selector or {}).get("cel") or {}).get("expression") if isinstance(selector, Mapping) else None
        if not isinstance(expression, str) or not expression.strip():
            problems.append(
                (
                    f"{path}[{i}].cel.expression",
                    selector,
                    "a selector needs a CEL expression",
                    'write {cel: {expression: "..."}}',
                )
            )
            continue
        expressions.append(expression)
    if len(expressions) > 32:
        problems.append((path, len(expressions), "at most 32 selectors", "combine selectors with &&"))
    return tuple(expressions)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _tolerations(raw: Any, path: str, problems: list[SpecProblem]) -> tuple[Toleration, ...]:
    result = []
    for i, toleration in enumerate(raw or []):
        if not isinstance(toleration, Mapping):
            problems.append(
                (f"{path}[{i}]", toleration, "a toleration is an object", "write {key, operator, value, effect}")
            )
            continue
        result.append(Toleration.of(toleration))
    return tuple(result)


def _sub_request(
    raw: Mapping[str, Any], request: str, name: str | None, path: str, problems: list[SpecProblem], allow_admin: bool
) -> SubRequest | None:
    before = len(problems)
    device_class = raw.get("deviceClassName")
    if not isinstance(device_class, str) or not device_class:
        problems.append(
            (
                f"{path}.deviceClassName",
                device_class,
                "required: the DeviceClass to allocate from",
                "set deviceClassName, e.g. gpu.nvidia.com",
            )
        )
    mode = raw.get("allocationMode") or "ExactCount"
    if mode not in ("ExactCount", "All"):
        problems.append(
            (f"{path}.allocationMode", mode, "must be ExactCount or All", "use ExactCount with count, or All")
        )
    count = raw.get("count")
    if count is not None and (_int(count) is None or count < 1):
        problems.append((f"{path}.count", count, "count must be a positive integer", "e.g. count: 2"))
    if count is not None and mode == "All":
        problems.append(
            (
                f"{path}.count",
                count,
                "count is only allowed with allocationMode ExactCount",
                "remove count or use ExactCount",
            )
        )
    admin = raw.get("adminAccess")
    if admin is not None and not allow_admin:
        problems.append(
            (
                f"{path}.adminAccess",
                admin,
                "firstAvailable subrequests have no adminAccess",
                "move the request to exactly",
            )
        )
    selectors = _selectors(raw.get("selectors"), f"{path}.selectors", problems)
    tolerations = _tolerations(raw.get("tolerations"), f"{path}.tolerations", problems)
    capacity = _capacity_requests(raw.get("capacity"), f"{path}.capacity", problems)
    if len(problems) > before or not isinstance(device_class, str):  # a class name that is no string: reported above
        return None
    return SubRequest(
        request,
        name,
        device_class,
        selectors,
        mode,
        count if mode == "ExactCount" and count else 1,
        bool(admin) and allow_admin,
        tolerations,
        admin is not None and allow_admin,
        capacity,
    )


def _capacity_requests(raw: Any, path: str, problems: list[SpecProblem]) -> tuple[tuple[str, Any], ...] | None:
    """`capacity.requests` (ExactDeviceRequest/DeviceSubRequest CapacityRequirements) as exact amounts."""
    if raw is None:
        return None
    requests = raw.get("requests") if isinstance(raw, Mapping) else None
    if not isinstance(requests, Mapping):
        problems.append(
            (path, raw, "capacity is {requests: {<name>: <quantity>}}", "e.g. capacity: {requests: {memory: 10Gi}}")
        )
        return None
    parsed = []
    for name, value in requests.items():
        try:
            parsed.append((str(name), parse_quantity(str(value)).value))
        except QuantityError as error:
            problems.append((f"{path}.requests.{name}", value, f"not a quantity: {error}", "e.g. 10Gi"))
    return tuple(sorted(parsed))


def parse_claim_spec(
    devices: Any, path: str = "spec.devices", *, consumable_capacity: bool = True
) -> tuple[ClaimSpec | None, list[SpecProblem]]:
    """A DeviceClaim (resource.k8s.io/v1 ResourceClaim spec.devices) with the API's structural rules.
    `consumable_capacity` is the API server's DRAConsumableCapacity gate, which decides what
    validateDeviceConstraint says about a constraint that has neither matchAttribute nor distinctAttribute."""
    problems: list[SpecProblem] = []
    if not isinstance(devices, Mapping):
        return None, [(path, devices, "a claim needs spec.devices with requests", "add devices: {requests: [...]}")]
    raw_requests = devices.get("requests")
    if not isinstance(raw_requests, list) or not raw_requests:
        return None, [
            (
                f"{path}.requests",
                raw_requests,
                "at least one request",
                "add requests: [{name: gpu, exactly: {deviceClassName: ...}}]",
            )
        ]
    if len(raw_requests) > 32:
        problems.append((f"{path}.requests", len(raw_requests), "at most 32 requests", "split the claim"))
    requests: list[Request] = []
    names: set[str] = set()
    for i, raw in enumerate(raw_requests):
        at = f"{path}.requests[{i}]"
        if not isinstance(raw, Mapping):
            problems.append((at, raw, "a request is an object", "write {name, exactly | firstAvailable}"))
            continue
        name = raw.get("name")
        if not isinstance(name, str) or not _DNS_LABEL.match(name):
            problems.append((f"{at}.name", name, "a request name is a DNS label", "e.g. gpu"))
            continue
        if name in names:
            problems.append((f"{at}.name", name, "request names must be unique", "rename one"))
        names.add(name)
        exactly, first = raw.get("exactly"), raw.get("firstAvailable")
        if (exactly is None) == (first is None):
            problems.append(
                (
                    at,
                    name,
                    "exactly one of exactly or firstAvailable",
                    "use exactly for one kind of device, firstAvailable for ordered alternatives",
                )
            )
            continue
        if exactly is not None:
            if not isinstance(exactly, Mapping):
                problems.append(
                    (f"{at}.exactly", exactly, "must be an object", "write exactly: {deviceClassName: ...}")
                )
                continue
            sub = _sub_request(exactly, name, None, f"{at}.exactly", problems, allow_admin=True)
            if sub is not None:
                requests.append(Request(name, (sub,)))
            continue
        if not isinstance(first, list) or not 1 <= len(first) <= 8:
            problems.append(
                (f"{at}.firstAvailable", first, "1 to 8 subrequests", "list the alternatives in order of preference")
            )
            continue
        alternatives = []
        sub_names: set[str] = set()
        for j, raw_sub in enumerate(first):
            sub_at = f"{at}.firstAvailable[{j}]"
            sub_name = raw_sub.get("name") if isinstance(raw_sub, Mapping) else None
            if not isinstance(sub_name, str) or not _DNS_LABEL.match(sub_name) or sub_name in sub_names:
                problems.append((f"{sub_at}.name", sub_name, "a subrequest name is a unique DNS label", "e.g. big-gpu"))
                continue
            sub_names.add(sub_name)
            sub = _sub_request(raw_sub, name, sub_name, sub_at, problems, allow_admin=False)
            if sub is not None:
                alternatives.append(sub)
        if len(alternatives) == len(first):
            requests.append(Request(name, tuple(alternatives), first_available=True))
    labels = {r.name for r in requests} | {s.label for r in requests for s in r.alternatives}
    constraints = []
    for i, raw in enumerate(devices.get("constraints") or []):
        at = f"{path}.constraints[{i}]"
        if not isinstance(raw, Mapping):
            problems.append((at, raw, "a constraint is an object", "write {requests, matchAttribute}"))
            continue
        match, distinct = raw.get("matchAttribute"), raw.get("distinctAttribute")
        if match is not None and distinct is not None:
            problems.append(
                (
                    at,
                    raw,
                    "exactly one of matchAttribute or distinctAttribute",
                    "e.g. matchAttribute: resource.kubernetes.io/pcieRoot",
                )
            )
            continue
        if match is None and distinct is None:
            # pkg/apis/resource/validation validateDeviceConstraint: without DRAConsumableCapacity only
            # matchAttribute exists, so it is the required field.
            if consumable_capacity:
                problems.append(
                    (
                        at,
                        raw,
                        "exactly one of matchAttribute or distinctAttribute is required",
                        "e.g. matchAttribute: resource.kubernetes.io/pcieRoot",
                    )
                )
            else:
                problems.append(
                    (
                        f"{at}.matchAttribute",
                        None,
                        "Required value (distinctAttribute exists only with the DRAConsumableCapacity feature gate)",
                        "use matchAttribute, or enable DRAConsumableCapacity",
                    )
                )
            continue
        attribute = match if match is not None else distinct
        if not isinstance(attribute, str) or not _QUALIFIED.match(attribute):
            problems.append(
                (
                    f"{at}.{'matchAttribute' if match is not None else 'distinctAttribute'}",
                    attribute,
                    "a fully qualified attribute <domain>/<C identifier>",
                    "e.g. resource.kubernetes.io/pcieRoot or gpu.nvidia.com/parentUUID",
                )
            )
            continue
        named = raw.get("requests") or []
        unknown = [r for r in named if r not in labels] if isinstance(named, list) else [named]
        if unknown and not problems:
            problems.append(
                (
                    f"{at}.requests",
                    named,
                    f"{', '.join(map(str, unknown))} is not a request of this claim",
                    f"name requests of this claim: {', '.join(sorted(labels))}",
                )
            )
            continue
        constraints.append(Constraint(tuple(named), attribute, distinct=distinct is not None))
    if problems:
        return None, problems
    return ClaimSpec(tuple(requests), tuple(constraints)), problems


# ---------------------------------------------------------------------------------------------------
# Selectors of any request shape, for checks that must also read claims the strict parser rejects


@dataclass(frozen=True)
class RequestSelectors:
    path: str  # e.g. spec.devices.requests[0].firstAvailable[1]
    device_class: str | None
    selectors: tuple[tuple[str, str], ...]  # (path, CEL expression)


def request_selectors(devices: Any, base: str) -> list[RequestSelectors]:
    """Every (sub)request of a DeviceClaim with its CEL selectors and their paths: v1/v1beta2 (exactly,
    firstAvailable) and v1beta1 (fields on the request) shapes; malformed parts are skipped, not reported."""
    found: list[RequestSelectors] = []
    requests = devices.get("requests") if isinstance(devices, Mapping) else None
    for i, request in enumerate(requests if isinstance(requests, list) else []):
        if not isinstance(request, Mapping):
            continue
        at = f"{base}.requests[{i}]"
        alternatives = request.get("firstAvailable")
        if isinstance(alternatives, list) and alternatives:
            shapes = [(f"{at}.firstAvailable[{j}]", sub) for j, sub in enumerate(alternatives)]
        elif request.get("exactly") is not None:
            shapes = [(f"{at}.exactly", request.get("exactly"))]
        else:  # v1beta1: the fields sit on the request itself
            shapes = [(at, request)]
        for where, shape in shapes:
            if not isinstance(shape, Mapping):
                continue
            raw = shape.get("selectors")
            selectors = tuple(
                (f"{where}.selectors[{k}].cel.expression", selector["cel"]["expression"])
                for k, selector in enumerate(raw if isinstance(raw, list) else [])
                if isinstance(selector, Mapping)
                and isinstance(selector.get("cel"), Mapping)
                and isinstance(selector["cel"].get("expression"), str)
            )
            device_class = shape.get("deviceClassName")
            found.append(RequestSelectors(where, device_class if isinstance(device_class, str) else None, selectors))
    return found
