"""What `gpuplan fit` evaluates: the stack's own DRA objects and the manifests of --claims files.

Claim files are multi-document YAML or JSON. DeviceClass, ResourceClaim, ResourceClaimTemplate, ResourceQuota
and Namespace objects are taken as they are; Services go through the stack's admission policies (externalIPs and the
Service types a tenant namespace may create); Pods and workloads (Deployment, StatefulSet, DaemonSet,
ReplicaSet, Job, CronJob) become pods: their `spec.resourceClaims` in order, one pod per replica, and extended
resources in container limits become the claim the scheduler creates for them (KEP-5004:
`deviceclass.resource.kubernetes.io/<class>`, or a class's extendedResourceName).

Two kinds of problems: a file that cannot be read, an unknown kind or an object that no Kubernetes version
accepts is invalid input (exit 2); an object that the API server of this stack, with these feature gates,
changes or refuses (fields of disabled gates dropped, then validation fails; adminAccess outside an
admin-access namespace) is evaluated and reported as `rejected` (dra_gpu_platform/dra/apiserver.py).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dra_gpu_platform.cel import CelCompileError, compile_selector
from dra_gpu_platform.dra import apiserver, pod_resources
from dra_gpu_platform.dra.claims import (
    ClaimSpec,
    DeviceClassSpec,
    Request,
    SubRequest,
    parse_claim_spec,
    parse_device_class,
)
from dra_gpu_platform.dra.gates import FeatureGates
from dra_gpu_platform.dra.pod_resources import default_requests, extended_requests
from dra_gpu_platform.dra.scheduler import PodClaimRef
from dra_gpu_platform.inputs.problems import MISSING, InputError, Problem
from dra_gpu_platform.inputs.strict_yaml import read_documents_file
from dra_gpu_platform.plans.migration import ADMIN_ACCESS_LABEL

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
    "Service": ("v1",),
}
WORKLOAD_KINDS = ("Pod", "Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job", "CronJob")


@dataclass
class ClaimEntry:
    """One claim or claim template (a row of the report), with what is already known about it."""

    source: str
    namespace: str
    name: str
    kind: str  # ResourceClaimTemplate | ResourceClaim | extended-resources | reference
    spec: ClaimSpec | None = None
    errors: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)
    extended_resources: tuple[str, ...] = ()
    dropped: list[str] = field(default_factory=list)  # fields the API server drops (gates off)
    rejected: list[str] = field(default_factory=list)  # why the API server refuses it
    status: Mapping[str, Any] | None = None  # status of a ResourceClaim read from a cluster dump
    origin: str = "file"  # stack | file | cluster
    request_resources: dict[str, str] = field(default_factory=dict)  # extended claim: request -> its resource
    refusal: Any = None  # the API server's refusal at create (gpuplan/fit/admission.py Refusal), for the row's fix

    @property
    def single(self) -> bool:
        """A ResourceClaim object (or the claim the scheduler makes for one pod) is allocated once."""
        return self.kind in ("ResourceClaim", "extended-resources")


@dataclass
class Workload:
    """A Pod or a workload's pod template: the pods it makes are scheduled one after the other."""

    source: str
    kind: str
    namespace: str
    name: str
    replicas: int | None  # None: one pod per node (DaemonSet)
    claims: tuple[PodClaimRef, ...]
    node_name: str | None = None
    node_selector: Mapping[str, str] = field(default_factory=dict)
    extended: ClaimEntry | None = None
    rejected: list[str] = field(default_factory=list)
    rejected_fix: list[str] = field(default_factory=list)  # what to change, one per entry of `rejected`
    template: Mapping[str, Any] = field(default_factory=dict)  # the pod (or pod template): metadata and spec
    ordered: bool = False  # a StatefulSet with podManagementPolicy OrderedReady


@dataclass
class FitInputs:
    gates: FeatureGates
    classes: dict[str, DeviceClassSpec] = field(default_factory=dict)
    class_sources: dict[str, str] = field(default_factory=dict)
    quotas: dict[str, list[dict[str, Any]]] = field(default_factory=dict)  # namespace -> hard maps
    namespaces: dict[str, dict[str, str]] = field(default_factory=dict)  # namespace -> labels
    taint_rules: list[dict[str, Any]] = field(default_factory=list)
    entries: list[ClaimEntry] = field(default_factory=list)
    workloads: list[Workload] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    api_server: list[dict[str, Any]] = field(default_factory=list)  # what the API server changed or refused
    plugin_pools: tuple[str, ...] = ()  # node pools whose device plugin advertises nvidia.com/gpu
    advertised: dict[str, list[str]] = field(default_factory=dict)  # device-plugin resource -> pools advertising it
    quota_objects: dict[str, list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)  # ns -> (name, hard)
    services: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # (file, Service), in file order

    quota_scopes: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)  # (ns, name) -> scopeSelector

    def add_quota(self, namespace: str, name: str, spec: dict[str, Any]) -> None:
        """A ResourceQuota's spec: its `hard` map, and its scopeSelector when it has one (a scoped quota tracks only
        the objects its scopes match; dra_gpu_platform/dra/quota.py scope_matches)."""
        hard = dict(spec.get("hard") or {})
        scope = spec.get("scopeSelector")
        if scope:
            self.quota_scopes[(namespace, name)] = dict(scope)
        else:  # a scoped quota (pods of a priority class) never limits claims: quota_limit reads unscoped ones only
            self.quotas.setdefault(namespace, []).append(hard)
        self.quota_objects.setdefault(namespace, []).append((name, hard))

    def add_class(self, spec: DeviceClassSpec, source: str, *, override: bool = True) -> None:
        if override or spec.name not in self.classes:
            self.classes[spec.name] = spec
            self.class_sources[spec.name] = source

    def find(self, namespace: str, name: str, kinds: tuple[str, ...]) -> ClaimEntry | None:
        return next((e for e in self.entries if e.namespace == namespace and e.name == name and e.kind in kinds), None)

    def expressions(self) -> set[str]:
        """Every CEL selector of the run (what the inventory's devices are projected onto)."""
        found = {e for c in self.classes.values() for e in c.selectors}
        for entry in self.entries:
            if entry.spec is not None:
                found |= {e for r in entry.spec.requests for s in r.alternatives for e in s.selectors}
        return found

    def constraint_attributes(self) -> set[str]:
        return {c.attribute for e in self.entries if e.spec is not None for c in e.spec.constraints if c.attribute}


def _meta(document: Mapping[str, Any]) -> tuple[str, str]:
    metadata = document.get("metadata") or {}
    return str(metadata.get("namespace") or "default"), str(metadata.get("name") or metadata.get("generateName") or "")


# ---------------------------------------------------------------------------------------------------
# the API server of this stack


def admit_claim(inputs: FitInputs, entry: ClaimEntry, devices: Any, path: str) -> None:
    """Drop what the gates disable, then validate what is left (dra_gpu_platform/dra/apiserver.py); the entry gets the
    spec the API server stores, or `rejected`."""
    kept, dropped = apiserver.drop_claim_spec_fields(devices, path, inputs.gates)
    entry.dropped = apiserver.describe(dropped)
    spec, problems = parse_claim_spec(kept, path, consumable_capacity=inputs.gates.consumable_capacity)
    if problems:
        entry.spec = None
        entry.rejected = [f"{p}: {rule}" for p, _, rule, _ in problems]
    else:
        entry.spec = spec
    if entry.dropped or entry.rejected:
        inputs.api_server.append(
            {
                "object": f"{entry.kind} {entry.namespace}/{entry.name}",
                "source": entry.source,
                "dropped": entry.dropped,
                "rejected": entry.rejected,
            }
        )


def check_admin_namespaces(inputs: FitInputs) -> None:
    """validateAdminAccess (pkg/registry/resource/resourceclaim/strategy.go): adminAccess only in a namespace
    labelled resource.kubernetes.io/admin-access: "true" (checked once every file is read)."""
    for entry in inputs.entries:
        labels = inputs.namespaces.get(entry.namespace)
        if (
            entry.spec is None
            or not entry.spec.admin_access
            or labels is None
            or labels.get(ADMIN_ACCESS_LABEL) == "true"
        ):
            continue
        reason = (
            f"admin access to devices is not allowed in namespace {entry.namespace} without the DRA Admin Access "
            f'label ({ADMIN_ACCESS_LABEL}: "true")'
        )
        entry.rejected.append(reason)
        inputs.api_server.append(
            {
                "object": f"{entry.kind} {entry.namespace}/{entry.name}",
                "source": entry.source,
                "dropped": [],
                "rejected": [reason],
            }
        )


def _admit_class(inputs: FitInputs, document: Mapping[str, Any], source: str) -> Mapping[str, Any]:
    kept, dropped = apiserver.drop_device_class_fields(document, inputs.gates)
    if dropped:
        inputs.api_server.append(
            {
                "object": f"DeviceClass {_meta(document)[1]}",
                "source": source,
                "dropped": apiserver.describe(dropped),
                "rejected": [],
            }
        )
    return kept


def add_stack_objects(
    inputs: FitInputs,
    documents: list[dict[str, Any]],
    chart_classes: list[dict[str, Any]],
    source: str,
    *,
    cluster_classes: list[dict[str, Any]] = (),
) -> None:
    """The stack's DeviceClasses, claim templates, shared claims, quotas, namespaces and DeviceTaintRules, the
    classes of a cluster dump (what exists) and those the driver chart creates by itself (filled in when missing)."""
    for document in cluster_classes:
        spec, _ = parse_device_class(document)
        if spec is not None:
            inputs.add_class(spec, "cluster")
    for document in chart_classes:
        spec, _ = parse_device_class(_admit_class(inputs, document, "driver chart"))
        if spec is not None:
            inputs.add_class(spec, "driver chart", override=False)
    for document in documents:
        kind = document.get("kind")
        namespace, name = _meta(document)
        if kind == "DeviceClass":
            spec, _ = parse_device_class(_admit_class(inputs, document, source))
            if spec is not None:
                inputs.add_class(spec, source)
        elif kind == "ResourceQuota":
            inputs.add_quota(namespace, name, dict(document.get("spec") or {}))
        elif kind == "Namespace":
            inputs.namespaces[name] = dict((document.get("metadata") or {}).get("labels") or {})
        elif kind == "DeviceTaintRule":
            inputs.taint_rules.append(document)
    for document in sorted((d for d in documents if d.get("kind") == "ResourceClaimTemplate"), key=_meta):
        namespace, name = _meta(document)
        entry = ClaimEntry(source, namespace, name, "ResourceClaimTemplate", origin="stack")
        admit_claim(inputs, entry, ((document.get("spec") or {}).get("spec") or {}).get("devices"), "spec.spec.devices")
        inputs.entries.append(entry)
    # The stack's shared claims (namespaces[].sharedClaims): one ResourceClaim, one allocation for every pod
    # that names it in resourceClaimName.
    for document in sorted((d for d in documents if d.get("kind") == "ResourceClaim"), key=_meta):
        namespace, name = _meta(document)
        entry = ClaimEntry(source, namespace, name, "ResourceClaim", origin="stack")
        admit_claim(inputs, entry, (document.get("spec") or {}).get("devices"), "spec.devices")
        inputs.entries.append(entry)


# ---------------------------------------------------------------------------------------------------
# files


def read_documents(path: Path) -> tuple[list[Any], list[Problem]]:
    """YAML documents, or one JSON document (a `kubectl ... -o json` dump parses far faster as JSON; a top-level JSON
    array is a list of documents), read strictly (dra_gpu_platform/inputs/strict_yaml.py: regular UTF-8 files within
    limits, no duplicate keys, bounded aliases), or the problems that stopped it."""
    try:
        return read_documents_file(
            path, missing_fix="check the path given to --claims/--inventory", json_array_is_documents=True
        ), []
    except InputError as error:
        return [], list(error.problems)


def add_claim_files(inputs: FitInputs, paths: list[Path], kubernetes_version: str, stack_source: str) -> list[Problem]:
    """Read every claim file into `inputs`; returns the problems (invalid input) of all of them."""
    from gpuplan.checks.kube_validate import validate_document

    problems: list[Problem] = []
    pods: list[tuple[str, str, Mapping[str, Any]]] = []  # (file, at, document)
    for path in paths:
        file = str(path)
        documents, read_problems = read_documents(path)
        problems += read_problems
        for index, document in enumerate(_items(documents)):
            if document is None:
                continue
            at = f"documents[{index}]"
            if not isinstance(document, Mapping) or not isinstance(document.get("kind"), str):
                problems.append(
                    Problem(
                        file,
                        at,
                        document if not isinstance(document, Mapping) else document.get("kind", MISSING),
                        "not a Kubernetes object (no kind)",
                        "each YAML document needs apiVersion, kind and metadata",
                    )
                )
                continue
            kind, api = document["kind"], document.get("apiVersion")
            _namespace, name = _meta(document)
            at = f"documents[{index}] ({kind} {name})"
            if kind not in _KINDS:
                problems.append(
                    Problem(
                        file,
                        f"{at}.kind",
                        kind,
                        "gpuplan fit does not read this kind",
                        f"pass only {', '.join(_KINDS)} manifests",
                    )
                )
                continue
            if api not in _KINDS[kind]:
                problems.append(
                    Problem(
                        file,
                        f"{at}.apiVersion",
                        api if api is not None else MISSING,
                        f"{kind} must be {' or '.join(_KINDS[kind])}",
                        f"use apiVersion: {_KINDS[kind][0]}",
                    )
                )
                continue
            schema_errors = validate_document(dict(document), f"{kubernetes_version}.0", file)
            for error in schema_errors:
                problems.append(
                    Problem(
                        file,
                        f"{at}.{error.path.replace('/', '.')}" if error.path else at,
                        kind,
                        f"rejected by the Kubernetes {kubernetes_version} schema: {error.message}",
                        "remove or fix the field; see docs/references.md#dra-api-request-shapes for the resource.k8s.io/v1 shapes",
                    )
                )
            if schema_errors:
                continue
            if kind in WORKLOAD_KINDS:
                pods.append((file, at, document))
            elif kind == "Service":
                inputs.services.append((file, dict(document)))
            else:
                problems += _read_object(inputs, file, at, document)
    for file, _, document in pods:
        _read_workload(inputs, file, document, stack_source)
    return problems


def _items(documents: list[Any]) -> list[Any]:
    result = []
    for document in documents:
        if isinstance(document, Mapping) and document.get("kind") == "List" and isinstance(document.get("items"), list):
            result.extend(document["items"])
        else:
            result.append(document)
    return result


def _read_object(inputs: FitInputs, file: str, at: str, document: Mapping[str, Any]) -> list[Problem]:
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
            if not problems:
                admitted, _ = parse_device_class(_admit_class(inputs, document, file))
                inputs.add_class(admitted or spec, file, override=False)
    elif kind in ("ResourceClaim", "ResourceClaimTemplate"):
        base = "spec.spec.devices" if kind == "ResourceClaimTemplate" else "spec.devices"
        holder = (document.get("spec") or {}).get("spec") if kind == "ResourceClaimTemplate" else document.get("spec")
        devices = (holder or {}).get("devices")
        spec, spec_problems = parse_claim_spec(devices, base)  # what some Kubernetes accepts: all gates on
        for path, value, rule, fix in spec_problems:
            bad(path, value, rule, fix)
        if spec is not None:
            for r, request in enumerate(spec.requests):
                for s, sub in enumerate(request.alternatives):
                    where = f"{base}.requests[{r}]." + (
                        f"firstAvailable[{s}]" if request.first_available else "exactly"
                    )
                    _check_cel(sub.selectors, f"{where}.selectors", bad)
            if not problems:
                entry = ClaimEntry(file, namespace, name, kind)
                admit_claim(inputs, entry, devices, base)
                inputs.entries.append(entry)
    elif kind == "ResourceQuota":
        inputs.add_quota(namespace, name, dict(document.get("spec") or {}))
    elif kind == "Namespace":
        inputs.namespaces[name] = dict((document.get("metadata") or {}).get("labels") or {})
    return problems


def _check_cel(selectors: tuple[str, ...], path: str, bad) -> None:
    for i, expression in enumerate(selectors):
        try:
            compile_selector(expression)
        except CelCompileError as error:
            bad(
                f"{path}[{i}].cel.expression",
                expression,
                f"the API server rejects it: {error}",
                "fix the CEL; attributes are device.attributes['<domain>'].<name>, capacities device.capacity['<domain>'].<name>",
            )


def _pod_spec(document: Mapping[str, Any]) -> Mapping[str, Any]:
    kind = document["kind"]
    spec = document.get("spec") or {}
    if kind == "Pod":
        return spec
    if kind == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    return (spec.get("template") or {}).get("spec") or {}


def _replicas(document: Mapping[str, Any]) -> int | None:
    """Pods the controller keeps at once: replicas (default 1); a Job's min(parallelism, completions) with the
    API's defaults (both unset: 1; completions unset: parallelism), none while suspended (job controller
    manageJob); a DaemonSet: one per eligible node (None)."""
    kind = document["kind"]
    spec = document.get("spec") or {}
    if kind == "Pod":
        return 1
    if kind == "DaemonSet":
        return None
    if kind in ("Job", "CronJob"):
        job = ((spec.get("jobTemplate") or {}).get("spec") or {}) if kind == "CronJob" else spec
        if job.get("suspend") is True:
            return 0
        parallelism, completions = job.get("parallelism"), job.get("completions")
        parallelism = 1 if parallelism is None else int(parallelism)
        return parallelism if completions is None else max(0, min(parallelism, int(completions)))
    value = spec.get("replicas")
    return 1 if value is None else int(value)


def _template(document: Mapping[str, Any]) -> dict[str, Any]:
    """The pod a controller creates (or the Pod itself): its metadata labels and spec."""
    if document["kind"] == "Pod":
        return {"metadata": dict(document.get("metadata") or {}), "spec": dict(document.get("spec") or {})}
    spec = document.get("spec") or {}
    if document["kind"] == "CronJob":
        spec = (spec.get("jobTemplate") or {}).get("spec") or {}
    template = spec.get("template") or {}
    return {"metadata": dict(template.get("metadata") or {}), "spec": dict(template.get("spec") or {})}


def _read_workload(inputs: FitInputs, file: str, document: Mapping[str, Any], stack_source: str) -> None:
    kind = document["kind"]
    namespace, name = _meta(document)
    pod = _pod_spec(document)
    refs: list[PodClaimRef] = []
    rejected: list[str] = []
    rejected_fix: list[str] = []
    names = set()
    for i, reference in enumerate(pod.get("resourceClaims") or []):
        if not isinstance(reference, Mapping):
            continue
        claim_name = str(reference.get("name"))
        names.add(claim_name)
        template, claim = reference.get("resourceClaimTemplateName"), reference.get("resourceClaimName")
        refs.append(PodClaimRef(claim_name, claim, template))
        wanted, kinds = (template, ("ResourceClaimTemplate",)) if template else (claim, ("ResourceClaim",))
        if wanted and inputs.find(namespace, wanted, kinds) is None:
            entry = ClaimEntry(file, namespace, wanted, "reference")
            where = "the claim files" + (f" or the stack ({stack_source})" if stack_source else "")
            entry.reasons.append(
                f"{kind} {namespace}/{name} spec.resourceClaims[{i}] ({claim_name}) references {kinds[0]} "
                f"{namespace}/{wanted}, which is not in {where}; the pod stays Pending"
            )
            inputs.entries.append(entry)
    for c, container in enumerate(list(pod.get("initContainers") or []) + list(pod.get("containers") or [])):
        for use in (container.get("resources") or {}).get("claims") or []:
            if isinstance(use, Mapping) and use.get("name") not in names:
                rejected.append(
                    f"container {container.get('name', c)} resources.claims {use.get('name')}: must be the name of "
                    "one entry in pod.spec.resourceClaims"
                )
                rejected_fix.append(
                    f"add an entry named {use.get('name')} to spec.resourceClaims of the pod"
                    + (" template" if kind != "Pod" else "")
                    + f", or drop it from container {container.get('name', c)}'s resources.claims"
                )
    workload = Workload(
        file,
        kind,
        namespace,
        name,
        _replicas(document),
        tuple(refs),
        pod.get("nodeName"),
        dict(pod.get("nodeSelector") or {}),
        rejected=rejected,
        rejected_fix=rejected_fix,
        template=_template(document),
        ordered=kind == "StatefulSet"
        and (document.get("spec") or {}).get("podManagementPolicy", "OrderedReady") == "OrderedReady",
    )
    workload.extended = _extended_claim(inputs, file, kind, f"{namespace}/{name}", pod)
    inputs.workloads.append(workload)


def _extended_claim(inputs: FitInputs, file: str, kind: str, name: str, pod: Mapping[str, Any]) -> ClaimEntry | None:
    """The claim the scheduler makes for a pod's DRA-extended resources (KEP-5004), as a claim row: one request per
    container and resource, named as createDeviceRequests names them; resources that no class maps and a device plugin
    advertises are the device plugin's (NodeResourcesFit), not a claim's."""
    namespace, pod_name = name.split("/", 1)
    spec = default_requests({"spec": pod})["spec"]
    extended = extended_requests(spec)
    if not extended:
        return None
    requests: list[Request] = []
    unmapped: list[str] = []
    resources: dict[str, str] = {}
    for container, resource, count in extended:
        if resource.startswith(IMPLICIT_EXTENDED_PREFIX):
            device_class = resource[len(IMPLICIT_EXTENDED_PREFIX) :]
        else:
            device_class = next((c.name for c in inputs.classes.values() if c.extended_resource_name == resource), None)
        pools = inputs.advertised.get(resource)
        if pools and (device_class is None or not inputs.gates.extended_resource):
            inputs.notes.append(
                f"{kind} {name}: {resource} is served by the device plugin on pool(s) {', '.join(pools)} (not a DRA claim)"
            )
            continue
        if device_class is None:
            unmapped.append(resource)
            continue
        request_name = pod_resources.request_name(spec, container, resource)
        resources[request_name] = resource
        requests.append(
            Request(request_name, (SubRequest(request_name, None, device_class, (), "ExactCount", max(1, count)),))
        )
    if not requests and not unmapped:
        return None
    entry = ClaimEntry(
        file,
        namespace,
        f"{pod_name}-extended-resources",
        "extended-resources",
        ClaimSpec(tuple(requests)) if requests else None,
        extended_resources=tuple(r for _, r, _ in extended),
        request_resources=resources,
    )
    for resource in unmapped:
        entry.reasons.append(
            f"{kind} {name} asks for extended resource {resource}: no DeviceClass has "
            f"extendedResourceName {resource} and no device plugin here advertises it, so the pod stays Pending"
        )
    inputs.entries.append(entry)
    return entry
