"""What a pod asks of a node's allocatable resources, as the scheduler and the kubelet add it up. Pure: no Pulumi
imports, no I/O.

Sources (docs/references.md#kubernetes-pod-requests): kubernetes/component-helpers v0.35.7 `resource/helpers.go`
`PodRequests` and `AggregateContainerRequests` (regular containers summed; an init container's request plus the
restartable sidecars started before it, the maximum of those; sidecars added to the sum; the larger of sum and init
maximum per resource; pod-level cpu/memory requests replace the containers' where set; `spec.overhead` added last);
kubernetes `pkg/apis/core/v1/defaults.go` (`SetDefaults_Pod`: a container's limits become its requests where a
request is missing); kubernetes `pkg/apis/core/v1/helper/helpers.go` (`IsExtendedResourceName`,
`IsPrefixedNativeResource`) and `pkg/scheduler/util` (`IsDRAExtendedResourceName`: also
`deviceclass.resource.kubernetes.io/<class>`). Units as the scheduler compares them: cpu in millicores (MilliValue,
rounded up), everything else in whole units (Value, rounded up).
"""

from __future__ import annotations

import copy
import math
from collections.abc import Mapping, Sequence
from typing import Any

from dra_gpu_platform.facts.quantity import QuantityError, parse_quantity

CPU, MEMORY, EPHEMERAL_STORAGE, PODS = "cpu", "memory", "ephemeral-storage", "pods"
NATIVE_PREFIX = "kubernetes.io/"
IMPLICIT_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"
QUOTA_REQUESTS_PREFIX = "requests."
# Pod-level resources (PodLevelResources) cover only these (IsSupportedPodLevelResource).
POD_LEVEL_RESOURCES = (CPU, MEMORY)


def is_extended_resource(name: str) -> bool:
    """IsExtendedResourceName: a domain-qualified name outside kubernetes.io, not a quota `requests.` key."""
    return "/" in name and NATIVE_PREFIX not in name and not name.startswith(QUOTA_REQUESTS_PREFIX)


def is_dra_extended_resource(name: str) -> bool:
    """IsDRAExtendedResourceName: an extended resource, or a DeviceClass's implicit name."""
    return is_extended_resource(name) or name.startswith(IMPLICIT_EXTENDED_PREFIX)


def amount(resource: str, raw: Any) -> int:
    """A quantity in the scheduler's unit for `resource` (cpu: millicores); an unreadable quantity counts 0 (the
    API server's validation rejects it before this matters)."""
    try:
        value = parse_quantity(str(raw)).value
    except QuantityError:
        return 0
    return math.ceil(value * 1000) if resource == CPU else math.ceil(value)


def _containers(spec: Mapping[str, Any], key: str) -> list[Mapping[str, Any]]:
    found = spec.get(key)
    if not isinstance(found, Sequence) or isinstance(found, str):
        return []
    return [c for c in found if isinstance(c, Mapping)]


def default_requests(pod: Mapping[str, Any]) -> dict[str, Any]:
    """SetDefaults_Pod on a pod object: every container (init and regular) whose limits name a resource without a
    request gets the limit as its request. Returns a copy."""
    result: dict[str, Any] = copy.deepcopy(dict(pod))
    spec = result.get("spec")
    if not isinstance(spec, dict):
        return result
    for key in ("initContainers", "containers"):
        for container in spec.get(key) or []:
            if not isinstance(container, dict):
                continue
            resources = container.get("resources")
            if not isinstance(resources, dict) or not isinstance(resources.get("limits"), Mapping):
                continue
            requests = resources.setdefault("requests", {})
            if isinstance(requests, dict):
                for name, value in resources["limits"].items():
                    requests.setdefault(name, value)
    return result


def container_requests(container: Mapping[str, Any]) -> dict[str, int]:
    resources = container.get("resources")
    requests = resources.get("requests") if isinstance(resources, Mapping) else None
    if not isinstance(requests, Mapping):
        return {}
    return {str(name): amount(str(name), value) for name, value in requests.items()}


def _add(total: dict[str, int], other: Mapping[str, int]) -> None:
    for name, value in other.items():
        total[name] = total.get(name, 0) + value


def _max(total: dict[str, int], other: Mapping[str, int]) -> None:
    for name, value in other.items():
        total[name] = max(total.get(name, 0), value)


def pod_requests(spec: Mapping[str, Any], *, pod_level_resources: bool = True) -> dict[str, int]:
    """PodRequests of a pod spec (after defaulting): what NodeResourcesFit and the kubelet compare with a node's
    allocatable. Zero amounts are kept out."""
    total: dict[str, int] = {}
    for container in _containers(spec, "containers"):
        _add(total, container_requests(container))
    init_max: dict[str, int] = {}
    sidecars: dict[str, int] = {}
    for container in _containers(spec, "initContainers"):
        requests = container_requests(container)
        if container.get("restartPolicy") == "Always":
            _add(sidecars, requests)
            _add(total, requests)
            _max(init_max, sidecars)
        else:
            step = dict(sidecars)
            _add(step, requests)
            _max(init_max, step)
    _max(total, init_max)
    pod_level = spec.get("resources")
    if pod_level_resources and isinstance(pod_level, Mapping) and isinstance(pod_level.get("requests"), Mapping):
        for name, value in pod_level["requests"].items():
            if name in POD_LEVEL_RESOURCES:
                total[str(name)] = amount(str(name), value)
    overhead = spec.get("overhead")
    if isinstance(overhead, Mapping):
        _add(total, {str(n): amount(str(n), v) for n, v in overhead.items()})
    return {name: value for name, value in total.items() if value}


def extended_requests(spec: Mapping[str, Any]) -> list[tuple[int, str, int]]:
    """(container index over initContainers + containers, resource, amount) of every DRA-extended resource request,
    in that order and each container's requests sorted by name, as the DRA plugin walks them
    (extendeddynamicresources.go createDeviceRequests)."""
    found = []
    containers = _containers(spec, "initContainers") + _containers(spec, "containers")
    for index, container in enumerate(containers):
        for name, value in sorted(container_requests(container).items()):
            if value and is_dra_extended_resource(name):
                found.append((index, name, value))
    return found


def request_name(spec: Mapping[str, Any], container: int, resource: str) -> str:
    """The device request the DRA plugin names for `resource` of a container: `container-<i>-request-<j>`, j the
    position of the resource among all of that container's sorted request keys (cpu and memory included)."""
    containers = _containers(spec, "initContainers") + _containers(spec, "containers")
    keys = sorted(container_requests(containers[container]))
    return f"container-{container}-request-{keys.index(resource)}"
