"""What `gpuplan fit` evaluates: the stack's own DRA objects and the manifests of --claims files.

Claim files are multi-document YAML. DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceQuota and
Namespace objects are taken as they are; Pods and workloads (Deployment, StatefulSet, DaemonSet, ReplicaSet,
Job, CronJob) are read for their claims: spec.resourceClaims entries resolve against the files and the
stack, and extended resources in container limits become the claim the scheduler would create for them
(KEP-5004: `deviceclass.resource.kubernetes.io/<class>`, or a class's extendedResourceName).
A file that cannot be read, an unknown kind or an object the API server would reject is invalid input.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import yaml

from components.dra.claims import ClaimSpec, DeviceClassSpec, Request, SubRequest, parse_claim_spec, parse_device_class
from components.dra.cel import CelCompileError, compile_selector
from components.config.problems import MISSING, Problem
from components.facts.quantity import QuantityError, parse_quantity

ADMIN_ACCESS_LABEL = "resource.kubernetes.io/admin-access"
IMPLICIT_EXTENDED_PREFIX = "deviceclass.resource.kubernetes.io/"
DEVICE_PLUGIN_RESOURCE = "nvidia.com/gpu"
_CLAIM_APIS = ("resource.k8s.io/v1", "resource.k8s.io/v1beta2")
_KINDS = {
    "DeviceClass": _CLAIM_APIS,
    "ResourceClaim": _CLAIM_APIS,
    "ResourceClaimTemplate": _CLAIM_APIS,
    "ResourceQuota": ("v1",),
    "Namespace": ("v1",),
    "Pod": ("v1",),
    "Deployment": ("apps/v1",),
    "StatefulSet": ("apps/v1",),
    "DaemonSet": ("apps/v1",),
    "ReplicaSet": ("apps/v1",),
    "Job": ("batch/v1",),
    "CronJob": ("batch/v1",),
}


@dataclass
class ClaimEntry:
    """One claim or claim template to evaluate, with what is already known about it."""

    source: str
    namespace: str
    name: str
    kind: str  # ResourceClaimTemplate | ResourceClaim | extended-resources | reference
    spec: ClaimSpec | None = None
    errors: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    extended_resources: tuple[str, ...] = ()

    @property
    def single(self) -> bool:
        """A ResourceClaim object (or the claim the scheduler makes for one pod) is allocated once."""
        return self.kind in ("ResourceClaim", "extended-resources")


@dataclass
class FitInputs:
    classes: dict[str, DeviceClassSpec] = field(default_factory=dict)
    class_sources: dict[str, str] = field(default_factory=dict)
    quotas: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # namespace -> hard maps
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)  # namespace -> labels
    taint_rules: list[dict[str, Any]] = field(default_factory=list)
    entries: list[ClaimEntry] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    extended_gate: bool = False  # DRAExtendedResource on (draDriver.extendedResourceBridge)
    plugin_pools: tuple[str, ...] = ()  # node pools whose device plugin advertises nvidia.com/gpu

    def add_class(self, spec: DeviceClassSpec, source: str, *, override: bool = True) -> None:
        if override or spec.name not in self.classes:
            self.classes[spec.name] = spec
            self.class_sources[spec.name] = source

    def find(self, namespace: str, name: str, kinds: tuple[str, ...]) -> ClaimEntry | None:
        return next((e for e in self.entries if e.namespace == namespace and e.name == name and e.kind in kinds), None)


def _meta(document: Mapping[str, Any]) -> tuple[str, str]:
    metadata = document.get("metadata") or {}
    return str(metadata.get("namespace") or "default"), str(metadata.get("name") or metadata.get("generateName") or "")


def add_stack_objects(inputs: FitInputs, manifests: list[dict[str, Any]], chart_classes: list[dict[str, Any]], source: str) -> None:
    """The stack's DeviceClasses, claim templates, quotas, namespaces and DeviceTaintRules as recorded by the
    offline program run, plus the classes the driver chart creates by itself."""
    for document in chart_classes:
        spec, _ = parse_device_class(document)
        if spec is not None:
            inputs.add_class(spec, "driver chart")
    for document in manifests:
        kind = document.get("kind")
        namespace, name = _meta(document)
        if kind == "DeviceClass":
            spec, _ = parse_device_class(document)
            if spec is not None:
                inputs.add_class(spec, source)
        elif kind == "ResourceQuota":
            inputs.quotas.setdefault(namespace, []).append(dict((document.get("spec") or {}).get("hard") or {}))
        elif kind == "Namespace":
            inputs.namespaces[name] = dict((document.get("metadata") or {}).get("labels") or {})
        elif kind == "DeviceTaintRule":
            inputs.taint_rules.append(document)
    for document in sorted((d for d in manifests if d.get("kind") == "ResourceClaimTemplate"), key=_meta):
        namespace, name = _meta(document)
        spec, problems = parse_claim_spec(((document.get("spec") or {}).get("spec") or {}).get("devices"), "spec.spec.devices")
        entry = ClaimEntry(source, namespace, name, "ResourceClaimTemplate", spec)
        entry.errors += [f"{path}: {rule}" for path, _, rule, _ in problems]
        inputs.entries.append(entry)


def read_documents(path: Path) -> tuple[list[Any], list[Problem]]:
    file = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return [], [Problem(file, "", MISSING, "the file does not exist", "check the path given to --claims/--inventory")]
    except (OSError, UnicodeDecodeError) as error:
        return [], [Problem(file, "", MISSING, f"cannot read the file: {error}", "pass a readable UTF-8 YAML or JSON file")]
    try:
        return list(yaml.safe_load_all(text)), []
    except yaml.YAMLError as error:
        mark = getattr(error, "problem_mark", None)
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else "unknown position"
        return [], [Problem(file, "", MISSING, f"not valid YAML ({where}): {getattr(error, 'problem', error)}", "fix the YAML syntax")]


def add_claim_files(inputs: FitInputs, paths: list[Path], kubernetes_version: str, stack_source: str) -> list[Problem]:
    """Read every claim file into `inputs`; returns the problems (invalid input) of all of them."""
    from gpuplan.checks.kube_validate import validate_document

    problems: list[Problem] = []
    workloads: list[tuple[str, str, str, Mapping[str, Any]]] = []  # (file, kind, name, pod spec)
    for path in paths:
        file = str(path)
        documents, read_problems = read_documents(path)
        problems += read_problems
        for index, document in enumerate(documents):
            if document is None:
                continue
            at = f"documents[{index}]"
            if not isinstance(document, Mapping) or not isinstance(document.get("kind"), str):
                problems.append(Problem(file, at, document if not isinstance(document, Mapping) else document.get("kind", MISSING),
                                        "not a Kubernetes object (no kind)", "each YAML document needs apiVersion, kind and metadata"))
                continue
            kind, api = document["kind"], document.get("apiVersion")
            namespace, name = _meta(document)
            at = f"documents[{index}] ({kind} {name})"
            if kind not in _KINDS:
                problems.append(Problem(file, f"{at}.kind", kind, "gpuplan fit does not read this kind",
                                        f"pass only {', '.join(_KINDS)} manifests"))
                continue
            if api not in _KINDS[kind]:
                problems.append(Problem(file, f"{at}.apiVersion", api if api is not None else MISSING,
                                        f"{kind} must be {' or '.join(_KINDS[kind])}", f"use apiVersion: {_KINDS[kind][0]}"))
                continue
            schema_errors = validate_document(dict(document), f"{kubernetes_version}.0", file)
            for error in schema_errors:
                problems.append(Problem(file, f"{at}.{error.path.replace('/', '.')}" if error.path else at, kind,
                                        f"rejected by the Kubernetes {kubernetes_version} schema: {error.message}",
                                        "remove or fix the field; see docs/references.md#dra-api-request-shapes for the resource.k8s.io/v1 shapes"))
            if schema_errors:
                continue
            problems += _read_object(inputs, file, at, document, workloads)
    for file, kind, name, pod in workloads:
        _resolve_pod(inputs, file, kind, name, pod, stack_source)
    return problems


def _read_object(inputs: FitInputs, file: str, at: str, document: Mapping[str, Any],
                 workloads: list[tuple[str, str, str, Mapping[str, Any]]]) -> list[Problem]:
    kind = document["kind"]
    namespace, name = _meta(document)
    problems: list[Problem] = []

    def bad(path: str, value: Any, rule: str, fix: str) -> None:
        problems.append(Problem(file, f"{at}.{path}", value, rule, fix))

    if kind == "DeviceClass":
        spec, spec_problems = parse_device_class(document)
        for path, value, rule, fix in spec_problems:
            bad(path, value, rule, fix)
        if spec is not None:
            _check_cel(spec.selectors, "spec.selectors", bad)
            inputs.add_class(spec, file, override=False)
    elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
        base = "spec.spec.devices" if kind == "ResourceClaimTemplate" else "spec.devices"
        holder = (document.get("spec") or {}).get("spec") if kind == "ResourceClaimTemplate" else document.get("spec")
        spec, spec_problems = parse_claim_spec((holder or {}).get("devices"), base)
        for path, value, rule, fix in spec_problems:
            bad(path, value, rule, fix)
        if spec is not None:
            for r, request in enumerate(spec.requests):
                for s, sub in enumerate(request.alternatives):
                    where = f"{base}.requests[{r}]." + (f"firstAvailable[{s}]" if request.first_available else "exactly")
                    _check_cel(sub.selectors, f"{where}.selectors", bad)
            if not problems:
                inputs.entries.append(ClaimEntry(file, namespace, name, kind, spec))
    elif kind == "ResourceQuota":
        inputs.quotas.setdefault(namespace, []).append(dict((document.get("spec") or {}).get("hard") or {}))
    elif kind == "Namespace":
        inputs.namespaces[name] = dict((document.get("metadata") or {}).get("labels") or {})
    else:
        pod = _pod_spec(document)
        if pod is not None:
            workloads.append((file, kind, f"{namespace}/{name}", pod))
    return problems


def _check_cel(selectors: tuple[str, ...], path: str, bad) -> None:
    for i, expression in enumerate(selectors):
        try:
            compile_selector(expression)
        except CelCompileError as error:
            bad(f"{path}[{i}].cel.expression", expression, f"the API server rejects it: {error}",
                "fix the CEL; attributes are device.attributes['<domain>'].<name>, capacities device.capacity['<domain>'].<name>")


def _pod_spec(document: Mapping[str, Any]) -> Mapping[str, Any] | None:
    kind = document["kind"]
    spec = document.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind == "CronJob":
        spec = ((spec.get("jobTemplate") or {}).get("spec") or {})
    return (spec.get("template") or {}).get("spec")


def _extended_resources(pod: Mapping[str, Any]) -> list[tuple[int, str, int, str]]:
    """(container index, resource, count, container name) of every extended resource a pod asks for."""
    found = []
    containers = list(pod.get("initContainers") or []) + list(pod.get("containers") or [])
    for c, container in enumerate(containers):
        resources = container.get("resources") or {}
        amounts = {**(resources.get("requests") or {}), **(resources.get("limits") or {})}
        for resource, amount in amounts.items():
            domain = resource.split("/", 1)[0] if "/" in resource else ""
            if not domain or (domain.endswith("kubernetes.io") and not resource.startswith(IMPLICIT_EXTENDED_PREFIX)):
                continue
            try:
                count = int(parse_quantity(str(amount)).value)
            except QuantityError:
                count = 1
            found.append((c, resource, count, str(container.get("name") or c)))
    return found


def _resolve_pod(inputs: FitInputs, file: str, kind: str, name: str, pod: Mapping[str, Any], stack_source: str) -> None:
    namespace, pod_name = name.split("/", 1)
    for i, reference in enumerate(pod.get("resourceClaims") or []):
        if not isinstance(reference, Mapping):
            continue
        template, claim = reference.get("resourceClaimTemplateName"), reference.get("resourceClaimName")
        wanted, kinds = (template, ("ResourceClaimTemplate",)) if template else (claim, ("ResourceClaim",))
        if not wanted or inputs.find(namespace, wanted, kinds) is not None:
            continue
        entry = ClaimEntry(file, namespace, wanted, "reference")
        where = "the claim files" + (f" or the stack ({stack_source})" if stack_source else "")
        entry.errors.append(f"{kind} {name} spec.resourceClaims[{i}] ({reference.get('name')}) references {kinds[0]} "
                            f"{namespace}/{wanted}, which is not in {where}; the pod stays Pending")
        inputs.entries.append(entry)
    extended = _extended_resources(pod)
    if not extended:
        return
    requests: list[Request] = []
    unmapped: list[str] = []
    for position, (container, resource, count, _) in enumerate(extended):
        if resource.startswith(IMPLICIT_EXTENDED_PREFIX):
            device_class = resource[len(IMPLICIT_EXTENDED_PREFIX):]
        else:
            device_class = next((c.name for c in inputs.classes.values() if c.extended_resource_name == resource), None)
        if resource == DEVICE_PLUGIN_RESOURCE and inputs.plugin_pools and (device_class is None or not inputs.extended_gate):
            inputs.notes.append(f"{kind} {name}: {resource} is served by the device plugin on pool(s) "
                                f"{', '.join(inputs.plugin_pools)} (not a DRA claim)")
            continue
        if device_class is None:
            unmapped.append(resource)
            continue
        # The scheduler names the requests container-<index>-request-<index> (KEP-5004, upstream examples).
        request_name = f"container-{container}-request-{sum(1 for e in extended[:position] if e[0] == container)}"
        requests.append(Request(request_name, (SubRequest(request_name, None, device_class, (), "ExactCount", max(1, count)),)))
    if not requests and not unmapped:
        return
    entry = ClaimEntry(file, namespace, f"{pod_name}-extended-resources", "extended-resources",
                       ClaimSpec(tuple(requests)) if requests else None, extended_resources=tuple(r for _, r, _, _ in extended))
    for resource in unmapped:
        entry.reasons.append(f"{kind} {name} asks for extended resource {resource}: no DeviceClass has "
                             f"extendedResourceName {resource} and no device plugin here advertises it, so the pod stays Pending")
    inputs.entries.append(entry)
