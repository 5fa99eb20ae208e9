"""The cluster dump (`kubectl get resourceslices,resourceclaims,nodes,deviceclasses,devicetaintrules -A -o json`):
input handling that reads the objects `gpuplan fit` and `gpuplan inventory` take from a real cluster, every problem at
once. Pure: no Pulumi imports, no I/O (the caller loads the documents).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from dra_gpu_platform.dra.devices import RESOURCE_API
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem

_SLICE_APIS = ("resource.k8s.io/v1", "resource.k8s.io/v1beta2", "resource.k8s.io/v1beta1")
DUMP_KINDS = ("ResourceSlice", "ResourceClaim", "Node", "DeviceClass", "DeviceTaintRule")


@dataclass
class ClusterDump:
    """`kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json` (or any mix of those objects,
    single or in Lists): slices in v1 shape and in input order, every generation kept (pool validity is the
    allocator's judgement, dra_gpu_platform/dra/cluster.py)."""

    source: str
    slices: list[dict[str, Any]] = field(default_factory=list)
    nodes: list[dict[str, Any]] = field(default_factory=list)
    claims: list[dict[str, Any]] = field(default_factory=list)
    classes: list[dict[str, Any]] = field(default_factory=list)
    taint_rules: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def read_cluster_dump(documents: list[Any], source: str) -> ClusterDump:
    """Raises InputError listing every problem (structure the API server would never have stored)."""
    dump = ClusterDump(source)
    problems: list[Problem] = []
    ignored: dict[str, int] = {}
    seen: dict[tuple[str, str, str], tuple[str, Any]] = {}  # (kind, namespace, name) -> (path, object)
    items: list[tuple[str, Any]] = []
    for d, document in enumerate(documents):
        at = f"[{d}]" if len(documents) > 1 else ""
        if document is None:
            continue
        if isinstance(document, Mapping) and (
            document.get("kind") in ("List", "ResourceSliceList") or ("items" in document and "kind" not in document)
        ):
            values = document.get("items")
            if not isinstance(values, list):
                problems.append(
                    Problem(
                        source,
                        f"{at}items".lstrip("."),
                        values,
                        "a List needs items",
                        "pass `kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json` output",
                    )
                )
                continue
            items += [(f"{at}items[{i}]", item) for i, item in enumerate(values)]
        else:
            items.append((at, document))
    for at, item in items:
        if not isinstance(item, Mapping):
            problems.append(
                Problem(source, at, item, "not a Kubernetes object", "pass `kubectl get ... -o json` output")
            )
            continue
        kind = item.get("kind")
        if kind not in DUMP_KINDS:
            ignored[str(kind)] = ignored.get(str(kind), 0) + 1
            continue
        metadata = item.get("metadata") or {}
        key = (str(kind), str(metadata.get("namespace") or ""), str(metadata.get("name") or ""))
        if key[2] and key in seen:
            if seen[key][1] == item:
                dump.notes.append(
                    f"{kind} {key[2]} is listed twice ({seen[key][0]} and {at}); the API server stores one "
                    "object per name, so it counts once"
                )
                continue
            problems.append(
                Problem(
                    source,
                    at,
                    key[2],
                    f"a second, different {kind} named {key[2]} (first at {seen[key][0]}); "
                    "a cluster holds one object per name",
                    "dump the cluster once; do not concatenate dumps",
                )
            )
            continue
        seen[key] = (at, item)
        if kind == "ResourceSlice":
            _read_slice(item, at, source, dump.slices, problems)
        elif kind == "ResourceClaim":
            dump.claims.append(dict(item))
        elif kind == "Node":
            if not metadata.get("name"):
                problems.append(
                    Problem(source, f"{at}.metadata.name", MISSING, "a Node needs a name", "dump the full object")
                )
                continue
            dump.nodes.append(dict(item))
        elif kind == "DeviceClass":
            dump.classes.append(dict(item))
        else:
            dump.taint_rules.append(dict(item))
    for kind, count in sorted(ignored.items()):
        dump.notes.append(f"{count} object(s) of kind {kind} ignored (fit reads {', '.join(DUMP_KINDS)})")
    if not problems and not dump.slices:
        problems.append(
            Problem(
                source,
                "",
                MISSING,
                "the inventory holds no ResourceSlice",
                "dump a cluster whose DRA drivers run: kubectl get resourceslices,resourceclaims,nodes,deviceclasses -A -o json",
            )
        )
    if problems:
        raise InputError(problems, source)
    return dump


def _read_slice(item: Any, at: str, source: str, out: list[dict[str, Any]], problems: list[Problem]) -> None:
    def bad(path: str, value: Any, rule: str, fix: str) -> None:
        problems.append(Problem(source, f"{at}.{path}" if at else path, value, rule, fix))

    if item.get("apiVersion") not in _SLICE_APIS:
        bad(
            "apiVersion",
            item.get("apiVersion", MISSING),
            f"must be one of {', '.join(_SLICE_APIS)}",
            "dump with a kubectl of Kubernetes 1.32 or newer",
        )
        return
    spec = item.get("spec")
    if not isinstance(spec, Mapping):
        bad("spec", spec if spec is not None else MISSING, "a ResourceSlice needs a spec", "dump the full object")
        return
    driver, pool = spec.get("driver"), spec.get("pool")
    if not isinstance(driver, str) or not driver:
        bad("spec.driver", driver if driver is not None else MISSING, "required driver name", "e.g. gpu.nvidia.com")
    if not isinstance(pool, Mapping) or not isinstance(pool.get("name"), str):
        bad(
            "spec.pool.name",
            pool.get("name", MISSING) if isinstance(pool, Mapping) else MISSING,
            "required pool name",
            "dump the full object",
        )
        return
    for key in ("generation", "resourceSliceCount"):
        value = pool.get(key, 0 if key == "generation" else None)
        if not isinstance(value, int) or isinstance(value, bool) or value < (0 if key == "generation" else 1):
            bad(
                f"spec.pool.{key}",
                value if value is not None else MISSING,
                "an integer (generation >= 0, resourceSliceCount >= 1)",
                "dump the full object",
            )
    devices = spec.get("devices") or []
    if not isinstance(devices, list):
        bad("spec.devices", devices, "must be a list", "dump the full object")
        return
    if not isinstance(driver, str) or not driver:
        return
    converted = []
    for j, device in enumerate(devices):
        if not isinstance(device, Mapping) or not isinstance(device.get("name"), str):
            bad(f"spec.devices[{j}].name", device, "each device needs a name", "dump the full object")
            continue
        if "basic" in device:  # v1beta1
            device = {"name": device["name"], **(device.get("basic") or {})}
        for kind in ("attributes", "capacity"):
            values = device.get(kind)
            if values is not None and not isinstance(values, dict):
                bad(f"spec.devices[{j}].{kind}", values, f"{kind} map names to objects", "dump the full object")
        converted.append(device)
    out.append(
        {
            "apiVersion": RESOURCE_API,
            "kind": "ResourceSlice",
            "metadata": dict(item.get("metadata") or {}),
            "spec": {**spec, "devices": converted},
        }
    )
